/* The rules (docs/fixes.md): for a group of findings, the edits of the
 * source that remove them, each after the checks that make the change safe,
 * or the reason it is not and a recipe to follow by hand. Facts about the
 * directive and its items come from the directive index; the text to edit
 * from the file as written (fixes_pragma.c); statements, loops, calls and
 * the uses of variables from the flattened syntax tree (fixes_ast.c); what
 * ran from the trace (fixes_evidence.c). */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"

#define NONE OMPLENS_FIX__NONE

/* ---- small helpers ---- */

bool omplens_fix__maps_always(const omplens_fix__site *s) {
  return s->dir && !s->implicit && s->item < s->dir->num_items &&
         (s->dir->items[s->item].modifiers & OMPLENS_MAPMOD_ALWAYS);
}

const char *omplens_fix__item_text(const omplens_fix__site *s) {
  if (s->dir && s->implicit)
    return s->implicit->var;
  if (s->dir && s->item != SIZE_MAX)
    return s->dir->items[s->item].text;
  if (s->api && s->var)
    return s->var; /* the API call's argument */
  if (s->pointer)
    return s->pointer;
  return s->named ? s->named : "the buffer";
}

unsigned omplens_fix__ctx_line(const omplens_fix__ctx *c, size_t offset) {
  return omplens_fix__line_of(c->src, offset);
}

const char *omplens_fix__short_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

size_t omplens_fix__pragma_at(const omplens_fix__ctx *c, const omplens_directive *d) {
  return omplens_fix__offset(c->src, d->pragma.line, d->pragma.column);
}

bool omplens_fix__body_range(const omplens_fix__ctx *c, const omplens_directive *d, size_t *begin,
                             size_t *end) {
  if (!d->body.file)
    return false;
  *begin = omplens_fix__offset(c->src, d->body.line, d->body.column);
  size_t last = omplens_fix__offset(c->src, d->body.end_line, d->body.end_column);
  *end = last == SIZE_MAX ? SIZE_MAX : last + 1;
  return *begin != SIZE_MAX && last != SIZE_MAX;
}

unsigned omplens_fix__include_in(const omplens_fix__ctx *c, size_t begin, size_t end) {
  const char *t = c->src->text;
  if (end > c->src->size)
    end = c->src->size;
  for (size_t i = begin; i < end; i++) {
    if (t[i] != '#')
      continue;
    size_t j = i; /* only blanks before it on its line */
    while (j > 0 && (t[j - 1] == ' ' || t[j - 1] == '\t'))
      j--;
    if (j > 0 && t[j - 1] != '\n')
      continue;
    size_t k = i + 1;
    while (k < end && (t[k] == ' ' || t[k] == '\t'))
      k++;
    if (end - k >= 7 && !strncmp(t + k, "include", 7))
      return omplens_fix__line_of(c->src, i);
  }
  return 0;
}

/* Whether s is one word: a name, or a number. */
static bool one_word(const char *s) {
  size_t n = 0;
  while (omplens_fix__ident_char(s[n]))
    n++;
  return n && !s[n];
}

/* The map type of site s's item as written, or its implicit map's;
 * OMPLENS_MAP_NONE when neither is known. */
static int site_map_type(const omplens_fix__site *s) {
  if (s->dir && s->item < s->dir->num_items)
    return s->dir->items[s->item].map_type;
  return s->implicit ? s->implicit->map_type : OMPLENS_MAP_NONE;
}

/* The first operation of the group's first finding, or NULL. */
static const omplens_event *first_event(const omplens_fix__ctx *c) {
  const omplens_finding *f = c->g->num_findings ? &c->fx->findings[c->g->findings[0]] : NULL;
  return f && f->num_instances && f->instances[0].event < c->fx->num_events
             ? &c->fx->events[f->instances[0].event]
             : NULL;
}

/* The device that sent the group's copies back: its first finding's
 * device names the receiver, the host itself for a duplicate on the host. */
static int copy_device(const omplens_fix__ctx *c) {
  const omplens_event *e = first_event(c);
  return e ? e->device : c->fx->findings[c->g->findings[0]].device;
}

/* The items of the group's findings, each once, in the order the
 * directive lists them: "a", "a and b", "a, b and c"; for a clause
 * (clause), "a, b, c". A group that keeps a directive's data resident
 * holds every item it maps. Owned by the fixer. */
static const char *group_items(omplens_fixer *fx, const omplens_fix__group *g, bool clause) {
  size_t n = 0;
  const omplens_fix__site **items = g->num_findings ? calloc(g->num_findings, sizeof *items) : NULL;
  if (!items)
    return omplens_fix__item_text(&g->site);
  for (size_t k = 0; k < g->num_findings; k++) {
    const omplens_fix__site *t = omplens_fix__site_at(g, k);
    size_t j = 0;
    while (j < n && strcmp(omplens_fix__item_text(items[j]), omplens_fix__item_text(t)))
      j++;
    if (j < n)
      continue;
    for (j = n++; j > 0 && items[j - 1]->item > t->item; j--) /* implicit ones last */
      items[j] = items[j - 1];
    items[j] = t;
  }
  omplens_fix__buf b = {0};
  for (size_t k = 0; k < n; k++)
    omplens_fix__buf_printf(&b, "%s%s", k == 0 ? "" : clause || k + 1 < n ? ", " : " and ",
                            omplens_fix__item_text(items[k]));
  free(items);
  const char *out = b.data ? omplens_fix__ownf(fx, "%s", b.data) : omplens_fix__item_text(&g->site);
  omplens_fix__buf_free(&b);
  return out;
}

/* A re-sent copy is needed where a kernel changed the device's copy in
 * between, which the trace cannot show: the recipe names the kernels that
 * ran there, for the reader to check. */
static void kernels_between(omplens_fix__ctx *c, omplens_fix__buf *r) {
  omplens_fix__resends rs;
  omplens_fix__resend_evidence(c->fx, c->g, OMPLENS_EV_H2D, &rs);
  if (!rs.num_kernels)
    return;
  omplens_fix__buf_str(r, " First check that no kernel writes the buffer between the copies "
                          "(the trace cannot show what a kernel writes): ");
  for (size_t k = 0; k < rs.num_kernels && k < 3; k++) {
    omplens_fix__file *kf = NULL;
    const omplens_directive *d =
        omplens_fix__directive_of(c->fx, rs.kernels[k], OMPLENS_RUNTIME_TARGET, &kf);
    if (k)
      omplens_fix__buf_str(r, ", ");
    else
      omplens_fix__buf_str(r, rs.num_kernels > 1 ? "the kernels at " : "the kernel at ");
    if (d && kf)
      omplens_fix__buf_printf(r, "%s:%u", omplens_fix__short_name(kf->path), d->pragma.line);
    else
      omplens_fix__buf_printf(r, "0x%" PRIx64, rs.kernels[k]);
  }
  omplens_fix__buf_str(r, rs.num_kernels > 3 || rs.too_many ? " and more run there."
                          : rs.num_kernels > 1                ? " run there."
                                                              : " runs there.");
}

static bool all_category(const omplens_fix__ctx *c, int category);
static bool passed_over(const omplens_fixer *fx, const omplens_fix__group *g);

/* Whether one of the group's findings is of category. */
static bool has_category(const omplens_fix__ctx *c, int category) {
  for (size_t k = 0; k < c->g->num_findings; k++)
    if (c->fx->findings[c->g->findings[k]].category == category)
      return true;
  return false;
}

/* The item whose copy first carried the bytes that the group's copies of
 * another buffer's content carry again (`output_k1[0:n]`), as the source
 * names it, its variable in *name; NULL when unknown (or no such copy is
 * in the group). */
static const char *first_carrier(const omplens_fix__ctx *c, const char **name) {
  for (size_t k = 0; k < c->g->num_findings; k++) {
    const omplens_finding *f = &c->fx->findings[c->g->findings[k]];
    omplens_variable v = {0};
    uint32_t related = f->num_instances ? f->instances[0].related : UINT32_MAX;
    if (f->category == OMPLENS_CAT_DUPLICATE_OTHER_BUFFER && related < c->fx->num_events &&
        c->fx->annot && !omplens_annotate_variable(c->fx->annot, &c->fx->events[related], &v) &&
        v.item) {
      *name = v.name;
      return v.item;
    }
  }
  return NULL;
}

/* Whether the copy that first carried those bytes (first_carrier's) was
 * made by the same directive as the group's first such copy. */
static bool carried_here(const omplens_fix__ctx *c) {
  for (size_t k = 0; k < c->g->num_findings; k++) {
    const omplens_finding *f = &c->fx->findings[c->g->findings[k]];
    uint32_t related = f->num_instances ? f->instances[0].related : UINT32_MAX;
    if (f->category == OMPLENS_CAT_DUPLICATE_OTHER_BUFFER && related < c->fx->num_events)
      return omplens_trace_codeptr(c->fx->trace, &c->fx->events[related]) == f->codeptr;
  }
  return false;
}

static bool site_variable(omplens_fix__ctx *c, const omplens_fix__site *s, uint32_t *fn,
                          uint32_t *var);
/* The kernel of construct code (its directive in *d, or NULL) and how its
 * body names site s's variable var of function fn: var itself in fn, the
 * same storage elsewhere in the file, or NONE (not known). */
static uint32_t kernel_var(omplens_fix__ctx *c, const omplens_fix__site *s, uint32_t fn,
                           uint32_t var, uint64_t code, const omplens_directive **d);

/* The last kernel that ran between the group's copies back whose body
 * writes the variable, as the source shows (its write's line in *line), or
 * NULL: none does, or it cannot be told. The last one is asked first, and
 * an earlier one only when those after it are shown to leave the variable:
 * their bodies neither write it nor pass it on, and their calls cannot
 * reach it (it is not a global). HeCBench bgmv zeroes the array with one
 * kernel and computes it with another, in another file: the zeroing one is
 * not named; HeCBench knn's kernel that takes the square roots of one
 * result runs after the one that writes the other, which is. Asks without
 * touching the group. */
static const omplens_directive *writes_before_copy_back(omplens_fix__ctx *c, unsigned *line) {
  omplens_fix__resends rs;
  omplens_fix__resend_evidence(c->fx, c->g, OMPLENS_EV_D2H, &rs);
  uint32_t fn, var;
  if (!rs.num_kernels || rs.too_many || !c->file || !c->g->site.dir)
    return NULL;
  omplens_fix__buf scratch = {0}, *saved = c->probe;
  const omplens_directive *d = NULL;
  c->probe = &scratch;
  c->written_at = 0;
  bool left = site_variable(c, &c->g->site, &fn, &var);
  for (size_t k = rs.num_kernels; k-- > 0 && left && !c->written_at;) {
    uint32_t kvar = kernel_var(c, &c->g->site, fn, var, rs.kernels[k], &d);
    size_t b, e;
    left = kvar != NONE && omplens_fix__body_range(c, d, &b, &e) &&
           omplens_fix__device_reads_only(c, d, b, e, kvar, "", "") &&
           (!(d->flags & OMPLENS_DIRF_BODY_CALLS) || !c->ast->nodes[kvar].global);
  }
  c->probe = saved;
  omplens_fix__buf_free(&scratch);
  *line = c->written_at;
  return c->written_at ? d : NULL;
}

/* The parse of c's file if some rule made one (a recipe parses nothing),
 * with the offset of site s's directive (*at) and the function holding it
 * (*fn, not NONE); NULL otherwise. */
static const omplens_fix__ast *parsed_site(const omplens_fix__ctx *c, const omplens_fix__site *s,
                                           size_t *at, uint32_t *fn) {
  const omplens_fix__ast *a = c->ast ? c->ast : c->file && c->file->ast.nodes ? &c->file->ast : NULL;
  if (!a || !s->dir || !s->var)
    return NULL;
  *at = omplens_fix__pragma_at((omplens_fix__ctx *)c, s->dir);
  *fn = omplens_fix__ast_function_at(a, *at);
  return *fn == NONE ? NULL : a;
}

/* Whether site s's variable is a local of its directive's function that
 * the function allocates itself (`a = malloc(...)`, its line in *line),
 * with no loop of the function around the directive: each call makes a
 * new buffer, so no region outside the function keeps it. */
static bool own_buffer(const omplens_fix__ctx *c, const omplens_fix__site *s, unsigned *line) {
  size_t at;
  uint32_t fn;
  const omplens_fix__ast *a = parsed_site(c, s, &at, &fn);
  uint32_t var = a ? omplens_fix__ast_lookup(a, s->var, at) : NONE;
  if (var == NONE || a->nodes[var].kind != OMPLENS_FIX__N_VAR || a->nodes[var].global ||
      !omplens_fix__ast_within(a, var, fn) || omplens_fix__ast_loop_at(a, fn, at) != NONE)
    return false;
  for (uint32_t i = var + 1; i < omplens_fix__ast_end(a, fn); i++) {
    uint32_t other = NONE;
    bool init = a->nodes[i].parent == var; /* `T *a = malloc(n);` */
    bool assigned = a->nodes[i].kind == OMPLENS_FIX__N_DECLREF && a->nodes[i].ref == var &&
                    omplens_fix__ast_use(a, i, &other) == OMPLENS_FIX__USE_ASSIGNED;
    if ((init && omplens_fix__ast_fresh_allocation(a, i)) ||
        (assigned && omplens_fix__ast_fresh_allocation(a, other))) {
      *line = omplens_fix__line_of(c->src, a->nodes[i].begin);
      return true;
    }
  }
  return false;
}

/* Writes to r the recipe for a buffer that own_buffer() finds, and says
 * whether it did. It fits every finding of such a buffer: a duplicate of
 * itself where the allocator gave each call the same address, of another
 * buffer's content where it did not, a repeated allocation. */
static bool own_buffer_recipe(const omplens_fix__ctx *c, omplens_fix__buf *r) {
  const omplens_fix__site *s = &c->g->site;
  unsigned made;
  /* main has no caller to allocate it: its runs are its directives' */
  if ((s->dir && s->dir->function && !strcmp(s->dir->function, "main")) ||
      !own_buffer(c, s, &made))
    return false;
  omplens_fix__buf_printf(
      r,
      "%s is the buffer %s%s allocates at line %u in each call, so no directive outside it "
      "can keep it on the device. Allocate it once in the caller instead (with its content, "
      "where a kernel reads it), pass it in, and keep it on the device there, around the "
      "caller's loop (`target data`, or `target enter data` and `exit data`).",
      omplens_fix__item_text(s), s->dir->function ? s->dir->function : "its function",
      s->dir->function ? "()" : "", made);
  return true;
}

/* The recipe of a plain item that no rule changes, item it at where.
 * Copies of the bytes another variable carried first (two arrays of one
 * input, HeCBench fdtd3d) are filled from it on the device; the same
 * variable's bytes of an earlier call are its own buffer's. */
/* Whether a and b are one text but for blanks (the runtime's `v[:n]`, the
 * source's `v[ : n]`). */
static bool same_but_blanks(const char *a, const char *b) {
  for (;; a++, b++) {
    while (*a == ' ' || *a == '\t')
      a++;
    while (*b == ' ' || *b == '\t')
      b++;
    if (*a != *b)
      return false;
    if (!*a)
      return true;
  }
}

static void recipe_moved(const omplens_fix__ctx *c, omplens_fix__buf *r, const char *it,
                         const char *where) {
  const char *name, *carrier = first_carrier(c, &name);
  const omplens_fix__site *s = &c->g->site;
  bool same = carrier && same_but_blanks(carrier, it);
  bool itself = same && carried_here(c); /* another run of this directive */
  bool another = carrier && !same;
  /* A reduction's variable sends its start value, which the kernel needs:
   * not a buffer to fill from another on the device. */
  bool reduction = s->dir && s->var && omplens_fix__reduction_var(s->dir, s->var);
  if (another && !reduction && first_event(c) && first_event(c)->kind == OMPLENS_EV_H2D)
    omplens_fix__buf_printf(
        r,
        "the device already received these bytes for `%s`: unless the two differ in other "
        "runs, map %s `%s` at %s and copy `%s` into it on the device instead (a kernel, or "
        "`omp_target_memcpy`).",
        carrier, it, site_map_type(&c->g->site) == OMPLENS_MAP_TOFROM ? "from" : "alloc",
        where, carrier);
  else if (!another && own_buffer_recipe(c, r)) /* a buffer each call allocates anew */
    return;
  else if (itself && !reduction && first_event(c) && first_event(c)->kind == OMPLENS_EV_H2D)
    omplens_fix__buf_printf(
        r,
        "an earlier run of %s sent these bytes to the device for another buffer (%s named "
        "another array then): unless the two differ in other runs, make this copy on the "
        "device from that buffer's (`omp_target_memcpy`, or a kernel) instead of sending it, "
        "or let both uses share one device copy.",
        where, it);
  else
    omplens_fix__buf_printf(
        r,
        "look at how %s moves around %s: keep it on the device between uses with a "
        "`target data` region or `target enter data`/`exit data`, and copy only what changed.",
        it, where);
}

bool omplens_fix__local_variable(const omplens_fix__ctx *c, const omplens_fix__site *s) {
  const char *why;
  size_t at;
  uint32_t fn;
  if (!s->dir || !s->var || strcmp(omplens_fix__item_text(s), s->var) ||
      (!c->ast && c->file && !omplens_fix__file_ast(c->fx, c->file, &why)))
    return false; /* the file is parsed once, for every recipe that asks */
  const omplens_fix__ast *a = parsed_site(c, s, &at, &fn);
  uint32_t var = a ? omplens_fix__ast_lookup(a, s->var, at) : NONE;
  return var != NONE && a->nodes[var].kind == OMPLENS_FIX__N_VAR && !a->nodes[var].global &&
         omplens_fix__ast_within(a, var, fn) && omplens_fix__ast_loop_at(a, fn, at) == NONE;
}

/* Writes to r the recipe for an item that is a local variable of the
 * directive's function (omplens_fix__local_variable), and says whether it
 * is one: each call makes it anew, so no region in a caller can name it
 * (HOT's and neutral's reduction scalars). */
static bool local_variable_recipe(const omplens_fix__ctx *c, omplens_fix__buf *r) {
  const omplens_fix__site *s = &c->g->site;
  if (!omplens_fix__local_variable(c, s))
    return false;
  const char *fn = s->dir->function ? s->dir->function : "its function";
  const char *call = s->dir->function ? "()" : "";
  bool reduction = omplens_fix__reduction_var(s->dir, s->var);
  /* the reason may have said it already (a caller's wrap that failed) */
  if (!c->g->reason.data || !strstr(c->g->reason.data, "made anew by each call"))
    omplens_fix__buf_printf(r,
                            "%s is a local of %s%s, made anew by each call, so no directive "
                            "outside it can keep it on the device%s",
                            s->var, fn, call, reduction ? "; " : ". ");
  if (reduction)
    omplens_fix__buf_printf(
        r,
        "its copies carry the reduction's start value in and its result out. "
        "To keep them on the device, reduce into a variable VAR that outlives the calls (a "
        "static, or one the caller passes in) and stays mapped (`#pragma omp target enter data "
        "map(alloc: VAR)` once), set it before the kernel with `#pragma omp target map(alloc: "
        "VAR)` followed by the assignment of the start value, and copy the result back with "
        "`#pragma omp target update from(VAR)` after the kernel. That trades each copy for a "
        "kernel launch: worth it only where a copy costs more than a launch.");
  else
    omplens_fix__buf_printf(
        r,
        "To keep it there, make it outlive the calls (a static, or a buffer the "
        "caller allocates once and passes in) and keep that on the device around the caller's "
        "loop (`target data`, or `target enter data` and `exit data`).");
  return true;
}

/* The recipe's end for a value each run sends anew, declared by d (of a,
 * the site's file): LLVM passes a firstprivate scalar in the kernel's
 * launch, but allocates and copies a firstprivate structure at each launch
 * as a map would. */
static void as_firstprivate(const omplens_fix__ctx *c, const omplens_fix__ast *a, uint32_t d,
                            omplens_fix__buf *r, const char *var) {
  size_t start = r->len; /* the recipe's first words: lower case after "Recipe:" */
  if (a->nodes[d].arith)
    omplens_fix__buf_printf(
        r,
        "Pass it as the kernel's own copy instead: write `firstprivate(%s)` in place of its map "
        "(a scalar is firstprivate by default, so dropping it from the map does the same); its "
        "value then travels with the kernel's launch, with no allocation or copy of its own.",
        var);
  else
    omplens_fix__buf_printf(
        r,
        "Writing `firstprivate(%s)` in place of its map does not help unless it is a scalar: "
        "LLVM's runtime allocates and copies a firstprivate structure at each launch, as the map "
        "does. Pass the kernel the values it reads from %s as scalars instead (locals set from "
        "it before the construct), which travel with the launch.",
        var, var);
  if (!start && r->data && r->len)
    r->data[0] = (char)tolower((unsigned char)r->data[0]);
}

/* Writes to r the recipe for an item that is a parameter of the
 * directive's function mapped by its name (`map(to: n, factor)`: its
 * value, a copy of each call's argument), and says whether it is one. No
 * region outside the function can keep a value that each call passes
 * anew (HeCBench idivide passes literals); a scalar is firstprivate by
 * default, and then travels with the kernel's launch. */
static bool value_parameter_recipe(const omplens_fix__ctx *c, omplens_fix__buf *r) {
  const omplens_fix__site *s = &c->g->site;
  size_t at;
  uint32_t fn;
  const omplens_fix__ast *a = parsed_site(c, s, &at, &fn);
  uint32_t var = a ? omplens_fix__ast_lookup(a, s->var, at) : NONE;
  /* not a pointer or an array, whose map would be the memory it names */
  if (var == NONE || a->nodes[var].kind != OMPLENS_FIX__N_PARM ||
      a->nodes[var].elem != OMPLENS_FIX__ELEM_UNKNOWN || strcmp(omplens_fix__item_text(s), s->var))
    return false;
  /* A C++ reference (`double &v`) is the caller's variable, not a copy. */
  size_t len;
  const char *type = omplens_fix__declared_type(c->src, &a->nodes[var], &len);
  if (type && memchr(type, '&', len))
    return false;
  /* the reason may have said it already (a caller's wrap that failed) */
  if (!c->g->reason.data || !strstr(c->g->reason.data, "a copy of each call's argument"))
    omplens_fix__buf_printf(r,
                            "%s is a parameter of %s%s, a copy of each call's argument, so no "
                            "directive outside it can keep it on the device. ",
                            s->var, s->dir->function ? s->dir->function : "its function",
                            s->dir->function ? "()" : "");
  as_firstprivate(c, a, var, r, s->var);
  return true;
}

