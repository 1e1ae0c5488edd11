/* Turns what the passes learned about one file into its directives: the
 * textual pragmas and the `_Pragma` directives of the OpenMP parse, each
 * with its body, enclosing function, clauses, and the reference analysis
 * (which map items the body uses, which variables it maps implicitly).
 * Everything kept is copied into the index's pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "directives_internal.h"

#define NONE OMPLENS_DIRECTIVES__NONE

typedef omplens_directives__span span;
typedef omplens_directives__file_work file_work;
typedef omplens_directives__item_draft item_draft;

typedef struct implicit_draft {
  const char *var;
  int category, treatment, map_type;
  uint32_t offset;
  size_t covered_by; /* draft index, or NONE */
} implicit_draft;

typedef struct draft {
  char *text;            /* owned when own_text */
  const uint32_t *pos;   /* source offset per text char, or NULL */
  uint32_t len;
  bool own_text;
  omplens_directives__parsed parsed;
  unsigned flags;
  const char *macro;
  uint32_t pragma_begin, pragma_end;
  span body;             /* begin NONE: no body */
  uint32_t stmt_begin;   /* first statement past nested pragmas, or NONE */
  const char *function;
  int *item_use;
  int *item_callees;     /* per item: callees_may_use */
  omplens_directives__vec implicit; /* implicit_draft */
} draft;

typedef struct builder {
  omplens_directives__unit *u;
  file_work *fw;
  omplens_directives__vec drafts;   /* draft */
  span *ast_body;                   /* per pragma, chains resolved */
  omplens_directives__vec dt_ranges;/* span: declare target regions */
  omplens_directives__vec dt_names; /* char *: declare target lists */
  bool partial;
  /* The file's references and calls by offset, so that a directive reads
   * those in its body, not the whole file's (analyse_all). */
  uint64_t *refs_at;  /* offset << 32 | index, sorted */
  uint32_t *calls_at; /* sorted */
  uint32_t *window;   /* scratch: the indices in one body */
  /* The file's functions by where they begin, and how far the first k of
   * them reach (the latest end among them), for function_at. */
  uint32_t *fn_order;
  uint32_t *fn_reach;
} builder;

static bool in_span(span s, uint32_t at)
{
  return s.begin != NONE && at >= s.begin && at < s.end;
}

static const char *sub(const draft *d, span s, char *buf, size_t size)
{
  size_t n = s.end - s.begin < size - 1 ? s.end - s.begin : size - 1;
  memcpy(buf, d->text + s.begin, n);
  buf[n] = '\0';
  return buf;
}

/* ---- bodies ---- */

/* A pragma directly followed by another pragma applies to that one and its
 * statement (`target` over `teams` ...): resolved back to front. */
