/* Rule init-on-device (docs/fixes.md): a re-initialization is the host
 * resetting data the device changed (`hits = 0;`, `done = 1;`) and sending
 * the reset. When the statement right before the directive sets the item to
 * a constant and the directive is `target update to`, the device can set
 * the same constant itself: the update's item becomes a one-statement
 * target region that maps the item `alloc` (no copy) and assigns it. Every
 * execution of the update sent that constant, so the device ends up with the
 * same bytes each time. Otherwise the recipe names the statement and its
 * line. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"

#define NONE OMPLENS_FIX__NONE

/* The statement that resets the item right before the directive. */
typedef struct reset {
  uint32_t assign; /* the statement: `=` or declaration node */
  size_t end;      /* just after its ';' */
  char *text;      /* "hits = 0;", normalized (caller frees) */
  unsigned line;
  bool decl;       /* a declaration with an initializer */
} reset;

static bool ident_start(char ch) { return isalpha((unsigned char)ch) || ch == '_'; }
static bool ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* Whether text is a constant: numbers, character literals, operators and
 * parentheses, and names that are macros, enumerators, true, false, NULL or
 * nullptr (no call, no variable, no side effect). */
static bool constant_text(const omplens_fix__ast *a, const char *text, size_t at) {
  static const char *const names[] = {"true", "false", "NULL", "nullptr"};
  for (const char *p = text; *p;) {
    if (ident_start(*p)) {
      const char *b = p;
      while (ident_char(*p))
        p++;
      char name[128];
      size_t n = (size_t)(p - b);
      if (n >= sizeof name)
        return false;
      memcpy(name, b, n);
      name[n] = 0;
      bool known = omplens_fix__ast_is_macro(a, name);
      for (size_t i = 0; !known && i < sizeof names / sizeof *names; i++)
        known = !strcmp(name, names[i]);
      uint32_t d = known ? NONE : omplens_fix__ast_lookup(a, name, at);
      if (!known && (d == NONE || a->nodes[d].kind != OMPLENS_FIX__N_ENUM_CONST))
        return false;
    } else if (isdigit((unsigned char)*p) || *p == '.') {
      while (ident_char(*p) || *p == '.' || ((*p == '+' || *p == '-') && (p[-1] == 'e' ||
                                                                         p[-1] == 'E')))
        p++;
    } else if (*p == '\'') {
      for (p++; *p && *p != '\''; p++)
        if (*p == '\\' && p[1])
          p++;
      if (*p++ != '\'')
        return false;
    } else if (strchr(" +-*/%()~!<>&|^", *p)) {
      p++;
    } else {
      return false;
    }
  }
  return *text != 0;
}

/* Whether lhs (normalized) names the whole item: `v` for item v, `v[0]` or
 * `*v` for a one-element section v[0:1] or v[:1]. */
static bool names_item(const char *lhs, const char *item, const char *var) {
  if (!strcmp(lhs, item))
    return true;
  char one[2][160];
  snprintf(one[0], sizeof one[0], "%s[0:1]", var);
  snprintf(one[1], sizeof one[1], "%s[:1]", var);
  char first[160], deref[160];
  snprintf(first, sizeof first, "%s[0]", var);
  snprintf(deref, sizeof deref, "*%s", var);
  return (!strcmp(item, one[0]) || !strcmp(item, one[1])) &&
         (!strcmp(lhs, first) || !strcmp(lhs, deref));
}


/* What line l holds of the preprocessor's conditionals: 1 an opening
 * (`#if`, `#ifdef`, `#ifndef`), 2 another branch (`#elif`, `#else`), 3
 * the close (`#endif`), 0 none. */