/* The parse of site s's file with the innermost loop around its directive
 * (*loop) and the declaration of its variable seen there (*var); NULL when
 * either is unknown. */
static const omplens_fix__ast *loop_and_var(const omplens_fix__ctx *c, const omplens_fix__site *s,
                                            uint32_t *loop, uint32_t *var) {
  size_t at;
  uint32_t fn;
  const omplens_fix__ast *a = parsed_site(c, s, &at, &fn);
  *loop = a ? omplens_fix__ast_loop_at(a, fn, at) : NONE;
  *var = *loop == NONE ? NONE : omplens_fix__ast_lookup(a, s->var, at);
  return *var == NONE ? NULL : a;
}

bool omplens_fix__declared_in_loop(const omplens_fix__ctx *c, const omplens_fix__site *s,
                                   unsigned *loop_line, unsigned *decl_line) {
  uint32_t loop, var;
  const omplens_fix__ast *a = loop_and_var(c, s, &loop, &var);
  if (!a || a->nodes[var].kind != OMPLENS_FIX__N_VAR || !omplens_fix__ast_within(a, var, loop))
    return false;
  *loop_line = omplens_fix__line_of(c->src, a->nodes[loop].begin);
  *decl_line = omplens_fix__line_of(c->src, a->nodes[var].begin);
  return true;
}

/* Whether site s's variable is given another buffer inside the innermost
 * loop around its directive (*loop_line, *assign_line): each run maps new
 * memory, which may only land at the address an earlier run freed. */
static bool assigned_in_loop(const omplens_fix__ctx *c, const omplens_fix__site *s,
                             unsigned *loop_line, unsigned *assign_line) {
  uint32_t loop, var;
  const omplens_fix__ast *a = loop_and_var(c, s, &loop, &var);
  if (!a || a->nodes[var].elem == OMPLENS_FIX__ELEM_UNKNOWN) /* not a pointer */
    return false;
  for (uint32_t i = loop; i < omplens_fix__ast_end(a, loop); i++) {
    uint32_t other;
    if (a->nodes[i].kind == OMPLENS_FIX__N_DECLREF && a->nodes[i].ref == var &&
        omplens_fix__ast_use(a, i, &other) == OMPLENS_FIX__USE_ASSIGNED) {
      *loop_line = omplens_fix__line_of(c->src, a->nodes[loop].begin);
      *assign_line = omplens_fix__line_of(c->src, a->nodes[i].begin);
      return true;
    }
  }
  return false;
}

/* Writes to r the recipe for a scalar that a target construct maps `to`
 * by its name and that is declared inside the loop around it (the loop's
 * counter, a value each step computes), and says whether it is one: each
 * step's value is new, so a region around the loop would keep the first
 * one on the device; the value belongs in the kernel's launch. */
static bool loop_value_recipe(const omplens_fix__ctx *c, omplens_fix__buf *r, unsigned loop_line,
                              unsigned decl_line) {
  const omplens_fix__site *s = &c->g->site;
  uint32_t loop, var;
  const omplens_fix__ast *a = loop_and_var(c, s, &loop, &var);
  if (!a || a->nodes[var].elem != OMPLENS_FIX__ELEM_UNKNOWN || /* a pointer or an array */
      !s->dir || s->dir->kind != OMPLENS_DIRECTIVE_TARGET || site_map_type(s) != OMPLENS_MAP_TO ||
      strcmp(omplens_fix__item_text(s), s->var))
    return false;
  omplens_fix__buf_printf(r,
                          "%s is declared inside the loop at line %u (line %u) and the kernel "
                          "only reads it, so each run of the loop sends a new value: no region "
                          "around the loop can keep it on the device, as it would keep the "
                          "first value. ",
                          s->var, loop_line, decl_line);
  as_firstprivate(c, a, var, r, s->var);
  return true;
}

/* Writes to r the recipe for a variable declared inside the loop around
 * its directive (omplens_fix__declared_in_loop): each run of the loop
 * maps a new variable, so it must be declared before the loop first. */
static void loop_local_recipe(const omplens_fix__ctx *c, omplens_fix__buf *r, unsigned loop_line,
                              unsigned decl_line) {
  omplens_fix__buf_printf(
      r,
      "%s is declared inside the loop at line %u (line %u), so each run of the loop maps a "
      "new variable. To keep it on the device, declare it before the loop and wrap the loop "
      "in `#pragma omp target data` with it; a reduction's variable, set to its start value "
      "in each run, still needs that value sent then (or set on the device).",
      c->g->site.var, loop_line, decl_line);
}

/* The other construct of the group's first finding (the one that made its
 * data first), when both are in main and in no loop of it: the runs that
 * waste are that pair's, one after the other, and a region around the two
 * holds the data (main has no caller whose loop could). */
static const omplens_directive *pair_in_no_loop(const omplens_fix__ctx *c) {
  const omplens_fix__site *s = &c->g->site;
  const omplens_finding *f = c->g->num_findings ? &c->fx->findings[c->g->findings[0]] : NULL;
  uint32_t rel = f && f->num_instances ? f->instances[0].related : UINT32_MAX;
  size_t at;
  uint32_t fn;
  const omplens_fix__ast *a =
      s->dir && rel < c->fx->num_events ? parsed_site(c, s, &at, &fn) : NULL;
  if (!a || fn == NONE || omplens_fix__ast_loop_at(a, fn, at) != NONE)
    return NULL;
  const omplens_event *e = &c->fx->events[rel];
  omplens_fix__file *file;
  const omplens_directive *other = omplens_fix__directive_of(
      c->fx, omplens_trace_codeptr(c->fx->trace, e), omplens_fix__runtime_kind(c->fx, e), &file);
  return other && other != s->dir && file == s->file && other->function && s->dir->function &&
                 !strcmp(s->dir->function, "main") && !strcmp(other->function, "main")
             ? other
             : NULL;
}

/* Whether the directive at the group's site has items the group's
 * findings do not name. */
static bool other_items(const omplens_fix__ctx *c) {
  const omplens_directive *d = c->g->site.dir;
  for (size_t i = 0; d && i < d->num_items; i++) {
    size_t k = 0;
    while (k < c->g->num_findings && omplens_fix__site_at(c->g, k)->item != i)
      k++;
    if (k == c->g->num_findings)
      return true;
  }
  return false;
}

/* How to run a copy only in some executions of its directive: an if
 * clause holds back every item of the directive it is on (its own
 * directive then takes it, but a region's items cannot leave it), and on a
 * target construct it runs the kernel on the host instead. */
static const char *guard_recipe(const omplens_fix__ctx *c) {
  const omplens_directive *d = c->g->site.dir;
  bool others = other_items(c);
  if (!d || d->kind == OMPLENS_DIRECTIVE_TARGET ||
      (d->kind == OMPLENS_DIRECTIVE_TARGET_DATA && others))
    return "";
  if (!others)
    return ", or guard the directive with an if(...) clause (for example on the loop variable, "
           "or on a flag the caller passes) where only some executions are needed";
  return omplens_fix__ownf(c->fx, ", or, where only some executions are needed, move it to a "
                           "`%s` of its own guarded by an if(...) clause (for example on the loop "
                           "variable, or on a flag the caller passes): an if clause on this "
                           "directive would hold back its other items too",
                           d->name);
}

/* Whether an item's base, before its section ("s.a[0:s.n]", "p->a"),
 * is a member of a structure. */
static bool names_member(const char *item) {
  size_t base = strcspn(item, "[");
  const char *dot = memchr(item, '.', base), *arrow = strstr(item, "->");
  return dot || (arrow && (size_t)(arrow - item) < base);
}

/* Writes to r the recipe for copies back of which some brought what the
 * device changed (the evidence that stopped the diff), and says whether
 * there were any: those copies are how the host gets the results, so the
 * recipe never says to drop them all. Where most runs change it, the
 * copies that came back unchanged are runs whose kernels left it as it
 * was (a loop's last step with no work, a flag already set): nothing to
 * change; else only the runs that change it need their copy back. */
static bool changed_copies_recipe(omplens_fix__ctx *c, omplens_fix__buf *r, const char *it,
                                  const char *where) {
  const omplens_fix__site *s = &c->g->site;
  omplens_fix__evidence ev;
  omplens_fix__evidence_of(c->fx, c->g, s, &ev);
  bool update = s->dir && s->dir->kind == OMPLENS_DIRECTIVE_TARGET_UPDATE;
  uint32_t same = update ? ev.d2h_flagged : ev.d2h_unchanged;
  if (!ev.d2h || same >= ev.d2h)
    return false;
  uint32_t changed = ev.d2h - same;
  c->g->settled = 2 * changed >= ev.d2h;
  if (c->g->settled)
    omplens_fix__buf_printf(r,
                            "nothing to change: the device changed %s before %u of its %u "
                            "copies back at %s, and the host gets those values through them; "
                            "%s that brought back what the host held %s whose kernel%s left "
                            "it as it was (such as a loop's last step with no work left, or a "
                            "flag already set).",
                            it, changed, ev.d2h, where, same == 1 ? "the one" : "those",
                            same == 1 ? "is a run" : "are runs", same == 1 ? "" : "s");
  else if (update)
    omplens_fix__buf_printf(r,
                            "the device changed %s before %u of its %u copies back at %s: guard "
                            "the update with an if(...) clause so that it copies only after the "
                            "runs that change it.",
                            it, changed, ev.d2h, where);
  else
    omplens_fix__buf_printf(r,
                            "the device changed %s before %u of its %u copies back at %s: to "
                            "copy it back only after the runs that change it, map it `to` "
                            "instead of `tofrom` (`release` instead of `from` on an exit data) "
                            "and add `#pragma omp target update from(%s)` after those runs.",
                            it, changed, ev.d2h, where, it);
  return true;
}

/* The recipe for the group's rule, for when no diff can be made. */
static void recipe(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  const char *it = omplens_fix__item_text(s);
  /* "file:line", or no position at all rather than ":0" without a source. */
  char where[512];
  if (s->file && s->dir)
    snprintf(where, sizeof where, "%s:%u", omplens_fix__short_name(s->file->path),
             s->dir->pragma.line);
  else
    snprintf(where, sizeof where, "%s", s->file ? omplens_fix__short_name(s->file->path) : "the directive");
  omplens_fix__buf *r = &g->recipe;
  bool unread = g->num_findings > 0; /* no kernel read the pointers' copy */
  for (size_t k = 0; k < g->num_findings; k++) {
    int cat = c->fx->findings[g->findings[k]].category;
    unread &= cat == OMPLENS_CAT_UNUSED_ALLOC || cat == OMPLENS_CAT_UNUSED_TRANSFER;
  }
  if ((s->attach || s->pointer) && unread) {
    if (s->attach) {
      omplens_fix__buf_free(&g->account);
      omplens_fix__buf_str(&g->account,
                           "These copies are the runtime's own: mapping a map item reached "
                           "through a pointer (such as p[0:n], or a member x[0:n] in a "
                           "method) makes it write the device address of the item into the "
                           "device's copy of that pointer, and no kernel read that copy.");
      g->account_all = true;
    }
    omplens_fix__buf_printf(r, "no kernel reads the device's copy of the pointers the runtime "
                               "makes for the items mapped through %s at %s: the kernels are "
                               "given the items themselves. Map the items through local "
                               "pointer variables (`double *u = this->u;`, then `map(to: "
                               "u[0:n])`), and the runtime makes no such copy.",
                            s->pointer ? s->pointer : "pointers", where);
    return;
  }
  if (s->attach) { /* the runtime's copy: it goes with the mapping it serves */
    const omplens_finding *f = g->num_findings ? &c->fx->findings[g->findings[0]] : NULL;
    omplens_fix__buf_free(&g->account);
    omplens_fix__buf_printf(
        &g->account,
        "These %" PRIu64 "-byte copies are the runtime's own: mapping a map item reached "
        "through a pointer (such as p[0:n], or a member x[0:n] in a method) makes it write the "
        "device address of the item into the device's copy of that pointer. No data of the "
        "program is sent again: they come each time the mapping is made again, and repeat "
        "their content when the device allocation lands where an earlier one was.",
        f ? f->bytes : 8);
    g->account_all = true;
    omplens_fix__buf_printf(r, "these copies go with the mappings they attach at %s: keep "
                               "the mapped arrays (and what holds their pointers) on the device "
                               "across the loop or the calls that map them again, rather than "
                               "mapping them each time (see the repeated allocations there).",
                            where);
    return;
  }
  if (s->pointer) { /* the runtime's own storage of pointers: it goes with their items */
    omplens_fix__buf_printf(r, "the runtime makes the device's copy of %s for the items mapped "
                               "through %s at %s: keep those items on the device across the "
                               "loop or the calls that map them again, rather than mapping them "
                               "each time (see the repeated allocations there).",
                            s->pointer, strchr(s->pointer, ',') ? "them" : "it", where);
    return;
  }
  if (s->api) { /* a call: the change is to the code around it */
    const omplens_finding *f = g->num_findings ? &c->fx->findings[g->findings[0]] : NULL;
    if (f && f->category == OMPLENS_CAT_UNUSED_ALLOC)
      omplens_fix__buf_printf(r, "no kernel ran on the device while it held what %s allocated "
                                 "for %s at %s:%u: remove the call and its omp_target_free, or "
                                 "make it only where the memory is used.",
                              s->api, it, s->file ? omplens_fix__short_name(s->file->path) : "",
                              s->api_line);
    else if (strstr(s->api, "alloc") || strstr(s->api, "free"))
      omplens_fix__buf_printf(r, "allocate once with %s, before the loop that reaches the call, "
                                 "free once after it, and keep the device pointer between steps.",
                              s->api);
    else if (all_category(c, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER) && first_event(c) &&
             first_event(c)->kind == OMPLENS_EV_H2D) { /* another buffer's bytes, no re-send */
      const char *name, *carrier = first_carrier(c, &name);
      omplens_fix__buf_printf(r, "the device already received these bytes for %s%s%s: unless "
                                 "the two differ in other runs, make %s's content on the device "
                                 "instead of sending it (an omp_target_memcpy from that device "
                                 "buffer, device to device, or a kernel that sets the values).",
                              carrier ? "`" : "another buffer", carrier ? carrier : "",
                              carrier ? "`" : "", it);
    } else {
      bool fetch = first_event(c) && first_event(c)->kind == OMPLENS_EV_D2H;
      omplens_fix__buf_printf(r, "make the %s call only when its source changed: the %s "
                                 "keeps what it received until then (move the call out of the "
                                 "loop, or guard it).",
                              s->api, fetch ? "host" : "device");
      kernels_between(c, r);
    }
    return;
  }
  int rule = g->kind == OMPLENS_FIX_MANUAL ? g->intended : g->kind;
  switch (rule) {
  case OMPLENS_FIX_KEEP_RESIDENT:
  case OMPLENS_FIX_KEEP_RESIDENT_CALLER:
  case OMPLENS_FIX_HOIST_ALLOC: {
    if (own_buffer_recipe(c, r) || value_parameter_recipe(c, r) || local_variable_recipe(c, r))
      break;
    unsigned loop_line, decl_line, assign_line;
    bool in_loop = omplens_fix__declared_in_loop(c, s, &loop_line, &decl_line);
    if (!in_loop && assigned_in_loop(c, s, &loop_line, &assign_line)) {
      omplens_fix__buf_printf(
          r,
          "%s is given another buffer at line %u, inside the loop at line %u, so each run of "
          "the loop maps new memory (the same address again only when the allocator hands "
          "it back). To keep it on the device, allocate it once before the loop and free it "
          "after, then wrap the loop in `#pragma omp target data` with it.",
          s->var, assign_line, loop_line);
      break;
    }
    if (in_loop && loop_value_recipe(c, r, loop_line, decl_line))
      break;
    if (in_loop) {
      loop_local_recipe(c, r, loop_line, decl_line);
      break;
    }
    if (rule == OMPLENS_FIX_HOIST_ALLOC) {
      omplens_fix__buf_printf(
          r,
          "allocate %s once: `#pragma omp target enter data map(alloc: %s)` before the code "
          "that runs %s each time (the loop around it, or the calls of its function) and "
          "`#pragma omp target exit data map(delete: %s)` after that code.",
          it, it, where, it);
      break;
    }
    const char *all = group_items(c->fx, g, false), *list = group_items(c->fx, g, true);
    const char *them = strcmp(all, it) ? "them" : "it";
    /* Where the runs of the directive are: a loop around it or around
     * the call of its function, or, with no loop, the code from the
     * first to the last (the reason says which the parse found). */
    const char *span = "the code that runs it each time (the loop around it, or around the call of "
                       "its function)";
    const omplens_directive *other = pair_in_no_loop(c);
    if (other) { /* main's straight-line code: the runs are the pair's */
      unsigned a = other->pragma.line, b = s->dir->pragma.line;
      omplens_fix__buf_printf(
          r,
          "keep %s on the device from line %u to line %u, the constructs that move %s: put "
          "`#pragma omp target data map(from: %s)` around that code, so that the kernels there "
          "find %s present and copy nothing, and %s comes back to the host once, at its end; "
          "add `#pragma omp target update from(%s)` where the host reads %s in between, and "
          "`#pragma omp target update to(%s)` after the host changes %s.",
          all, a < b ? a : b, a < b ? b : a, them, list, them, them, list, them, list, them);
      break;
    }
    if (omplens_fix__maps_always(s)) /* copied even while held */
      omplens_fix__buf_printf(
          r,
          "the map of %s at %s says `always`, so it copies each time even while %s mapped: "
          "keep %s mapped around %s, in a `target data` there or an enter data that already "
          "maps %s, drop `always` at %s, and add `#pragma omp target update to(%s)` after the "
          "host changes %s and `#pragma omp target update from(%s)` where the host reads %s.",
          all, where, strcmp(them, "them") ? "it stays" : "they stay", all, span, them, where,
          list, them, list, them);
    else if (site_map_type(s) == OMPLENS_MAP_FROM) /* a result: nothing to send */
      omplens_fix__buf_printf(
          r,
          "keep %s on the device between the runs of %s: put `#pragma omp target data "
          "map(from: %s)` around %s, and add `#pragma omp target update from(%s)` where the "
          "host reads %s in between.",
          all, where, list, span, list, them);
    else if (site_map_type(s) == OMPLENS_MAP_TO) /* an input: nothing to bring back */
      omplens_fix__buf_printf(
          r,
          "keep %s on the device between the runs of %s: put `#pragma omp target data "
          "map(to: %s)` around %s, and add `#pragma omp target update to(%s)` after the host "
          "changes %s.",
          all, where, list, span, list, them);
    else
      omplens_fix__buf_printf(
          r,
          "keep %s on the device between the runs of %s: put `#pragma omp target data "
          "map(tofrom: %s)` around %s, add `#pragma omp target update from(%s)` where the host "
          "reads %s in between, and `#pragma omp target update to(%s)` after the host changes "
          "%s.",
          all, where, list, span, list, them, list, them);
    break;
  }
  case OMPLENS_FIX_DROP_COPY_BACK:
    if (changed_copies_recipe(c, r, it, where))
      break;
    if (s->implicit)
      omplens_fix__buf_printf(r,
                              "%s has no map clause at %s, so it is mapped `tofrom`: if the "
                              "device never changes it, add `map(to: %s)` to the directive.",
                              it, where, it);
    else
      omplens_fix__buf_printf(
          r,
          "if the device never changes %s, do not copy it back at %s: map it `to` instead of "
          "`tofrom`, `release` instead of `from` on an exit data, or drop it from `target "
          "update from`.",
          it, where);
    break;
  case OMPLENS_FIX_REMOVE_ITEM:
  case OMPLENS_FIX_REMOVE_DIRECTIVE:
  case OMPLENS_FIX_GUARD:
    if (g->unreferenced) {
      omplens_fix__buf_printf(r,
                              "remove %s from the map clause at %s once you know that neither "
                              "the kernel nor a function it calls uses it.",
                              it, where);
      break;
    }
    if (all_category(c, OMPLENS_CAT_UNUSED_ALLOC) ||
        (has_category(c, OMPLENS_CAT_UNUSED_ALLOC) && passed_over(c->fx, g))) {
      /* nothing to guard but the mapping: its copies go with it */
      omplens_fix__buf_printf(r, "map %s only in the runs that reach the code that uses it: "
                                 "a data directive of its own for it at %s, with an `if(...)` "
                                 "clause on the condition that leads there, or leave it where "
                                 "the allocation costs little.",
                              it, where);
      break;
    }
    omplens_fix__buf_printf(
        r, "run the copy of %s at %s only when it carries data a kernel will read: remove it "
           "where it never does%s%s",
        it, where, guard_recipe(c),
        has_category(c, OMPLENS_CAT_UNUSED_ALLOC)
            ? "; remove an unused allocation (and the data directive when it maps nothing else)."
            : ".");
    break;
  case OMPLENS_FIX_MAP_ALLOC:
    omplens_fix__buf_printf(
        r,
        "map %s with `alloc` instead of `to` at %s (no kernel reads what is sent), or move the "
        "directive after the host code that prepares the data.",
        it, where);
    break;
  case OMPLENS_FIX_ZERO_ON_DEVICE:
    omplens_fix__buf_printf(
        r,
        "map %s with `alloc` at %s and set it on the device with a kernel (a "
        "`target teams distribute parallel for` loop writing the value), instead of sending "
        "bytes the device already received.",
        it, where);
    break;
  case OMPLENS_FIX_ADD_EXIT_DATA:
    omplens_fix__buf_printf(
        r,
        "add `#pragma omp target exit data map(delete: %s)` after the last use of %s on the "
        "device (before the host frees it).",
        it, it);
    break;
  case OMPLENS_FIX_INIT_ON_DEVICE:
    omplens_fix__recipe_init(c, where);
    break;
  case OMPLENS_FIX__HOST_HOLDS: {
    /* The group may hold copies of bytes the host holds in this buffer and
     * of bytes it holds in another: a recipe for each kind it has. */
    bool update = s->dir && s->dir->kind == OMPLENS_DIRECTIVE_TARGET_UPDATE;
    bool same = has_category(c, OMPLENS_CAT_DUPLICATE_SAME_BUFFER);
    unsigned wrote = 0;
    const omplens_directive *writer = same && update ? writes_before_copy_back(c, &wrote) : NULL;
    if (writer)
      omplens_fix__buf_printf(
          r,
          "the `target update from` at %s already follows the kernel at line %u, which writes "
          "%s (line %u): its copies came back unchanged because that kernel wrote the values "
          "%s already held. Where the host reads each of them (a result it checks) they are "
          "needed; where it only tests them (a convergence check, a loop flag), that test can "
          "run on the device (a reduction into one scalar), and only its result come back.",
          where, writer->pragma.line, it, wrote, it);
    else if (same && update)
      omplens_fix__buf_printf(
          r,
          "the device sends %s back at %s unchanged since it last did: run this `target update "
          "from` only after a kernel that writes %s (guard it, or move it after that kernel), "
          "unless the host needs each copy to see whether a kernel changed it (a loop flag, a "
          "result it checks).",
          it, where, it);
    else if (same)
      omplens_fix__buf_printf(
          r,
          "the device sends %s back at %s unchanged since it last did: copy it back once, "
          "after the last kernel that writes it (a `target update from` there, and %s at %s), "
          "unless the host needs each copy to see whether a kernel changed it (a loop flag).",
          it, where,
          site_map_type(s) != OMPLENS_MAP_FROM ? "`to` instead of `tofrom`"
          : s->dir && s->dir->kind == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA
              ? "`release` instead of `from`" /* no alloc on an exit data */
              : "`alloc` instead of `from`",
          where);
    if (!has_category(c, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER))
      break;
    /* Two kernels that compute the same values, or one that copies an
     * array: a program that compares the two needs both copies. */
    const char *name = NULL, *carrier = first_carrier(c, &name);
    const char *other = carrier ? omplens_fix__ownf(c->fx, "`%s`", carrier) : "another buffer";
    /* The carrier is the group's own variable in another buffer: an
     * earlier allocation of it (a function that allocates its result each
     * call, HeCBench hexciton), gone or reused by the time of the copy. */
    if (name && s->var && !strcmp(name, s->var))
      omplens_fix__buf_printf(
          r,
          "%sthe host held the bytes of %s in an earlier buffer of %s (another allocation of "
          "the same variable, freed or reused by now, whose kernels computed the same "
          "values): there is no other copy for the host to read, so this copy back stays; "
          "only computing the result once and keeping it would save it.",
          same ? " Other copies there: " : "", it, s->var);
    else if (same)
      omplens_fix__buf_printf(r, " Other copies there bring back bytes the host already holds in "
                                 "%s (two kernels compute the same values, or one copies an "
                                 "array into another): unless the host compares the two, it can "
                                 "read %s instead.",
                              other, other);
    else if (update)
      omplens_fix__buf_printf(
          r,
          "the host already holds in %s the bytes the device sends back as %s at %s (two "
          "kernels compute the same values, or one copies an array into another): unless the "
          "host compares the two (a check of one result against the other), read %s on the "
          "host instead and drop %s from this `target update from`.",
          other, it, where, other, it);
    else
      omplens_fix__buf_printf(
          r,
          "the host already holds in %s the bytes the device sends back as %s at %s (two "
          "kernels compute the same values, or one copies an array into another): unless the "
          "host compares the two (a check of one result against the other), read %s on the "
          "host instead, and do not copy %s back (map it `alloc` or `to` rather than "
          "`from`/`tofrom`).",
          other, it, where, other, it);
    break;
  }
  case OMPLENS_FIX__SWAP_ON_DEVICE:
    omplens_fix__buf_printf(
        r,
        "%s brings back to the device at %s a result the device computed, copied into it by "
        "the host: keep the result on the device instead, swap the device pointers of the two "
        "buffers between steps (or let the kernel use the device buffer that holds the result "
        "directly), and copy to the host only what the host reads.",
        it, where);
    break;
  default: {
    unsigned loop_line, decl_line;
    if (local_variable_recipe(c, r))
      break;
    if (omplens_fix__declared_in_loop(c, s, &loop_line, &decl_line)) {
      loop_local_recipe(c, r, loop_line, decl_line);
      break;
    }
    if (s->implicit)
      omplens_fix__buf_printf(
          r,
          "%s has no map clause at %s, so it is mapped `%s`: write the map it needs (`to` "
          "when the device only reads it), then keep it on the device between uses with a "
          "`target data` region or `target enter data`/`exit data` if it moves again.",
          it, where, omplens_map_type_name(s->implicit->map_type));
    else if (names_member(it))
      omplens_fix__buf_printf(
          r,
          "%s is a member: map the whole structure (or adjacent members) once with `target "
          "enter data` and refer to it with `present` maps.",
          it);
    else
      recipe_moved(c, r, it, where);
  }
  }
}