static int resolve_bodies(builder *b)
{
  const file_work *fw = b->fw;
  size_t n = fw->scan.pragmas.len;
  b->ast_body = malloc((n > 0 ? n : 1) * sizeof(*b->ast_body));
  if (b->ast_body == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  const omplens_directives__pragma *p = fw->scan.pragmas.data;
  for (size_t k = n; k-- > 0;) {
    span s = fw->stmt[k];
    b->ast_body[k] = s;
    if (k + 1 < n && (s.begin == NONE || p[k + 1].begin < s.begin) &&
        b->ast_body[k + 1].begin != NONE &&
        omplens_directives__takes_body(p[k + 1].text, p[k + 1].len))
      b->ast_body[k] = (span){p[k + 1].begin, b->ast_body[k + 1].end};
  }
  return 0;
}

static span pragma_body(const builder *b, uint32_t k)
{
  span text = {NONE, NONE};
  if (!omplens_directives__text_statement(&b->fw->src, &b->fw->scan, k,
                                          &text.begin, &text.end))
    text = (span){NONE, NONE};
  span ast = b->ast_body[k];
  /* A file libclang parsed cleanly is trusted; with errors a statement may
   * be missing from its tree, and the tokens know better. */
  if (ast.begin != NONE && (!b->partial || text.begin == NONE))
    return ast;
  return text;
}

/* ---- drafts ---- */

static bool skipped(const file_work *fw, uint32_t offset)
{
  for (size_t i = 0; i < fw->skipped.len; i++)
    if (in_span(OMPLENS_DIRECTIVES__AT(fw->skipped, span, i), offset))
      return true;
  return false;
}

static const omplens_directives__ast_directive *ast_at(const file_work *fw,
                                                       uint32_t begin)
{
  for (size_t i = 0; i < fw->ast_dirs.len; i++) {
    const omplens_directives__ast_directive *d =
        &OMPLENS_DIRECTIVES__AT(fw->ast_dirs, omplens_directives__ast_directive, i);
    if (d->begin == begin)
      return d;
  }
  return NULL;
}

static void drop_draft(draft *d)
{
  omplens_directives__parsed_free(&d->parsed);
  if (d->own_text)
    free(d->text);
}

/* Keeps d if its text is a target directive; d is consumed either way. */
static int push_draft(builder *b, draft *d)
{
  if (omplens_directives__parse_pragma(d->text, d->len, &d->parsed) != 0) {
    drop_draft(d);
    return OMPLENS_DIRECTIVES_ENOMEM;
  }
  if (d->parsed.kind == 0) {
    drop_draft(d);
    return 0;
  }
  if (omplens_directives__vec_push(&b->drafts, sizeof(*d), d) == NULL) {
    drop_draft(d);
    return OMPLENS_DIRECTIVES_ENOMEM;
  }
  return 0;
}

static int text_drafts(builder *b)
{
  const file_work *fw = b->fw;
  for (uint32_t k = 0; k < fw->scan.pragmas.len; k++) {
    const omplens_directives__pragma *p =
        &OMPLENS_DIRECTIVES__AT(fw->scan.pragmas, omplens_directives__pragma, k);
    if (!p->omp)
      continue;
    /* Kept even where this parse's macros leave it out: the build's may
     * not, and the runtime's line then names it. */
    bool seen = ast_at(fw, p->begin) != NULL;
    bool left_out = skipped(fw, p->begin);
    draft d = {.text = p->text, .pos = p->pos, .len = p->len,
               .pragma_begin = p->begin, .pragma_end = p->end};
    d.flags = (p->operator_form ? OMPLENS_DIRF_MACRO : 0) |
              ((b->partial && !seen) || left_out ? OMPLENS_DIRF_TEXT_ONLY : 0) |
              (left_out ? OMPLENS_DIRF_INACTIVE : 0);
    d.body = omplens_directives__takes_body(p->text, p->len) ? pragma_body(b, k)
                                                             : (span){NONE, NONE};
    d.stmt_begin = d.body.begin == NONE
                       ? NONE
                       : omplens_directives__text_after_pragmas(&fw->scan, d.body.begin);
    int err = push_draft(b, &d);
    if (err != 0)
      return err;
  }
  return 0;
}

static bool is_textual(const file_work *fw, uint32_t begin)
{
  for (size_t k = 0; k < fw->scan.pragmas.len; k++)
    if (OMPLENS_DIRECTIVES__AT(fw->scan.pragmas, omplens_directives__pragma, k)
            .begin == begin)
      return true;
  return false;
}

/* "#pragma omp NAME" when the macro's text cannot be rebuilt. */
static char *kind_only(int cursor_kind)
{
  const char *name = omplens_directives__cursor_name(cursor_kind);
  size_t n = strlen(name) + 13;
  char *t = malloc(n);
  if (t != NULL)
    snprintf(t, n, "#pragma omp %s", name);
  return t;
}

/* Whether text was rebuilt into the directive libclang saw (kind 0: the
 * OpenMP parse did not see it, any target directive will do). */
static bool text_usable(const char *text, int cursor_kind)
{
  omplens_directives__parsed probe;
  if (text == NULL ||
      omplens_directives__parse_pragma(text, (uint32_t)strlen(text), &probe) != 0)
    return false;
  const char *name = omplens_directives__cursor_name(cursor_kind);
  bool usable = name == NULL ? probe.kind != 0
                             : probe.name.end - probe.name.begin == strlen(name) &&
                                   memcmp(text + probe.name.begin, name, strlen(name)) == 0;
  omplens_directives__parsed_free(&probe);
  return usable;
}

static int macro_draft(builder *b, const omplens_directives__ast_directive *a)
{
  const char *macro = NULL;
  draft d = {.own_text = true, .pragma_begin = a->begin, .pragma_end = a->end,
             .body = {a->begin, a->end}, .flags = OMPLENS_DIRF_MACRO};
  d.text = omplens_directives__macro_text(b->u, b->fw, a, &macro);
  if (!text_usable(d.text, a->cursor_kind)) {
    free(d.text);
    if (a->cursor_kind == 0) /* nothing says it is a target directive */
      return 0;
    d.text = kind_only(a->cursor_kind);
    d.flags |= OMPLENS_DIRF_TEXT_INCOMPLETE;
  }
  if (d.text == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  d.len = (uint32_t)strlen(d.text);
  d.macro = macro;
  if (!omplens_directives__takes_body(d.text, d.len))
    d.body = (span){NONE, NONE};
  d.stmt_begin = d.body.begin;
  return push_draft(b, &d);
}

static int macro_drafts(builder *b)
{
  const file_work *fw = b->fw;
  for (size_t i = 0; i < fw->ast_dirs.len; i++) {
    const omplens_directives__ast_directive *a =
        &OMPLENS_DIRECTIVES__AT(fw->ast_dirs, omplens_directives__ast_directive, i);
    if (is_textual(fw, a->begin))
      continue;
    int err = macro_draft(b, a);
    if (err != 0)
      return err;
  }
  return 0;
}

/* Pragma macros the OpenMP parse could not see: used inside another
 * region, whose body the C API hides, or in a file it failed on. */
static int hidden_macro_drafts(builder *b)
{
  const file_work *fw = b->fw;
  for (size_t i = 0; i < fw->macro_uses.len; i++) {
    const omplens_directives__macro_use *m =
        &OMPLENS_DIRECTIVES__AT(fw->macro_uses, omplens_directives__macro_use, i);
    omplens_directives__ast_directive a = {0, m->begin, m->end, NULL, 0};
    if (ast_at(fw, m->begin) != NULL || is_textual(fw, m->begin) ||
        !omplens_directives__macro_spelling(b->u, m->name, &a.spelling_file,
                                            &a.spelling_offset))
      continue;
    int err = macro_draft(b, &a);
    if (err != 0)
      return err;
  }
  return b->u->oom ? OMPLENS_DIRECTIVES_ENOMEM : 0;
}

static int by_position(const void *x, const void *y)
{
  const draft *a = x, *b = y;
  if (a->pragma_begin != b->pragma_begin)
    return a->pragma_begin < b->pragma_begin ? -1 : 1;
  return (a->parsed.kind > b->parsed.kind) - (a->parsed.kind < b->parsed.kind);
}

/* ---- functions and declare target ---- */

static const omplens_directives__function *function_of(const file_work *fw, uint32_t i)
{
  return &OMPLENS_DIRECTIVES__AT(fw->functions, omplens_directives__function, i);
}

static int by_begin(const void *x, const void *y, void *ctx)
{
  uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
  uint32_t a = function_of(ctx, i)->begin, b = function_of(ctx, j)->begin;
  if (a != b)
    return a < b ? -1 : 1;
  return (i > j) - (i < j);
}

/* fn_order and fn_reach; false without memory. */
static bool index_functions(builder *b)
{
  size_t n = b->fw->functions.len;
  b->fn_order = malloc((n + 1) * sizeof(*b->fn_order));
  b->fn_reach = malloc((n + 1) * sizeof(*b->fn_reach));
  if (b->fn_order == NULL || b->fn_reach == NULL)
    return false;
  for (size_t i = 0; i < n; i++)
    b->fn_order[i] = (uint32_t)i;
  qsort_r(b->fn_order, n, sizeof(*b->fn_order), by_begin, b->fw);
  for (size_t k = 0; k < n; k++) {
    uint32_t end = function_of(b->fw, b->fn_order[k])->end;
    b->fn_reach[k] = k > 0 && b->fn_reach[k - 1] > end ? b->fn_reach[k - 1] : end;
  }
  return true;
}

/* The innermost function holding offset (the latest to begin), or NULL:
 * back from the last to begin at or before offset, while any before still
 * reaches past it. A file with thousands of functions and directives asks
 * for each directive. */
static const omplens_directives__function *function_holding(const builder *b,
                                                             uint32_t offset)
{
  const file_work *fw = b->fw;
  size_t lo = 0, hi = fw->functions.len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (function_of(fw, b->fn_order[mid])->begin <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t k = lo; k-- > 0 && b->fn_reach[k] > offset;) {
    const omplens_directives__function *f = function_of(fw, b->fn_order[k]);
    if (offset < f->end)
      return f;
  }
  return NULL;
}

static const char *function_at(const builder *b, uint32_t offset)
{
  const omplens_directives__function *f = function_holding(b, offset);
  return f != NULL ? f->name : NULL;
}

static bool starts_with(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ident_start(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Every name inside the parentheses of `declare target(list)` and of its
 * to/enter/link clauses. */
static int add_dt_names(builder *b, const char *t)
{
  int depth = 0;
  for (const char *p = t; *p != '\0';) {
    depth += (*p == '(') - (*p == ')');
    if (depth <= 0 || !ident_start(*p)) {
      p++;
      continue;
    }
    const char *e = p;
    while (ident_start(*e) || (*e >= '0' && *e <= '9'))
      e++;
    char *name = omplens_directives__strndup(p, (size_t)(e - p));
    if (name == NULL ||
        !omplens_directives__vec_push(&b->dt_names, sizeof(name), &name)) {
      free(name);
      return OMPLENS_DIRECTIVES_ENOMEM;
    }
    p = e;
  }
  return 0;
}

/* Globals made device-resident by `declare target` are not mapped. */
static int declare_target(builder *b)
{
  const file_work *fw = b->fw;
  uint32_t open = NONE;
  for (size_t k = 0; k < fw->scan.pragmas.len; k++) {
    const omplens_directives__pragma *p =
        &OMPLENS_DIRECTIVES__AT(fw->scan.pragmas, omplens_directives__pragma, k);
    const char *t = p->text;
    bool begin = starts_with(t, "#pragma omp begin declare target") ||
                 strcmp(t, "#pragma omp declare target") == 0;
    if (begin && open == NONE)
      open = p->end;
    else if (starts_with(t, "#pragma omp end declare target") && open != NONE) {
      span s = {open, p->begin};
      open = NONE;
      if (!omplens_directives__vec_push(&b->dt_ranges, sizeof(s), &s))
        return OMPLENS_DIRECTIVES_ENOMEM;
    } else if (starts_with(t, "#pragma omp declare target") &&
               add_dt_names(b, t) != 0)
      return OMPLENS_DIRECTIVES_ENOMEM;
  }
  return 0;
}

/* A variable declared in a function (a parameter, a local) is the
 * function's own, also in a function compiled for the device: only
 * namespace-scope variables are made device-resident. */
static bool device_resident(const builder *b, const omplens_directives__ref *r)
{
  if (r->decl_offset != NONE && function_at(b, r->decl_offset) != NULL)
    return false;
  for (size_t i = 0; i < b->dt_ranges.len; i++)
    if (r->decl_offset != NONE &&
        in_span(OMPLENS_DIRECTIVES__AT(b->dt_ranges, span, i), r->decl_offset))
      return true;
  for (size_t i = 0; i < b->dt_names.len; i++)
    if (strcmp(OMPLENS_DIRECTIVES__AT(b->dt_names, char *, i), r->name) == 0)
      return true;
  return false;
}

/* ---- reference analysis ---- */

static bool is_loop_var(const file_work *fw, uint32_t offset)
{
  for (size_t i = 0; i < fw->loop_vars.len; i++)
    if (OMPLENS_DIRECTIVES__AT(fw->loop_vars, uint32_t, i) == offset)
      return true;
  return false;
}

/* References in the body to variables declared outside it. */
static bool outer_ref(const draft *d, const omplens_directives__ref *r)
{
  return in_span(d->body, r->offset) && !in_span(d->body, r->decl_offset);
}

static bool span_names(const draft *d, span v, const char *name)
{
  size_t n = strlen(name);
  return v.begin != NONE && v.end - v.begin == n &&
         memcmp(d->text + v.begin, name, n) == 0;
}

/* The clause kind that lists name (0 for none, -1 for a map item). */
static int listed_as(const draft *d, const char *name)
{
  const omplens_directives__parsed *p = &d->parsed;
  for (size_t i = 0; i < p->items.len; i++)
    if (span_names(d, OMPLENS_DIRECTIVES__AT(p->items, item_draft, i).var, name))
      return -1;
  for (size_t i = 0; i < p->listed.len; i++) {
    const omplens_directives__listed *l =
        &OMPLENS_DIRECTIVES__AT(p->listed, omplens_directives__listed, i);
    if (span_names(d, l->var, name))
      return l->clause_kind == OMPLENS_CLAUSE_OTHER ? OMPLENS_CLAUSE_REDUCTION
                                                     : l->clause_kind;
  }
  return 0;
}

static int slot_of(int category)
{
  switch (category) {
  case OMPLENS_VAR_SCALAR:
    return OMPLENS_DIRECTIVES__DM_SCALAR;
  case OMPLENS_VAR_AGGREGATE:
    return OMPLENS_DIRECTIVES__DM_AGGREGATE;
  case OMPLENS_VAR_POINTER:
    return OMPLENS_DIRECTIVES__DM_POINTER;
  default:
    return -1;
  }
}

/* OpenMP 5.x implicit data-mapping rules, with defaultmap applied. */
static void treat(const draft *d, implicit_draft *im, int listed)
{
  im->map_type = OMPLENS_MAP_NONE;
  if (listed == OMPLENS_CLAUSE_REDUCTION) { /* reduction, lastprivate, linear
                                              on a combined target: tofrom */
    im->treatment = OMPLENS_IMPLICIT_MAP;
    im->map_type = OMPLENS_MAP_TOFROM;
    return;
  }
  int slot = slot_of(im->category);
  int behaviour = slot >= 0 ? d->parsed.dm_behaviour[slot]
                            : OMPLENS_DIRECTIVES__DM_DEFAULT_RULE;
  if (behaviour == OMPLENS_DIRECTIVES__DM_MAP) {
    im->treatment = OMPLENS_IMPLICIT_MAP;
    im->map_type = d->parsed.dm_map_type[slot];
  } else if (behaviour == OMPLENS_DIRECTIVES__DM_FIRSTPRIVATE) {
    im->treatment = OMPLENS_IMPLICIT_FIRSTPRIVATE;
  } else if (behaviour == OMPLENS_DIRECTIVES__DM_NONE) {
    im->treatment = OMPLENS_IMPLICIT_UNKNOWN;
  } else if (im->category == OMPLENS_VAR_SCALAR) {
    im->treatment = OMPLENS_IMPLICIT_FIRSTPRIVATE;
  } else if (im->category == OMPLENS_VAR_AGGREGATE) {
    im->treatment = OMPLENS_IMPLICIT_MAP;
    im->map_type = OMPLENS_MAP_TOFROM;
  } else {
    im->treatment = im->category == OMPLENS_VAR_POINTER ? OMPLENS_IMPLICIT_POINTER
                                                        : OMPLENS_IMPLICIT_UNKNOWN;
  }
}

static bool has_implicit(const draft *d, const char *name)
{
  for (size_t i = 0; i < d->implicit.len; i++)
    if (strcmp(OMPLENS_DIRECTIVES__AT(d->implicit, implicit_draft, i).var, name) == 0)
      return true;
  return false;
}

static bool among(const omplens_directives__vec *names, const char *name)
{
  for (size_t i = 0; i < names->len; i++)
    if (strcmp(OMPLENS_DIRECTIVES__AT(*names, const char *, i), name) == 0)
      return true;
  return false;
}

static int consider_implicit(const builder *b, draft *d,
                             const omplens_directives__ref *r,
                             const omplens_directives__vec *loop_vars)
{
  int listed = listed_as(d, r->name);
  bool excluded = listed == -1 || (listed != 0 && listed != OMPLENS_CLAUSE_REDUCTION);
  if (excluded || has_implicit(d, r->name) || device_resident(b, r) ||
      among(loop_vars, r->name))
    return 0;
  implicit_draft im = {r->name, r->category, 0, 0, r->offset, NONE};
  treat(d, &im, listed);
  return omplens_directives__vec_push(&d->implicit, sizeof(im), &im)
             ? 0
             : OMPLENS_DIRECTIVES_ENOMEM;
}

static void mark_uses(draft *d, const omplens_directives__ref *r)
{
  const omplens_directives__parsed *p = &d->parsed;
  for (size_t i = 0; i < p->items.len; i++)
    if (span_names(d, OMPLENS_DIRECTIVES__AT(p->items, item_draft, i).var, r->name))
      d->item_use[i] = OMPLENS_USE_REFERENCED;
}

/* Without a full parse a name in the body's tokens counts as a use: an item
 * is called unused only when neither the tree nor the text names it. */
static void text_uses(const builder *b, draft *d)
{
  const omplens_directives__parsed *p = &d->parsed;
  char name[256];
  for (size_t i = 0; i < p->items.len; i++) {
    const item_draft *it = &OMPLENS_DIRECTIVES__AT(p->items, item_draft, i);
    if (d->item_use[i] != OMPLENS_USE_UNREFERENCED || it->var.begin == NONE)
      continue;
    if (omplens_directives__text_names(&b->fw->src, &b->fw->scan, d->body.begin,
                                       d->body.end, sub(d, it->var, name, sizeof(name))))
      d->item_use[i] = OMPLENS_USE_REFERENCED;
  }
}

static void init_uses(draft *d)
{
  const omplens_directives__parsed *p = &d->parsed;
  for (size_t i = 0; i < p->items.len; i++) {
    const item_draft *it = &OMPLENS_DIRECTIVES__AT(p->items, item_draft, i);
    bool unknown = d->body.begin == NONE || it->var.begin == NONE ||
                   span_names(d, it->var, "this") || it->clause_kind != OMPLENS_CLAUSE_MAP;
    d->item_use[i] = unknown ? OMPLENS_USE_UNKNOWN : OMPLENS_USE_UNREFERENCED;
  }
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Sorts the file's references and calls by offset, once. */
static int index_refs(builder *b)
{
  const file_work *fw = b->fw;
  const omplens_directives__ref *refs = fw->refs.data;
  b->refs_at = malloc((fw->refs.len + 1) * sizeof(*b->refs_at));
  b->window = malloc((fw->refs.len + 1) * sizeof(*b->window));
  b->calls_at = malloc((fw->calls.len + 1) * sizeof(*b->calls_at));
  if (b->refs_at == NULL || b->window == NULL || b->calls_at == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  for (size_t i = 0; i < fw->refs.len; i++)
    b->refs_at[i] = (uint64_t)refs[i].offset << 32 | (uint32_t)i;
  qsort(b->refs_at, fw->refs.len, sizeof(*b->refs_at), cmp_u64);
  for (size_t i = 0; i < fw->calls.len; i++)
    b->calls_at[i] = OMPLENS_DIRECTIVES__AT(fw->calls, uint32_t, i);
  qsort(b->calls_at, fw->calls.len, sizeof(*b->calls_at), cmp_u32);
  return 0;
}

/* The first of the n sorted keys whose offset (key >> shift) is at least at. */
static size_t first_at(const void *keys, size_t n, bool wide, uint32_t at)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint64_t k = wide ? ((const uint64_t *)keys)[mid] >> 32 : ((const uint32_t *)keys)[mid];
    if (k < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The indices of the references in d's body, in the order the parse found
 * them (b->window; the count returned). */
static size_t body_refs(const builder *b, const draft *d)
{
  if (d->body.begin == NONE)
    return 0;
  size_t n = 0;
  size_t total = b->fw->refs.len;
  for (size_t k = first_at(b->refs_at, total, true, d->body.begin);
       k < total && (b->refs_at[k] >> 32) < d->body.end; k++)
    b->window[n++] = (uint32_t)b->refs_at[k];
  qsort(b->window, n, sizeof(*b->window), cmp_u32);
  return n;
}

/* The implicit maps of a target region: its outer references that no
 * clause lists, minus its loop variables (private to it). */
static int implicit_maps(const builder *b, draft *d)
{
  const file_work *fw = b->fw;
  const omplens_directives__ref *refs = fw->refs.data;
  omplens_directives__vec loop_vars = {0};
  int err = 0;
  size_t n = body_refs(b, d);
  for (size_t k = 0; err == 0 && k < n; k++) {
    const omplens_directives__ref *r = &refs[b->window[k]];
    if (outer_ref(d, r) && is_loop_var(fw, r->offset) && !among(&loop_vars, r->name) &&
        !omplens_directives__vec_push(&loop_vars, sizeof(r->name), &r->name))
      err = OMPLENS_DIRECTIVES_ENOMEM;
  }
  for (size_t k = 0; err == 0 && k < n; k++)
    if (outer_ref(d, &refs[b->window[k]]))
      err = consider_implicit(b, d, &refs[b->window[k]], &loop_vars);
  omplens_directives__vec_free(&loop_vars);
  return err;
}

static void item_uses(const builder *b, draft *d)
{
  const omplens_directives__ref *refs = b->fw->refs.data;
  size_t n = body_refs(b, d);
  for (size_t k = 0; k < n; k++)
    if (outer_ref(d, &refs[b->window[k]]))
      mark_uses(d, &refs[b->window[k]]);
  if (b->partial || !b->fw->ast_seen || (d->flags & OMPLENS_DIRF_INACTIVE))
    text_uses(b, d);
}

/* Whether the function holding d declares name (a parameter or a local):
 * a reference to name in that function resolves to a declaration inside
 * it. Without such a reference, unknown: false. */
static bool declared_in_function(const builder *b, const draft *d, const char *name)
{
  const omplens_directives__function *f = function_holding(b, d->pragma_begin);
  if (f == NULL)
    return false;
  const omplens_directives__ref *refs = b->fw->refs.data;
  size_t total = b->fw->refs.len;
  for (size_t k = first_at(b->refs_at, total, true, f->begin);
       k < total && (b->refs_at[k] >> 32) < f->end; k++) {
    const omplens_directives__ref *r = &refs[(uint32_t)b->refs_at[k]];
    if (r->decl_offset != NONE && r->decl_offset >= f->begin && r->decl_offset < f->end &&
        strcmp(r->name, name) == 0)
      return true;
  }
  return false;
}

/* OMPLENS_DIRF_BODY_CALLS, and per unreferenced item whether a callee may
 * name its variable (not one of the function's own). */
static void body_calls(const builder *b, draft *d)
{
  size_t n = b->fw->calls.len;
  size_t k = d->body.begin == NONE ? n : first_at(b->calls_at, n, false, d->body.begin);
  if (k >= n || b->calls_at[k] >= d->body.end)
    return;
  d->flags |= OMPLENS_DIRF_BODY_CALLS;
  const omplens_directives__parsed *p = &d->parsed;
  char name[256];
  for (size_t i = 0; i < p->items.len; i++) {
    const item_draft *it = &OMPLENS_DIRECTIVES__AT(p->items, item_draft, i);
    d->item_callees[i] = d->item_use[i] == OMPLENS_USE_UNREFERENCED &&
                         !declared_in_function(b, d, sub(d, it->var, name, sizeof(name)));
  }
}

static int analyse(builder *b, draft *d)
{
  d->item_use = calloc(d->parsed.items.len + 1, sizeof(*d->item_use));
  d->item_callees = calloc(d->parsed.items.len + 1, sizeof(*d->item_callees));
  if (d->item_use == NULL || d->item_callees == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  init_uses(d);
  if (d->body.begin == NONE)
    return 0;
  item_uses(b, d);
  body_calls(b, d);
  return d->parsed.kind == OMPLENS_DIRECTIVE_TARGET ? implicit_maps(b, d) : 0;
}

/* The innermost `target data` around d that maps name. */
static size_t covering(const builder *b, size_t di, const char *name)
{
  const draft *d = &OMPLENS_DIRECTIVES__AT(b->drafts, draft, di);
  size_t best = NONE;
  for (size_t i = 0; i < b->drafts.len; i++) {
    const draft *e = &OMPLENS_DIRECTIVES__AT(b->drafts, draft, i);
    if (i == di || e->parsed.kind != OMPLENS_DIRECTIVE_TARGET_DATA ||
        (e->flags & OMPLENS_DIRF_INACTIVE) || !in_span(e->body, d->pragma_begin) ||
        listed_as(e, name) != -1)
      continue;
    if (best == NONE ||
        e->body.begin >= OMPLENS_DIRECTIVES__AT(b->drafts, draft, best).body.begin)
      best = i;
  }
  return best;
}

static int analyse_all(builder *b)
{
  if (index_refs(b) != 0)
    return OMPLENS_DIRECTIVES_ENOMEM;
  for (size_t i = 0; i < b->drafts.len; i++) {
    draft *d = &OMPLENS_DIRECTIVES__AT(b->drafts, draft, i);
    d->function = function_at(b, d->pragma_begin);
    int err = analyse(b, d);
    if (err != 0)
      return err;
  }
  for (size_t i = 0; i < b->drafts.len; i++) {
    draft *d = &OMPLENS_DIRECTIVES__AT(b->drafts, draft, i);
    for (size_t k = 0; k < d->implicit.len; k++) {
      implicit_draft *im = &OMPLENS_DIRECTIVES__AT(d->implicit, implicit_draft, k);
      im->covered_by = covering(b, i, im->var);
    }
  }
  return 0;
}

/* ---- copying into the index ---- */

typedef struct emitter {
  omplens_directives__pool *pool;
  const omplens_directives__source *src;
  omplens_directives__file *rec;
  bool oom;
} emitter;

static const char *keep(emitter *e, const char *s, size_t n)
{
  char *out = omplens_directives__pool_strndup(e->pool, s, n);
  e->oom = e->oom || out == NULL;
  return out;
}

static const char *keep_span(emitter *e, const draft *d, span s)
{
  return s.begin == NONE ? NULL : keep(e, d->text + s.begin, s.end - s.begin);
}

static void *alloc_array(emitter *e, size_t n, size_t size)
{
  void *p = omplens_directives__pool_alloc(e->pool, (n > 0 ? n : 1) * size);
  e->oom = e->oom || p == NULL;
  return p;
}

static omplens_directive_extent extent(const emitter *e, span s)
{
  omplens_directive_extent x = {0};
  if (s.begin == NONE)
    return x;
  x.file = e->rec->path;
  omplens_directives__source_position(e->src, s.begin, &x.line, &x.column);
  omplens_directives__source_position(e->src, s.end > s.begin ? s.end - 1 : s.begin,
                                      &x.end_line, &x.end_column);
  return x;
}

static void position(const emitter *e, const draft *d, uint32_t at, uint32_t *line,
                     uint32_t *column)
{
  uint32_t off = d->pos != NULL && at < d->len ? d->pos[at] : d->pragma_begin;
  omplens_directives__source_position(e->src, off, line, column);
}

static void emit_clauses(emitter *e, const draft *d, omplens_directive *o)
{
  const omplens_directives__parsed *p = &d->parsed;
  omplens_directive_clause *c = alloc_array(e, p->clauses.len, sizeof(*c));
  for (size_t i = 0; c != NULL && i < p->clauses.len; i++) {
    const omplens_directives__clause_draft *cd =
        &OMPLENS_DIRECTIVES__AT(p->clauses, omplens_directives__clause_draft, i);
    c[i] = (omplens_directive_clause){cd->kind, keep_span(e, d, cd->name),
                                      keep_span(e, d, cd->text),
                                      keep_span(e, d, cd->argument)};
  }
  o->clauses = c;
  o->num_clauses = c != NULL ? p->clauses.len : 0;
}

static void emit_items(emitter *e, const draft *d, omplens_directive *o)
{
  const omplens_directives__parsed *p = &d->parsed;
  omplens_map_item *it = alloc_array(e, p->items.len, sizeof(*it));
  const omplens_map_item **unused = alloc_array(e, p->items.len, sizeof(*unused));
  size_t num_unused = 0;
  for (size_t i = 0; it != NULL && unused != NULL && i < p->items.len; i++) {
    const item_draft *id = &OMPLENS_DIRECTIVES__AT(p->items, item_draft, i);
    it[i] = (omplens_map_item){id->clause_kind, id->map_type, id->modifiers,
                               keep_span(e, d, id->text), keep_span(e, d, id->var),
                               0, 0, d->item_use[i], id->clause, d->item_callees[i]};
    position(e, d, id->text.begin, &it[i].line, &it[i].column);
    if (it[i].use == OMPLENS_USE_UNREFERENCED)
      unused[num_unused++] = &it[i];
  }
  o->items = it;
  o->num_items = it != NULL ? p->items.len : 0;
  o->unreferenced = unused;
  o->num_unreferenced = num_unused;
}

static void emit_implicit(emitter *e, const draft *d, omplens_directive *o,
                          omplens_directives__entry *entries)
{
  omplens_implicit_map *im = alloc_array(e, d->implicit.len, sizeof(*im));
  for (size_t i = 0; im != NULL && i < d->implicit.len; i++) {
    const implicit_draft *id = &OMPLENS_DIRECTIVES__AT(d->implicit, implicit_draft, i);
    im[i] = (omplens_implicit_map){keep(e, id->var, strlen(id->var)), id->category,
                                   id->treatment, id->map_type, 0, 0, NULL};
    omplens_directives__source_position(e->src, id->offset, &im[i].line,
                                        &im[i].column);
    if (id->covered_by != NONE)
      im[i].covered_by = &entries[id->covered_by].pub;
  }
  o->implicit = im;
  o->num_implicit = im != NULL ? d->implicit.len : 0;
}

static void emit_one(emitter *e, const draft *d, omplens_directives__entry *en,
                     omplens_directives__entry *entries)
{
  omplens_directive *o = &en->pub;
  o->kind = d->parsed.kind;
  o->flags = d->flags | (d->parsed.combined ? OMPLENS_DIRF_COMBINED : 0);
  o->name = keep_span(e, d, d->parsed.name);
  o->text = keep(e, d->text, d->len);
  o->macro = d->macro != NULL ? keep(e, d->macro, strlen(d->macro)) : NULL;
  o->pragma = extent(e, (span){d->pragma_begin, d->pragma_end});
  o->body = extent(e, d->body);
  o->function = d->function != NULL ? keep(e, d->function, strlen(d->function)) : NULL;
  emit_clauses(e, d, o);
  emit_items(e, d, o);
  emit_implicit(e, d, o, entries);
  en->pragma_begin = d->pragma_begin;
  en->pragma_end = d->pragma_end;
  en->body_begin = d->body.begin;
  en->body_end = d->body.end;
  uint32_t col;
  if (d->stmt_begin != NONE && in_span(d->body, d->stmt_begin))
    omplens_directives__source_position(e->src, d->stmt_begin, &en->stmt_line, &col);
}

static void emit_functions(emitter *e, const file_work *fw)
{
  size_t n = fw->functions.len;
  omplens_directives__span_lines *out = alloc_array(e, n, sizeof(*out));
  for (size_t i = 0; out != NULL && i < n; i++) {
    const omplens_directives__function *f =
        &OMPLENS_DIRECTIVES__AT(fw->functions, omplens_directives__function, i);
    uint32_t col;
    out[i].name = keep(e, f->name, strlen(f->name));
    omplens_directives__source_position(e->src, f->begin, &out[i].line, &col);
    omplens_directives__source_position(e->src, f->end > f->begin ? f->end - 1 : f->begin,
                                        &out[i].end_line, &col);
  }
  e->rec->functions = out;
  e->rec->num_functions = out != NULL ? n : 0;
}

static void emit_omp_lines(emitter *e, const file_work *fw)
{
  size_t n = fw->scan.pragmas.len, used = 0;
  uint32_t *lines = alloc_array(e, n * 2, sizeof(*lines));
  for (size_t k = 0; lines != NULL && k < n; k++) {
    const omplens_directives__pragma *p =
        &OMPLENS_DIRECTIVES__AT(fw->scan.pragmas, omplens_directives__pragma, k);
    if (!p->omp)
      continue;
    uint32_t col;
    omplens_directives__source_position(e->src, p->begin, &lines[2 * used], &col);
    omplens_directives__source_position(e->src, p->end > p->begin ? p->end - 1 : p->begin,
                                        &lines[2 * used + 1], &col);
    used++;
  }
  e->rec->omp_lines = lines;
  e->rec->num_omp_lines = lines != NULL ? used : 0;
}

/* ---- calls of the device memory API ---- */

static omplens_api_argument emit_argument(emitter *e, const omplens_directives__call_arg *a)
{
  omplens_api_argument out = {NULL, NULL};
  if (a->text.begin == NONE)
    return out;
  char *text = omplens_directives__normalize(e->src->text + a->text.begin,
                                             a->text.end - a->text.begin);
  e->oom = e->oom || text == NULL;
  out.text = text != NULL ? keep(e, text, strlen(text)) : NULL;
  out.var = a->var != NULL ? keep(e, a->var, strlen(a->var)) : NULL;
  free(text);
  return out;
}

/* The whole lines the call spans: what a reader recognizes. */
static const char *call_lines(emitter *e, const omplens_directive_extent *x)
{
  const omplens_directives__source *src = e->src;
  if (x->line == 0 || x->end_line > src->num_lines)
    return NULL;
  uint32_t begin = src->line_start[x->line - 1];
  uint32_t end = x->end_line < src->num_lines ? src->line_start[x->end_line] : src->size;
  char *text = omplens_directives__normalize(src->text + begin, end - begin);
  e->oom = e->oom || text == NULL;
  const char *kept = text != NULL ? keep(e, text, strlen(text)) : NULL;
  free(text);
  return kept;
}

static void emit_api_calls(emitter *e, const builder *b)
{
  const file_work *fw = b->fw;
  size_t n = fw->api_calls.len;
  omplens_api_call *out = alloc_array(e, n, sizeof(*out));
  for (size_t i = 0; out != NULL && i < n; i++) {
    const omplens_directives__api_draft *d =
        &OMPLENS_DIRECTIVES__AT(fw->api_calls, omplens_directives__api_draft, i);
    omplens_api_call *c = &out[i];
    c->routine = keep(e, d->routine, strlen(d->routine));
    c->call = extent(e, (span){d->begin, d->end});
    c->text = call_lines(e, &c->call);
    const char *function = function_at(b, d->begin);
    c->function = function != NULL ? keep(e, function, strlen(function)) : NULL;
    c->result = emit_argument(e, &d->result);
    omplens_api_argument *args = alloc_array(e, d->num_args, sizeof(*args));
    for (size_t k = 0; args != NULL && k < d->num_args; k++)
      args[k] = emit_argument(e, &d->args[k]);
    c->args = args;
    c->num_args = args != NULL ? d->num_args : 0;
  }
  e->rec->api_calls = out;
  e->rec->num_api_calls = out != NULL ? n : 0;
}

static int emit(builder *b, omplens_directives__file **out)
{
  emitter e = {&b->u->index->pool, &b->fw->src, NULL, false};
  omplens_directives__file *rec = alloc_array(&e, 1, sizeof(*rec));
  if (rec == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  e.rec = rec;
  rec->path = keep(&e, b->fw->src.path, strlen(b->fw->src.path));
  rec->partial = b->partial;
  const char *diagnostic = b->fw->error != NULL ? b->fw->error : b->u->first_error;
  rec->diagnostic = diagnostic != NULL ? keep(&e, diagnostic, strlen(diagnostic)) : NULL;
  rec->mtime = b->fw->src.mtime;
  rec->size = b->fw->src.fsize;
  rec->num_lines = b->fw->src.num_lines;
  size_t n = b->drafts.len;
  rec->entries = alloc_array(&e, n, sizeof(*rec->entries));
  rec->list = alloc_array(&e, n, sizeof(*rec->list));
  rec->guessed_flags = b->u->guessed_flags;
  for (size_t i = 0; !e.oom && i < n; i++) {
    emit_one(&e, &OMPLENS_DIRECTIVES__AT(b->drafts, draft, i), &rec->entries[i],
             rec->entries);
    if (!(rec->entries[i].pub.flags & OMPLENS_DIRF_INACTIVE))
      rec->list[rec->num_listed++] = &rec->entries[i].pub;
  }
  rec->num_entries = n;
  if (!e.oom && !omplens_directives__index_entries(rec, e.pool))
    e.oom = true;
  emit_omp_lines(&e, b->fw);
  emit_functions(&e, b->fw);
  emit_api_calls(&e, b);
  omplens_directives__md5(b->fw->src.text, b->fw->src.size, rec->md5);
  *out = e.oom ? NULL : rec;
  return e.oom ? OMPLENS_DIRECTIVES_ENOMEM : 0;
}

/* ---- the whole file ---- */

static void builder_free(builder *b)
{
  for (size_t i = 0; i < b->drafts.len; i++) {
    draft *d = &OMPLENS_DIRECTIVES__AT(b->drafts, draft, i);
    omplens_directives__parsed_free(&d->parsed);
    omplens_directives__vec_free(&d->implicit);
    free(d->item_use);
    free(d->item_callees);
    if (d->own_text)
      free(d->text);
  }
  for (size_t i = 0; i < b->dt_names.len; i++)
    free(OMPLENS_DIRECTIVES__AT(b->dt_names, char *, i));
  omplens_directives__vec_free(&b->dt_names);
  omplens_directives__vec_free(&b->dt_ranges);
  omplens_directives__vec_free(&b->drafts);
  free(b->ast_body);
  free(b->refs_at);
  free(b->calls_at);
  free(b->window);
  free(b->fn_order);
  free(b->fn_reach);
}

int omplens_directives__build_file(omplens_directives__unit *u,
                                   omplens_directives__file_work *fw,
                                   omplens_directives__file **out)
{
  builder b = {.u = u, .fw = fw,
               .partial = u->unit_error || fw->error != NULL || !fw->ast_seen};
  *out = NULL;
  int err = index_functions(&b) ? 0 : OMPLENS_DIRECTIVES_ENOMEM;
  if (err == 0)
    err = resolve_bodies(&b);
  if (err == 0)
    err = text_drafts(&b);
  if (err == 0)
    err = macro_drafts(&b);
  if (err == 0)
    err = hidden_macro_drafts(&b);
  if (err == 0) {
    if (b.drafts.len > 1)
      qsort(b.drafts.data, b.drafts.len, sizeof(draft), by_position);
    err = declare_target(&b);
  }
  if (err == 0)
    err = analyse_all(&b);
  if (err == 0)
    err = emit(&b, out);
  builder_free(&b);
  return err;
}