static int conditional_line(const omplens_fix__source *s, unsigned l) {
  const char *p = s->text + s->line_start[l - 1];
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p++ != '#')
    return 0;
  while (*p == ' ' || *p == '\t')
    p++;
  static const struct {
    const char *word;
    int kind;
  } words[] = {{"ifdef", 1}, {"ifndef", 1}, {"if", 1}, {"elif", 2}, {"else", 2}, {"endif", 3}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    size_t n = strlen(words[i].word);
    if (!strncmp(p, words[i].word, n) && !ident_char(p[n]))
      return words[i].kind;
  }
  return 0;
}

/* Whether nothing runs in [from, to): blanks, comments, whole lines of
 * preprocessor conditionals (the parse took the build's branch, so the
 * code between is the one that ran), and the branches before the one
 * holding `to` of a conditional opened in between (`#ifdef X` / pragma /
 * `#else` / the pragma that ran): only one branch of it is compiled. */
#define OMPLENS_FIX__MAX_NESTING 32
static bool nothing_between(const omplens_fix__source *s, size_t from, size_t to) {
  unsigned first = omplens_fix__line_of(s, from), last = omplens_fix__line_of(s, to);
  if (first == last)
    return omplens_fix__blank(s, from, to);
  if (!omplens_fix__blank(s, from, omplens_fix__line_end(s, first)))
    return false;
  /* Per conditional opened in between: code seen in its earlier branches,
   * and in its current one. */
  struct {
    bool earlier, current;
  } open[OMPLENS_FIX__MAX_NESTING];
  size_t depth = 0;
  for (unsigned l = first + 1; l < last; l++) {
    int kind = conditional_line(s, l);
    bool code = !kind && !omplens_fix__blank(s, s->line_start[l - 1], omplens_fix__line_end(s, l));
    if (kind == 1) {
      if (depth == OMPLENS_FIX__MAX_NESTING)
        return false;
      open[depth].earlier = open[depth].current = false;
      depth++;
    } else if (kind == 2) {
      if (!depth) /* a chain begun before: its branches are not both compiled */
        return false;
      open[depth - 1].earlier |= open[depth - 1].current;
      open[depth - 1].current = false;
    } else if (kind == 3 && depth) {
      depth--; /* closed before `to`: one of its branches was compiled */
      code = open[depth].earlier || open[depth].current;
    }
    if (code && !depth)
      return false;
    if (code)
      open[depth - 1].current = true;
  }
  /* `to` is in the last branch of each conditional still open: what its
   * earlier branches hold was not compiled. */
  for (size_t i = 0; i < depth; i++)
    if (open[i].current)
      return false;
  return omplens_fix__blank(s, s->line_start[last - 1], to);
}

/* The value and the target of a candidate statement n: an assignment
 * `LHS = RHS` (*lhs set), or a declaration of one variable with an
 * initializer (*lhs NONE, *var its VAR node). */
static uint32_t reset_value(const omplens_fix__ctx *c, uint32_t n, uint32_t *lhs,
                            uint32_t *var) {
  const omplens_fix__node *nd = &c->ast->nodes[n];
  *lhs = *var = NONE;
  if (nd->kind == OMPLENS_FIX__N_BINARY) {
    *lhs = omplens_fix__ast_child(c->ast, n, 0);
    return omplens_fix__ast_child(c->ast, n, 1);
  }
  *var = omplens_fix__ast_child(c->ast, n, 0);
  if (*var == NONE || c->ast->nodes[*var].kind != OMPLENS_FIX__N_VAR ||
      omplens_fix__ast_child(c->ast, n, 1) != NONE)
    return NONE; /* not one variable */
  uint32_t value = NONE;
  for (uint32_t i = 0, k; (k = omplens_fix__ast_child(c->ast, *var, i)) != NONE; i++)
    value = k;
  /* The initializer is the variable's last child, after its '='. */
  bool init = value != NONE && memchr(c->src->text + c->ast->nodes[*var].loc, '=',
                                      c->ast->nodes[value].begin - c->ast->nodes[*var].loc);
  return init ? value : NONE;
}

/* The statement that ends last before offset at, in block: an assignment
 * or a declaration, followed only by its ';' and nothing that runs. */