/* Gives up on a diff: the reason, the recipe; returns false. */
bool omplens_fix__fail(omplens_fix__ctx *c, const char *fmt, ...) {
  omplens_fix__group *g = c->g;
  omplens_fix__buf *why = c->probe ? c->probe : &g->reason;
  if (!why->len) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) >= 0) {
      omplens_fix__buf_str(why, s);
      free(s);
    }
    va_end(ap);
  }
  if (c->probe)
    return false;
  if (g->kind != OMPLENS_FIX_MANUAL)
    g->intended = g->kind;
  if (!g->recipe.len)
    recipe(c);
  omplens_fix__edits_free(&g->edits);
  g->kind = OMPLENS_FIX_MANUAL;
  return false;
}

bool omplens_fix__need_ast(omplens_fix__ctx *c) {
  const char *why;
  if (!omplens_fix__file_ast(c->fx, c->file, &why))
    return omplens_fix__fail(c, "%s", why);
  c->ast = &c->file->ast;
  return true;
}

/* Reads the site's pragma as written and checks it against the index.
 * A pragma of the file's own text is kept by the file (p is then its
 * copy, which omplens_fix__pragma_free leaves): a construct mapping 300
 * items was read 300 times, once for each item's fix. */
bool omplens_fix__scan_site(omplens_fix__ctx *c, const omplens_fix__site *s,
                            omplens_fix__pragma *p) {
  size_t at = omplens_fix__pragma_at(c, s->dir);
  omplens_fix__file *f = c->file && c->src == &c->file->src ? c->file : NULL;
  if (f && at != SIZE_MAX && f->scanned_at == at + 1) {
    *p = f->scanned;
    return true;
  }
  if (at == SIZE_MAX || omplens_fix__pragma_scan(c->src, at, p))
    return omplens_fix__fail(c, "the directive at line %u cannot be read back from the file",
                             s->dir->pragma.line);
  bool same = p->num_items == s->dir->num_items;
  for (size_t i = 0; same && i < p->num_items; i++)
    same = !strcmp(p->items[i].text, s->dir->items[i].text);
  if (!same) {
    omplens_fix__pragma_free(p);
    return omplens_fix__fail(
        c, "the text of the directive at line %u does not match what the index read",
        s->dir->pragma.line);
  }
  if (f) {
    f->scanned.kept = false;
    omplens_fix__pragma_free(&f->scanned);
    p->kept = true;
    f->scanned = *p;
    f->scanned_at = at + 1;
  }
  return true;
}


/* ---- directive text ---- */

/* " device(...)" of a directive, or "". */
const char *omplens_fix__device_clause(omplens_fix__ctx *c, const omplens_directive *d) {
  for (size_t i = 0; i < d->num_clauses; i++)
    if (d->clauses[i].kind == OMPLENS_CLAUSE_DEVICE)
      return omplens_fix__ownf(c->fx, " %s", d->clauses[i].text);
  return "";
}

bool omplens_fix__has_clause(const omplens_directive *d, int kind) {
  for (size_t i = 0; i < d->num_clauses; i++)
    if (d->clauses[i].kind == kind)
      return true;
  return false;
}

/* ---- rule: target update items (round trip H2D, unused transfers) ---- */

/* Whether an initializer can go without a trace: no call but the size and
 * storage queries of a container (`v_.data()`, `v_.size()`). */
static bool quiet_initializer(const char *init) {
  static const char *const pure[] = {".data()", "->data()", ".size()", "->size()"};
  char *t = strdup(init);
  if (!t)
    return false;
  for (size_t k = 0; k < sizeof pure / sizeof *pure; k++)
    for (char *q; (q = strstr(t, pure[k])) != NULL;)
      memmove(q, q + strlen(pure[k]), strlen(q + strlen(pure[k])) + 1);
  bool quiet = !strpbrk(t, "(=+-");
  free(t);
  return quiet;
}

/* After a directive's removal: the locals of its function that only its
 * items used (`double *p = v_.data(); size_t len = v_.size();` before an
 * update that goes), each declared alone on its own lines with a quiet
 * initializer, go too, so that the patch adds no unused variable. */
static void drop_unused_locals(omplens_fix__ctx *c, const omplens_fix__site *s,
                               const omplens_fix__pragma *p) {
  if (!omplens_fix__need_ast(c))
    return;
  const omplens_fix__ast *a = c->ast;
  size_t at = omplens_fix__pragma_at(c, s->dir);
  uint32_t fn = omplens_fix__ast_function_at(a, at);
  uint32_t done[16];
  size_t ndone = 0;
  char word[256];
  for (size_t k = 0; fn != NONE && k < p->num_items; k++)
    for (const char *w = p->items[k].text; omplens_fix__next_identifier(&w, word, sizeof word);) {
      uint32_t d = omplens_fix__ast_lookup(a, word, at);
      bool seen = false;
      for (size_t i = 0; i < ndone; i++)
        seen |= done[i] == d;
      if (d == NONE || seen || ndone == 16 || a->nodes[d].kind != OMPLENS_FIX__N_VAR ||
          a->nodes[d].global || !omplens_fix__ast_within(a, d, fn))
        continue;
      done[ndone++] = d;
      bool used = false; /* anywhere but in the directive's own text */
      for (uint32_t i = fn; i < omplens_fix__ast_end(a, fn) && !used; i++)
        used = a->nodes[i].kind == OMPLENS_FIX__N_DECLREF && a->nodes[i].ref == d &&
               (a->nodes[i].begin < p->begin || a->nodes[i].begin >= p->end);
      uint32_t st = omplens_fix__statement_of(a, d);
      unsigned first, last;
      size_t vars = 0;
      for (uint32_t i = st; st != NONE && i < omplens_fix__ast_end(a, st); i++)
        vars += a->nodes[i].kind == OMPLENS_FIX__N_VAR;
      char *init = omplens_fix__initializer(c->file, d);
      if (!used && st != NONE && vars == 1 && init && quiet_initializer(init) &&
          omplens_fix__own_lines(c, st, &first, &last))
        omplens_fix__remove_lines(&c->g->edits, c->src, first, last);
      free(init);
    }
}

/* The text of d's first clause that a change of its items cannot carry
 * along (depend, nowait, an unknown one; also use_device_ptr/_addr when
 * device_ptrs), or NULL. */
static const char *clause_in_the_way(const omplens_directive *d, bool device_ptrs) {
  for (size_t i = 0; i < d->num_clauses; i++) {
    int k = d->clauses[i].kind;
    bool device_ptr = k == OMPLENS_CLAUSE_USE_DEVICE_PTR || k == OMPLENS_CLAUSE_USE_DEVICE_ADDR;
    if (k == OMPLENS_CLAUSE_DEPEND || k == OMPLENS_CLAUSE_NOWAIT || k == OMPLENS_CLAUSE_OTHER ||
        (device_ptrs && device_ptr))
      return d->clauses[i].text;
  }
  return NULL;
}

/* Removes the data directive at s, whose every item goes, into c->g's
 * edits (and the locals only its items used); the reason it cannot, or
 * NULL. */
static const char *remove_directive(omplens_fix__ctx *c, const omplens_fix__site *s,
                                    const omplens_fix__pragma *p) {
  const char *kept = clause_in_the_way(s->dir, true);
  if (kept)
    return omplens_fix__ownf(c->fx, "the directive's %s would go, and it also has `%s`, which "
                             "must stay", p->num_items == 1 ? "only item" : "items", kept);
  const char *why = omplens_fix__pragma_remove(c->src, p, &c->g->edits);
  if (!why)
    drop_unused_locals(c, s, p);
  return why;
}

bool omplens_fix__remove_item_or_directive(omplens_fix__ctx *c, const omplens_fix__site *s,
                                           const omplens_fix__pragma *p) {
  omplens_fix__group *g = c->g;
  const char *why;
  const omplens_fix__pclause *cl = &p->clauses[p->items[s->item].clause];
  if (cl->num_items == 1 && omplens_fix__pragma_data_clauses(p) == 1) {
    why = remove_directive(c, s, p);
    g->kind = OMPLENS_FIX_REMOVE_DIRECTIVE;
  } else {
    why = omplens_fix__pragma_remove_item(c->src, p, s->item, &g->edits);
    g->kind = OMPLENS_FIX_REMOVE_ITEM;
    if (!why && !omplens_fix__note_changes(g, &s->item, 1, NULL))
      why = "out of memory";
  }
  return why ? omplens_fix__fail(c, "%s", why) : true;
}

static bool all_category(const omplens_fix__ctx *c, int category) {
  for (size_t k = 0; k < c->g->num_findings; k++)
    if (c->fx->findings[c->g->findings[k]].category != category)
      return false;
  return true;
}

/* Whether every finding of the group re-sends what the receiver holds: a
 * round trip, or a duplicate of the same buffer (after one round trip, a
 * returned copy sent again is a duplicate). */
static bool resends(const omplens_fix__ctx *c) {
  for (size_t k = 0; k < c->g->num_findings; k++) {
    int cat = c->fx->findings[c->g->findings[k]].category;
    if (cat != OMPLENS_CAT_ROUND_TRIP && cat != OMPLENS_CAT_DUPLICATE_SAME_BUFFER)
      return false;
  }
  return true;
}

/* Edits that make the update's items (n distinct ones) copy only where
 * the if clause cond holds. An if clause guards every item of its
 * directive: on the directive when they are all its items; else they move
 * to a directive of their own with the clause, on the line before it. NULL,
 * or why it cannot. */
static const char *guard_items(omplens_fix__ctx *c, const omplens_fix__pragma *p,
                               const size_t *items, size_t n, const char *cond,
                               omplens_fix__edits *e) {
  if (n == p->num_items)
    return omplens_fix__pragma_add_clause(c->src, p, cond, e);
  const omplens_directive *d = c->g->site.dir;
  const char *kept = clause_in_the_way(d, false);
  if (kept)
    return omplens_fix__ownf(c->fx, "the if clause would guard the directive's other items too, "
                             "and a directive of their own would have to repeat `%s`", kept);
  const omplens_fix__pclause *first = &p->clauses[p->items[items[0]].clause];
  omplens_fix__buf line = {0};
  omplens_fix__buf_printf(&line, "#pragma omp %s %s(", d->name, first->name);
  for (size_t k = 0; k < n; k++) {
    const omplens_fix__pclause *cl = &p->clauses[p->items[items[k]].clause];
    if (strcmp(cl->name, first->name) || cl->colon != SIZE_MAX) {
      omplens_fix__buf_free(&line);
      return "the if clause would guard the directive's other items too, and the items are in "
             "clauses of several kinds or with modifiers";
    }
    const omplens_fix__pitem *it = &p->items[items[k]];
    omplens_fix__buf_printf(&line, "%s%s", k ? ", " : "", it->text);
  }
  omplens_fix__buf_printf(&line, ")%s %s\n", omplens_fix__device_clause(c, d), cond);
  size_t at, indent = omplens_fix__indent(c->src, p->first_line, &at);
  if (line.failed) {
    omplens_fix__buf_free(&line);
    e->failed = 1;
    return NULL;
  }
  /* Before the directive's first line: an insertion comes first there. */
  omplens_fix__insert_lines(e, c->src, p->first_line, c->src->text + at, indent, line.data);
  omplens_fix__buf_free(&line);
  return omplens_fix__pragma_remove_items(c->src, p, items, n, e);
}

/* An if clause on the update: only the first iteration (re-sends: the rest
 * send what the device holds) or all but the last (the last copy is read by
 * no kernel). */
static bool guard_update(omplens_fix__ctx *c, const omplens_fix__pragma *p,
                         const omplens_fix__evidence *ev) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  const char *it = omplens_fix__item_text(s);
  /* One buffer: with several, "the first" is one per buffer, not one per loop. */
  bool first = resends(c) && ev->h2d_unflagged_first_only &&
               ev->h2d - ev->h2d_flagged == 1 && ev->buffers == 1;
  bool last = all_category(c, OMPLENS_CAT_UNUSED_TRANSFER) && ev->h2d_flagged == 1 &&
              ev->buffers == 1 && !omplens_fix__sent_again(c->fx, &c->fx->findings[g->findings[0]]);
  if (!first && !last)
    return omplens_fix__fail(c,
                             "%u of the %u copies of %s at line %u are needed, and they are "
                             "neither all but the first nor all but the last",
                             ev->h2d - ev->h2d_flagged, ev->h2d, it, s->dir->pragma.line);
  if (omplens_fix__has_clause(s->dir, OMPLENS_CLAUSE_IF))
    return omplens_fix__fail(c, "the directive already has an if clause");
  uint32_t loop;
  omplens_fix__canon k;
  if (!omplens_fix__need_ast(c) || !omplens_fix__once_per_iteration(c, s, &loop, &k))
    return false;
  /* Skipping the last iteration is only right if the loop runs once: the
   * last iteration of an earlier run may feed the next run's kernels. */
  bool ok = first || omplens_fix__loop_runs_once(c, loop);
  char *v = ok ? omplens_fix__paren(first ? k.init : k.bound) : NULL;
  char *cond = NULL;
  int n = !v      ? -1
          : first ? asprintf(&cond, "if(%s == %s)", k.var, v)
                  : asprintf(&cond, "if(%s + 1 %s %s)", k.var, k.less_equal ? "<=" : "<", v);
  if (n < 0)
    cond = NULL;
  const char *why = cond ? guard_items(c, p, &s->item, 1, cond, &g->edits) : NULL;
  if (cond && why) {
    ok = omplens_fix__fail(c, "%s", why);
  } else if (cond) {
    g->kind = OMPLENS_FIX_GUARD;
    g->condition = omplens_fix__ownf(c->fx, "%s", cond);
    g->first_only = first;
    omplens_fix__buf_printf(
        &g->summary,
        first ? "only the first copy of %s by `%s` at %s:%u is needed (later ones re-send what "
                "the device still holds): %s only in the first iteration with `%s`"
              : "the last copy of %s by `%s` at %s:%u is read by no kernel: %s in the last "
                "iteration with `%s`",
        it, s->dir->name, omplens_fix__short_name(c->file->path), s->dir->pragma.line,
        p->num_items == 1 ? (first ? "run it" : "skip it")
        : first           ? "copy it in a directive of its own that runs"
                          : "move it to a directive of its own that skips it",
        cond);
    omplens_fix__buf_str(&g->summary, "; assumes every run iterates as the recorded one did");
  } else if (ok) {
    ok = omplens_fix__fail(c, "out of memory");
  }
  free(cond);
  free(v);
  omplens_fix__canon_free(&k);
  return ok;
}

/* Whether none of the kernels that ran between the re-sends and the copies
 * before them can have changed the device's copy: each is a construct of
 * the update's function whose body calls nothing and does not write the
 * variable (the trace sees no kernel write; aliases are assumed away). */
/* The variable a kernel in another function of the file (at offset kat)
 * maps for the same storage as the update's var: both locals taken from
 * the same object (`p = v_.data()` in two methods of a class), or NONE. */
static uint32_t same_storage(omplens_fix__ctx *c, const omplens_fix__site *s, uint32_t var,
                             const omplens_directive *d, size_t kat) {
  char *init = omplens_fix__initializer(c->file, var);
  char *object = init ? omplens_fix__storage_object(init) : NULL;
  /* `p = host_;` in two methods: the member pointer itself */
  if (init && !object && one_word(init))
    object = strdup(init);
  uint32_t found = NONE;
  for (size_t k = 0; object && found == NONE && k < d->num_items; k++) {
    uint32_t kv = d->items[k].var ? omplens_fix__ast_lookup(c->ast, d->items[k].var, kat) : NONE;
    if (kv == NONE || c->ast->nodes[kv].kind != OMPLENS_FIX__N_VAR || c->ast->nodes[kv].global)
      continue;
    char *kinit = omplens_fix__initializer(c->file, kv);
    char *kobject = kinit ? omplens_fix__storage_object(kinit) : NULL;
    /* the same object, named by neither function's own locals */
    if (kinit && !kobject && one_word(kinit))
      kobject = strdup(kinit);
    if (kobject && !strcmp(kobject, object) && *object &&
        omplens_fix__ast_lookup(c->ast, object, omplens_fix__pragma_at(c, s->dir)) ==
            omplens_fix__ast_lookup(c->ast, object, kat))
      found = kv;
    free(kinit);
    free(kobject);
  }
  const char *said = found == NONE
                         ? NULL
                         : omplens_fix__ownf(c->fx,
                                             "the kernel at line %u, in another function, reaches "
                                             "the same storage (%s) through %s and only reads it; ",
                                             d->pragma.line, object,
                                             omplens_fix__ast_name(c->ast, found));
  if (said && (!c->g->note.data || !strstr(c->g->note.data, said))) {
    omplens_fix__buf_str(&c->g->note, said);
    c->g->confidence = OMPLENS_FIXC_ASSUMED; /* the object is the same, by its name */
  }
  free(init);
  free(object);
  return found;
}

/* Kernels are read by the variable's name: a pointer that trades buffers
 * in function fn (`tmp = src; src = dst; dst = tmp;`) names memory that a
 * kernel wrote under the other name. Only a pointer can: assigning a
 * scalar or a struct (`sum = 0;`) changes what its one buffer holds. */
static bool keeps_its_buffer(omplens_fix__ctx *c, uint32_t fn, uint32_t var) {
  const omplens_fix__ast *a = c->ast;
  if (a->nodes[var].elem == OMPLENS_FIX__ELEM_UNKNOWN)
    return true;
  for (uint32_t i = fn; i < omplens_fix__ast_end(a, fn); i++) {
    uint32_t other;
    /* an allocation aliases nothing: a buffer that moves is remapped,
     * which the copies' evidence sees */
    if (a->nodes[i].kind == OMPLENS_FIX__N_DECLREF && a->nodes[i].ref == var &&
        omplens_fix__ast_use(a, i, &other) == OMPLENS_FIX__USE_ASSIGNED &&
        !omplens_fix__ast_fresh_allocation(a, other))
      return omplens_fix__fail(c,
                               "%s is given another buffer at line %u, so a kernel may write its "
                               "memory under another name",
                               omplens_fix__ast_name(a, i),
                               omplens_fix__ctx_line(c, a->nodes[i].begin));
  }
  return true;
}

/* The function of site s's directive and the declaration of its variable
 * there (*fn, *var), a variable that keeps its buffer in that function;
 * false with the reason. */
static bool site_variable(omplens_fix__ctx *c, const omplens_fix__site *s, uint32_t *fn,
                          uint32_t *var) {
  if (!omplens_fix__need_ast(c))
    return false;
  size_t at = omplens_fix__pragma_at(c, s->dir);
  *fn = omplens_fix__ast_function_at(c->ast, at);
  *var = omplens_fix__ast_lookup(c->ast, s->var, at);
  if (*fn == NONE || *var == NONE)
    return omplens_fix__fail(c, "%s is not declared where the directive is, as libclang parsed it",
                             s->var);
  return keeps_its_buffer(c, *fn, *var);
}

static void keep_written_copy_back(omplens_fix__ctx *c, unsigned line);

/* No call in function fn hands variable var to a function of the file
 * that stores through it (in its kernels or on the host): a kernel there
 * may write what the copy back brings, though none did in the recorded
 * run (HeCBench atomicPerf: a store under a condition that never held). */
static bool callees_leave_it(omplens_fix__ctx *c, uint32_t fn, uint32_t var) {
  const omplens_fix__ast *a = c->ast;
  const omplens_fix__site *s = &c->g->site;
  for (uint32_t i = fn; i < omplens_fix__ast_end(a, fn); i++) {
    uint32_t call;
    if (a->nodes[i].kind != OMPLENS_FIX__N_DECLREF || a->nodes[i].ref != var ||
        omplens_fix__ast_use(a, i, &call) != OMPLENS_FIX__USE_ESCAPE || call == NONE ||
        a->nodes[call].kind != OMPLENS_FIX__N_CALL)
      continue;
    const char *callee = NULL;
    unsigned wrote = omplens_fix__callee_writes(c, call, i, &callee);
    if (!wrote)
      continue;
    unsigned line = omplens_fix__ctx_line(c, a->nodes[i].begin);
    keep_written_copy_back(c, wrote);
    return omplens_fix__fail(c,
                             "%s is passed to %s() at line %u, which writes it at line %u: it "
                             "came back unchanged only in the recorded run",
                             s->var, callee, line, wrote);
  }
  return true;
}

/* An update from (or an exit data's copy back) that brought back what the
 * host sent, in the recorded run: no kernel of its function writes the
 * variable in any run (kernels elsewhere are assumed not to, with a
 * note). */
static bool kernels_leave_it(omplens_fix__ctx *c) {
  const omplens_fix__site *s = &c->g->site;
  uint32_t fn, var;
  if (!site_variable(c, s, &fn, &var))
    return false;
  omplens_fix__file_dirs(c->fx, c->file);
  for (size_t i = 0; i < c->file->num_dirs; i++) {
    const omplens_directive *d = c->file->dirs[i];
    if (d->kind != OMPLENS_DIRECTIVE_TARGET || !d->body.file ||
        omplens_fix__ast_function_at(c->ast, omplens_fix__pragma_at(c, d)) != fn)
      continue;
    size_t b, e;
    if (!omplens_fix__body_range(c, d, &b, &e))
      return omplens_fix__fail(c, "the body of the kernel at line %u is unknown", d->pragma.line);
    if (!omplens_fix__device_reads_only(c, d, b, e, var, omplens_fix__item_text(s),
                                        "the copy back brings its results"))
      return false;
  }
  if (!callees_leave_it(c, fn, var))
    return false;
  omplens_fix__buf_str(&c->g->note, "no kernel of the directive's function writes the variable; "
                                    "this assumes kernels elsewhere do not either");
  return true;
}

static uint32_t kernel_var(omplens_fix__ctx *c, const omplens_fix__site *s, uint32_t fn,
                           uint32_t var, uint64_t code, const omplens_directive **d) {
  omplens_fix__file *kf;
  *d = omplens_fix__directive_of(c->fx, code, OMPLENS_RUNTIME_TARGET, &kf);
  size_t kat = *d && kf == c->file ? omplens_fix__pragma_at(c, *d) : SIZE_MAX;
  return kat == SIZE_MAX                                 ? NONE
         : omplens_fix__ast_function_at(c->ast, kat) == fn ? var
                                                           : same_storage(c, s, var, *d, kat);
}

bool omplens_fix__kernels_leave(omplens_fix__ctx *c, const omplens_fix__site *s,
                                const omplens_fix__resends *rs, const char *consequence,
                                const omplens_directive **writer) {
  const char *it = omplens_fix__item_text(s);
  *writer = NULL;
  if (rs->too_many)
    return omplens_fix__fail(c, "more than %d kernels run between the copies of %s",
                             OMPLENS_FIX__MAX_KERNELS, it);
  if (!rs->num_kernels)
    return true;
  uint32_t fn, var;
  if (!site_variable(c, s, &fn, &var))
    return false;
  for (size_t k = 0; k < rs->num_kernels; k++) {
    const omplens_directive *d;
    uint32_t kvar = kernel_var(c, s, fn, var, rs->kernels[k], &d);
    if (kvar == NONE)
      return omplens_fix__fail(c,
                               "a kernel outside the function of the directive at line %u runs "
                               "between the copies of %s: whether it writes %s cannot be checked",
                               s->dir->pragma.line, it, s->var);
    size_t b, e;
    if (!omplens_fix__body_range(c, d, &b, &e))
      return omplens_fix__fail(c, "the body of the kernel at line %u is unknown", d->pragma.line);
    unsigned inc = omplens_fix__include_in(c, b, e);
    if (inc) /* not a write the body shows: no writer */
      return omplens_fix__fail(c, "the kernel at line %u runs between the copies of %s and "
                                  "includes a file at line %u, whose code is not read: whether "
                                  "it writes %s cannot be checked",
                               d->pragma.line, it, inc, s->var);
    if (!omplens_fix__device_reads_only(c, d, b, e, kvar, it, consequence)) {
      *writer = d; /* a write the body shows comes before what its calls may do */
      return false;
    }
    if (d->flags & OMPLENS_DIRF_BODY_CALLS)
      return omplens_fix__fail(c,
                               "the kernel at line %u runs between the copies of %s and calls "
                               "functions, which may write it",
                               d->pragma.line, it);
  }
  if (!c->g->note.data || !strstr(c->g->note.data, "the kernels between the copies"))
    omplens_fix__buf_str(&c->g->note, "the kernels between the copies do not write the variable; "
                                      "this assumes they write no other pointer to its memory. ");
  return true;
}

/* An update to that sent what the device held, in the recorded run: the
 * host may not write the variable where its writes reach the update (the
 * update's loop, or its function before it). Else the update sends what
 * the host made, equal to the device's copy in that run only, and the
 * group's account tells its findings so. */
static bool host_leaves_it(omplens_fix__ctx *c) {
  const omplens_fix__site *s = &c->g->site;
  uint32_t fn, var;
  if (!site_variable(c, s, &fn, &var))
    return false;
  size_t at = omplens_fix__pragma_at(c, s->dir);
  uint32_t loop = omplens_fix__ast_loop_at(c->ast, fn, at);
  const omplens_fix__node *span = &c->ast->nodes[loop != NONE ? loop : fn];
  const char *it = omplens_fix__item_text(s);
  c->written_at = 0;
  if (omplens_fix__host_leaves(c, span->begin, loop != NONE ? span->end : at, var, it,
                               "the update sends what the host made, which equalled the "
                               "device's copy in the recorded run only"))
    return true;
  if (!c->written_at)
    return false;
  omplens_fix__buf_printf(&c->g->account,
                          "The device held these bytes already in the recorded run, but the "
                          "source shows the host writing %s at line %u, %s the update: each "
                          "copy sends what the host computed, which matched the device's copy "
                          "in this run only.",
                          it, c->written_at, loop != NONE ? "in the loop of" : "before");
  omplens_fix__buf_free(&c->g->recipe); /* the update is needed as written */
  omplens_fix__buf_printf(&c->g->recipe,
                          "keep the update at %s:%u: it sends what the host computes at line "
                          "%u. It can go only where the device computes the same values itself.",
                          omplens_fix__short_name(c->file->path), s->dir->pragma.line,
                          c->written_at);
  return false;
}

/* Whether every finding of g that says the device still holds what its
 * copies send sends zeros (and there is one). */
static bool sends_zeros(const omplens_fixer *fx, const omplens_fix__group *g) {
  bool any = false;
  for (size_t k = 0; k < g->num_findings; k++) {
    const omplens_finding *f = &fx->findings[g->findings[k]];
    if (!omplens_fix__claims_held(fx, f))
      continue;
    if (!omplens_fix__all_zero(fx, f))
      return false;
    any = true;
  }
  return any;
}

/* An update to that the kernels between its copies leave alone; else,
 * where a kernel writes the variable, the update is needed as written:
 * the recipe says how to stop it, and the group's account tells its
 * findings that they are re-initializations the trace could not see. */
static bool kernels_keep(omplens_fix__ctx *c, const omplens_fix__resends *rs, bool *shown) {
  const omplens_fix__site *s = &c->g->site;
  const omplens_directive *d;
  c->written_at = 0;
  *shown = false;
  if (omplens_fix__kernels_leave(c, s, rs, "the update restores what the kernel changed", &d))
    return true;
  if (!d)
    return false;
  *shown = true; /* the body changes it, or passes it on */
  const char *file = omplens_fix__short_name(c->file->path), *it = omplens_fix__item_text(s);
  omplens_fix__buf_free(&c->g->recipe); /* the update is needed as written */
  if (sends_zeros(c->fx, c->g))
    omplens_fix__buf_printf(&c->g->recipe,
                            "keep the update at %s:%u while the kernel at line %u changes %s on "
                            "the device. Every copy sends zeros: to stop sending them, set %s "
                            "to zero on the device in place of the update (a `target teams "
                            "distribute parallel for` loop that stores 0 in each element).",
                            file, s->dir->pragma.line, d->pragma.line, it, it);
  else
    omplens_fix__buf_printf(&c->g->recipe,
                            "keep the update at %s:%u: the kernel at line %u overwrites %s on "
                            "the device. To stop sending it again, let that kernel write a "
                            "device buffer of its own (`map(alloc:)` scratch) instead of %s.",
                            file, s->dir->pragma.line, d->pragma.line, it, s->var);
  if (c->written_at)
    omplens_fix__buf_printf(&c->g->account,
                            "The same bytes were sent again, but the source shows the kernel at "
                            "%s:%u writing %s at line %u, between the copies. If it writes the "
                            "part these copies send, each copy sets back what that kernel "
                            "changed on the device: a re-initialization, which the trace cannot "
                            "see without a copy back, not a duplicate.",
                            file, d->pragma.line, it, c->written_at);
  return false;
}

/* Why the copies of an update's items that the group's findings flag are
 * not needed (some of them copies back: d2h). */
static const char *update_why(const omplens_fix__ctx *c, bool d2h) {
  return all_category(c, OMPLENS_CAT_UNUSED_TRANSFER) ? "no kernel reads them"
         : !resends(c) ? "the device still holds them, or no kernel reads them"
         : d2h         ? "the host still holds the same bytes"
                       : "the device still holds the same bytes";
}

static bool build_update(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  omplens_fix__evidence ev;
  omplens_fix__evidence_of(c->fx, g, s, &ev);
  /* What the device holds is only still there if its buffer stayed, and
   * if no kernel changed it since. */
  omplens_fix__resends rs;
  omplens_fix__resend_evidence(c->fx, g, OMPLENS_EV_H2D, &rs);
  if (rs.remapped != NONE) {
    const char *it = omplens_fix__item_text(s);
    omplens_fix__buf_printf(&g->recipe,
                            "map %s once around the loop (the `target enter data` that maps it "
                            "before the loop, its `exit data` after it); the update at %s:%u "
                            "then re-sends what the device holds and can go.",
                            it, omplens_fix__short_name(c->file->path), s->dir->pragma.line);
    return omplens_fix__fail(c,
                             "the device buffer of %s is freed or mapped anew between its "
                             "copies, so the update at line %u fills a fresh buffer each time",
                             it, s->dir->pragma.line);
  }
  /* A kernel shown to change what the update restores says why first; a
   * kernel that cannot be checked comes after a host shown to write it. */
  bool host_checked = ev.h2d && !all_category(c, OMPLENS_CAT_UNUSED_TRANSFER);
  omplens_fix__buf probe = {0}, *saved = c->probe;
  bool had_recipe = g->recipe.len, had_account = g->account.len;
  c->probe = &probe;
  bool shown, keep = kernels_keep(c, &rs, &shown);
  c->probe = saved;
  omplens_fix__buf_free(&probe);
  if (!had_recipe) /* what the probe wrote is written again below, or not at all */
    omplens_fix__buf_free(&g->recipe);
  if (!had_account)
    omplens_fix__buf_free(&g->account);
  if (!keep && !shown && host_checked && !host_leaves_it(c))
    return false;
  if (!kernels_keep(c, &rs, &shown) || (ev.d2h && !kernels_leave_it(c)) ||
      (host_checked && !host_leaves_it(c)))
    return false;
  omplens_fix__pragma p;
  if (!omplens_fix__scan_site(c, s, &p))
    return false;
  if (g->confidence != OMPLENS_FIXC_ASSUMED)
    g->confidence = OMPLENS_FIXC_CHECKED;
  bool ok;
  uint32_t copies = ev.h2d + ev.d2h;
  if (copies && ev.h2d_flagged == ev.h2d && ev.d2h_flagged == ev.d2h) {
    ok = omplens_fix__remove_item_or_directive(c, s, &p);
    g->removes_item = ok && g->kind == OMPLENS_FIX_REMOVE_ITEM;
    if (ok)
      omplens_fix__buf_printf(
          &g->summary, "none of the %u copies of %s by `%s` at %s:%u is needed (%s): %s", copies,
          omplens_fix__item_text(s), s->dir->name, omplens_fix__short_name(c->file->path),
          s->dir->pragma.line, update_why(c, ev.d2h),
          g->kind == OMPLENS_FIX_REMOVE_DIRECTIVE ? "remove the directive" : "remove the item");
  } else {
    ok = guard_update(c, &p, &ev);
  }
  omplens_fix__pragma_free(&p);
  return ok;
}

/* ---- rule: drop a copy back (round trip D2H) ---- */

/* A copy back that returned the bytes sent in the recorded run may still
 * be needed when the code writes them in another (a run where more threads
 * do the work, a real device): the construct's body (a kernel's, or a data
 * region's with its kernels and host code) may not write the variable.
 * Passing it to a function, or a region that calls functions, is assumed
 * not to write it, with a note. An exit data has no body: the kernels of
 * its function stand for it (build_drop). */
/* The recipe of a copy back that came back as sent although the source
 * shows a store to it (line): the copy stays, and the store not running
 * in the recorded run is worth a look. */
static void keep_written_copy_back(omplens_fix__ctx *c, unsigned line) {
  const omplens_fix__site *s = &c->g->site;
  if (c->probe)
    return;
  omplens_fix__buf_free(&c->g->recipe);
  omplens_fix__buf_printf(&c->g->recipe,
                          "keep the copy back of %s at %s:%u: the code stores to it at line %u, "
                          "though in the recorded run it came back as sent. If the device "
                          "should have changed it there, check that the kernel ran as intended "
                          "(the number of threads it assumes, the conditions around the "
                          "store).",
                          omplens_fix__item_text(s), omplens_fix__short_name(c->file->path),
                          s->dir->pragma.line, line);
}

static bool kernel_reads_only(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  if (s->dir->kind != OMPLENS_DIRECTIVE_TARGET && s->dir->kind != OMPLENS_DIRECTIVE_TARGET_DATA)
    return true;
  if (s->dir->kind == OMPLENS_DIRECTIVE_TARGET_DATA && (s->dir->flags & OMPLENS_DIRF_BODY_CALLS) &&
      !g->note.len) {
    omplens_fix__buf_str(&g->note, "the region calls functions: this assumes none of them "
                                   "writes the variable");
    g->confidence = OMPLENS_FIXC_ASSUMED;
  }
  if (!s->dir->body.file)
    return omplens_fix__fail(c, "the body of the construct at line %u is unknown",
                             s->dir->pragma.line);
  if (!omplens_fix__need_ast(c))
    return false;
  size_t at = omplens_fix__pragma_at(c, s->dir);
  uint32_t var = omplens_fix__ast_lookup(c->ast, s->var, at);
  size_t b, e;
  if (var == NONE || !omplens_fix__body_range(c, s->dir, &b, &e))
    return omplens_fix__fail(c, "%s or the construct's body is not where the parse shows it",
                             s->var);
  unsigned inc = omplens_fix__include_in(c, b, e);
  if (inc)
    return omplens_fix__fail(c, "the construct's body includes a file at line %u, whose code "
                                "is not read: whether it writes %s cannot be checked",
                             inc, s->var);
  const omplens_fix__ast *a = c->ast;
  /* The variable, and the locals of the body that point into it (`int *q =
   * &v[i];`, in source order: a use comes after its declaration). */
  uint32_t vars[8] = {var};
  size_t nvars = 1;
  for (size_t i = 0; i < a->num_nodes; i++) {
    const omplens_fix__node *n = &a->nodes[i];
    size_t k = 0;
    while (k < nvars && (n->kind != OMPLENS_FIX__N_DECLREF || n->ref != vars[k]))
      k++;
    if (k == nvars || n->begin < b || n->begin >= e)
      continue;
    uint32_t other;
    int use = omplens_fix__ast_use(a, (uint32_t)i, &other);
    if (use == OMPLENS_FIX__USE_COPIED && other != NONE && nvars < sizeof vars / sizeof *vars) {
      vars[nvars++] = other;
      continue;
    }
    if (use == OMPLENS_FIX__USE_COPIED) /* too many to follow: as if passed on */
      use = OMPLENS_FIX__USE_ESCAPE;
    unsigned line = omplens_fix__ctx_line(c, n->begin);
    const char *subject =
        s->dir->kind == OMPLENS_DIRECTIVE_TARGET ? "the kernel" : "the region's code";
    if (use == OMPLENS_FIX__USE_WRITE)
      keep_written_copy_back(c, line);
    if (use == OMPLENS_FIX__USE_WRITE || use == OMPLENS_FIX__USE_ASSIGNED)
      return omplens_fix__fail(c,
                               "%s writes %s at line %u: it came back unchanged only in the "
                               "recorded run",
                               subject, s->var, line);
    const char *callee = NULL;
    unsigned wrote = use == OMPLENS_FIX__USE_ESCAPE && other != NONE &&
                             a->nodes[other].kind == OMPLENS_FIX__N_CALL
                         ? omplens_fix__callee_writes(c, other, (uint32_t)i, &callee)
                         : 0;
    if (wrote) {
      keep_written_copy_back(c, wrote);
      return omplens_fix__fail(c,
                               "%s passes %s to %s() at line %u, which writes it at line %u: it "
                               "came back unchanged only in the recorded run",
                               subject, s->var, callee, line, wrote);
    }
    if (use == OMPLENS_FIX__USE_ESCAPE && !g->note.len) {
      omplens_fix__buf_printf(&g->note,
                              "%s is passed on at line %u in the construct: this assumes what it "
                              "is passed to does not write it",
                              s->var, line);
      g->confidence = OMPLENS_FIXC_ASSUMED;
    }
  }
  return true;
}

/* A variable no clause lists, mapped `tofrom` by default (a structure,
 * defaultmap): the map it needs is written, `to`. */
static bool drop_implicit(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  if (omplens_fix__reduction_var(s->dir, s->var))
    return omplens_fix__fail(c,
                             "%s is a reduction variable: the kernel stores its result in it, "
                             "which came back unchanged only in the recorded run",
                             s->var);
  int mt = s->implicit->map_type;
  const char *type = mt == OMPLENS_MAP_TOFROM ? "to" : "alloc";
  omplens_fix__pragma p;
  if (!omplens_fix__scan_site(c, s, &p))
    return false;
  const char *clause = omplens_fix__ownf(c->fx, "map(%s: %s)", type, s->var);
  const char *why = clause ? omplens_fix__pragma_add_clause(c->src, &p, clause, &g->edits)
                           : "out of memory";
  omplens_fix__pragma_free(&p);
  if (why)
    return omplens_fix__fail(c, "%s", why);
  if (g->confidence != OMPLENS_FIXC_ASSUMED)
    g->confidence = OMPLENS_FIXC_CHECKED;
  omplens_fix__buf_printf(&g->summary,
                          "%s has no map clause at %s:%u, so the construct maps it `%s`, and it "
                          "comes back unchanged from device %d: add `%s`",
                          s->var, omplens_fix__short_name(c->file->path), s->dir->pragma.line,
                          omplens_map_type_name(mt), copy_device(c), clause);
  return true;
}

static bool build_drop(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  omplens_fix__evidence ev;
  omplens_fix__evidence_of(c->fx, g, s, &ev);
  const char *it = omplens_fix__item_text(s);
  if (s->dir->kind == OMPLENS_DIRECTIVE_TARGET_UPDATE) {
    if (!ev.d2h || ev.d2h_flagged != ev.d2h)
      return omplens_fix__fail(c, "the device changed %s before %u of its %u copies back", it,
                               ev.d2h - ev.d2h_flagged, ev.d2h);
    return build_update(c);
  }
  /* Each copy back brings what the construct sent, in the recorded run... */
  if (!ev.d2h || ev.d2h_unchanged != ev.d2h)
    return omplens_fix__fail(c, "the device changed %s before %u of its %u copies back", it,
                             ev.d2h - ev.d2h_unchanged, ev.d2h);
  /* ...and in any run: the kernel's code does not write it, nor, for an
   * exit data (no body), a kernel of its function. */
  if (!kernel_reads_only(c) ||
      (s->dir->kind == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA && !kernels_leave_it(c)))
    return false;
  if (s->implicit)
    return drop_implicit(c);
  omplens_fix__pragma p;
  if (!omplens_fix__scan_site(c, s, &p))
    return false;
  int mt = s->dir->items[s->item].map_type;
  const char *type = s->dir->kind == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA ? "release"
                     : mt == OMPLENS_MAP_TOFROM                         ? "to"
                                                                        : "alloc";
  const char *why = omplens_fix__pragma_set_type(c->src, &p, s->item, type, &g->edits);
  omplens_fix__pragma_free(&p);
  if (why)
    return omplens_fix__fail(c, "%s", why);
  g->new_type = type;
  if (g->confidence != OMPLENS_FIXC_ASSUMED)
    g->confidence = OMPLENS_FIXC_CHECKED;
  omplens_fix__buf_printf(&g->summary,
                          "%s comes back unchanged from device %d, and the code at "
                          "%s:%u does not write it: map it `%s` instead of `%s`",
                          it, copy_device(c), omplens_fix__short_name(c->file->path),
                          s->dir->pragma.line, type,
                          omplens_map_type_name(mt));
  return true;
}

/* ---- rule: an unused allocation ---- */

/* Whether text names var as a whole identifier. */
static bool text_names(const char *text, const char *var) {
  char word[256];
  for (const char *p = text; omplens_fix__next_identifier(&p, word, sizeof word);)
    if (!strcmp(word, var))
      return true;
  return false;
}