static uint32_t statement_before(const omplens_fix__ctx *c, uint32_t block, size_t at,
                                 size_t *end) {
  uint32_t found = NONE;
  for (size_t i = 0; block != NONE && i < c->ast->num_nodes; i++) {
    const omplens_fix__node *n = &c->ast->nodes[i];
    bool stmt = (n->kind == OMPLENS_FIX__N_BINARY && n->op == OMPLENS_FIX__OP_ASSIGN) ||
                n->kind == OMPLENS_FIX__N_DECLSTMT;
    if (!stmt || n->parent != block || n->end > at || (found != NONE && n->end < *end))
      continue;
    size_t e = n->end;
    while (e < at && (c->src->text[e] == ' ' || c->src->text[e] == '\t'))
      e++;
    if (e < at && c->src->text[e] == ';')
      e++;
    else if (n->kind != OMPLENS_FIX__N_DECLSTMT || c->src->text[e - 1] != ';')
      continue; /* an assignment that is part of a longer statement */
    if (nothing_between(c->src, e, at)) {
      found = (uint32_t)i;
      *end = e;
    }
  }
  return found;
}

/* Whether out->assign, the statement right before offset at, sets the
 * item to a constant (*constant: whether it sets anything to one); its
 * text and line into *out when it does. */
static bool resets_item(const omplens_fix__ctx *c, const omplens_fix__site *s, size_t at,
                        reset *out, bool *constant) {
  uint32_t lhs, var, value = reset_value(c, out->assign, &lhs, &var);
  char *l = lhs != NONE ? omplens_fix__ast_text(c->ast, c->src, lhs) : NULL;
  char *r = value != NONE ? omplens_fix__ast_text(c->ast, c->src, value) : NULL;
  bool target = lhs != NONE ? l && names_item(l, omplens_fix__item_text(s), s->var)
                            : var != NONE && !strcmp(omplens_fix__item_text(s), s->var) &&
                                  !strcmp(omplens_fix__ast_name(c->ast, var), s->var);
  *constant = r && constant_text(c->ast, r, at);
  bool ok = target && *constant;
  free(l);
  free(r);
  const omplens_fix__node *n = &c->ast->nodes[out->assign];
  out->decl = lhs == NONE;
  out->text = ok ? omplens_fix__normalize(c->src->text + n->begin, out->end - n->begin) : NULL;
  out->line = omplens_fix__ctx_line(c, n->begin);
  return out->text != NULL;
}

#define RESETS_BEFORE 8 /* statements of a run of resets looked through */

/* The statement right before the directive, in the same block, that sets
 * the item to a constant: `ITEM = CONSTANT;`, or a declaration `T VAR =
 * CONSTANT;` (out->decl), also behind other such statements right before
 * it (`mass = 0; te = 0;` before the kernel that sums both); false when
 * there is none. */
static bool find_reset(const omplens_fix__ctx *c, const omplens_fix__site *s, reset *out) {
  size_t at = omplens_fix__pragma_at(c, s->dir);
  uint32_t fn = at == SIZE_MAX ? NONE : omplens_fix__ast_function_at(c->ast, at);
  uint32_t block = fn == NONE ? NONE : omplens_fix__ast_block_at(c->ast, fn, at);
  for (int k = 0; k < RESETS_BEFORE; k++) {
    memset(out, 0, sizeof *out);
    out->assign = statement_before(c, block, at, &out->end);
    bool constant = false;
    if (out->assign == NONE)
      return false;
    if (resets_item(c, s, at, out, &constant))
      return true;
    if (!constant)
      return false;
    at = c->ast->nodes[out->assign].begin; /* the run of resets goes on before it */
  }
  memset(out, 0, sizeof *out);
  return false;
}