/* Whether kernel d ran in the recorded run: a target region's code
 * address is d's. */
static bool kernel_ran(omplens_fixer *fx, const omplens_directive *d) {
  size_t n, nsites;
  const omplens_region *r = omplens_trace_regions(fx->trace, &n);
  omplens_trace_sites(fx->trace, &nsites);
  uint8_t *asked = calloc(nsites + 1, 1); /* a site per code address */
  bool ran = false;
  for (size_t i = 0; i < n && !ran; i++) {
    uint32_t site = omplens_trace_site_index(fx->trace, r[i].codeptr);
    if (r[i].kind != OMPLENS_CONSTRUCT_TARGET || (asked && asked[site]))
      continue;
    if (asked)
      asked[site] = 1;
    omplens_fix__file *file;
    ran = omplens_fix__directive_of(fx, r[i].codeptr, OMPLENS_RUNTIME_TARGET, &file) == d;
  }
  free(asked);
  return ran;
}

/* A directive that names s's variable in the code where its allocation
 * lives (a `target data`'s region; after a `target enter data`, the rest
 * of its function), other than an exit data: a run that reaches it would
 * use the item there. With anywhere, any kernel of the file that names it
 * counts too: where kernels ran and passed the allocation over, one that
 * names it did not run, in a function the region or the rest of the
 * function may call. NULL when there is none; *unknown when the function
 * cannot be read. */
static const omplens_directive *later_use(omplens_fix__ctx *c, const omplens_fix__site *s,
                                          bool anywhere, bool *unknown) {
  *unknown = false;
  bool region = s->dir->kind == OMPLENS_DIRECTIVE_TARGET_DATA;
  if (!s->var || (!region && s->dir->kind != OMPLENS_DIRECTIVE_TARGET_ENTER_DATA))
    return NULL;
  uint32_t fn = NONE;
  if (!region) {
    if (!omplens_fix__need_ast(c) ||
        (fn = omplens_fix__ast_function_at(c->ast, omplens_fix__pragma_at(c, s->dir))) == NONE) {
      *unknown = true;
      return NULL;
    }
  } else if (!s->dir->body.file) {
    return NULL;
  }
  omplens_fix__file_dirs(c->fx, c->file);
  for (size_t i = 0; i < c->file->num_dirs; i++) {
    const omplens_directive *d = c->file->dirs[i];
    bool kernel_anywhere = anywhere && d->kind == OMPLENS_DIRECTIVE_TARGET;
    if (d == s->dir || d->kind == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA || !d->text ||
        (d->pragma.line <= s->dir->pragma.line && !kernel_anywhere))
      continue;
    bool within = kernel_anywhere ||
                  (region ? d->pragma.line > s->dir->body.line &&
                                d->pragma.line <= s->dir->body.end_line
                          : omplens_fix__ast_function_at(c->ast, omplens_fix__pragma_at(c, d)) ==
                                fn);
    bool names = text_names(d->text, s->var);
    for (size_t k = 0; k < d->num_implicit && !names; k++) /* a firstprivate copy uses no map */
      names = d->implicit[k].var && !strcmp(d->implicit[k].var, s->var) &&
              d->implicit[k].treatment != OMPLENS_IMPLICIT_FIRSTPRIVATE;
    /* one that ran and was not given it (anywhere: the run passed the
     * allocation over) names another variable of that name */
    if (within && names && !(kernel_anywhere && kernel_ran(c->fx, d)))
      return d;
  }
  return NULL;
}

/* Whether the function call calls may launch a kernel: one defined in
 * another file may, and so may one of a name that holds a kernel in a
 * file the fixer read; one of this file does when a target directive lies
 * in it; one defined nowhere the build shows (the C library's free,
 * printf) does not. */
static bool may_launch(omplens_fix__ctx *c, const omplens_fix__node *call) {
  if (call->callee)
    return true;
  if (call->ref == NONE || c->ast->nodes[call->ref].kind != OMPLENS_FIX__N_FUNCTION) {
    const char *name = omplens_fix__ast_name(c->ast, (uint32_t)(call - c->ast->nodes));
    for (size_t f = 0; f < c->fx->num_files; f++) {
      omplens_fix__file_dirs(c->fx, c->fx->files[f]);
      for (size_t i = 0; i < c->fx->files[f]->num_dirs; i++) {
        const omplens_directive *d = c->fx->files[f]->dirs[i];
        if (d->kind == OMPLENS_DIRECTIVE_TARGET && d->function && name &&
            !strcmp(d->function, name))
          return true;
      }
    }
    return call->ref != NONE; /* declared here, defined where the build does not show */
  }
  const omplens_fix__node *fn = &c->ast->nodes[call->ref];
  omplens_fix__file_dirs(c->fx, c->file);
  for (size_t i = 0; i < c->file->num_dirs; i++) {
    const omplens_directive *d = c->file->dirs[i];
    size_t at = d->kind == OMPLENS_DIRECTIVE_TARGET ? omplens_fix__pragma_at(c, d) : SIZE_MAX;
    if (at != SIZE_MAX && at >= fn->begin && at < fn->end)
      return true;
  }
  return false;
}

/* Whether reference i to variable var is call's argument by value: a
 * scalar, not its address, in C (where no parameter is a reference), so
 * that the callee gets a copy and its kernels map that. */
static bool by_value(const omplens_fix__ctx *c, uint32_t var, uint32_t i, uint32_t call) {
  const omplens_fix__ast *a = c->ast;
  if (a->nodes[var].elem != OMPLENS_FIX__ELEM_UNKNOWN || !omplens_fix__c_source(c->file->path))
    return false;
  uint32_t p = a->nodes[i].parent;
  while (p != NONE && (a->nodes[p].kind == OMPLENS_FIX__N_IMPLICIT ||
                       a->nodes[p].kind == OMPLENS_FIX__N_PAREN ||
                       a->nodes[p].kind == OMPLENS_FIX__N_CAST))
    p = a->nodes[p].parent;
  return p == call;
}

/* The call that is passed s's variable (a local or parameter) where its
 * allocation lives in the directive's function (a `target data`'s region;
 * after a `target enter data`, the rest of the function): its kernels,
 * under the names of its parameters, may use it in a run that reaches
 * them. NONE when there is none, or when the variable is no local. */
static uint32_t escaping_ref(omplens_fix__ctx *c, const omplens_fix__site *s, bool any,
                             bool *local);

static uint32_t passed_to_call(omplens_fix__ctx *c, const omplens_fix__site *s) {
  bool local;
  return escaping_ref(c, s, false, &local);
}

/* Whether s's variable is a local scalar of a C function whose address the
 * code where its allocation lives never gives away (calls get copies): no
 * function that code calls can reach its mapping. */
static bool private_scalar(omplens_fix__ctx *c, const omplens_fix__site *s) {
  bool local;
  uint32_t var = s->var && omplens_fix__need_ast(c)
                     ? omplens_fix__ast_lookup(c->ast, s->var, omplens_fix__pragma_at(c, s->dir))
                     : NONE;
  return var != NONE && c->ast->nodes[var].elem == OMPLENS_FIX__ELEM_UNKNOWN &&
         omplens_fix__c_source(c->file->path) && escaping_ref(c, s, true, &local) == NONE &&
         local;
}

/* The first reference to s's variable, where its allocation lives, that
 * gives a call a way to it (any: that gives its address or value away
 * anywhere, but as a copy to a call), as the node it goes to (the call);
 * NONE when there is none. *local when the variable is a local. */
static uint32_t escaping_ref(omplens_fix__ctx *c, const omplens_fix__site *s, bool any,
                             bool *local) {
  *local = false;
  if (!s->var || !omplens_fix__need_ast(c))
    return NONE;
  size_t at = omplens_fix__pragma_at(c, s->dir), begin = at, end = SIZE_MAX;
  uint32_t var = omplens_fix__ast_lookup(c->ast, s->var, at);
  uint32_t fn = omplens_fix__ast_function_at(c->ast, at);
  if (var == NONE || fn == NONE || c->ast->nodes[var].global)
    return NONE;
  if (s->dir->kind == OMPLENS_DIRECTIVE_TARGET_DATA && !omplens_fix__body_range(c, s->dir, &begin, &end))
    return NONE;
  *local = true;
  if (end == SIZE_MAX)
    end = c->ast->nodes[fn].end;
  size_t count;
  const uint32_t *named = omplens_fix__ast_named(c->ast, s->var, &count);
  size_t total = named ? count : c->ast->num_nodes; /* no index: every node */
  for (size_t k = 0; k < total; k++) {
    uint32_t i = named ? named[k] : (uint32_t)k;
    const omplens_fix__node *n = &c->ast->nodes[i];
    if (n->kind != OMPLENS_FIX__N_DECLREF || n->ref != var || n->begin < begin || n->begin >= end)
      continue;
    uint32_t other = NONE;
    if (omplens_fix__ast_use(c->ast, i, &other) != OMPLENS_FIX__USE_ESCAPE)
      continue;
    bool call = other != NONE && c->ast->nodes[other].kind == OMPLENS_FIX__N_CALL;
    if (call && by_value(c, var, i, other))
      continue;
    if (any)
      return other != NONE ? other : i;
    if (call && may_launch(c, &c->ast->nodes[other]))
      return other;
  }
  return NONE;
}

/* Whether a call in d's region may launch a kernel: one of a function of
 * the program, not the OpenMP API's or the C library's (declared where the
 * build's headers are: omp_get_wtime, printf). No parse: true. */
static bool region_may_launch(omplens_fix__ctx *c, const omplens_directive *d) {
  size_t begin, end;
  if (!omplens_fix__need_ast(c) || !omplens_fix__body_range(c, d, &begin, &end))
    return true;
  for (size_t i = 0; i < c->ast->num_nodes; i++) {
    const omplens_fix__node *n = &c->ast->nodes[i];
    if (n->kind == OMPLENS_FIX__N_CALL && n->begin >= begin && n->begin < end &&
        may_launch(c, n))
      return true;
  }
  return false;
}

/* Whether the kernels that ran passed over an allocation of g's (they ran
 * in its lifetime, and none was given it), rather than none running. */
static bool passed_over(const omplens_fixer *fx, const omplens_fix__group *g) {
  for (size_t k = 0; k < g->num_findings; k++)
    if (fx->findings[g->findings[k]].passed_over)
      return true;
  return false;
}

/* "no kernel runs while it exists", or what the kernels that ran lacked. */
static const char *unused_alloc_why(const omplens_fixer *fx, const omplens_fix__group *g,
                                    bool plural) {
  if (!passed_over(fx, g))
    return plural ? "no kernel runs while they exist" : "no kernel runs while it exists";
  return plural ? "no kernel that runs while they exist is given them (none maps them or "
                  "points into them)"
                : "no kernel that runs while it exists is given it (none maps it or points "
                  "into it)";
}

static bool build_unused_alloc(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  omplens_fix__evidence ev;
  omplens_fix__evidence_of(c->fx, g, s, &ev);
  const char *it = omplens_fix__item_text(s);
  if (ev.allocs_flagged != ev.allocs)
    return omplens_fix__fail(c, "%u of the %u allocations of %s at line %u were used by a kernel",
                             ev.allocs - ev.allocs_flagged, ev.allocs, it, s->dir->pragma.line);
  bool unknown, passed = passed_over(c->fx, g);
  const omplens_directive *user = later_use(c, s, false, &unknown);
  if (unknown)
    return omplens_fix__fail(c, "the function of the directive is not where the parse shows "
                                "it: whether code that did not run uses %s cannot be checked",
                             it);
  if (user)
    return omplens_fix__fail(c, "`%s` at line %u names %s where the allocation lives: a run "
                                "whose kernels reach it there would find the item unmapped if "
                                "the allocation went",
                             user->name, user->pragma.line, s->var);
  /* Kernels ran and passed it over: one of the file that names it did not
   * run this time, and may where the run takes another branch (miniWeather's
   * halo exchange with more than one rank). */
  if (passed && (user = later_use(c, s, true, &unknown)) != NULL)
    return omplens_fix__fail(c, "the kernel at line %u names %s: it did not run this time, and "
                                "a run that reaches it while the allocation lives would find the "
                                "item unmapped",
                             user->pragma.line, s->var);
  uint32_t call = passed ? passed_to_call(c, s) : NONE;
  if (call != NONE)
    return omplens_fix__fail(c, "%s is passed to %s() at line %u, whose kernels, under other "
                                "names, may use it in a run that reaches them",
                             s->var, omplens_fix__ast_name(c->ast, call),
                             omplens_fix__ctx_line(c, c->ast->nodes[call].begin));
  bool launches = (s->dir->flags & OMPLENS_DIRF_BODY_CALLS) && region_may_launch(c, s->dir) &&
                  !private_scalar(c, s);
  if (passed && s->dir->kind == OMPLENS_DIRECTIVE_TARGET_DATA && launches)
    return omplens_fix__fail(c, "the region calls functions: a kernel in one of them that did "
                                "not run this time may use %s",
                             it);
  g->confidence = OMPLENS_FIXC_CHECKED;
  if (s->dir->kind == OMPLENS_DIRECTIVE_TARGET_DATA && s->dir->body.file) {
    omplens_fix__file_dirs(c->fx, c->file);
    /* Where kernels ran, they were not given it, and later_use found
     * none that names it. */
    for (size_t i = 0; i < c->file->num_dirs && !passed; i++) {
      const omplens_directive *d = c->file->dirs[i];
      if (d != s->dir && d->kind == OMPLENS_DIRECTIVE_TARGET &&
          d->pragma.line > s->dir->body.line && d->pragma.line <= s->dir->body.end_line)
        return omplens_fix__fail(
            c, "the region holds a kernel (line %u) that did not run this time", d->pragma.line);
    }
    if (launches) {
      g->confidence = OMPLENS_FIXC_ASSUMED;
      omplens_fix__buf_str(&g->note, "the region calls functions: this assumes none of them "
                                     "launches a kernel that uses the item");
    }
  }
  omplens_fix__pragma p;
  if (!omplens_fix__scan_site(c, s, &p))
    return false;
  bool ok = omplens_fix__remove_item_or_directive(c, s, &p);
  omplens_fix__pragma_free(&p);
  g->removes_item = ok && g->kind == OMPLENS_FIX_REMOVE_ITEM;
  if (ok)
    omplens_fix__buf_printf(
        &g->summary,
        "%s is allocated on device %d at %s:%u but %s: %s",
        it, c->fx->findings[g->findings[0]].device, omplens_fix__short_name(c->file->path),
        s->dir->pragma.line, unused_alloc_why(c->fx, g, false),
        g->kind == OMPLENS_FIX_REMOVE_DIRECTIVE
            ? omplens_fix__ownf(c->fx, "remove the `%s` directive", s->dir->name)
            : "remove the item");
  return ok;
}

/* ---- rule: an item the kernel never names ---- */

static bool build_unreferenced(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  const char *it = omplens_fix__item_text(s);
  /* A pointer the body uses without a map attaches to what is mapped: it
   * could point into the item, unless the trace shows where each one
   * pointed at every launch that mapped the item. */
  int into = -2; /* not asked yet */
  omplens_fix__buf pointers = {0};
  for (size_t i = 0; i < s->dir->num_implicit; i++) {
    int t = s->dir->implicit[i].treatment;
    if (t == OMPLENS_IMPLICIT_POINTER && into == -2)
      into = omplens_fix__pointer_into(c->fx, g->codeptr, s->var);
    if (t == OMPLENS_IMPLICIT_UNKNOWN || (t == OMPLENS_IMPLICIT_POINTER && into)) {
      omplens_fix__buf_free(&pointers);
      return omplens_fix__fail(
          c, "the body uses the pointer %s without mapping it: %s", s->dir->implicit[i].var,
          into == 1 ? omplens_fix__ownf(c->fx, "at a launch it pointed into %s", it)
                    : omplens_fix__ownf(c->fx, "it may point into %s", it));
    }
    if (t == OMPLENS_IMPLICIT_POINTER)
      omplens_fix__buf_printf(&pointers, "%s%s", pointers.len ? ", " : "", s->dir->implicit[i].var);
  }
  if (into == 0)
    omplens_fix__buf_printf(&g->note, "the pointers the body uses without a map (%s) pointed "
                                      "elsewhere at every launch that mapped %s. ",
                            pointers.data ? pointers.data : "", it);
  omplens_fix__buf_free(&pointers);
  omplens_fix__pragma p;
  if (!omplens_fix__scan_site(c, s, &p))
    return false;
  const char *why = omplens_fix__pragma_remove_item(c->src, &p, s->item, &g->edits);
  omplens_fix__pragma_free(&p);
  if (why)
    return omplens_fix__fail(c, "%s", why);
  g->confidence = OMPLENS_FIXC_CHECKED;
  g->removes_item = true;
  omplens_fix__buf_printf(&g->summary,
                          "the kernel at %s:%u never names %s, yet maps %s (every "
                          "launch allocates%s it): remove the item",
                          omplens_fix__short_name(c->file->path), s->dir->pragma.line, s->var, it,
                          s->dir->items[s->item].map_type == OMPLENS_MAP_ALLOC ? ""
                                                                               : " and copies");
  return true;
}

/* ---- rule: map with alloc what no kernel reads ---- */

static bool build_map_alloc(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  omplens_fix__evidence ev;
  omplens_fix__evidence_of(c->fx, g, s, &ev);
  const char *it = omplens_fix__item_text(s);
  if (!ev.h2d || ev.h2d_flagged != ev.h2d)
    return omplens_fix__fail(c, "%u of the %u copies of %s at line %u were read by a kernel",
                             ev.h2d - ev.h2d_flagged, ev.h2d, it, s->dir->pragma.line);
  omplens_fix__pragma p;
  if (!omplens_fix__scan_site(c, s, &p))
    return false;
  int mt = s->dir->items[s->item].map_type;
  const char *type = mt == OMPLENS_MAP_TOFROM ? "from" : "alloc";
  const char *why = omplens_fix__pragma_set_type(c->src, &p, s->item, type, &g->edits);
  omplens_fix__pragma_free(&p);
  if (!why && !omplens_fix__note_changes(g, &s->item, 1, type))
    why = "out of memory";
  if (why)
    return omplens_fix__fail(c, "%s", why);
  g->new_type = type;
  g->confidence = OMPLENS_FIXC_CHECKED;
  omplens_fix__buf_printf(&g->summary,
                          "the copy of %s by `%s` at %s:%u is never read by a kernel "
                          "(overwritten first, or sent after the last kernel): map it `%s` "
                          "instead of `%s`",
                          it, s->dir->name, omplens_fix__short_name(c->file->path),
                          s->dir->pragma.line, type, omplens_map_type_name(mt));
  return true;
}

/* ---- rule: zeros made on the device ---- */

/* "v[0:LEN]" or "v[:LEN]": the length, or NULL. */
static char *section_length(const char *text, const char *var) {
  size_t n = strlen(var);
  if (strncmp(text, var, n))
    return NULL;
  const char *p = text + n;
  while (*p == ' ')
    p++;
  if (*p++ != '[')
    return NULL;
  while (*p == ' ')
    p++;
  if (*p == '0' && !omplens_fix__ident_char(p[1]))
    p++;
  while (*p == ' ')
    p++;
  if (*p++ != ':')
    return NULL;
  int depth = 1;
  const char *b = p;
  for (; *p && depth; p++)
    depth += (*p == '[') - (*p == ']');
  if (depth || *p)
    return NULL; /* unbalanced, or more than one section */
  return omplens_fix__normalize(b, (size_t)(p - 1 - b));
}

/* One array the zeroing kernel makes: its site and section length. */
typedef struct zero_item {
  const omplens_fix__site *site;
  char *len;
  bool plain;        /* the length is a name or a number */
  const char *value; /* what each element gets: "0", or the source's fill value */
  unsigned set_by;   /* the line of the kernel right after that sets every
                        element (then no copy is read, whatever it sent) */
} zero_item;

/* Node n without the implicit conversions and parentheses around it. */
static uint32_t bare(const omplens_fix__ast *a, uint32_t n) {
  while (n != NONE && (a->nodes[n].kind == OMPLENS_FIX__N_IMPLICIT ||
                       a->nodes[n].kind == OMPLENS_FIX__N_PAREN ||
                       a->nodes[n].kind == OMPLENS_FIX__N_CAST))
    n = omplens_fix__ast_child(a, n, a->nodes[n].kind == OMPLENS_FIX__N_CAST &&
                                             omplens_fix__ast_child(a, n, 1) != NONE
                                         ? 1
                                         : 0);
  return n;
}

const char *omplens_fix__fill_value(omplens_fixer *fx, const omplens_fix__file *file,
                                    const omplens_fix__site *s) {
  const omplens_fix__ast *a = &file->ast;
  size_t at = omplens_fix__offset(&file->src, s->dir->pragma.line, s->dir->pragma.column);
  uint32_t fn = omplens_fix__ast_function_at(a, at);
  uint32_t var = s->var ? omplens_fix__ast_lookup(a, s->var, at) : NONE;
  if (fn == NONE || var == NONE || at == SIZE_MAX)
    return NULL;
  const char *found = NULL;
  for (uint32_t i = fn; i < omplens_fix__ast_end(a, fn) && a->nodes[i].begin < at; i++) {
    if (a->nodes[i].kind != OMPLENS_FIX__N_BINARY || a->nodes[i].op != OMPLENS_FIX__OP_ASSIGN)
      continue;
    uint32_t lhs = bare(a, omplens_fix__ast_child(a, i, 0));
    uint32_t rhs = bare(a, omplens_fix__ast_child(a, i, 1));
    if (lhs == NONE || rhs == NONE || a->nodes[lhs].kind != OMPLENS_FIX__N_SUBSCRIPT)
      continue;
    uint32_t base = bare(a, omplens_fix__ast_child(a, lhs, 0));
    bool negative = rhs != NONE && a->nodes[rhs].kind == OMPLENS_FIX__N_UNARY;
    uint32_t lit = negative ? bare(a, omplens_fix__ast_child(a, rhs, 0)) : rhs;
    if (base == NONE || a->nodes[base].kind != OMPLENS_FIX__N_DECLREF ||
        a->nodes[base].ref != var || lit == NONE || a->nodes[lit].kind != OMPLENS_FIX__N_LITERAL)
      continue;
    char *text = omplens_fix__ast_text(a, &file->src, rhs);
    if (text && (text[0] == '-' || !negative) && strspn(text, "-+0123456789.eExXabcdefABCDEFuUlLfF") == strlen(text))
      found = omplens_fix__own(fx, text); /* the last one before the directive */
    else
      free(text);
  }
  return found;
}

/* Whether item z can be made on the device: all its copies zeros, an array
 * section from 0 of numbers or pointers, declared where the directive is. */
/* The only statement of a loop's body (its block's only one), bare. */
static uint32_t only_statement(const omplens_fix__ast *a, uint32_t loop) {
  uint32_t body = NONE, n;
  for (uint32_t i = 0; (n = omplens_fix__ast_child(a, loop, i)) != NONE; i++)
    body = n;
  if (body != NONE && a->nodes[body].kind == OMPLENS_FIX__N_COMPOUND)
    body = omplens_fix__ast_child(a, body, 1) == NONE ? omplens_fix__ast_child(a, body, 0) : NONE;
  return bare(a, body);
}

/* The line of the kernel that comes right after enter data site s (only
 * blanks and comments between) and sets every element of s's item v[0:len]
 * before anything reads it: `for (v2 = 0; v2 < len; v2++) v[v2] = EXPR;`
 * with EXPR not naming v, a kernel without if, nowait, depend or device
 * (arch's allocate_data zeroes what its enter data sent). 0: none. */
static unsigned set_after(omplens_fix__ctx *c, const omplens_fix__site *s, const char *len) {
  const omplens_directive *d = NULL, *e = s->dir;
  if (e->kind != OMPLENS_DIRECTIVE_TARGET_ENTER_DATA || !e->pragma.file ||
      omplens_fix__has_clause(e, OMPLENS_CLAUSE_DEVICE))
    return 0;
  omplens_fix__file_dirs(c->fx, c->file);
  for (size_t i = 0; i < c->file->num_dirs; i++) {
    const omplens_directive *o = c->file->dirs[i];
    if (o->pragma.line > e->pragma.end_line && (!d || o->pragma.line < d->pragma.line))
      d = o;
  }
  size_t from = e->pragma.end_line < c->src->num_lines ? c->src->line_start[e->pragma.end_line]
                                                       : SIZE_MAX;
  size_t at = d ? omplens_fix__pragma_at(c, d) : SIZE_MAX, b, end;
  if (!d || d->kind != OMPLENS_DIRECTIVE_TARGET || from == SIZE_MAX || at == SIZE_MAX ||
      at < from || !omplens_fix__blank(c->src, from, at) ||
      omplens_fix__has_clause(d, OMPLENS_CLAUSE_IF) ||
      omplens_fix__has_clause(d, OMPLENS_CLAUSE_NOWAIT) ||
      omplens_fix__has_clause(d, OMPLENS_CLAUSE_DEPEND) ||
      omplens_fix__has_clause(d, OMPLENS_CLAUSE_DEVICE) || !omplens_fix__body_range(c, d, &b, &end))
    return 0;
  const omplens_fix__ast *a = c->ast;
  uint32_t fn = omplens_fix__ast_function_at(a, b);
  uint32_t loop = fn == NONE ? NONE : omplens_fix__ast_loop_at(a, fn, b); /* the body's own */
  omplens_fix__canon k;
  if (loop == NONE || a->nodes[loop].begin != b || !omplens_fix__read_canonical(c, loop, &k))
    return 0;
  char *bound = omplens_fix__normalize(k.bound, strlen(k.bound));
  char *want = omplens_fix__normalize(len, strlen(len));
  uint32_t st = only_statement(a, loop);
  bool ok = bound && want && !strcmp(k.init, "0") && !k.less_equal && !strcmp(bound, want) &&
            st != NONE && a->nodes[st].kind == OMPLENS_FIX__N_BINARY &&
            a->nodes[st].op == OMPLENS_FIX__OP_ASSIGN;
  char *lhs = ok ? omplens_fix__ast_text(a, c->src, omplens_fix__ast_child(a, st, 0)) : NULL;
  char *rhs = ok ? omplens_fix__ast_text(a, c->src, omplens_fix__ast_child(a, st, 1)) : NULL;
  char element[300];
  snprintf(element, sizeof element, "%s[%s]", s->var, k.var);
  ok = ok && lhs && rhs && !strcmp(lhs, element) && !text_names(rhs, s->var);
  free(bound);
  free(want);
  free(lhs);
  free(rhs);
  omplens_fix__canon_free(&k);
  return ok ? d->pragma.line : 0;
}

bool omplens_fix__overwritten_next(omplens_fixer *fx, const omplens_finding *f,
                                   const omplens_fix__site *s) {
  const omplens_event *e = &fx->events[f->instances[0].event];
  const char *why;
  if (s->implicit || !s->file || e->kind != OMPLENS_EV_H2D ||
      (f->category != OMPLENS_CAT_DUPLICATE_SAME_BUFFER &&
       f->category != OMPLENS_CAT_DUPLICATE_OTHER_BUFFER) ||
      s->dir->kind != OMPLENS_DIRECTIVE_TARGET_ENTER_DATA ||
      s->dir->items[s->item].map_type != OMPLENS_MAP_TO ||
      !omplens_fix__file_ast(fx, s->file, &why))
    return false;
  omplens_fix__ctx c = {.fx = fx, .file = s->file, .src = &s->file->src, .ast = &s->file->ast,
                        .blamed = OMPLENS_FIX__NONE};
  char *len = section_length(omplens_fix__item_text(s), s->var);
  bool set = len && set_after(&c, s, len);
  free(len);
  return set;
}

/* Whether the function holding offset at names name as a member of its
 * object (`au` written alone in a method: this->au), as the parse shows. */
static bool member_of_method(const omplens_fix__ctx *c, size_t at, const char *name) {
  const omplens_fix__ast *a = c->ast;
  uint32_t fn = omplens_fix__ast_function_at(a, at);
  for (uint32_t i = fn; fn != NONE && i < omplens_fix__ast_end(a, fn); i++)
    if (a->nodes[i].kind == OMPLENS_FIX__N_MEMBER &&
        !strcmp(omplens_fix__ast_name(a, i), name))
      return true;
  return false;
}

static bool zero_checks(omplens_fix__ctx *c, zero_item *z) {
  const omplens_fix__site *s = z->site;
  const char *it = omplens_fix__item_text(s);
  omplens_fix__evidence ev;
  omplens_fix__evidence_of(c->fx, c->g, s, &ev);
  /* Every copy the item makes is replaced by the kernel: all zeros, or all
   * the one value the source assigns to its elements before the directive. */
  z->value = "0";
  if (ev.h2d_zeros != ev.h2d) {
    const char *v = omplens_fix__fill_value(c->fx, c->file, s);
    if (!v || !omplens_fix__site_filled(c->fx, c->g, s, strtod(v, NULL)))
      return omplens_fix__fail(c, "%u of the %u copies of %s at line %u are not all zeros%s",
                               ev.h2d - ev.h2d_zeros, ev.h2d, it, s->dir->pragma.line,
                               v ? omplens_fix__ownf(c->fx, " nor all %s", v) : "");
    z->value = v;
  }
  z->len = section_length(it, s->var);
  if (!z->len)
    return omplens_fix__fail(c, "%s is not an array section starting at 0", it);
  size_t at = omplens_fix__pragma_at(c, s->dir);
  uint32_t var = omplens_fix__ast_lookup(c->ast, s->var, at);
  if (var == NONE && member_of_method(c, at, s->var))
    return omplens_fix__fail(c,
                             "%s is a member of the object the method works on (its code names "
                             "it as one): what its elements are is not read, so `= 0` is not "
                             "checked",
                             s->var);
  if (var == NONE)
    return omplens_fix__fail(c,
                             "no declaration of %s is visible at line %u as libclang parsed the "
                             "file (code under an `#if` the parse did not take? give the build's "
                             "flags with --compile-commands)",
                             s->var, s->dir->pragma.line);
  /* A value the source itself assigns to the elements (`w[i] = 1;`, in a
   * template too, where the element type is a parameter) compiles there;
   * so does 0 in a template whose instantiations take it (minifmm's
   * `T *az`): the check that the changed file compiles decides. */
  int elem = c->ast->nodes[var].elem;
  if (!strcmp(z->value, "0") && elem != OMPLENS_FIX__ELEM_ARITH &&
      elem != OMPLENS_FIX__ELEM_POINTER && elem != OMPLENS_FIX__ELEM_DEPENDENT)
    return omplens_fix__fail(
        c, "the elements of %s are not numbers or pointers: `= 0` would not compile", s->var);
  /* A length that names more than a scalar or a macro (settings.max_iters)
   * is read on the host: in the kernel, its structure would be mapped. */
  z->plain = one_word(z->len);
  if (!z->plain && omplens_fix__ast_lookup(c->ast, "omplens_n", c->src->size) != NONE)
    return omplens_fix__fail(c, "the name omplens_n is taken");
  return true;
}

/* The line after which the zeroing kernel goes: the enter data's last
 * line, or the line of the `{` that opens the data region's block. */
static unsigned zero_at(const omplens_fix__ctx *c, const omplens_fix__pragma *p) {
  const omplens_directive *d = c->g->site.dir;
  if (d->kind != OMPLENS_DIRECTIVE_TARGET_DATA)
    return p->last_line;
  return d->body.line;
}

/* Inserts after pragma p the kernel that zeroes the items of zs[0..n) of
 * length zs[first].len: `map(alloc:)` of each and one loop, in a block that
 * reads a length that is more than a name on the host. */
static bool zero_kernel(omplens_fix__ctx *c, const omplens_fix__pragma *p, const zero_item *zs,
                        size_t n, size_t first, const char *dev) {
  const omplens_fix__source *src = c->src;
  omplens_fix__buf maps = {0}, body = {0};
  size_t count = 0;
  for (size_t k = first; k < n; k++)
    if (!strcmp(zs[k].len, zs[first].len)) {
      omplens_fix__buf_printf(&maps, "%s%s", count ? ", " : "", omplens_fix__item_text(zs[k].site));
      omplens_fix__buf_printf(&body, "%s%s[omplens_i] = %s;", count ? " " : "", zs[k].site->var,
                              zs[k].value);
      count++;
    }
  bool plain = zs[first].plain;
  if (!maps.data || !body.data) {
    omplens_fix__buf_free(&maps);
    omplens_fix__buf_free(&body);
    return false;
  }
  const char *kernel = omplens_fix__ownf(
      c->fx, "#pragma omp target teams distribute parallel for map(alloc: %s)%s\n", maps.data, dev);
  const char *loop = omplens_fix__ownf(
      c->fx, count > 1 ? "for (long omplens_i = 0; omplens_i < %s; omplens_i++) { %s }\n"
                       : "for (long omplens_i = 0; omplens_i < %s; omplens_i++) %s\n",
      plain ? zs[first].len : "omplens_n", body.data);
  omplens_fix__buf_free(&maps);
  omplens_fix__buf_free(&body);
  const char *block = plain || !kernel || !loop
                          ? ""
                          : omplens_fix__ownf(c->fx, "{\n  const long omplens_n = (%s);\n  %s  %s}\n",
                                              zs[first].len, kernel, loop);
  if (!kernel || !loop || !block)
    return false;
  /* After an enter data: the kernel at the pragma's indentation, its loop
   * at the next statement's. In a data region: both at its first
   * statement's, right after the `{` that opens it. */
  unsigned after = zero_at(c, p);
  unsigned next = after + 1;
  while (next <= src->num_lines &&
         omplens_fix__blank(src, src->line_start[next - 1], omplens_fix__line_end(src, next)))
    next++;
  size_t pind_at, sind_at;
  size_t pind = omplens_fix__indent(src, p->first_line, &pind_at);
  size_t sind = next <= src->num_lines ? omplens_fix__indent(src, next, &sind_at) : 0;
  if (next > src->num_lines || src->text[sind_at + sind] == '#' ||
      src->text[sind_at + sind] == '}') {
    sind = pind;
    sind_at = pind_at;
  }
  if (after != p->last_line) {
    pind = sind;
    pind_at = sind_at;
  }
  if (!plain) { /* the length first, in a block of its own */
    omplens_fix__insert_lines(&c->g->edits, src, after + 1, src->text + pind_at, pind, block);
  } else {
    omplens_fix__insert_lines(&c->g->edits, src, after + 1, src->text + pind_at, pind, kernel);
    omplens_fix__insert_lines(&c->g->edits, src, after + 1, src->text + sind_at, sind, loop);
  }
  return true;
}

/* Zeros that `target enter data map(to:)` sends, made on the device: the
 * directive's zero items are mapped `alloc` and one kernel per length
 * zeroes them after it. */
static bool build_zero(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  if (omplens_fix__has_clause(s->dir, OMPLENS_CLAUSE_IF) ||
      omplens_fix__has_clause(s->dir, OMPLENS_CLAUSE_DEPEND) ||
      omplens_fix__has_clause(s->dir, OMPLENS_CLAUSE_NOWAIT))
    return omplens_fix__fail(
        c, "the directive has if, depend or nowait: the zeroing kernel would need the same");
  if (s->dir->kind == OMPLENS_DIRECTIVE_TARGET_DATA) { /* the kernel opens the region's block */
    size_t b, e;
    if (!omplens_fix__body_range(c, s->dir, &b, &e) || c->src->text[b] != '{' ||
        !omplens_fix__blank(c->src, b + 1, omplens_fix__line_end(c->src, s->dir->body.line)))
      return omplens_fix__fail(c, "the region at line %u is not a block whose `{` ends its line",
                               s->dir->pragma.line);
  }
  if (!omplens_fix__need_ast(c))
    return false;
  if (omplens_fix__ast_lookup(c->ast, "omplens_i", c->src->size) != NONE)
    return omplens_fix__fail(c, "the name omplens_i is taken");
  /* the group's items, each once, in the order of their findings */
  zero_item *zs = calloc(g->num_findings ? g->num_findings : 1, sizeof *zs);
  size_t *items = calloc(g->num_findings ? g->num_findings : 1, sizeof *items);
  size_t n = 0;
  bool ok = zs && items;
  if (!ok)
    omplens_fix__fail(c, "out of memory");
  bool set = true; /* every item set by the kernel right after: its copies go unread */
  for (size_t k = 0; ok && k < g->num_findings; k++) {
    bool seen = false;
    for (size_t j = 0; j < n && !seen; j++)
      seen = omplens_fix__same_item(zs[j].site, omplens_fix__site_at(g, k));
    if (!seen) {
      zero_item *z = &zs[n];
      z->site = omplens_fix__site_at(g, k);
      items[n++] = z->site->item;
      z->len = section_length(omplens_fix__item_text(z->site), z->site->var);
      set &= z->len && (z->set_by = set_after(c, z->site, z->len));
    }
  }
  for (size_t k = 0; ok && !set && k < n; k++) { /* else the kernel made here */
    free(zs[k].len);
    zs[k].len = NULL;
    ok = zero_checks(c, &zs[k]);
  }
  for (size_t k = 1; ok && k < n; k++) /* in the directive's order */
    for (size_t j = k; j > 0 && items[j - 1] > items[j]; j--) {
      zero_item z = zs[j];
      size_t i = items[j];
      zs[j] = zs[j - 1], items[j] = items[j - 1];
      zs[j - 1] = z, items[j - 1] = i;
    }
  omplens_fix__pragma p;
  if (ok && omplens_fix__scan_site(c, s, &p)) {
    const char *why = omplens_fix__pragma_set_types(c->src, &p, items, n, "alloc", &g->edits);
    if (!why && !omplens_fix__note_changes(g, items, n, "alloc"))
      why = "out of memory";
    const char *dev = omplens_fix__device_clause(c, s->dir);
    omplens_fix__buf names = {0};
    for (size_t k = 0; ok && !why && k < n; k++) {
      bool first = !set; /* the first item of its length makes the kernel */
      for (size_t j = 0; j < k && first; j++)
        first = strcmp(zs[j].len, zs[k].len) != 0;
      if (first && !zero_kernel(c, &p, zs, n, k, dev))
        ok = omplens_fix__fail(c, "out of memory");
      omplens_fix__buf_printf(&names, "%s%s", k ? (k + 1 == n ? " and " : ", ") : "",
                              omplens_fix__item_text(zs[k].site));
    }
    if (why) {
      ok = omplens_fix__fail(c, "%s", why);
    } else if (ok && set) {
      g->confidence = OMPLENS_FIXC_CHECKED;
      g->kind = OMPLENS_FIX_MAP_ALLOC;
      g->new_type = n == 1 ? "alloc" : NULL; /* one item joins others of its construct */
      omplens_fix__buf_printf(&g->summary,
                              "the kernel at %s:%u, right after the enter data at line %u, sets "
                              "every element of %s before anything reads %s: no copy is read, "
                              "whatever it sends; map %s `alloc`",
                              omplens_fix__short_name(c->file->path), zs[0].set_by,
                              s->dir->pragma.line, names.data, n > 1 ? "them" : "it",
                              n > 1 ? "them" : "it");
    } else if (ok) {
      bool zeros = true;
      for (size_t k = 0; k < n; k++)
        zeros &= !strcmp(zs[k].value, "0");
      g->confidence = OMPLENS_FIXC_CHECKED;
      if (!zeros)
        g->kind = OMPLENS_FIX_FILL_ON_DEVICE;
      omplens_fix__buf_printf(&g->summary,
                              "every copy of %s sends %s that device %d already received: "
                              "allocate %s there (`map(alloc:)` at %s:%u) and %s with a "
                              "kernel instead of sending %s",
                              names.data, zeros ? "zeros" : "one value in every element",
                              c->fx->findings[g->findings[0]].device, n > 1 ? "them" : "it",
                              omplens_fix__short_name(c->file->path), s->dir->pragma.line,
                              zeros ? (n > 1 ? "zero them" : "zero it")
                                    : (n > 1 ? "fill them" : "fill it"),
                              n > 1 ? "them" : "it");
    }
    omplens_fix__buf_free(&names);
    omplens_fix__pragma_free(&p);
  } else {
    ok = false;
  }
  for (size_t k = 0; k < n; k++)
    free(zs[k].len);
  free(zs);
  free(items);
  return ok;
}

/* ---- firstprivate ---- */

/* Rule firstprivate (docs/fixes.md): a number that a kernel construct
 * maps `to` by its name, a parameter or a local of the directive's
 * function, in a group no region took (each call's argument, each run's
 * value, a value the host changes between runs), is written
 * `firstprivate` instead: LLVM passes it with the kernel's launch, with no
 * allocation or copy of its own. The kernel must not write it (a mapped
 * copy is one for all threads, a firstprivate one is each thread's). */
static bool build_firstprivate(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  if (g->kind != OMPLENS_FIX_MANUAL || g->leftover != SIZE_MAX || !s->dir || !s->file ||
      s->dir->kind != OMPLENS_DIRECTIVE_TARGET || s->implicit || !s->var ||
      site_map_type(s) != OMPLENS_MAP_TO || strcmp(omplens_fix__item_text(s), s->var) ||
      g->edit_file != s->file)
    return false;
  for (size_t k = 0; k < g->num_findings; k++)
    if (!omplens_fix__same_item(omplens_fix__site_at(g, k), s))
      return false;
  omplens_fix__buf probe = {0};
  c->probe = &probe; /* a failure leaves the group as it is */
  size_t at;
  uint32_t fn;
  const omplens_fix__ast *a = omplens_fix__need_ast(c) ? parsed_site(c, s, &at, &fn) : NULL;
  uint32_t var = a ? omplens_fix__ast_lookup(a, s->var, at) : NONE;
  const omplens_fix__node *n = var != NONE ? &a->nodes[var] : NULL;
  bool ok = n && (n->kind == OMPLENS_FIX__N_PARM || n->kind == OMPLENS_FIX__N_VAR) &&
            !n->global && n->arith && omplens_fix__ast_within(a, var, fn) && kernel_reads_only(c);
  omplens_fix__pragma p;
  omplens_fix__edits e = {0};
  if (ok && (ok = omplens_fix__scan_site(c, s, &p))) {
    const omplens_fix__item_edit ch = {s->item, OMPLENS_FIX__FIRSTPRIVATE};
    ok = !omplens_fix__pragma_change(c->src, &p, &ch, 1, &e) && !e.failed;
    omplens_fix__pragma_free(&p);
  }
  c->probe = NULL;
  omplens_fix__buf_free(&probe);
  if (!ok || !omplens_fix__note_changes(g, &s->item, 1, OMPLENS_FIX__FIRSTPRIVATE)) {
    omplens_fix__edits_free(&e);
    return false;
  }
  omplens_fix__edits_free(&g->edits);
  g->edits = e;
  g->kind = OMPLENS_FIX_FIRSTPRIVATE;
  g->confidence = OMPLENS_FIXC_CHECKED;
  g->settled = false;
  omplens_fix__buf_free(&g->reason);
  omplens_fix__buf_free(&g->recipe);
  omplens_fix__buf_free(&g->summary);
  const char *what = n->kind == OMPLENS_FIX__N_PARM ? "a parameter of" : "a local of";
  const char *fname = omplens_fix__ast_name(a, fn);
  omplens_fix__buf_printf(&g->summary,
                          "%s, a number (%s %s()), is mapped `to` at %s:%u and sent anew with "
                          "each launch: write it `firstprivate` instead, and it travels with "
                          "the kernel's launch, with no allocation or copy of its own",
                          s->var, what, fname, omplens_fix__short_name(c->file->path),
                          s->dir->pragma.line);
  return true;
}

/* ---- dispatch ---- */

/* The summary of a change that has no diff. It names the item, not a
 * category: the group may hold findings of several (a round trip and the
 * duplicates that follow it). */
static void generic_summary(omplens_fixer *fx, omplens_fix__group *g) {
  const omplens_finding *f = g->num_findings ? &fx->findings[g->findings[0]] : NULL;
  bool one = true;
  for (size_t k = 1; f && k < g->num_findings; k++)
    one &= fx->findings[g->findings[k]].category == f->category;
  unsigned line = g->site.dir ? g->site.dir->pragma.line : g->site.api ? g->site.api_line : 0;
  omplens_fix__buf_printf(
      &g->summary, "%s of %s%s%s%s: %s",
      f && one ? omplens_category_title(f->category) : "Findings", group_items(fx, g, false),
      g->site.file ? " at " : "", g->site.file ? omplens_fix__short_name(g->site.file->path) : "",
      g->site.file && line ? omplens_fix__ownf(fx, ":%u", line) : "",
      g->settled ? "nothing to change" : "no safe diff, change it by hand");
}

static bool edits_fit(omplens_fixer *fx, omplens_fix__file *f, const omplens_fix__edits *e,
                      const char **why, bool compile);

/* The context of group g's change: its site's file and source. */
static omplens_fix__ctx group_ctx(omplens_fixer *fx, omplens_fix__group *g) {
  return (omplens_fix__ctx){.fx = fx, .g = g, .file = g->site.file,
                            .src = g->site.file ? &g->site.file->src : NULL,
                            .blamed = OMPLENS_FIX__NONE};
}