/* What the recipe says when no diff is made. */
void omplens_fix__recipe_init(omplens_fix__ctx *c, const char *where) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  const char *it = omplens_fix__item_text(s);
  omplens_fix__buf *r = &g->recipe;
  if (g->reset_decl)
    omplens_fix__buf_printf(r, "`%s` at %s:%u declares %s with its start value, and %s sends it: ",
                            g->reset, omplens_fix__short_name(s->file->path), g->reset_line, it,
                            where);
  else if (g->reset)
    omplens_fix__buf_printf(r, "`%s` at %s:%u resets %s after the device changed it, and %s sends "
                               "the reset: ",
                            g->reset, omplens_fix__short_name(s->file->path), g->reset_line, it,
                            where);
  else
    omplens_fix__buf_printf(r, "the copy of %s at %s sets back content the device held before "
                               "and lost since (a start value such as sum = 0, a loop flag, a "
                               "counter, or an input the host sets again): ",
                            it, where);
  if (!s->dir || s->dir->kind != OMPLENS_DIRECTIVE_TARGET) {
    omplens_fix__buf_printf(
        r,
        "initialize %s on the device instead, with a small `#pragma omp target map(alloc: %s)` "
        "region that assigns the start value, and stop sending it (drop it from `target update "
        "to`, map it `alloc` instead of `to`).",
        it, it);
    return;
  }
  /* The kernel's own map sends it: it must be mapped before the kernel. A
   * map that says `always` copies it in even where a region around keeps
   * it mapped (as the wrap of a loop leaves it): only its `to` half goes. */
  if (omplens_fix__maps_always(s)) {
    bool tofrom = s->dir->items[s->item].map_type == OMPLENS_MAP_TOFROM;
    omplens_fix__buf_printf(
        r,
        "the `always` of its map copies it in at each launch, even while a region around the "
        "kernel keeps it mapped: to set it on the device instead, keep %s mapped across the "
        "loop if no region does yet, map it %s, and set it before the kernel "
        "with `#pragma omp target map(alloc: %s)` followed by the assignment of the start "
        "value. That trades the copy for a kernel launch: worth it where a copy costs more "
        "than a launch.",
        it, tofrom ? "`always, from` at the kernel rather than `always, tofrom` (the result "
                     "still comes back)"
                   : "`alloc` at the kernel rather than `always, to`",
        it);
    return;
  }
  unsigned loop_line, decl_line;
  bool in_loop = omplens_fix__declared_in_loop(c, s, &loop_line, &decl_line);
  bool local = !in_loop && (g->reset_decl || omplens_fix__local_variable(c, s));
  const char *var = local ? "VAR" : it;
  if (in_loop)
    omplens_fix__buf_printf(r,
                            "to set it on the device instead, declare %s before the loop at line "
                            "%u rather than in it (line %u: each run of the loop maps a new "
                            "variable), keep it mapped across the loop (`#pragma omp target enter "
                            "data map(alloc: %s)` before it, `#pragma omp target exit data "
                            "map(delete: %s)` after it)",
                            s->var, loop_line, decl_line, it, it);
  else if (local)
    omplens_fix__buf_printf(r,
                            "to set it on the device instead, reduce into a variable VAR that "
                            "stays mapped across the calls (`#pragma omp target enter data "
                            "map(alloc: VAR)` once) instead of %s",
                            it);
  else
    omplens_fix__buf_printf(r,
                            "to set it on the device instead, keep %s mapped across the loop "
                            "(`#pragma omp target enter data map(alloc: %s)` before it, "
                            "`#pragma omp target exit data map(delete: %s)` after it)",
                            it, it, it);
  omplens_fix__buf_printf(
      r,
      ", set it before the kernel with `#pragma omp target map(alloc: %s)` followed by the "
      "assignment of the start value, and copy the result back with `#pragma omp target update "
      "from(%s)` after the kernel. That trades the copy for a kernel launch: worth it where a "
      "copy costs more than a launch.",
      var, var);
}

/* The update's item becomes `#pragma omp target map(alloc: ITEM)` and the
 * reset statement, both where the update was. */