/* What follows a group's build: its edits checked to fit its file, the
 * compile check queued, the summary of a change without a diff. */
static void built(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const char *why;
  /* The parse that proves the change compiles waits for the file's other
   * changes: omplens_fix__check_compiles. */
  /* the edits are in the file they change: a lifted wrap's is the caller's */
  if (g->kind != OMPLENS_FIX_MANUAL &&
      !edits_fit(c->fx, g->edit_file ? g->edit_file : c->file, &g->edits, &why, false))
    omplens_fix__fail(c, "%s", why);
  g->compile_pending = g->kind != OMPLENS_FIX_MANUAL;
  omplens_fix__edits_sort(&g->edits); /* checked above: they do not overlap */
  if (!g->summary.len)
    generic_summary(c->fx, g);
}

void omplens_fix__build(omplens_fixer *fx, omplens_fix__group *g) {
  omplens_fix__ctx c = group_ctx(fx, g);
  if (g->kind == OMPLENS_FIX_HOIST_ALLOC && g->site.api) {
    omplens_fix__build_hoist_api(&c);
  } else if (g->kind == OMPLENS_FIX_MANUAL || !g->site.dir) {
    if (!g->reason.len)
      omplens_fix__buf_str(&g->reason, g->site.reason ? g->site.reason : "no rule applies");
    recipe(&c);
    g->kind = OMPLENS_FIX_MANUAL;
  } else {
    switch (g->kind) {
    case OMPLENS_FIX_KEEP_RESIDENT:
    case OMPLENS_FIX_KEEP_RESIDENT_CALLER:
      omplens_fix__build_resident(&c);
      break;
    case OMPLENS_FIX_DROP_COPY_BACK:
      build_drop(&c);
      break;
    case OMPLENS_FIX_REMOVE_ITEM:
      if (g->unreferenced)
        build_unreferenced(&c);
      else if (g->site.dir->kind == OMPLENS_DIRECTIVE_TARGET_UPDATE)
        build_update(&c);
      else
        build_unused_alloc(&c);
      break;
    case OMPLENS_FIX_HOIST_ALLOC:
      omplens_fix__build_hoist(&c);
      break;
    case OMPLENS_FIX_MAP_ALLOC:
      build_map_alloc(&c);
      break;
    case OMPLENS_FIX_ZERO_ON_DEVICE:
      build_zero(&c);
      break;
    case OMPLENS_FIX_INIT_ON_DEVICE:
      omplens_fix__build_init(&c);
      break;
    default:
      omplens_fix__fail(&c, "no rule for this change");
    }
  }
  /* No rule gave a diff: a number sent anew with each launch can travel
   * with it instead. */
  build_firstprivate(&c);
  built(&c);
}

void omplens_fix__try_firstprivate(omplens_fixer *fx, omplens_fix__group *g) {
  omplens_fix__ctx c = group_ctx(fx, g);
  if (build_firstprivate(&c))
    built(&c);
}

/* ---- the items of one construct that one rule changes alike: one change ---- */

/* A change of one item, built alone: its directive, rule, what it gives
 * the item (a map type; a guard's if clause; NULL: it removes it), item
 * and group. */
typedef struct item_change {
  const omplens_directive *dir;
  int kind;
  const char *type;
  size_t item, group;
} item_change;

/* Whether a and b change items of one directive alike. */
static bool alike(const item_change *a, const item_change *b) {
  return a->dir == b->dir && a->kind == b->kind &&
         (a->type == b->type || (a->type && b->type && !strcmp(a->type, b->type)));
}

/* Alike ones together, then in the directive's order of items. */
static int cmp_change(const void *a, const void *b) {
  const item_change *x = a, *y = b;
  if (x->dir != y->dir)
    return (uintptr_t)x->dir < (uintptr_t)y->dir ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  int t = strcmp(x->type ? x->type : "", y->type ? y->type : "");
  if (t)
    return t;
  if (x->item != y->item)
    return x->item < y->item ? -1 : 1;
  return (x->group > y->group) - (x->group < y->group);
}

/* Names a summary lists before "and N more". */
#define LISTED_NAMES 8

/* "a, b and c" (or "a, b, ... and 7 more"): the variables or items of the
 * groups of run. */
static void run_list(const omplens_fixer *fx, const item_change *run, size_t n, bool items,
                     omplens_fix__buf *b) {
  size_t shown = n > LISTED_NAMES ? LISTED_NAMES - 1 : n;
  for (size_t k = 0; k < shown; k++) {
    const omplens_fix__site *s = &fx->groups[run[k].group].site;
    omplens_fix__buf_printf(b, "%s%s", k ? (k + 1 == n ? " and " : ", ") : "",
                            items ? omplens_fix__item_text(s) : s->var);
  }
  if (shown < n)
    omplens_fix__buf_printf(b, " and %zu more", n - shown);
}

/* The summary of run's joined change, into g's. */
static void joined_summary(omplens_fixer *fx, omplens_fix__group *g, const item_change *run,
                           size_t n, const char *file) {
  omplens_fix__buf names = {0};
  run_list(fx, run, n, run[0].kind != OMPLENS_FIX_REMOVE_ITEM, &names);
  const char *list = names.data ? names.data : "";
  const omplens_fix__site *s = &g->site;
  const char *was = omplens_map_type_name(s->dir->items[s->item].map_type);
  omplens_fix__buf_free(&g->summary);
  int dk = s->dir->kind;
  const char *action = g->kind == OMPLENS_FIX_REMOVE_DIRECTIVE
                           ? omplens_fix__ownf(fx, "remove the `%s` directive", s->dir->name)
                           : "remove them";
  if (run[0].kind == OMPLENS_FIX_GUARD) {
    omplens_fix__buf_printf(
        &g->summary,
        g->first_only ? "only the first copies of %s by `%s` at %s:%u are needed (later ones "
                        "re-send what the device still holds): copy them only in the first "
                        "iteration with `%s`"
                      : "the last copies of %s by `%s` at %s:%u are read by no kernel: skip "
                        "them in the last iteration with `%s`",
        list, s->dir->name, file, s->dir->pragma.line, run[0].type);
    omplens_fix__buf_str(&g->summary, "; assumes every run iterates as the recorded one did");
  } else if (run[0].kind == OMPLENS_FIX_REMOVE_ITEM && dk == OMPLENS_DIRECTIVE_TARGET_UPDATE) {
    bool d2h = false; /* some of the copies are copies back */
    for (size_t k = 0; k < g->num_findings; k++) {
      const omplens_finding *f = &fx->findings[g->findings[k]];
      d2h |= f->num_instances && fx->events[f->instances[0].event].kind == OMPLENS_EV_D2H;
    }
    omplens_fix__ctx c = {.fx = fx, .g = g};
    omplens_fix__buf_printf(&g->summary, "none of the copies of %s by `%s` at %s:%u is needed "
                            "(%s): %s", list, s->dir->name, file, s->dir->pragma.line,
                            update_why(&c, d2h), action);
  } else if (run[0].kind == OMPLENS_FIX_REMOVE_ITEM && dk != OMPLENS_DIRECTIVE_TARGET) {
    omplens_fix__buf_printf(&g->summary, "%s are allocated on device %d at %s:%u but %s: %s",
                            list, g->num_findings ? fx->findings[g->findings[0]].device : 0,
                            file, s->dir->pragma.line, unused_alloc_why(fx, g, true), action);
  } else if (run[0].kind == OMPLENS_FIX_REMOVE_ITEM) {
    size_t allocs = 0; /* items mapped alloc: allocated, not copied */
    for (size_t k = 0; k < n; k++) {
      const omplens_fix__site *t = &fx->groups[run[k].group].site;
      allocs += t->dir->items[t->item].map_type == OMPLENS_MAP_ALLOC;
    }
    omplens_fix__buf_printf(&g->summary,
                            "the kernel at %s:%u never names %s, which it maps (every launch "
                            "allocates %s): remove them from its map clauses",
                            file, s->dir->pragma.line, list,
                            allocs == n  ? "them"
                            : allocs == 0 ? "and copies them"
                                          : "them, and copies those not mapped `alloc`");
  } else if (run[0].kind == OMPLENS_FIX_MAP_ALLOC) {
    omplens_fix__buf_printf(&g->summary,
                            "the copies of %s by `%s` at %s:%u are never read by a kernel "
                            "(overwritten first, or sent after the last kernel): map them `%s` "
                            "instead of `%s`",
                            list, s->dir->name, file, s->dir->pragma.line, run[0].type, was);
  } else {
    omplens_fix__buf_printf(&g->summary,
                            "%s come back unchanged from the device, and the code at %s:%u "
                            "does not write them: map them `%s` instead of `%s`",
                            list, file, s->dir->pragma.line, run[0].type, was);
  }
  omplens_fix__buf_free(&names);
}

/* Group g's change holds h's: h's findings join g (h's assumption with
 * them), and h is left with none, its item named as `what` g does (fix
 * number g + 1). False without memory. */
static bool take_findings(omplens_fixer *fx, omplens_fix__group *g, omplens_fix__group *h,
                          const char *what) {
  for (size_t j = 0; j < h->num_findings; j++)
    if (!omplens_fix__add_finding(g, h->findings[j], omplens_fix__site_at(h, j)))
      return false;
  if (h->confidence == OMPLENS_FIXC_ASSUMED) /* the change rests on its assumption too */
    g->confidence = OMPLENS_FIXC_ASSUMED;
  h->num_findings = 0;
  h->taken = true;
  h->unreferenced = false;
  h->compile_pending = false;
  h->kind = OMPLENS_FIX_MANUAL;
  omplens_fix__edits_free(&h->edits);
  h->num_clause_changes = 0;
  omplens_fix__buf_free(&h->summary);
  omplens_fix__buf_printf(&h->summary, "%s %s (fix %zu)", omplens_fix__item_text(&h->site), what,
                          (size_t)(g - fx->groups) + 1);
  return true;
}

/* The changes of run[0..n) (alike, of one directive, each built alone)
 * made one change, run[0]'s group's: made one by one, two items side by
 * side in a clause both take the separator between them (a removal), or
 * both add a clause after theirs (a new map type), and a patch could hold
 * only one. The others' findings join it; nothing changes when the joined
 * edits do not fit. 0, or OMPLENS_FIX_ENOMEM. */
static int join_run(omplens_fixer *fx, const item_change *run, size_t n) {
  omplens_fix__group *g = &fx->groups[run[0].group];
  omplens_fix__buf why = {0};
  omplens_fix__ctx c = {.fx = fx, .g = g, .file = g->site.file, .src = &g->site.file->src,
                        .blamed = OMPLENS_FIX__NONE, .probe = &why};
  omplens_fix__edits e = {0};
  omplens_fix__pragma p;
  const char *reason = NULL;
  size_t *items = malloc(n * sizeof *items);
  bool ok = items && omplens_fix__scan_site(&c, &g->site, &p);
  bool whole = false; /* every item of a data directive goes: the directive goes */
  size_t distinct = 0;
  if (ok) {
    for (size_t k = 0; k < n; k++) /* sorted by item: each once */
      if (!k || run[k].item != run[k - 1].item)
        items[distinct++] = run[k].item;
    whole = !run[0].type && g->site.dir->kind != OMPLENS_DIRECTIVE_TARGET &&
            distinct == p.num_items;
    if (whole) { /* made into g's edits, which stay as they are if the join fails */
      omplens_fix__edits alone = g->edits;
      g->edits = (omplens_fix__edits){0};
      reason = remove_directive(&c, &g->site, &p);
      e = g->edits;
      g->edits = alone;
    } else if (run[0].kind == OMPLENS_FIX_GUARD) {
      reason = guard_items(&c, &p, items, distinct, run[0].type, &e);
    } else {
      reason = run[0].type
                   ? omplens_fix__pragma_set_types(c.src, &p, items, distinct, run[0].type, &e)
                   : omplens_fix__pragma_remove_items(c.src, &p, items, distinct, &e);
    }
    omplens_fix__pragma_free(&p);
    ok = !reason && !e.failed && edits_fit(fx, c.file, &e, &reason, false);
  }
  omplens_fix__buf_free(&why);
  size_t bare = 0; /* unreferenced items no finding names */
  for (size_t k = 1; k < n; k++)
    bare += !fx->groups[run[k].group].num_findings;
  omplens_fix__site *more =
      ok ? realloc(g->more_items, (g->num_more_items + bare + 1) * sizeof *more) : NULL;
  if (more)
    g->more_items = more;
  if (!more) {
    omplens_fix__edits_free(&e);
    free(items);
    return ok ? OMPLENS_FIX_ENOMEM : 0;
  }
  omplens_fix__edits_sort(&e); /* checked: they do not overlap */
  omplens_fix__edits_free(&g->edits);
  g->edits = e;
  bool noted = whole || run[0].kind == OMPLENS_FIX_GUARD
                   ? (g->num_clause_changes = 0, true) /* not a change of its items */
                   : omplens_fix__note_changes(g, items, distinct, run[0].type);
  free(items);
  if (!noted)
    return OMPLENS_FIX_ENOMEM;
  if (whole)
    g->kind = OMPLENS_FIX_REMOVE_DIRECTIVE;
  for (size_t k = 1; k < n; k++) {
    omplens_fix__group *h = &fx->groups[run[k].group];
    if (!h->num_findings)
      g->more_items[g->num_more_items++] = h->site;
    if (!take_findings(fx, g, h, "is changed with the other items of its construct"))
      return OMPLENS_FIX_ENOMEM;
  }
  joined_summary(fx, g, run, n, omplens_fix__short_name(c.file->path));
  return 0;
}

/* A group keyed by the directive item it changes (item SIZE_MAX: the
 * whole directive): a wrap by the items it keeps resident, the fix of an
 * unused allocation by what it removes, and (by directive alone) the
 * groups whose clause changes may merge. */
typedef struct group_key {
  const omplens_directive *dir;
  size_t item;
  const void *implicit;
  size_t group;
} group_key;

static int cmp_removal(const void *pa, const void *pb) {
  const group_key *a = pa, *b = pb;
  if (a->dir != b->dir)
    return (uintptr_t)a->dir < (uintptr_t)b->dir ? -1 : 1;
  if (a->item != b->item)
    return a->item < b->item ? -1 : 1;
  if (a->implicit != b->implicit)
    return (uintptr_t)a->implicit < (uintptr_t)b->implicit ? -1 : 1;
  return 0;
}

/* ---- findings a wrap removes with its own ---- */

/* By item, then group. */
static int cmp_wrapped(const void *x, const void *y) {
  const group_key *a = x, *b = y;
  int c = cmp_removal(a, b);
  return c ? c : (a->group > b->group) - (a->group < b->group);
}

static bool keeps_allocated_only(const omplens_fix__group *w, const omplens_fix__site *s) {
  for (size_t k = 0; k < w->num_kept; k++)
    if (w->kept[k].copies_dir == s->dir && w->kept[k].copies_item == s->item)
      return true;
  return false;
}

/* The items the built wraps (keep-resident groups with a diff) keep
 * resident, sending them once, sorted; caller frees; NULL without memory
 * (*n 0). An item a wrap only keeps allocated is not among them: its
 * directive still copies it each time. */
static group_key *group_keys(omplens_fixer *fx, size_t *n) {
  size_t cap = 1;
  *n = 0;
  for (size_t i = 0; i < fx->num_groups; i++)
    if (fx->groups[i].kind == OMPLENS_FIX_KEEP_RESIDENT ||
        fx->groups[i].kind == OMPLENS_FIX_KEEP_RESIDENT_CALLER)
      cap += fx->groups[i].num_findings;
  group_key *v = malloc(cap * sizeof *v);
  for (size_t i = 0; v && i < fx->num_groups; i++) {
    const omplens_fix__group *w = &fx->groups[i];
    if (w->kind != OMPLENS_FIX_KEEP_RESIDENT && w->kind != OMPLENS_FIX_KEEP_RESIDENT_CALLER)
      continue;
    /* the sites of the findings it holds: those of the items that left
     * it went with their findings to groups of their own */
    const omplens_fix__site *last = NULL;
    for (size_t k = 0; k < w->num_findings; k++) {
      const omplens_fix__site *s = omplens_fix__site_at(w, k);
      if (s != last && s->dir && !keeps_allocated_only(w, s))
        v[(*n)++] = (group_key){s->dir, s->item, s->implicit, i};
      last = s;
    }
  }
  if (v)
    qsort(v, *n, sizeof *v, cmp_wrapped);
  return v;
}

/* The first wrap keeping site s's item resident, or SIZE_MAX. */
static size_t wrap_of(const group_key *v, size_t n, const omplens_fix__site *s) {
  group_key key = {s->dir, s->item, s->implicit, 0};
  size_t a = 0, b = n;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    if (cmp_removal(&v[m], &key) < 0)
      a = m + 1;
    else
      b = m;
  }
  return s->dir && a < n && !cmp_removal(&v[a], &key) ? v[a].group : SIZE_MAX;
}

/* Whether instance in, an operation of an item of wrap w that w's change
 * keeps (an item's first copy in, last copy back, first allocation),
 * goes with the operation it repeats into the one copy the region makes
 * of a span of several sections (a loop's chunks of one array, the slices
 * of one buffer): both lie in that span, the repeated one at another
 * section or removed too. Then what the finding flags, two sections
 * sending the same bytes, no longer happens. */
static bool merged_in_span(const omplens_fixer *fx, const omplens_fix__group *w,
                           const omplens_instance *in, const uint32_t *removed, size_t n) {
  if (in->event >= fx->num_events || in->related >= fx->num_events)
    return false;
  const omplens_event *e = &fx->events[in->event], *r = &fx->events[in->related];
  for (size_t k = 0; k < w->num_kept; k++) {
    const omplens_fix__span *sp = &w->kept[k].span;
    if (!sp->lo_text || e->host_addr < sp->lo_addr || e->host_addr + e->bytes > sp->end_addr ||
        (e->host_addr == sp->lo_addr && e->host_addr + e->bytes == sp->end_addr))
      continue;
    bool in_span = r->host_addr >= sp->lo_addr && r->host_addr + r->bytes <= sp->end_addr;
    return in_span && (r->host_addr != e->host_addr ||
                       bsearch(&in->related, removed, n, sizeof *removed, omplens_fix__cmp_u32));
  }
  return false;
}

/* The wrap w whose change removes every operation of manual group h's
 * findings (their items are w's, each instance among the operations w's
 * change removes, or merged into its region's copy of a span:
 * merged_in_span), else SIZE_MAX. removed[w] holds w's, worked out once
 * (NULL until then); *failed without memory. */
static size_t wrap_removing(omplens_fixer *fx, const omplens_fix__group *h,
                            const group_key *v, size_t nv, uint32_t **removed,
                            size_t *num_removed, bool *failed) {
  size_t w = SIZE_MAX;
  for (size_t j = 0; j < h->num_findings; j++) {
    size_t of = wrap_of(v, nv, omplens_fix__site_at(h, j));
    if (of == SIZE_MAX || (w != SIZE_MAX && of != w))
      return SIZE_MAX;
    w = of;
  }
  if (w == SIZE_MAX)
    return SIZE_MAX;
  if (!removed[w] && (omplens_fix__removed(fx, &fx->groups[w], &removed[w], &num_removed[w]) ||
                      (!removed[w] && !(removed[w] = malloc(sizeof **removed))))) {
    *failed = true; /* (an empty list may come as NULL: worked out all the same) */
    return SIZE_MAX;
  }
  if (!num_removed[w])
    return SIZE_MAX;
  for (size_t j = 0; j < h->num_findings; j++) {
    const omplens_finding *f = &fx->findings[h->findings[j]];
    for (size_t i = 0; i < f->num_instances; i++)
      if (!bsearch(&f->instances[i].event, removed[w], num_removed[w], sizeof *removed[w],
                   omplens_fix__cmp_u32) &&
          !merged_in_span(fx, &fx->groups[w], &f->instances[i], removed[w], num_removed[w]))
        return SIZE_MAX;
  }
  return w;
}

/* Findings left manual by their own rule whose every operation a wrap's
 * change removes (a copy back the kernel writes, a duplicate of another
 * item's content, on items the wrap keeps resident) are that change's:
 * it fixes them, with its assumption. 0, or OMPLENS_FIX_ENOMEM. */
static int take_wrapped(omplens_fixer *fx, const group_key *v, size_t nv) {
  uint32_t **removed = calloc(fx->num_groups + 1, sizeof *removed);
  size_t *num_removed = removed ? calloc(fx->num_groups + 1, sizeof *num_removed) : NULL;
  bool failed = !num_removed;
  for (size_t i = 0; !failed && nv && i < fx->num_groups; i++) {
    omplens_fix__group *h = &fx->groups[i];
    if (h->kind != OMPLENS_FIX_MANUAL || h->taken || !h->num_findings)
      continue;
    size_t w = wrap_removing(fx, h, v, nv, removed, num_removed, &failed);
    if (w != SIZE_MAX && !take_findings(fx, &fx->groups[w], h,
                                        "is removed by the wrap of its loop too"))
      failed = true;
  }
  for (size_t i = 0; removed && i < fx->num_groups; i++)
    free(removed[i]);
  free(removed);
  free(num_removed);
  return failed ? OMPLENS_FIX_ENOMEM : 0;
}

int omplens_fix__take_joined(omplens_fixer *fx) {
  for (size_t i = 0; i < fx->num_groups; i++) {
    size_t last = SIZE_MAX;
    for (size_t j = fx->groups[i].joined; j != SIZE_MAX && j < fx->num_groups;
         j = fx->groups[j].joined)
      last = j;
    if (last != SIZE_MAX && fx->groups[last].kind != OMPLENS_FIX_MANUAL &&
        !take_findings(fx, &fx->groups[last], &fx->groups[i],
                       "is taken in by the wrap of the same loop"))
      return OMPLENS_FIX_ENOMEM;
  }
  size_t nv;
  group_key *v = group_keys(fx, &nv);
  if (!v)
    return OMPLENS_FIX_ENOMEM;
  /* An item filled on the device in every run of a loop that a wrap keeps
   * it resident across: sent once, it stays, and the fill kernel would
   * only run again each time. The wrap's change holds the fill's. */
  bool failed = false;
  for (size_t i = 0; i < fx->num_groups && !failed; i++) {
    omplens_fix__group *h = &fx->groups[i];
    if (h->kind != OMPLENS_FIX_ZERO_ON_DEVICE && h->kind != OMPLENS_FIX_FILL_ON_DEVICE)
      continue;
    size_t w = wrap_of(v, nv, &h->site);
    failed = w != SIZE_MAX && !take_findings(fx, &fx->groups[w], h,
                                             "is kept on the device by the wrap of its loop");
  }
  int rc = failed ? OMPLENS_FIX_ENOMEM : take_wrapped(fx, v, nv);
  free(v);
  return rc;
}

/* ---- an unused allocation's copies go with it ---- */

static bool all_unused_copies(const omplens_fixer *fx, const omplens_fix__group *g) {
  if (!g->num_findings || !g->site.dir || g->leftover != SIZE_MAX)
    return false;
  for (size_t k = 0; k < g->num_findings; k++)
    if (fx->findings[g->findings[k]].category != OMPLENS_CAT_UNUSED_TRANSFER)
      return false;
  return true;
}

int omplens_fix__take_removed(omplens_fixer *fx) {
  group_key *r = malloc((fx->num_groups + 1) * sizeof *r);
  if (!r)
    return OMPLENS_FIX_ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < fx->num_groups; i++) {
    const omplens_fix__group *g = &fx->groups[i];
    bool whole = g->kind == OMPLENS_FIX_REMOVE_DIRECTIVE;
    if (g->num_findings && g->site.dir && g->leftover == SIZE_MAX &&
        fx->findings[g->findings[0]].category == OMPLENS_CAT_UNUSED_ALLOC)
      r[n++] = (group_key){g->site.dir, whole ? SIZE_MAX : g->site.item,
                         whole ? NULL : (const void *)g->site.implicit, i};
  }
  qsort(r, n, sizeof *r, cmp_removal);
  int rc = 0;
  for (size_t i = 0; n && i < fx->num_groups && !rc; i++) {
    omplens_fix__group *h = &fx->groups[i];
    if (!all_unused_copies(fx, h))
      continue;
    group_key key = {h->site.dir, h->site.item, (const void *)h->site.implicit, 0};
    const group_key *w = bsearch(&key, r, n, sizeof *r, cmp_removal);
    if (!w) {
      key.item = SIZE_MAX;
      key.implicit = NULL;
      w = bsearch(&key, r, n, sizeof *r, cmp_removal);
    }
    /* Without a diff the removal says why the item stays, and where the
     * kernels that ran passed it over, that reason (a kernel that did not
     * run may read it) holds its copies too; where none ran, the copies
     * keep their own fix (an update that sends the data again). */
    if (w && !fx->groups[w->group].edits.n && !passed_over(fx, &fx->groups[w->group]))
      continue;
    if (w && w->group != i &&
        !take_findings(fx, &fx->groups[w->group], h,
                       fx->groups[w->group].edits.n ? "is removed with its allocation"
                                                    : "goes with its unused allocation"))
      rc = OMPLENS_FIX_ENOMEM;
  }
  free(r);
  return rc;
}

/* ---- changes of several rules to one directive's clauses ---- */

bool omplens_fix__note_changes(omplens_fix__group *g, const size_t *items, size_t n,
                               const char *type) {
  omplens_fix__item_edit *v = realloc(g->clause_changes, (n ? n : 1) * sizeof *v);
  if (!v)
    return false;
  for (size_t k = 0; k < n; k++)
    v[k] = (omplens_fix__item_edit){items[k], type};
  g->clause_changes = v;
  g->num_clause_changes = n;
  return true;
}

static bool mergeable(const omplens_fix__group *g) {
  return g->num_clause_changes && g->edits.n && !g->taken && g->site.dir && g->site.file &&
         g->edit_file == g->site.file && g->leftover == SIZE_MAX;
}

/* a's and b's edits outside the pragma [from, to) (a zeroing kernel after
 * it), and the change of its clauses, sorted; false when they overlap. */
static bool rebuilt(const omplens_fix__group *a, const omplens_fix__group *b, size_t from,
                    size_t to, const omplens_fix__edits *change, omplens_fix__edits *out) {
  omplens_fix__edits rest = {0};
  const omplens_fix__group *both[2] = {a, b};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < both[k]->edits.n; i++) {
      const omplens_fix__edit *x = &both[k]->edits.v[i];
      if (x->begin < from || x->end > to)
        omplens_fix__edit_raw(&rest, x->begin, x->end, x->text);
    }
  bool ok = !rest.failed && omplens_fix__edits_merged(&rest, change, out);
  omplens_fix__edits_free(&rest);
  return ok;
}

/* Makes b's clause change with a's, in a's edits, when both can be made
 * at once; then a takes b's findings. 0, or OMPLENS_FIX_ENOMEM. */
static int merge_pair(omplens_fixer *fx, omplens_fix__group *a, omplens_fix__group *b) {
  for (size_t i = 0; i < a->num_clause_changes; i++) /* each item once */
    for (size_t j = 0; j < b->num_clause_changes; j++)
      if (a->clause_changes[i].item == b->clause_changes[j].item)
        return 0;
  omplens_fix__edits apart;
  if (omplens_fix__edits_merged(&a->edits, &b->edits, &apart)) {
    omplens_fix__edits_free(&apart); /* they fit side by side in a patch */
    return 0;
  }
  size_t n = a->num_clause_changes + b->num_clause_changes;
  omplens_fix__item_edit *all = malloc(n * sizeof *all);
  if (!all)
    return OMPLENS_FIX_ENOMEM;
  memcpy(all, a->clause_changes, a->num_clause_changes * sizeof *all);
  memcpy(all + a->num_clause_changes, b->clause_changes, b->num_clause_changes * sizeof *all);
  omplens_fix__buf why = {0};
  omplens_fix__ctx c = {.fx = fx, .g = a, .file = a->site.file, .src = &a->site.file->src,
                        .blamed = OMPLENS_FIX__NONE, .probe = &why};
  omplens_fix__pragma p;
  omplens_fix__edits change = {0}, merged = {0};
  bool ok = omplens_fix__scan_site(&c, &a->site, &p);
  if (ok) {
    ok = !omplens_fix__pragma_change(c.src, &p, all, n, &change) && !change.failed &&
         rebuilt(a, b, p.begin, p.end, &change, &merged);
    omplens_fix__pragma_free(&p);
  }
  omplens_fix__edits_free(&change);
  omplens_fix__buf_free(&why);
  if (!ok) {
    free(all);
    return 0;
  }
  omplens_fix__edits_free(&a->edits);
  a->edits = merged;
  free(a->clause_changes);
  a->clause_changes = all;
  a->num_clause_changes = n;
  omplens_fix__buf_printf(&a->summary, "; in the same change, %s", b->summary.data);
  if (b->confidence == OMPLENS_FIXC_ASSUMED || a->confidence == OMPLENS_FIXC_ASSUMED)
    a->confidence = OMPLENS_FIXC_ASSUMED;
  return take_findings(fx, a, b, "is changed with the other items of its construct")
             ? 0
             : OMPLENS_FIX_ENOMEM;
}

/* Groups by directive, then by the first item each changes (so that the
 * same change reads the same whatever the groups' order, which follows
 * measured savings), then in list order. */
static int cmp_by_dir(const void *pa, const void *pb) {
  const group_key *a = pa, *b = pb;
  if (a->dir != b->dir)
    return (uintptr_t)a->dir < (uintptr_t)b->dir ? -1 : 1;
  if (a->item != b->item)
    return a->item < b->item ? -1 : 1;
  return a->group < b->group ? -1 : a->group > b->group;
}

static size_t first_item(const omplens_fix__group *g) {
  size_t first = SIZE_MAX;
  for (size_t i = 0; i < g->num_clause_changes; i++)
    if (g->clause_changes[i].item < first)
      first = g->clause_changes[i].item;
  return first;
}

int omplens_fix__merge_changes(omplens_fixer *fx) {
  group_key *r = malloc((fx->num_groups + 1) * sizeof *r); /* by directive */
  if (!r)
    return OMPLENS_FIX_ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < fx->num_groups; i++)
    if (mergeable(&fx->groups[i]))
      r[n++] = (group_key){fx->groups[i].site.dir, first_item(&fx->groups[i]), NULL, i};
  qsort(r, n, sizeof *r, cmp_by_dir);
  int rc = 0;
  for (size_t a = 0; a < n && !rc; a++) /* the earlier takes the later */
    for (size_t b = a + 1; b < n && r[b].dir == r[a].dir && !rc; b++) {
      omplens_fix__group *x = &fx->groups[r[a].group], *y = &fx->groups[r[b].group];
      if (mergeable(x) && mergeable(y) && x->site.file == y->site.file)
        rc = merge_pair(fx, x, y);
    }
  free(r);
  return rc;
}

/* The change group g makes to one written item, alike for others: a
 * removal, a new map type or an update's if clause; false for others. */
static bool item_change_of(const omplens_fixer *fx, size_t i, item_change *out) {
  const omplens_fix__group *g = &fx->groups[i];
  if (g->leftover != SIZE_MAX || !g->site.dir || !g->site.file || g->site.implicit ||
      g->site.item == SIZE_MAX)
    return false;
  bool removal = g->kind == OMPLENS_FIX_REMOVE_ITEM && g->removes_item;
  bool retype = (g->kind == OMPLENS_FIX_MAP_ALLOC || g->kind == OMPLENS_FIX_DROP_COPY_BACK) &&
                g->new_type;
  bool guard = g->kind == OMPLENS_FIX_GUARD && g->condition;
  *out = (item_change){g->site.dir, g->kind,
                       removal ? NULL : guard ? g->condition : g->new_type, g->site.item, i};
  return removal || retype || guard;
}

int omplens_fix__join_items(omplens_fixer *fx) {
  item_change *r = malloc((fx->num_groups + 1) * sizeof *r);
  if (!r)
    return OMPLENS_FIX_ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < fx->num_groups; i++)
    n += item_change_of(fx, i, &r[n]);
  qsort(r, n, sizeof *r, cmp_change);
  int rc = 0;
  for (size_t a = 0, b; a < n && !rc; a = b) {
    for (b = a + 1; b < n && alike(&r[b], &r[a]); b++)
      ;
    if (b - a > 1)
      rc = join_run(fx, r + a, b - a);
  }
  free(r);
  return rc;
}

/* ---- leftovers ---- */

/* The one free(var) that follows the directive in its function; NONE (and
 * the group manual) when there is not exactly one. */
static uint32_t free_call(omplens_fix__ctx *c, const omplens_fix__site *s) {
  size_t at = omplens_fix__pragma_at(c, s->dir);
  uint32_t fn = omplens_fix__ast_function_at(c->ast, at);
  uint32_t var = omplens_fix__ast_lookup(c->ast, s->var, at);
  uint32_t found = NONE;
  size_t count = 0;
  for (size_t i = 0; fn != NONE && i < c->ast->num_nodes; i++) {
    const omplens_fix__node *n = &c->ast->nodes[i];
    if (n->kind != OMPLENS_FIX__N_CALL || n->begin < at ||
        !omplens_fix__ast_within(c->ast, (uint32_t)i, fn) ||
        strcmp(omplens_fix__ast_name(c->ast, (uint32_t)i), "free"))
      continue;
    uint32_t arg = omplens_fix__ast_child(c->ast, (uint32_t)i, 1);
    if (arg != NONE && omplens_fix__ast_plain_var(c->ast, arg) == var) {
      found = (uint32_t)i;
      count++;
    }
  }
  if (count != 1) {
    omplens_fix__fail(c, "%s",
                      count ? "the buffer is freed in several places"
                            : "no free() of the buffer follows the directive in its "
                              "function");
    return NONE;
  }
  return found;
}

/* A leftover that is the device's copy of pointer, made by LLVM's runtime
 * to attach the items mapped through it and kept after they are unmapped:
 * the program leaks nothing, so the fix says so, and how to end it anyway. */
static void pointer_left(omplens_fix__ctx *c, const char *pointer, const omplens_leftover *lo) {
  omplens_fix__group *g = c->g;
  char where[512] = "";
  if (g->site.file && g->site.dir)
    snprintf(where, sizeof where, " at %s:%u", omplens_fix__short_name(g->site.file->path),
             g->site.dir->pragma.line);
  omplens_fix__buf_printf(&g->summary,
                          "nothing to change: the device's copy of the pointer %s, which the "
                          "runtime made to attach the items mapped through it, stays on device "
                          "%d until the program ends",
                          pointer, lo->device);
  omplens_fix__buf_printf(&g->recipe,
                          "nothing needs to change: it holds %" PRIu64 " bytes and moves no data. "
                          "To release it, add `#pragma omp target exit data map(delete: %s)` "
                          "after the last use on the device of the items mapped through %s, or "
                          "map them through a local copy of the pointer, for which the runtime "
                          "makes no such copy.",
                          lo->bytes, pointer, pointer);
  omplens_fix__fail(c,
                    "it is the runtime's, not the program's: LLVM's runtime allocates the "
                    "device's copy of a pointer that map items go through (%s%s) to attach "
                    "them, and does not delete it when they are unmapped",
                    pointer, where);
}

void omplens_fix__build_leftover(omplens_fixer *fx, omplens_fix__group *g,
                                 const omplens_leftover *lo) {
  g->kind = OMPLENS_FIX_ADD_EXIT_DATA;
  omplens_fix__ctx c = {.fx = fx, .g = g, .blamed = OMPLENS_FIX__NONE};
  const omplens_event *e = lo->alloc_event < fx->num_events ? &fx->events[lo->alloc_event] : NULL;
  omplens_fix__site *s = &g->site;
  s->item = SIZE_MAX;
  if (e)
    s->dir = omplens_fix__directive_of(fx, lo->codeptr, omplens_fix__runtime_kind(fx, e), &s->file);
  c.file = g->edit_file = s->file;
  c.src = s->file ? &s->file->src : NULL;
  omplens_variable v = {0};
  bool named = e && fx->annot && !omplens_annotate_variable(fx->annot, e, &v) && v.name;
  if (s->dir)
    for (size_t i = 0; named && i < s->dir->num_items; i++)
      if (s->dir->items[i].var && !strcmp(s->dir->items[i].var, v.name)) {
        s->item = i;
        s->var = s->dir->items[i].var;
      }
  if (!named && v.pointer_storage && v.pointer) {
    pointer_left(&c, v.pointer, lo);
    return;
  }
  const char *it = s->var ? omplens_fix__item_text(s) : named ? v.item : "the buffer";
  omplens_fix__buf_printf(&g->summary,
                          "%s stays mapped on device %d until the program ends: "
                          "delete the mapping after its last use",
                          it, lo->device);
  if (!s->dir || !s->var) {
    omplens_fix__fail(&c, "%s", !s->dir     ? "the directive that mapped it is unknown"
                                : named     ? omplens_fix__ownf(fx, "no map item of the directive matches %s", v.item)
                                : v.unnamed ? v.unnamed
                                            : "the item that mapped it is unknown");
    return;
  }
  if (s->dir->kind != OMPLENS_DIRECTIVE_TARGET_ENTER_DATA) {
    omplens_fix__fail(&c, "it was mapped by `%s`, not by `target enter data`", s->dir->name);
    return;
  }
  if (!omplens_fix__need_ast(&c))
    return;
  uint32_t found = free_call(&c, s);
  if (found == NONE)
    return;
  size_t at = omplens_fix__pragma_at(&c, s->dir);
  uint32_t fn = omplens_fix__ast_function_at(c.ast, at);
  const omplens_fix__node *fr = &c.ast->nodes[found];
  unsigned line = omplens_fix__ctx_line(&c, fr->begin);
  size_t ind_at;
  size_t ind = omplens_fix__indent(c.src, line, &ind_at);
  if (omplens_fix__ast_loop_at(c.ast, fn, fr->begin) != omplens_fix__ast_loop_at(c.ast, fn, at) ||
      !omplens_fix__blank(c.src, ind_at, fr->begin) || fr->parent == NONE ||
      c.ast->nodes[fr->parent].kind != OMPLENS_FIX__N_COMPOUND) {
    omplens_fix__fail(
        &c, "the free() at line %u is not a statement of its own at the directive's loop level",
        line);
    return;
  }
  const char *d = omplens_fix__ownf(fx, "#pragma omp target exit data map(delete: %s)%s\n", it,
                                    omplens_fix__device_clause(&c, s->dir));
  omplens_fix__insert_lines(&g->edits, c.src, line, c.src->text + ind_at, ind, d);
  const char *why;
  if (!omplens_fix__edits_ok(fx, c.file, &g->edits, &why)) {
    omplens_fix__fail(&c, "%s", why);
    return;
  }
  omplens_fix__edits_sort(&g->edits);
  g->confidence = OMPLENS_FIXC_CHECKED;
  omplens_fix__buf_free(&g->summary);
  omplens_fix__buf_printf(&g->summary,
                          "%s (mapped at %s:%u) stays mapped on device %d until the "
                          "program ends: delete the mapping before free(%s) at line %u",
                          it, omplens_fix__short_name(c.file->path), s->dir->pragma.line,
                          lo->device, s->var, line);
}

/* ---- the last checks of every diff ---- */

/* Why f changed to text does not compile in unit u (the -fopenmp parse has
 * more errors than with f as it is), or NULL. */
static const char *unit_error(omplens_fixer *fx, omplens_fix__file *f, size_t u,
                              const char *text) {
  size_t nargs;
  const char *const *args = omplens_fix__unit_args(fx, f, u, &nargs);
  omplens_fix__unit *unit = &f->units[u];
  const char *main = strcmp(unit->path, f->path) ? unit->path : NULL;
  char *first = NULL;
  int after = omplens_fix__openmp_errors_in(f->path, main, text, args, nargs, &first);
  /* A change with no error needs no count of the file's own: one parse of
   * a large file (0.3-0.4 s for the bench's 2000 directives) saved. */
  if (after > 0 && unit->omp_errors == -2)
    unit->omp_errors =
        omplens_fix__openmp_errors_in(f->path, main, f->src.text, args, nargs, NULL);
  int before = after > 0 ? unit->omp_errors : 0;
  const char *why = NULL;
  if (after < 0 || before < 0)
    why = "libclang cannot parse the changed file to check it";
  else if (after > before && main)
    why = omplens_fix__ownf(fx, "the changed header would not compile in %s (%s)",
                            omplens_fix__short_name(main), first ? first : "error");
  else if (after > before)
    why = omplens_fix__ownf(fx, "the changed file would not compile (%s)", first ? first : "error");
  free(first);
  return why;
}

/* A change compiles in every unit of the file: a header's, each source of
 * the compile database that includes it. */
static const char *compile_error(omplens_fixer *fx, omplens_fix__file *f, const char *text) {
  size_t n = omplens_fix__file_units(fx, f);
  if (!n)
    return "out of memory";
  const char *why = NULL;
  for (size_t u = 0; u < n && !why; u++)
    why = unit_error(fx, f, u, text);
  return why;
}

/* The checks of a change that need no parse: not empty, no overlap, and a
 * diff that applies; *why says which failed. */
static bool edits_fit(omplens_fixer *fx, omplens_fix__file *f, const omplens_fix__edits *e,
                      const char **why, bool compile) {
  omplens_fix__edits sorted = {0};
  for (size_t i = 0; i < e->n; i++)
    omplens_fix__edit_raw(&sorted, e->v[i].begin, e->v[i].end, e->v[i].text);
  *why = NULL;
  if (!e->n)
    *why = "the change is empty";
  else if (sorted.failed)
    *why = "out of memory";
  else if (!omplens_fix__edits_sort(&sorted))
    *why = "the change's edits overlap";
  char *text = *why ? NULL : omplens_fix__apply(&f->src, &sorted);
  omplens_fix__buf d = {0};
  if (text) {
    omplens_fix__buf_str(&d, "");
    omplens_fix__diff(&f->src, &sorted, f->path, &d);
    if (d.failed || !omplens_fix__diff_verify(&f->src, d.data, text))
      *why = "internal: the diff does not apply to the file as it is";
  }
  if (text && !*why && compile)
    *why = compile_error(fx, f, text);
  if (!text && !*why)
    *why = "out of memory";
  omplens_fix__buf_free(&d);
  free(text);
  omplens_fix__edits_free(&sorted);
  return !*why;
}

void omplens_fix__retext_manual(omplens_fixer *fx, omplens_fix__group *g) {
  omplens_fix__ctx c = group_ctx(fx, g);
  omplens_fix__buf_free(&g->recipe);
  omplens_fix__buf_free(&g->summary);
  recipe(&c);
  generic_summary(fx, g);
}

bool omplens_fix__edits_ok(omplens_fixer *fx, omplens_fix__file *f, const omplens_fix__edits *e,
                           const char **why) {
  return edits_fit(fx, f, e, why, true);
}

/* The compile check of every group whose build left it pending: all of a
 * file's changes at once, one parse when they all compile together (the
 * common case: TeaLeaf's 13 diffs took 13 parses), else one by one. A
 * change that fails becomes manual, with its reason, recipe and a summary
 * that says so. */
static void compile_failed(omplens_fixer *fx, omplens_fix__group *g, const char *why) {
  omplens_fix__ctx c = group_ctx(fx, g);
  omplens_fix__fail(&c, "%s", why);
  omplens_fix__buf_free(&g->summary);
  generic_summary(fx, g);
}

/* Marks (in together) the pending changes of file that keep apart from
 * each other, in list order, and returns whether the file with all of them
 * compiles. */
static bool file_compiles_with_all(omplens_fixer *fx, omplens_fix__file *file, bool *together) {
  omplens_fix__edits all = {0};
  for (size_t i = 0; i < fx->num_groups; i++) {
    const omplens_fix__group *g = &fx->groups[i];
    together[i] = false;
    if (!g->compile_pending || g->edit_file != file)
      continue;
    omplens_fix__edits trial;
    if (omplens_fix__edits_merged(&all, &g->edits, &trial)) {
      omplens_fix__edits_free(&all);
      all = trial;
      together[i] = true;
    }
  }
  const char *why;
  bool ok = all.n && !all.failed && omplens_fix__edits_ok(fx, file, &all, &why);
  omplens_fix__edits_free(&all);
  return ok;
}

void omplens_fix__check_compiles(omplens_fixer *fx) {
  bool *together = calloc(fx->num_groups + 1, sizeof *together);
  for (size_t i = 0; i < fx->num_groups; i++) {
    omplens_fix__group *g = &fx->groups[i];
    if (!g->compile_pending)
      continue;
    omplens_fix__file *file = g->edit_file;
    bool compiles = together && file_compiles_with_all(fx, file, together);
    for (size_t k = i; k < fx->num_groups; k++) { /* the file's pending groups */
      omplens_fix__group *h = &fx->groups[k];
      if (!h->compile_pending || h->edit_file != file)
        continue;
      h->compile_pending = false;
      const char *why;
      if (!(compiles && together[k]) && !omplens_fix__edits_ok(fx, file, &h->edits, &why))
        compile_failed(fx, h, why);
    }
  }
  free(together);
}