static bool replace_update(omplens_fix__ctx *c, const reset *rs) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  const char *it = omplens_fix__item_text(s);
  omplens_fix__pragma p;
  if (!omplens_fix__scan_site(c, s, &p))
    return false;
  size_t pind_at, sind_at;
  size_t pind = omplens_fix__indent(c->src, p.first_line, &pind_at);
  size_t sind = omplens_fix__indent(c->src, rs->line, &sind_at);
  const char *kernel = omplens_fix__ownf(c->fx, "#pragma omp target map(alloc: %s)%s\n", it,
                                         omplens_fix__device_clause(c, s->dir));
  const char *stmt = omplens_fix__ownf(c->fx, "%s\n", rs->text);
  bool ok = kernel && stmt;
  if (ok) {
    /* Before the update's first line, which may go: insertions come first
     * at the start of a removal. */
    omplens_fix__insert_lines(&g->edits, c->src, p.first_line, c->src->text + pind_at, pind,
                              kernel);
    omplens_fix__insert_lines(&g->edits, c->src, p.first_line, c->src->text + sind_at, sind,
                              stmt);
    ok = omplens_fix__remove_item_or_directive(c, s, &p);
  } else {
    omplens_fix__fail(c, "out of memory");
  }
  omplens_fix__pragma_free(&p);
  return ok;
}

bool omplens_fix__build_init(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  const char *it = omplens_fix__item_text(s);
  if (!omplens_fix__need_ast(c))
    return false;
  reset rs;
  if (find_reset(c, s, &rs)) {
    g->reset = omplens_fix__ownf(c->fx, "%s", rs.text);
    g->reset_line = rs.line;
    g->reset_decl = rs.decl;
  }
  bool ok = false;
  if (!rs.text)
    omplens_fix__fail(c, "no statement right before line %u sets %s to a constant",
                      s->dir->pragma.line, it);
  else if (s->dir->kind == OMPLENS_DIRECTIVE_TARGET && omplens_fix__maps_always(s))
    omplens_fix__fail(c,
                      "the `always` of its map at `%s` sends it at each launch: setting it on "
                      "the device instead costs a kernel launch of its own (not derived)",
                      s->dir->name);
  else if (s->dir->kind == OMPLENS_DIRECTIVE_TARGET)
    omplens_fix__fail(c,
                      "`%s` sends it with its own map: the device can only set it first if it "
                      "stays mapped from before the kernel, at the cost of a kernel launch",
                      s->dir->name);
  else if (s->dir->kind != OMPLENS_DIRECTIVE_TARGET_UPDATE)
    omplens_fix__fail(c,
                      "`%s` sends it as it maps it: setting it on the device instead needs that "
                      "map made `alloc` and a region of its own after it (not derived)",
                      s->dir->name);
  else if (rs.decl)
    omplens_fix__fail(c, "the reset is the declaration of %s, which nothing maps before", it);
  else if (omplens_fix__has_clause(s->dir, OMPLENS_CLAUSE_IF) ||
           omplens_fix__has_clause(s->dir, OMPLENS_CLAUSE_DEPEND) ||
           omplens_fix__has_clause(s->dir, OMPLENS_CLAUSE_NOWAIT))
    omplens_fix__fail(c, "the update has if, depend or nowait: the region would need the same");
  else
    ok = replace_update(c, &rs);
  if (ok) {
    g->kind = OMPLENS_FIX_INIT_ON_DEVICE;
    g->confidence = OMPLENS_FIXC_CHECKED;
    omplens_fix__buf_printf(&g->summary,
                            "`%s` at %s:%u resets %s after the device changed it, and `%s` at "
                            "line %u sends the reset: set it on the device instead (a "
                            "one-statement `target` region that maps it `alloc`); the copy "
                            "becomes a kernel launch, which the prediction leaves out",
                            rs.text, omplens_fix__short_name(c->file->path), rs.line, it,
                            s->dir->name, s->dir->pragma.line);
  }
  free(rs.text);
  return ok;
}
