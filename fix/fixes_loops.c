/* The rules that change code around loops (docs/fixes.md): keep data
 * resident across a loop (wrapping it, or the loop around the only call of
 * the directive's function, in `target data`), hoist an allocation out of a
 * loop, and the canonical-loop reading the guards of fixes_rules.c use.
 * Their checks read the flattened syntax tree: where a loop may take a
 * directive line, which identifiers an item needs before the loop, and how
 * the host and the kernels use the variables involved. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"

#define NONE OMPLENS_FIX__NONE


/* ---- loops ---- */

/* The statement holding node n: its ancestor whose parent is a block. */
uint32_t omplens_fix__statement_of(const omplens_fix__ast *a, uint32_t n) {
  while (n != NONE && a->nodes[n].parent != NONE &&
         a->nodes[a->nodes[n].parent].kind != OMPLENS_FIX__N_COMPOUND)
    n = a->nodes[n].parent;
  return n;
}

/* The first loop statement after the statement holding node n in its
 * block, or NONE: the loop that a call made just before it (a warm-up,
 * the first step) belongs with. */
static uint32_t loop_after(const omplens_fix__ast *a, uint32_t n) {
  uint32_t st = omplens_fix__statement_of(a, n);
  if (st == NONE || a->nodes[st].parent == NONE)
    return NONE;
  uint32_t block = a->nodes[st].parent;
  for (uint32_t i = omplens_fix__ast_end(a, st); i < omplens_fix__ast_end(a, block);
       i = omplens_fix__ast_end(a, i))
    if (a->nodes[i].parent == block && omplens_fix__ast_is_loop(a->nodes[i].kind))
      return i;
  return NONE;
}

/* Whether [p, end) is a `#pragma` line (which owns the statement after it;
 * #endif, #if and the like do not). */
static bool is_pragma_line(const char *p, const char *end) {
  if (p >= end || *p != '#')
    return false;
  p++;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return end - p >= 6 && !strncmp(p, "pragma", 6) && (end - p == 6 || !omplens_fix__ident_char(p[6]));
}

/* The first line of the logical line that ends on line k: the lines
 * above that end with a backslash continue into it. */
static unsigned logical_start(const omplens_fix__source *s, unsigned k) {
  while (k > 1) {
    size_t b = s->line_start[k - 2], e = omplens_fix__line_end(s, k - 1);
    if (e == b || s->text[e - 1] != '\\')
      break;
    k--;
  }
  return k;
}

/* Whether the OpenMP directive whose name starts at p (before e) stands
 * alone: it takes no statement after it (`target enter data`, `target
 * update`, `barrier`, ...), which is then a statement of its own. */
static bool standalone_directive(const char *p, const char *e) {
  static const char *const names[] = {"target enter data", "target exit data", "target update",
                                      "barrier", "taskwait", "taskyield", "flush", "cancel",
                                      "cancellation point", "depobj", "threadprivate",
                                      "requires", "declare", "error", NULL};
  char words[64];
  size_t n = 0;
  for (; p < e && n + 1 < sizeof words && *p != '(' && *p != '\\'; p++) /* spaces as one */
    if (!(*p == ' ' || *p == '\t') || (n && words[n - 1] != ' '))
      words[n++] = *p == '\t' ? ' ' : *p;
  words[n] = '\0';
  for (size_t i = 0; names[i]; i++) {
    size_t k = strlen(names[i]);
    if (!strncmp(words, names[i], k) && !omplens_fix__ident_char(words[k]))
      return true;
  }
  return false;
}

/* What precedes line first, read upwards over blank lines: the first line
 * of that logical line (0 at the file's start); *omp whether it is an
 * OpenMP pragma that owns what follows it (not a standalone one, which is
 * a statement of its own), *other whether it is another pragma or a macro
 * line. */
static unsigned line_above(const omplens_fix__source *s, unsigned first, bool *omp, bool *other) {
  *omp = *other = false;
  for (unsigned k = first - 1; k >= 1; k--) {
    if (omplens_fix__blank(s, s->line_start[k - 1], omplens_fix__line_end(s, k)))
      continue;
    unsigned top = logical_start(s, k);
    size_t ind;
    size_t n = omplens_fix__indent(s, top, &ind);
    const char *p = s->text + ind + n, *e = s->text + omplens_fix__line_end(s, top);
    if (is_pragma_line(p, e)) {
      p = strstr(p, "pragma") + 6;
      while (p < e && (*p == ' ' || *p == '\t'))
        p++;
      bool is_omp = e - p > 3 && !strncmp(p, "omp", 3) && !omplens_fix__ident_char(p[3]);
      const char *name = p + 3;
      while (is_omp && name < e && (*name == ' ' || *name == '\t'))
        name++;
      *omp = is_omp && !standalone_directive(name, e);
      *other = !is_omp;
    } else {
      *other = top != k; /* a macro's continued lines */
    }
    return top;
  }
  return 0;
}

/* The first line of the statement that starts with node: the OpenMP
 * directives right above it own it (`#pragma omp target data` over a
 * loop), and a line placed before the statement goes above them. */
static unsigned statement_line(omplens_fix__ctx *c, uint32_t node) {
  unsigned first = omplens_fix__ctx_line(c, c->ast->nodes[node].begin);
  for (;;) {
    bool omp, other;
    unsigned above = line_above(c->src, first, &omp, &other);
    if (!omp)
      return first;
    first = above;
  }
}

/* Whether a loop can get a directive line before its statement (and, with
 * after, after it): it starts its line, is a statement of a block, and is
 * no associated statement of a pragma other than OpenMP's nor of a macro. */
static bool placeable(omplens_fix__ctx *c, uint32_t loop, bool after) {
  const omplens_fix__node *l = &c->ast->nodes[loop];
  unsigned first = omplens_fix__ctx_line(c, l->begin),
           last = omplens_fix__ctx_line(c, l->end ? l->end - 1 : l->begin);
  size_t at;
  omplens_fix__indent(c->src, first, &at);
  if (!omplens_fix__blank(c->src, at, l->begin))
    return omplens_fix__fail(c, "the loop at line %u does not start its line", first);
  if (l->parent == NONE || c->ast->nodes[l->parent].kind != OMPLENS_FIX__N_COMPOUND)
    return omplens_fix__fail(c,
                             "the loop at line %u is not a statement of a block (it is the body of "
                             "another statement)",
                             first);
  bool omp, other;
  line_above(c->src, statement_line(c, loop), &omp, &other);
  if (other)
    return omplens_fix__fail(c, "the loop at line %u belongs to the pragma or macro above it",
                             first);
  size_t end = l->end; /* a body without braces ends before its ';' */
  while (end < c->src->size && c->src->text[end] == ';')
    end++;
  if (after && !omplens_fix__blank(c->src, end, omplens_fix__line_end(c->src, last)))
    return omplens_fix__fail(c, "code follows the end of the loop on line %u", last);
  return true;
}

/* Fails when the loop can be left by return or goto: a data region (or the
 * exit data after the loop) would be skipped. */
static bool no_jumps(omplens_fix__ctx *c, uint32_t loop) {
  for (size_t i = loop + 1;
       i < c->ast->num_nodes && omplens_fix__ast_within(c->ast, (uint32_t)i, loop); i++) {
    int k = c->ast->nodes[i].kind;
    if (k == OMPLENS_FIX__N_RETURN || k == OMPLENS_FIX__N_GOTO)
      return omplens_fix__fail(c, "the loop at line %u is left by %s at line %u",
                               omplens_fix__ctx_line(c, c->ast->nodes[loop].begin),
                               k == OMPLENS_FIX__N_RETURN ? "return" : "goto",
                               omplens_fix__ctx_line(c, c->ast->nodes[i].begin));
  }
  return true;
}

/* The returns that leave the loop (up to 16), of the loop's function (not
 * a lambda's); with placed, each must be able to get a line before it (a
 * statement of a block, on a line of its own). Fails on goto, and on a
 * return that does not fit. */
static bool loop_exits(omplens_fix__ctx *c, uint32_t first, uint32_t loop, uint32_t *returns,
                       size_t *n, bool placed) {
  const omplens_fix__ast *a = c->ast;
  uint32_t block = a->nodes[loop].parent; /* first, when not the loop, is a statement of it */
  *n = 0;
  for (uint32_t i = first == loop ? loop + 1 : first; i < omplens_fix__ast_end(a, loop); i++) {
    int k = a->nodes[i].kind;
    unsigned line = omplens_fix__ctx_line(c, a->nodes[i].begin);
    if (k == OMPLENS_FIX__N_GOTO)
      return omplens_fix__fail(c, "the loop at line %u is left by goto at line %u",
                               omplens_fix__ctx_line(c, a->nodes[loop].begin), line);
    if (k != OMPLENS_FIX__N_RETURN)
      continue;
    bool statements = true; /* only statements up to the loop: no lambda */
    for (uint32_t p = a->nodes[i].parent; p != loop && p != block && p != NONE && statements;
         p = a->nodes[p].parent) {
      int pk = a->nodes[p].kind;
      statements = pk == OMPLENS_FIX__N_COMPOUND || pk == OMPLENS_FIX__N_IF ||
                   pk == OMPLENS_FIX__N_FOR || pk == OMPLENS_FIX__N_WHILE ||
                   pk == OMPLENS_FIX__N_DO || pk == OMPLENS_FIX__N_SWITCH ||
                   pk == OMPLENS_FIX__N_OTHER_STMT;
    }
    if (!statements)
      continue; /* a lambda's return does not leave the loop */
    uint32_t parent = a->nodes[i].parent;
    size_t at;
    omplens_fix__indent(c->src, line, &at);
    if (*n == 16 || (placed && (parent == NONE || a->nodes[parent].kind != OMPLENS_FIX__N_COMPOUND ||
                                !omplens_fix__blank(c->src, at, a->nodes[i].begin)))) {
      unsigned loop_line = omplens_fix__ctx_line(c, a->nodes[loop].begin);
      if (!c->probe && !c->g->recipe.len) /* `target data` cannot be left by a return */
        omplens_fix__buf_printf(&c->g->recipe,
                                "a `target data` region cannot be left by a return, so map %s "
                                "with `#pragma omp target enter data` before the loop at line "
                                "%u and `#pragma omp target exit data` after it and before the "
                                "return at line %u (in braces with it, `{ #pragma ...; return "
                                "...; }`, where it is the body of an `if`).",
                                omplens_fix__item_text(&c->g->site), loop_line, line);
      return omplens_fix__fail(c,
                               "the loop at line %u is left by return at line %u, which is not "
                               "on a line of its own in a block, so the diff cannot put an exit "
                               "data before it",
                               loop_line, line);
    }
    returns[(*n)++] = i;
  }
  return true;
}

/* The only call of the function named name in its own file (*call), when
 * nothing else names it there; else a reason. */
static bool only_call_here(omplens_fixer *fx, const omplens_fix__file *f, const char *name,
                           uint32_t *call, const char **why) {
  const omplens_fix__ast *a = &f->ast;
  size_t calls = 0, other = 0, count;
  const uint32_t *named = omplens_fix__ast_named(a, name, &count);
  size_t total = named ? count : a->num_nodes;
  for (size_t k = 0; k < total; k++) {
    uint32_t i = named ? named[k] : (uint32_t)k;
    if (strcmp(omplens_fix__ast_name(a, i), name))
      continue;
    if (a->nodes[i].kind == OMPLENS_FIX__N_CALL) {
      calls++;
      *call = (uint32_t)i;
    } else if (a->nodes[i].kind == OMPLENS_FIX__N_DECLREF) {
      uint32_t ch, p = omplens_fix__ast_up(a, (uint32_t)i, &ch);
      other += !(p != NONE && a->nodes[p].kind == OMPLENS_FIX__N_CALL && a->nodes[ch].nth == 0);
    }
  }
  if (calls == 1 && !other)
    return true;
  *call = NONE;
  *why = omplens_fix__ownf(fx, "the directive is in no loop, and %s() is %s in %s", name,
                           other   ? "used as a function pointer"
                           : calls ? "called from several places"
                                   : "not called",
                           omplens_fix__short_name(f->path));
  return false;
}

/* Whether the text of call node i, up to its argument list, ends with a
 * member's name (`stream->dot`, `s.f<T>`, `Base::g`): the call a template
 * leaves unresolved, through a dependent object (BabelStream's virtual
 * `stream->dot()` in a function template). */
static bool member_call_named(const omplens_fix__file *f, uint32_t i, const char *name) {
  const char *b = f->src.text + f->ast.nodes[i].begin, *e = f->src.text + f->ast.nodes[i].end;
  const char *p = memchr(b, '(', (size_t)(e - b));
  if (!p)
    return false;
  while (p > b && (p[-1] == ' ' || p[-1] == '\t'))
    p--;
  for (int depth = 0; p > b && (p[-1] == '>' || depth);) { /* template arguments */
    depth += (p[-1] == '>') - (p[-1] == '<');
    p--;
  }
  const char *id = p;
  while (id > b && omplens_fix__ident_char(id[-1]))
    id--;
  size_t n = strlen(name);
  if ((size_t)(p - id) != n || strncmp(id, name, n))
    return false;
  while (id > b && (id[-1] == ' ' || id[-1] == '\t'))
    id--;
  size_t before = (size_t)(id - b);
  return (before >= 1 && id[-1] == '.') ||
         (before >= 2 && ((id[-1] == '>' && id[-2] == '-') || (id[-1] == ':' && id[-2] == ':')));
}

/* Whether call node i calls the function named name: by the name the parse
 * gives the call; in a template, where a dependent call has none, by its
 * text ("dot(Ap, p)", "stream->dot()"); for operator(), a call of an
 * object ("matvec(A, p, Ap)"). */
static bool calls_function(const omplens_fix__file *f, uint32_t i, const char *name) {
  const omplens_fix__ast *a = &f->ast;
  const char *called = omplens_fix__ast_name(a, i), *text = f->src.text + a->nodes[i].begin;
  size_t n = strlen(name);
  if (!strcmp(called, name))
    return true;
  if (!*called)
    return (!strncmp(text, name, n) && !omplens_fix__ident_char(text[n])) ||
           member_call_named(f, i, name);
  uint32_t callee = omplens_fix__ast_child(a, i, 0);
  return !strcmp(name, "operator()") && callee != NONE &&
         a->nodes[callee].kind == OMPLENS_FIX__N_DECLREF && !strcmp(omplens_fix__ast_name(a, callee), called);
}

struct omplens_fix__line_call {
  unsigned line;
  uint32_t node;
};

static int by_line(const void *a, const void *b) {
  const struct omplens_fix__line_call *x = a, *y = b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return (x->node > y->node) - (x->node < y->node);
}

/* The tree's call nodes by line, once per file: a scan of the whole tree
 * per finding made a report quadratic in directives. False without memory. */
static bool index_calls(omplens_fix__file *f) {
  const omplens_fix__ast *a = &f->ast;
  f->calls_done = true;
  size_t n = 0;
  for (size_t i = 0; i < a->num_nodes; i++)
    n += a->nodes[i].kind == OMPLENS_FIX__N_CALL;
  f->calls = malloc((n ? n : 1) * sizeof *f->calls);
  if (!f->calls)
    return false;
  for (size_t i = 0; i < a->num_nodes; i++)
    if (a->nodes[i].kind == OMPLENS_FIX__N_CALL)
      f->calls[f->num_calls++] =
          (struct omplens_fix__line_call){omplens_fix__line_of(&f->src, a->nodes[i].begin), (uint32_t)i};
  qsort(f->calls, f->num_calls, sizeof *f->calls, by_line);
  return true;
}

uint32_t omplens_fix__call_at_line(omplens_fix__file *f, const char *name, unsigned line,
                                   unsigned column) {
  if ((!f->calls_done && !index_calls(f)) || !f->calls)
    return NONE;
  /* Two calls of it on one line: the one whose text holds the column of
   * the call that ran. */
  size_t at = column ? omplens_fix__offset(&f->src, line, column) : SIZE_MAX;
  size_t lo = 0, hi = f->num_calls;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->calls[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint32_t found = NONE, holding = NONE;
  size_t holders = 0;
  for (; lo < f->num_calls && f->calls[lo].line == line; lo++)
    if (calls_function(f, f->calls[lo].node, name)) {
      const omplens_fix__node *n = &f->ast.nodes[f->calls[lo].node];
      if (at != SIZE_MAX && n->begin <= at && at < n->end) {
        holders++;
        holding = f->calls[lo].node;
      }
      found = found == NONE ? f->calls[lo].node : OMPLENS_FIX__MANY;
    }
  if (found == OMPLENS_FIX__MANY) /* which one ran: the column's, if one holds it */
    return holders == 1 ? holding : OMPLENS_FIX__MANY;
  return found;
}

/* Finding f's call path into sites[] (the one all its operations came by;
 * with several, *paths of them, the one most came by), and in *own the
 * frame of the call of the directive's function (past the task or
 * parallel constructs of that function that hold it); the frame count, 0
 * when none is recorded. */
static size_t finding_path(omplens_fixer *fx, const omplens_finding *f, omplens_call_site *sites,
                           size_t *paths, size_t *own) {
  size_t n = 0;
  *paths = 0;
  if (fx->annot && f->num_instances)
    n = omplens_annotate_common_call_path(fx->annot, f->codeptr, &f->instances[0].event,
                                          f->num_instances, sizeof *f->instances, sites,
                                          OMPLENS_MAX_CALL_SITES, paths, NULL);
  *own = n ? omplens_annotate_own_frames(fx->annot, f->codeptr, sites, n) : 0;
  return n;
}

bool omplens_fix__call_on_path(omplens_fixer *fx, const omplens_finding *f, const char *name,
                               bool most, omplens_fix__file **at, uint32_t *call,
                               const char **why) {
  omplens_call_site sites[OMPLENS_MAX_CALL_SITES];
  size_t paths, own, n = finding_path(fx, f, sites, &paths, &own);
  if (!n || (paths != 1 && !most)) {
    *why = omplens_fix__ownf(fx, "%s, and the run %s", *why,
                             n ? "called the directive's function from several places"
                               : "recorded no call path to the directive");
    return false;
  }
  const omplens_call_site *site = &sites[own];
  omplens_location loc;
  omplens_annotate_location(fx->annot, f->codeptr, &loc);
  *at = omplens_fix__file_get(fx, site->file, loc.module);
  if (*at && !(*at)->dwarf_unit)
    (*at)->dwarf_unit = loc.unit; /* the call was compiled with the directive's code */
  if (!*at || (*at)->src_rc) {
    *why = omplens_fix__ownf(fx, "the source of the call of %s(), %s, cannot be read", name,
                             site->file);
    return false;
  }
  const char *unsafe = omplens_fix__header_unsafe(fx, *at);
  if (!unsafe && (*at)->newer_than_binary)
    unsafe = "the caller's source is newer than the program that ran";
  if (unsafe || !omplens_fix__file_ast(fx, *at, why)) {
    if (unsafe)
      *why = omplens_fix__ownf(fx, "the call of %s() at %s:%u: %s", name,
                               omplens_fix__short_name(site->file), site->line, unsafe);
    return false;
  }
  *call = omplens_fix__call_at_line(*at, name, site->line, site->column);
  if (*call == OMPLENS_FIX__MANY)
    *why = omplens_fix__ownf(fx, "%s:%u calls %s() more than once, and the run's column does "
                             "not tell which call it came by", omplens_fix__short_name(site->file),
                             site->line, name);
  else if (*call == NONE)
    *why = omplens_fix__ownf(fx, "the parse shows no call of %s() at %s:%u, where the run "
                             "called it", name, omplens_fix__short_name(site->file), site->line);
  if (*call == OMPLENS_FIX__MANY)
    *call = NONE;
  return *call != NONE;
}

/* The calls of function name that the finding's operations came by, when
 * they are several, in one file and all in one loop: *call the first,
 * more[] the others. */
static bool calls_in_one_loop(omplens_fixer *fx, const omplens_finding *f, const char *name,
                              omplens_fix__file **at, uint32_t *loop, uint32_t *call,
                              uint32_t *more, size_t *num_more, const char **why) {
  omplens_call_site sites[1 + OMPLENS_FIX__MORE_CALLS];
  size_t n = fx->annot && f->num_instances
                 ? omplens_annotate_call_sites(fx->annot, f->codeptr, &f->instances[0].event,
                                               f->num_instances, sizeof *f->instances, sites,
                                               1 + OMPLENS_FIX__MORE_CALLS)
                 : 0;
  if (n < 2)
    return false; /* *why stays: several places, or more than this rule takes */
  omplens_location loc;
  omplens_annotate_location(fx->annot, f->codeptr, &loc);
  *at = omplens_fix__file_get(fx, sites[0].file, loc.module);
  if (*at && !(*at)->dwarf_unit)
    (*at)->dwarf_unit = loc.unit;
  const char *unsafe = *at && !(*at)->src_rc ? omplens_fix__header_unsafe(fx, *at) : "unreadable";
  if (unsafe || (*at)->newer_than_binary || !omplens_fix__file_ast(fx, *at, why))
    return false;
  const omplens_fix__ast *ca = &(*at)->ast;
  uint32_t calls[1 + OMPLENS_FIX__MORE_CALLS], loops[1 + OMPLENS_FIX__MORE_CALLS];
  *loop = NONE;
  for (size_t i = 0; i < n; i++) {
    calls[i] = strcmp(sites[i].file, sites[0].file)
                   ? NONE
                   : omplens_fix__call_at_line(*at, name, sites[i].line, sites[i].column);
    if (calls[i] == NONE || calls[i] == OMPLENS_FIX__MANY) {
      *why = omplens_fix__ownf(fx, "the run called %s() at %s:%u too, another call or another "
                                   "file", name, omplens_fix__short_name(sites[i].file), sites[i].line);
      return false;
    }
    loops[i] = omplens_fix__ast_loop_nest(
        ca, omplens_fix__ast_loop_at(ca, omplens_fix__ast_function_at(ca, ca->nodes[calls[i]].begin),
                                     ca->nodes[calls[i]].begin));
    if (loops[i] != NONE && *loop != NONE && loops[i] != *loop) {
      *why = omplens_fix__ownf(fx, "%s() is called at %s:%u and %s:%u, which are not in one loop",
                               name, omplens_fix__short_name(sites[0].file), sites[0].line,
                               omplens_fix__short_name(sites[i].file), sites[i].line);
      return false;
    }
    if (loops[i] != NONE)
      *loop = loops[i];
  }
  /* the calls outside it come before it, in statements of its own block */
  for (size_t i = 0; i < n; i++) {
    uint32_t st = loops[i] == NONE ? omplens_fix__statement_of(ca, calls[i]) : NONE;
    if (*loop == NONE ||
        (loops[i] == NONE && (st == NONE || ca->nodes[st].parent != ca->nodes[*loop].parent ||
                              ca->nodes[st].begin >= ca->nodes[*loop].begin))) {
      *why = omplens_fix__ownf(fx, "the run called %s() at %s:%u too, outside any loop and not "
                                   "before the loop in its block", name,
                               omplens_fix__short_name(sites[i].file), sites[i].line);
      return false;
    }
  }
  *call = calls[0];
  *num_more = n - 1;
  memcpy(more, calls + 1, (n - 1) * sizeof *calls);
  return true;
}

/* Whether region r ran outside the call of the directive's function that
 * ran the directive with call path `path` (n frames: the directive's own
 * site, then the function's callers): its own call path does not end with
 * those callers. Unknown or cut paths say no (an inlined function shares
 * its caller's frames: no more is known then either). */
static bool outside_call(const omplens_fixer *fx, const omplens_region *r, const uint64_t *path,
                         size_t n) {
  size_t m;
  const uint64_t *own = r->call_path ? omplens_trace_call_path(fx->trace, r->call_path, &m) : NULL;
  if (!own || !n || m >= OMPLENS_CALL_PATH_MAX || n >= OMPLENS_CALL_PATH_MAX)
    return false;
  const uint64_t *callers = path + 1;
  size_t k = n - 1;
  return m < k || memcmp(own + (m - k), callers, k * sizeof *callers) != 0;
}

/* Whether events e1 and e2 of the directive ran in one run of the loop
 * around it, as far as the trace tells: 1 yes (nothing between them ran
 * outside the call of the directive's function), 0 no (something did, or
 * two call paths: two calls), -1 not known (one execution, other
 * threads, unknown paths). */
static int one_run(const omplens_fixer *fx, uint32_t e1, uint32_t e2) {
  if (e1 >= fx->num_events || e2 >= fx->num_events)
    return -1;
  uint32_t r1 = fx->events[e1].region, r2 = fx->events[e2].region;
  if (r1 >= fx->num_regions || r2 >= fx->num_regions || r1 == r2)
    return -1;
  if (r1 > r2) {
    uint32_t t = r1;
    r1 = r2, r2 = t;
  }
  const omplens_region *a = &fx->regions[r1], *b = &fx->regions[r2];
  if (a->thread != b->thread || !a->call_path || !b->call_path)
    return -1;
  size_t n, m;
  const uint64_t *path = omplens_trace_call_path(fx->trace, a->call_path, &n);
  const uint64_t *other = omplens_trace_call_path(fx->trace, b->call_path, &m);
  if (!path || !other)
    return -1;
  /* Two directives of one function (a step's two kernels) differ in their
   * own sites only; other callers are two calls, from two places. */
  if (a->call_path != b->call_path &&
      (n != m || !n || n >= OMPLENS_CALL_PATH_MAX ||
       memcmp(path + 1, other + 1, (n - 1) * sizeof *path)))
    return 0;
  for (uint32_t r = r1 + 1; r < r2; r++)
    if (fx->regions[r].thread == a->thread && outside_call(fx, &fx->regions[r], path, n))
      return 0;
  return 1;
}

/* Whether, in the recorded run, a run of the loop around the directive ran
 * it twice: some two executions of it that finding f pairs (an instance
 * and the operation it repeats, or two instances in a row) ran in one run
 * of the loop (one_run). Where every pair known ran in two, each run of
 * the loop ran the directive once, and the repetitions came from the calls
 * of the function: a wrap of this loop keeps nothing. */
static bool loop_repeats(const omplens_fixer *fx, const omplens_finding *f) {
  bool known = false; /* a pair was told apart */
  for (size_t k = 0; k < f->num_instances; k++) {
    int pairs[2] = {k ? one_run(fx, f->instances[k - 1].event, f->instances[k].event) : -1,
                    one_run(fx, f->instances[k].related, f->instances[k].event)};
    for (int i = 0; i < 2; i++) {
      if (pairs[i] == 1)
        return true;
      known |= pairs[i] == 0;
    }
  }
  return !known;
}

/* The first loop around a call further up finding f's call path than
 * the call of the directive's function (up to OMPLENS_FIX__UP_FRAMES
 * frames): its line in *loop_line, the call's site in *at and *line;
 * false when none is found (or a source on the way cannot be read). */
#define OMPLENS_FIX__UP_FRAMES 6
static bool loop_further_up(omplens_fixer *fx, const omplens_finding *f, unsigned *loop_line,
                            omplens_fix__file **at, unsigned *line) {
  omplens_call_site sites[OMPLENS_MAX_CALL_SITES];
  size_t paths, first, n = finding_path(fx, f, sites, &paths, &first);
  omplens_location loc;
  omplens_annotate_location(fx->annot, f->codeptr, &loc);
  const char *why;
  for (size_t k = first + 1; k < n && k <= first + OMPLENS_FIX__UP_FRAMES; k++) {
    omplens_fix__file *file = sites[k].file ? omplens_fix__file_get(fx, sites[k].file, loc.module)
                                            : NULL;
    if (!file || file->src_rc || !omplens_fix__file_ast(fx, file, &why))
      return false;
    const omplens_fix__ast *a = &file->ast;
    size_t offset = omplens_fix__offset(&file->src, sites[k].line, sites[k].column);
    uint32_t fn = omplens_fix__ast_function_at(a, offset);
    uint32_t loop = fn == NONE ? NONE : omplens_fix__ast_loop_at(a, fn, offset);
    if (loop != NONE) {
      *loop_line = omplens_fix__line_of(&file->src, a->nodes[loop].begin);
      *at = file;
      *line = sites[k].line;
      return true;
    }
  }
  return false;
}

bool omplens_fix__resident_loop(omplens_fixer *fx, const omplens_fix__site *s,
                                const omplens_finding *f, uint32_t *loop, uint32_t *call,
                                uint32_t *more, size_t *num_more, omplens_fix__file **at,
                                const char **why) {
  *loop = *call = NONE;
  *num_more = 0;
  *at = s->file;
  if (!omplens_fix__file_ast(fx, s->file, why))
    return false;
  const omplens_fix__ast *a = &s->file->ast;
  size_t offset = omplens_fix__offset(&s->file->src, s->dir->pragma.line, s->dir->pragma.column);
  uint32_t fn = omplens_fix__ast_function_at(a, offset);
  if (fn == NONE) {
    *why = "the directive is in no function the parse shows";
    return false;
  }
  *loop = omplens_fix__ast_loop_nest(a, omplens_fix__ast_loop_at(a, fn, offset));
  if (*loop != NONE && loop_repeats(fx, f))
    return true;
  /* No loop around the directive, or one whose runs each ran it once:
   * the calls of its function repeat it. */
  unsigned once = *loop != NONE ? omplens_fix__line_of(&s->file->src, a->nodes[*loop].begin) : 0;
  *loop = NONE;
  const char *name = omplens_fix__ast_name(a, fn);
  if (!only_call_here(fx, s->file, name, call, why) &&
      !omplens_fix__call_on_path(fx, f, name, false, at, call, why)) {
    if (!once && calls_in_one_loop(fx, f, name, at, loop, call, more, num_more, why))
      return true;
    if (once)
      *why = omplens_fix__ownf(fx, "each run of the loop at line %u ran the directive once in "
                               "the recorded run: the repetitions come from the calls of %s(), "
                               "and a region around that loop would keep nothing",
                               once, name);
    *at = s->file;
    *call = NONE;
    *num_more = 0;
    return false;
  }
  const omplens_fix__ast *ca = &(*at)->ast;
  uint32_t caller = omplens_fix__ast_function_at(ca, ca->nodes[*call].begin);
  *loop = omplens_fix__ast_loop_nest(ca, omplens_fix__ast_loop_at(ca, caller, ca->nodes[*call].begin));
  /* a call just before a loop (miniFE's first waxpby() before its CG loop):
   * the loop's wrap may start before it and cover it (region_start) */
  if (*loop == NONE)
    *loop = loop_after(ca, *call);
  if (*loop == NONE) {
    unsigned loop_line, line;
    omplens_fix__file *up;
    *why = omplens_fix__ownf(fx, "neither the directive nor the call of %s() at %s:%u is inside "
                             "a loop", name, omplens_fix__short_name((*at)->path),
                             omplens_fix__line_of(&(*at)->src, ca->nodes[*call].begin));
    if (loop_further_up(fx, f, &loop_line, &up, &line))
      *why = omplens_fix__ownf(fx, "%s; the loop at %s:%u repeats them through the call at line "
                               "%u, further up the calls, where no region is derived (only in "
                               "the function that calls the directive's)",
                               *why, omplens_fix__short_name(up->path), loop_line, line);
    *call = NONE;
    *at = s->file;
    return false;
  }
  return true;
}

/* ---- items and their identifiers ---- */

uint32_t omplens_fix__call_arg(const omplens_fix__ast *a, uint32_t call, uint32_t k) {
  if (k == NONE)
    return NONE;
  /* A call names its callee first; a constructor's has only arguments. */
  uint32_t first = omplens_fix__ast_child(a, call, 0);
  while (first != NONE && a->nodes[first].kind == OMPLENS_FIX__N_IMPLICIT)
    first = omplens_fix__ast_child(a, first, 0);
  bool callee = first != NONE &&
                (a->nodes[first].kind == OMPLENS_FIX__N_DECLREF ||
                 a->nodes[first].kind == OMPLENS_FIX__N_MEMBER) &&
                !strcmp(omplens_fix__ast_name(a, first), omplens_fix__ast_name(a, call));
  return omplens_fix__ast_child(a, call, k + callee);
}

uint32_t omplens_fix__param_index(const omplens_fix__ast *a, uint32_t fn, uint32_t parm) {
  uint32_t k = 0;
  for (size_t i = fn + 1; i < a->num_nodes && omplens_fix__ast_within(a, (uint32_t)i, fn); i++)
    if (a->nodes[i].kind == OMPLENS_FIX__N_PARM && a->nodes[i].parent == fn) {
      if (i == parm)
        return k;
      k++;
    }
  return NONE;
}


typedef struct item_plan {
  char *text;    /* the item as the new directive writes it */
  uint32_t base; /* the declaration of its base variable (translated) */
  int type;      /* OMPLENS_MAP_TO / FROM / TOFROM / ALLOC */
} item_plan;

/* Whether expression node e names no variable: literals, enumerators of
 * the file, macros (a name the parse cannot resolve is taken as a
 * variable). */
static bool names_no_variable(const omplens_fix__ast *a, uint32_t e) {
  for (uint32_t i = e; i < a->num_nodes && omplens_fix__ast_within(a, i, e); i++)
    if (a->nodes[i].kind == OMPLENS_FIX__N_DECLREF &&
        (a->nodes[i].ref == NONE || a->nodes[a->nodes[i].ref].kind != OMPLENS_FIX__N_ENUM_CONST))
      return false;
  return true;
}

char *omplens_fix__argument_text(const omplens_fix__ctx *at, uint32_t arg) {
  char *t = omplens_fix__ast_text(at->ast, at->src, arg);
  if (!t || !t[strcspn(t, " +-*/%<>&|^?:!~()[]")])
    return t;
  char *p = malloc(strlen(t) + 3);
  if (p)
    sprintf(p, "(%s)", t);
  free(t);
  return p;
}

/* The offset of a base passed as `p + K`: K's text (first), and where
 * K names the counters of loops around the call, K at their last values
 * (last; NULL otherwise) and the variables the loops' bounds name, which
 * the region must leave alone (vars). Texts owned. */
typedef struct offset_shift {
  char *first, *last;
  uint32_t vars[8];
  size_t nvars;
} offset_shift;

static bool unchanged(omplens_fix__ctx *c, size_t begin, size_t end, const uint32_t *vars,
                      size_t n);
static char *additive_operand(const char *t, bool subtracted);

/* text with each identifier `var` in it replaced by value, parenthesized
 * where it is not a plain name or number (caller frees; NULL without
 * memory). */
static char *substituted(const char *text, const char *var, const char *value) {
  char *v = omplens_fix__paren(value);
  omplens_fix__buf out = {0};
  omplens_fix__buf_str(&out, "");
  for (const char *t = text; v && *t;) {
    size_t n = 1;
    if (omplens_fix__ident_char(*t)) {
      n = 0;
      while (omplens_fix__ident_char(t[n]))
        n++;
      bool is_var = !isdigit((unsigned char)*t) && strlen(var) == n && !strncmp(t, var, n);
      if (is_var) {
        omplens_fix__buf_str(&out, v);
        t += n;
        continue;
      }
    }
    omplens_fix__buf_add(&out, t, n);
    t += n;
  }
  free(v);
  return omplens_fix__buf_take(&out);
}

/* *first and *last with counted loop cn's counter at its first value and
 * at its last (`B - 1`, or `B` for `<=`); false without memory (both
 * freed and NULL then). */
static bool at_bounds(char **first, char **last, const omplens_fix__canon *cn) {
  char *end = NULL, *f = NULL, *l = NULL;
  if (cn->less_equal || asprintf(&end, "%s - 1", cn->bound) >= 0) {
    f = substituted(*first, cn->var, cn->init);
    l = substituted(*last, cn->var, end ? end : cn->bound);
  }
  free(end);
  free(*first);
  free(*last);
  if (!f || !l) {
    free(f);
    free(l);
    f = l = NULL;
  }
  *first = f, *last = l;
  return f != NULL;
}

/* Reads sums and products of numbers, names and parentheses, each name
 * standing for a value made from its letters and seed (the arithmetic
 * wraps); anything else is bad. */
typedef struct sum_reader {
  const char *p;
  uint64_t seed;
  bool bad;
  int depth; /* parentheses open: a source's text decides how many */
} sum_reader;

static uint64_t read_sum(sum_reader *r);

static uint64_t read_atom(sum_reader *r) {
  while (*r->p == ' ')
    r->p++;
  uint64_t v = 0;
  if (*r->p == '(' && r->depth < 64) {
    r->p++;
    r->depth++;
    v = read_sum(r);
    r->depth--;
    while (*r->p == ' ')
      r->p++;
    r->bad |= *r->p != ')';
    r->p += !r->bad;
  } else if (isdigit((unsigned char)*r->p)) {
    char *end;
    v = strtoull(r->p, &end, 0);
    for (r->p = end; *r->p && strchr("uUlL", *r->p);)
      r->p++;
  } else if (omplens_fix__ident_char(*r->p)) {
    v = r->seed; /* a value of its own for each name */
    while (omplens_fix__ident_char(*r->p))
      v = (v ^ (unsigned char)*r->p++) * 0x100000001b3ULL;
  } else {
    r->bad = true;
  }
  return v;
}

static uint64_t read_product(sum_reader *r) {
  uint64_t v = read_atom(r);
  for (;;) {
    while (*r->p == ' ')
      r->p++;
    if (r->bad || *r->p != '*')
      return v;
    r->p++;
    v *= read_atom(r);
  }
}

static uint64_t read_sum(sum_reader *r) {
  uint64_t v = read_product(r);
  for (;;) {
    while (*r->p == ' ')
      r->p++;
    if (r->bad || (*r->p != '+' && *r->p != '-'))
      return v;
    bool minus = *r->p++ == '-';
    uint64_t w = read_product(r);
    v = minus ? v - w : v + w;
  }
}

/* Whether an offset's text is zero whatever its names stand for (`0 *
 * LEN`, `(0 * 2 + 0) * len`): a sum of products that comes to 0 with its
 * names at two unrelated values. */
static bool zero_text(const char *t) {
  static const uint64_t seeds[] = {3, 1000003};
  for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
    sum_reader r = {t, seeds[i], false, 0};
    uint64_t v = read_sum(&r);
    if (r.bad || *r.p || v)
      return false;
  }
  return true;
}

/* The counted loop (`for (v = A; v < B; v++)`) around node `call` (or
 * it), starting at or after loop_at (inside the region), whose counter is
 * decl: the loop, its header read into *k (free it); NONE when none is.
 * The body leaves the counter alone; the header names no variable but the
 * counter and locals known where the region starts, noted in
 * shift->vars. */
static uint32_t counting_loop(omplens_fix__ctx *at, uint32_t call, size_t loop_at, uint32_t decl,
                              omplens_fix__canon *k, offset_shift *shift) {
  const omplens_fix__ast *a = at->ast;
  for (uint32_t up = call; up != NONE; up = a->nodes[up].parent) {
    const omplens_fix__node *l = &a->nodes[up];
    if (l->kind != OMPLENS_FIX__N_FOR || l->begin < loop_at)
      continue;
    const uint32_t *kids;
    bool disjoint;
    size_t nk = omplens_fix__ast_kids(a, up, &kids, &disjoint);
    if (!nk || !omplens_fix__read_canonical(at, up, k))
      continue;
    uint32_t body = kids[nk - 1];
    if (omplens_fix__ast_lookup(a, k->var, a->nodes[body].begin) != decl) {
      omplens_fix__canon_free(k);
      continue;
    }
    bool plain = true;
    for (uint32_t i = up; plain && i < a->num_nodes && a->nodes[i].begin < a->nodes[body].begin &&
                          omplens_fix__ast_within(a, i, up);
         i++) {
      uint32_t d = a->nodes[i].ref;
      if (a->nodes[i].kind != OMPLENS_FIX__N_DECLREF || d == decl ||
          (d != NONE && a->nodes[d].kind == OMPLENS_FIX__N_ENUM_CONST))
        continue;
      /* a bound's variable: the same where the region starts */
      plain = d != NONE && !a->nodes[d].global &&
              omplens_fix__ast_lookup(a, omplens_fix__ast_name(a, i), loop_at) == d &&
              shift->nvars < sizeof shift->vars / sizeof *shift->vars;
      if (plain)
        shift->vars[shift->nvars++] = d;
    }
    if (plain && unchanged(at, a->nodes[body].begin, l->end, &decl, 1))
      return up;
    omplens_fix__canon_free(k);
    return NONE;
  }
  return NONE;
}

/* K (node k) of an argument `p + K` whose variables are counters of
 * loops around the call inside the region or locals known where the
 * region starts (the wrap checks that it leaves them alone; in
 * shift->vars): K's text at the loops' first values, and at their last
 * ones when it names a counter, into *shift; false when K names another
 * variable. */
static bool counted_offset(omplens_fix__ctx *at, uint32_t k, uint32_t call, size_t loop_at,
                           offset_shift *shift) {
  const omplens_fix__ast *a = at->ast;
  char *first = omplens_fix__ast_text(a, at->src, k), *last = first ? strdup(first) : NULL;
  bool ok = last != NULL;
  size_t counters = 0;
  for (uint32_t i = k; ok && i < a->num_nodes && omplens_fix__ast_within(a, i, k); i++) {
    uint32_t d = a->nodes[i].ref;
    if (a->nodes[i].kind != OMPLENS_FIX__N_DECLREF ||
        (d != NONE && a->nodes[d].kind == OMPLENS_FIX__N_ENUM_CONST))
      continue;
    omplens_fix__canon cn;
    if (d == NONE || counting_loop(at, call, loop_at, d, &cn, shift) == NONE) {
      ok = d != NONE && !a->nodes[d].global &&
           omplens_fix__ast_lookup(a, omplens_fix__ast_name(a, i), loop_at) == d &&
           shift->nvars < sizeof shift->vars / sizeof *shift->vars;
      if (ok)
        shift->vars[shift->nvars++] = d;
      continue;
    }
    counters++;
    ok = at_bounds(&first, &last, &cn);
    omplens_fix__canon_free(&cn);
  }
  if (!ok) {
    free(first);
    free(last);
    return false;
  }
  if (!counters) {
    free(last);
    last = NULL;
  }
  if (zero_text(first)) {
    free(first);
    first = strdup("0");
  }
  shift->first = first;
  shift->last = last;
  return first != NULL;
}

/* A pointer into a variable's buffer at an offset, as an argument of call:
 * `p + K`, `K + p` or `&p[K]`, K naming no variable (literals,
 * enumerators, macros), or only counters of loops around the call inside
 * the region (from loop_at) and locals known there (counted_offset): p's
 * declaration, with K in *shift (caller frees); NONE otherwise. */
static uint32_t offset_base(omplens_fix__ctx *at, uint32_t arg, uint32_t call, size_t loop_at,
                            offset_shift *shift) {
  const omplens_fix__ast *a = at->ast;
  uint32_t e = omplens_fix__ast_operand(a, arg), p = NONE, k = NONE;
  *shift = (offset_shift){0};
  if (e == NONE)
    return NONE;
  const omplens_fix__node *n = &a->nodes[e];
  if (n->kind == OMPLENS_FIX__N_BINARY && n->op == OMPLENS_FIX__OP_ARITH) {
    uint32_t l = omplens_fix__ast_child(a, e, 0), r = omplens_fix__ast_child(a, e, 1);
    if (l == NONE || r == NONE ||
        memchr(at->src->text + a->nodes[l].end, '-', a->nodes[r].begin - a->nodes[l].end))
      return NONE; /* p - K: a section starts at no negative bound */
    if ((p = omplens_fix__ast_plain_var(a, l)) != NONE)
      k = r;
    else if ((p = omplens_fix__ast_plain_var(a, r)) != NONE)
      k = l;
  } else if (n->kind == OMPLENS_FIX__N_UNARY && n->op == OMPLENS_FIX__OP_ADDROF) {
    uint32_t sub = omplens_fix__ast_operand(a, omplens_fix__ast_child(a, e, 0));
    if (sub != NONE && a->nodes[sub].kind == OMPLENS_FIX__N_SUBSCRIPT) {
      p = omplens_fix__ast_plain_var(a, omplens_fix__ast_child(a, sub, 0));
      k = omplens_fix__ast_child(a, sub, 1);
    }
  }
  if (p == NONE || k == NONE)
    return NONE;
  if (!names_no_variable(a, k))
    return counted_offset(at, k, call, loop_at, shift) ? p : NONE;
  shift->first = omplens_fix__ast_text(a, at->src, k);
  return shift->first ? p : NONE;
}

/* The end of the first bound of a subscript whose text starts at lo (after
 * its '['): the ':' or ']' at its own depth, or the string's end. */
static const char *bound_end(const char *lo) {
  const char *end = lo;
  for (int depth = 0; *end && !(depth == 0 && (*end == ':' || *end == ']')); end++)
    depth += (*end == '[' || *end == '(') - (*end == ']' || *end == ')');
  return end;
}

/* The first subscript of an item, `base[lo:len]...` with its base
 * base_len long: lo without blanks around it, [lo, lo_end); the ':' or
 * ']' that ends it, at; after a ':', the length up to its ']', [at + 1,
 * close) (else close is at). */
typedef struct subscript {
  const char *lo, *lo_end, *at, *close;
} subscript;

/* False when the item has no subscript right after its base, or one with
 * no end. */
static bool first_subscript(const char *item, size_t base_len, subscript *s) {
  if (item[base_len] != '[')
    return false;
  s->lo = item + base_len + 1;
  s->at = s->lo_end = bound_end(s->lo);
  if (!*s->at)
    return false;
  while (s->lo < s->lo_end && *s->lo == ' ')
    s->lo++;
  while (s->lo_end > s->lo && s->lo_end[-1] == ' ')
    s->lo_end--;
  s->close = *s->at == ':' ? bound_end(s->at + 1) : s->at;
  return true;
}

/* The item placed (its base's name first) with its first subscript moved
 * by shift elements: `p[lo:len]` -> `p[K + lo:len]` (`p[K:len]` from 0);
 * NULL when the item has no subscript after its base (caller frees). */
static char *shifted_item(const char *item, size_t base_len, const char *shift) {
  subscript sub;
  if (!first_subscript(item, base_len, &sub))
    return NULL;
  const char *lo = sub.lo, *hi = sub.lo_end, *end = sub.at;
  bool from_zero = hi == lo || (hi - lo == 1 && *lo == '0');
  /* alone, K needs parentheses only where `?:` or a comma would split
   * the section; added to a bound, wherever it has an operator */
  bool paren = from_zero ? shift[strcspn(shift, "?:,")] != '\0'
                         : shift[strcspn(shift, " +-*/%<>&|^?:!~()[],")] != '\0';
  omplens_fix__buf out = {0};
  omplens_fix__buf_add(&out, item, base_len + 1);
  if (!from_zero) {
    omplens_fix__buf_add(&out, lo, (size_t)(hi - lo));
    omplens_fix__buf_str(&out, " + ");
  }
  omplens_fix__buf_printf(&out, paren ? "(%s)%s" : "%s%s", shift, end);
  return omplens_fix__buf_take(&out);
}

/* The item placed with its first subscript spanning every section the
 * calls of a counted loop give (offset_shift): `p[lo:len]` -> `p[F +
 * lo:L + len - F]`, `p[lo:L + len]` when F is 0; NULL when the item has
 * no such subscript (caller frees). */
static char *spanned_item(const char *item, size_t base_len, const offset_shift *shift) {
  subscript sub;
  if (!first_subscript(item, base_len, &sub) || *sub.at != ':' || *sub.close != ']')
    return NULL;
  const char *len = sub.at + 1, *close = sub.close;
  char *lo_text = strndup(sub.lo, (size_t)(sub.lo_end - sub.lo));
  char *len_text = strndup(len, (size_t)(close - len));
  bool from_zero = lo_text && (!*lo_text || !strcmp(lo_text, "0"));
  bool zero = !strcmp(shift->first, "0");
  char *f = additive_operand(shift->first, true), *l = additive_operand(shift->last, false);
  char *lo_op = lo_text ? additive_operand(lo_text, false) : NULL;
  char *len_op = len_text ? additive_operand(len_text, false) : NULL;
  char *out = NULL;
  if (f && l && lo_op && len_op && *len_text) {
    omplens_fix__buf b = {0};
    omplens_fix__buf_add(&b, item, base_len + 1);
    if (zero)
      omplens_fix__buf_str(&b, from_zero ? "0" : lo_text);
    else if (from_zero)
      omplens_fix__buf_printf(&b, shift->first[strcspn(shift->first, "?:,")] ? "(%s)" : "%s",
                              shift->first);
    else
      omplens_fix__buf_printf(&b, "%s + %s", f, lo_op);
    omplens_fix__buf_printf(&b, ":%s + %s", l, len_op);
    if (!zero)
      omplens_fix__buf_printf(&b, " - %s", f);
    omplens_fix__buf_printf(&b, "]%s", close + 1);
    out = omplens_fix__buf_take(&b);
  }
  free(lo_text);
  free(len_text);
  free(f);
  free(l);
  free(lo_op);
  free(len_op);
  return out;
}

/* A directive's item `base[lo:len]` whose lo names counters of counted
 * loops around the directive inside the region (from the loop's start):
 * the item spanning every section the counters reach, `base[F:L + len -
 * F]` (offset_shift, spanned_item), with lo at the counters' first values
 * F and last ones L; its other names are placed as any item's. NULL when
 * lo names no counter (caller frees). */
static char *counted_item(omplens_fix__ctx *c, const omplens_fix__site *s, uint32_t loop) {
  const omplens_fix__ast *a = c->ast;
  const char *t = s->dir->items[s->item].text;
  size_t offset = omplens_fix__pragma_at(c, s->dir), base_len = 0;
  uint32_t fn = omplens_fix__ast_function_at(a, offset);
  uint32_t block = fn == NONE ? NONE : omplens_fix__ast_block_at(a, fn, offset);
  while (omplens_fix__ident_char(t[base_len]))
    base_len++;
  subscript sub;
  if (block == NONE || !base_len || !first_subscript(t, base_len, &sub) || *sub.at != ':')
    return NULL;
  const char *lo = sub.lo, *colon = sub.at;
  char *first = strndup(lo, (size_t)(sub.lo_end - lo)), *last = first ? strdup(first) : NULL;
  offset_shift shift = {0};
  size_t counters = 0;
  char name[128];
  for (const char *p = lo; first && last && p < colon &&
                           omplens_fix__next_identifier(&p, name, sizeof name) && p <= colon;) {
    uint32_t d = omplens_fix__ast_lookup(a, name, offset);
    omplens_fix__canon cn;
    if (d == NONE || a->nodes[d].kind != OMPLENS_FIX__N_VAR ||
        counting_loop(c, block, a->nodes[loop].begin, d, &cn, &shift) == NONE)
      continue; /* placed with the item's other names */
    counters += at_bounds(&first, &last, &cn);
    omplens_fix__canon_free(&cn);
  }
  char *out = NULL;
  if (counters && first && last) {
    char *item = NULL;
    if (asprintf(&item, "%.*s[0%s", (int)base_len, t, colon) >= 0) {
      shift.first = zero_text(first) ? strdup("0") : first;
      shift.last = last;
      if (shift.first)
        out = spanned_item(item, base_len, &shift);
      if (shift.first != first)
        free(shift.first);
    }
    free(item);
  }
  free(first);
  free(last);
  return out;
}

/* The line of the first call named one of names[] in fn whose argument
 * argi plainly names variable d (argi 0: one inside d's declaration, its
 * initializer); 0 when there is none. */
static unsigned call_on_var(const omplens_fix__ctx *c, uint32_t fn, uint32_t d,
                            const char *const *names, uint32_t argi) {
  const omplens_fix__ast *a = c->ast;
  for (uint32_t i = fn; i < a->num_nodes && omplens_fix__ast_within(a, i, fn); i++) {
    if (a->nodes[i].kind != OMPLENS_FIX__N_CALL)
      continue;
    bool named = false;
    for (size_t k = 0; names[k]; k++)
      named |= !strcmp(omplens_fix__ast_name(a, i), names[k]);
    uint32_t arg = argi ? omplens_fix__ast_child(a, i, argi) : NONE;
    if (named && (argi ? arg != NONE && omplens_fix__ast_plain_var(a, arg) == d
                       : omplens_fix__ast_within(a, i, d)))
      return omplens_fix__ctx_line(c, a->nodes[i].begin);
  }
  return 0;
}

/* A local buffer of the directive's function that each call allocates and
 * frees: the device allocation follows the host's, so the change is where
 * the buffer is made. Writes that recipe, naming the caller's loop, and
 * gives up on the diff. */
static bool local_buffer(omplens_fix__ctx *c, omplens_fix__ctx *at, const char *name,
                         uint32_t fn, uint32_t d, uint32_t call, size_t loop_at) {
  static const char *const allocs[] = {"malloc", "calloc", "aligned_alloc", NULL};
  static const char *const frees[] = {"free", NULL};
  unsigned made = call_on_var(c, fn, d, allocs, 0), freed = call_on_var(c, fn, d, frees, 1);
  const char *f = omplens_fix__ast_name(c->ast, fn);
  if (!made || !freed)
    return omplens_fix__fail(c, "%s is a local of %s(), unknown at the call", name, f);
  omplens_fix__buf_printf(
      &c->g->recipe,
      "%s() allocates %s (line %u) and frees it (line %u) in each call, so the device allocates "
      "it again each time: allocate it once before the loop at %s:%u, which calls %s() at line "
      "%u, pass it in, and keep it allocated on the device across that loop (`#pragma omp "
      "target data map(alloc: ...)`), with `#pragma omp target update from(...)` where the host "
      "reads what a kernel wrote.",
      f, name, made, freed, omplens_fix__short_name(at->file->path),
      omplens_fix__ctx_line(at, loop_at), f, omplens_fix__ctx_line(at, at->ast->nodes[call].begin));
  return omplens_fix__fail(c, "%s is a buffer that %s() allocates and frees in each call", name, f);
}

/* A name the directive's file knows as a macro or an enumerator, as the
 * loop's file (another file, through a call) knows it there. */
static bool same_constant(omplens_fix__ctx *c, omplens_fix__ctx *at, const char *name,
                          const char *item, size_t loop_at) {
  if (at == c || omplens_fix__ast_is_macro(at->ast, name) ||
      omplens_fix__ast_lookup(at->ast, name, loop_at) != NONE)
    return true;
  return omplens_fix__fail(at, "%s in %s is unknown in %s", name, item,
                           omplens_fix__short_name(at->file->path));
}

/* A name for a pointer the fix declares before the loop, from the
 * expression it holds: "velocity_data" for "velocity.data()", "r_coefs"
 * for "&r.coefs[0]". Caller frees. */
static char *pointer_name(const char *expr) {
  char *out = malloc(strlen(expr) + 1);
  size_t n = 0;
  for (const char *p = expr; out && *p; p++) {
    if (!strncmp(p, "[0]", 3) || !strncmp(p, "()", 2)) {
      p += p[1] == '0' ? 2 : 1;
      continue;
    }
    if (omplens_fix__ident_char(*p))
      out[n++] = *p;
    else if (n && out[n - 1] != '_')
      out[n++] = '_';
  }
  while (out && n && out[n - 1] == '_')
    n--;
  if (out)
    out[n] = 0;
  return out;
}

/* Declares a variable holding expr before the loop at loop_at (its line
 * appended to declaration: `auto N = E;`, or `__typeof__(E) N = E;` in a C
 * unit), named after expr (pointer_name), with a digit added while the
 * name is taken there. Returns the name (caller frees), or NULL. */
static char *declare(omplens_fix__ctx *at, const char *expr, size_t loop_at,
                     omplens_fix__buf *declaration) {
  char *base = pointer_name(expr), *name = base ? strdup(base) : NULL;
  for (int k = 2; name && *name && k < 10 &&
                  (omplens_fix__ast_lookup(at->ast, name, loop_at) != NONE ||
                   omplens_fix__ast_is_macro(at->ast, name));
       k++) {
    free(name);
    if (asprintf(&name, "%s_%d", base, k) < 0)
      name = NULL;
  }
  bool taken = !name || !*name || omplens_fix__ast_lookup(at->ast, name, loop_at) != NONE ||
               omplens_fix__ast_is_macro(at->ast, name);
  free(base);
  if (taken) {
    free(name);
    return NULL;
  }
  if (omplens_fix__c_source(at->file->num_units ? at->file->units[0].path : at->file->path))
    omplens_fix__buf_printf(declaration, "__typeof__(%s) %s = %s;\n", expr, name, expr);
  else
    omplens_fix__buf_printf(declaration, "auto %s = %s;\n", name, expr);
  return name;
}

/* The first identifier of expr that names a variable visible at loop_at
 * in at's file, or NONE. */
static uint32_t first_variable(const omplens_fix__ctx *at, const char *expr, size_t loop_at) {
  char word[256];
  for (const char *p = expr; omplens_fix__next_identifier(&p, word, sizeof word);) {
    uint32_t d = omplens_fix__ast_lookup(at->ast, word, loop_at);
    if (d != NONE && at->ast->nodes[d].kind != OMPLENS_FIX__N_ENUM_CONST)
      return d;
  }
  return NONE;
}

/* Whether expr is made of constants the loop's file knows there: macros
 * and enumerators, numbers and operators, no call. */
static bool constant_expr(const omplens_fix__ctx *at, const char *expr, size_t loop_at) {
  char word[256];
  if (strpbrk(expr, "(\"'{="))
    return false;
  for (const char *p = expr; omplens_fix__next_identifier(&p, word, sizeof word);) {
    uint32_t d = omplens_fix__ast_lookup(at->ast, word, loop_at);
    if (d != NONE ? at->ast->nodes[d].kind != OMPLENS_FIX__N_ENUM_CONST
                  : !omplens_fix__ast_is_macro(at->ast, word))
      return false;
  }
  return true;
}

/* A callee local written in the caller's terms (expr) as an item's
 * identifier: a variable the caller has, or inside the item an expression
 * without calls; else a variable the fix declares before the loop (its
 * line appended to declaration; *text its name). *decl: the caller's
 * variable the expression starts from, whose host uses the wrap checks. */
static bool caller_expr(omplens_fix__ctx *at, const char *expr, bool first, size_t loop_at,
                        uint32_t *decl, char **text, omplens_fix__buf *declaration) {
  uint32_t d = first_variable(at, expr, loop_at);
  if (d == NONE && !first && constant_expr(at, expr, loop_at)) { /* `int cols = COLS;` */
    *text = expr[strcspn(expr, " +-*/%<>&|^?:!~()[].")] ? omplens_fix__paren(expr) : strdup(expr);
    return *text != NULL;
  }
  if (d == NONE)
    return omplens_fix__fail(at, "%s names no variable known before the loop at line %u", expr,
                             omplens_fix__ctx_line(at, loop_at));
  bool plain = !strcmp(expr, omplens_fix__ast_name(at->ast, d));
  /* A call in a map clause can break clang-19's code generation (an
   * exception edge out of the map's size): calls are evaluated once, in a
   * declaration before the loop. */
  if ((!first && !strchr(expr, '(')) || plain) {
    *decl = d;
    *text = plain || !expr[strcspn(expr, " +-*/%<>&|^?:!~()[].")] ? strdup(expr)
                                                                  : omplens_fix__paren(expr);
    return *text != NULL;
  }
  if (!declaration)
    return omplens_fix__fail(at, "%s is not a variable", expr);
  char *name = declare(at, expr, loop_at, declaration);
  if (!name)
    return omplens_fix__fail(at, "no name is free for the variable the fix would declare for %s",
                             expr);
  *decl = d;
  *text = name;
  return true;
}

/* Whether a bound calls something: a parenthesis after a name or a
 * closing bracket (a cast's or a grouping's follows an operator). */
static bool bound_calls(const char *bound) {
  for (const char *p = strchr(bound, '('); p; p = strchr(p + 1, '(')) {
    const char *q = p;
    while (q > bound && q[-1] == ' ')
      q--;
    if (q > bound && (omplens_fix__ident_char(q[-1]) || q[-1] == ')' || q[-1] == ']'))
      return true;
  }
  return false;
}

/* The item with every section bound that holds a call replaced by a
 * variable the fix declares before the loop (`A.packed_coefs.size()`:
 * `A_packed_coefs_size`; see caller_expr). Frees item; caller frees the
 * result (NULL when out of memory). */
static char *bounds_without_calls(omplens_fix__ctx *at, char *item, size_t loop_at,
                                  omplens_fix__buf *declaration) {
  omplens_fix__buf out = {0};
  omplens_fix__buf_str(&out, "");
  int sq = 0, par = 0;      /* brackets and parentheses open */
  bool in_bound = false;
  size_t start = 0;         /* of the bound being read */
  for (size_t i = 0; item[i]; i++) {
    char ch = item[i];
    if (in_bound && sq == 1 && !par && (ch == ':' || ch == ']')) {
      char *bound = strndup(item + start, i - start);
      char *name = bound && bound_calls(bound) ? declare(at, bound, loop_at, declaration) : NULL;
      omplens_fix__buf_str(&out, name ? name : bound ? bound : "");
      free(bound);
      free(name);
      in_bound = false;
    }
    sq += (ch == '[') - (ch == ']');
    par += (ch == '(') - (ch == ')');
    if (!in_bound)
      omplens_fix__buf_add(&out, &ch, 1);
    if (sq == 1 && !par && (ch == '[' || ch == ':')) {
      in_bound = true;
      start = i + 1;
    }
  }
  free(item);
  return omplens_fix__buf_take(&out);
}

/* One identifier of an item, as the text before the loop must write it:
 * *decl is its variable there (NONE for a macro or an enumerator), *text a
 * translation (malloc'd) or NULL to keep the name. c views the directive's
 * file, at the loop's (c itself, or the caller's file of a lifted wrap). */
/* How many subscripts and dereferences lie between reference r and the
 * assignment it is written by (1 for `q[i] = v`, 2 for `q[i][j] = v`), or
 * 0 when r is not on an assignment's left. */
static int write_depth(const omplens_fix__ast *a, uint32_t r) {
  int depth = 0;
  uint32_t child, p;
  for (uint32_t n = r; (p = omplens_fix__ast_up(a, n, &child)) != NONE; n = p) {
    int k = a->nodes[p].kind;
    if (k == OMPLENS_FIX__N_SUBSCRIPT)
      depth += a->nodes[child].nth == 0; /* the base, not the index */
    else if (k == OMPLENS_FIX__N_UNARY)
      depth++;
    else if (k == OMPLENS_FIX__N_BINARY)
      return a->nodes[child].nth == 0 ? depth : 0;
    else if (k != OMPLENS_FIX__N_IMPLICIT && k != OMPLENS_FIX__N_PAREN && k != OMPLENS_FIX__N_CAST)
      return 0;
  }
  return 0;
}

/* A local d of the loop's own body (`float *cluster = clusters[0];` in
 * it): the same value each iteration, written before the loop as its
 * initializer, when d is never assigned, the initializer holds no call and
 * names only variables visible before the loop that the loop leaves as
 * they are down to what the initializer takes (`clusters[k][j] = v` keeps
 * `clusters[0]`, `clusters[k] = p` does not). */
static bool loop_local(omplens_fix__ctx *c, uint32_t d, uint32_t loop, size_t loop_at, bool first,
                       uint32_t *decl, char **text, omplens_fix__buf *declaration) {
  const omplens_fix__ast *a = c->ast;
  const omplens_fix__node *l = &a->nodes[loop];
  if (a->nodes[d].kind != OMPLENS_FIX__N_VAR || a->nodes[d].global || a->nodes[d].begin < l->begin ||
      a->nodes[d].begin >= l->end)
    return false;
  char *init = omplens_fix__initializer(c->file, d);
  if (!init || strpbrk(init, "(\"'{=")) {
    free(init);
    return false;
  }
  int takes = 0; /* the subscripts and dereferences the initializer takes */
  for (const char *p = init; *p; p++)
    takes += *p == '[' || *p == '*' || (*p == '-' && p[1] == '>');
  bool ok = true;
  for (uint32_t i = 0; ok && i < a->num_nodes; i++) {
    const omplens_fix__node *n = &a->nodes[i];
    if (n->kind != OMPLENS_FIX__N_DECLREF || n->begin < l->begin || n->begin >= l->end)
      continue;
    uint32_t other;
    int use = omplens_fix__ast_use(a, i, &other);
    if (n->ref == d)
      ok = use != OMPLENS_FIX__USE_ASSIGNED;
    else if (n->ref != NONE && n->begin > a->nodes[d].begin && n->begin < a->nodes[d].end)
      /* a name of the initializer: visible before the loop */
      ok = omplens_fix__ast_lookup(a, omplens_fix__ast_name(a, i), loop_at) == n->ref;
  }
  /* the initializer's variables keep their value, down to what it takes,
   * from where the region starts (loop_at) to the loop's end */
  for (uint32_t i = 0; ok && i < a->num_nodes; i++) {
    const omplens_fix__node *n = &a->nodes[i];
    if (n->kind != OMPLENS_FIX__N_DECLREF || n->ref == NONE || n->begin < loop_at ||
        n->begin >= l->end)
      continue;
    bool named = false;
    for (uint32_t j = d; j < omplens_fix__ast_end(a, d) && !named; j++)
      named = a->nodes[j].kind == OMPLENS_FIX__N_DECLREF && a->nodes[j].ref == n->ref;
    uint32_t other;
    if (named && (omplens_fix__ast_use(a, i, &other) == OMPLENS_FIX__USE_ASSIGNED ||
                  (write_depth(a, i) && write_depth(a, i) <= takes)))
      ok = false;
  }
  if (!ok) {
    free(init);
    return false;
  }
  bool placed = caller_expr(c, init, first, loop_at, decl, text, declaration);
  free(init);
  return placed;
}

/* Names name of item as the loop's function at sees it before the loop:
 * *text the expression in its place, *decl the variable (NONE for a
 * constant); *shift, for the item's base passed as `p + K` (offset_base),
 * the offset its first subscript takes. */
static bool place_name(omplens_fix__ctx *c, omplens_fix__ctx *at, const char *name,
                       const char *item, bool first, size_t offset, uint32_t call,
                       size_t loop_at, uint32_t *decl, char **text, offset_shift *shift,
                       omplens_fix__buf *declaration) {
  const omplens_fix__ast *a = c->ast, *ca = at->ast;
  uint32_t fn = omplens_fix__ast_function_at(a, offset);
  uint32_t d = omplens_fix__ast_lookup(a, name, offset);
  *decl = NONE;
  *text = NULL;
  if (d == NONE)
    return omplens_fix__ast_is_macro(a, name)
               ? same_constant(c, at, name, item, loop_at)
               : omplens_fix__fail(c, "%s in %s is neither a variable nor a macro the parse knows",
                                   name, item);
  if (a->nodes[d].kind == OMPLENS_FIX__N_ENUM_CONST)
    return same_constant(c, at, name, item, loop_at);
  if (call != NONE && a->nodes[d].kind == OMPLENS_FIX__N_PARM && a->nodes[d].parent == fn) {
    /* a parameter passed by value, mapped whole (not a section through a
     * pointer member of it): the kernel maps the callee's copy, wherever
     * the caller's variable is */
    size_t len;
    const char *type = omplens_fix__declared_type(c->src, &a->nodes[d], &len);
    bool reference = type && memchr(type, '&', len);
    if (first && a->nodes[d].elem == OMPLENS_FIX__ELEM_UNKNOWN && !reference &&
        !strcmp(item, name))
      return omplens_fix__fail(c, "%s is a parameter of %s(), a copy of each call's argument: "
                                  "no region in a caller can hold it",
                               name, omplens_fix__ast_name(a, fn));
    /* a parameter: the argument of the call, if it is a plain variable, or
     * a constant (a size: not the item's buffer) */
    uint32_t arg = omplens_fix__call_arg(ca, call, omplens_fix__param_index(a, fn, d));
    d = arg == NONE ? NONE : omplens_fix__ast_plain_var(ca, arg);
    if (d == NONE && arg != NONE && !first && names_no_variable(ca, arg)) {
      *text = omplens_fix__argument_text(at, arg);
      return *text != NULL;
    }
    if (d == NONE && arg != NONE && first)
      d = offset_base(at, arg, call, loop_at, shift);
    uint32_t op = d == NONE && arg != NONE ? omplens_fix__ast_operand(ca, arg) : NONE;
    uint32_t of = op != NONE && ca->nodes[op].kind == OMPLENS_FIX__N_UNARY &&
                          ca->nodes[op].op == OMPLENS_FIX__OP_ADDROF
                      ? omplens_fix__ast_plain_var(ca, omplens_fix__ast_child(ca, op, 0))
                      : NONE;
    if (of != NONE) /* `&r`: the caller's variable itself */
      return omplens_fix__fail(at,
                               "the argument for %s at the call on line %u is the address of "
                               "%s: a region in the caller would map %s itself, which the fix "
                               "does not write from %s",
                               name, omplens_fix__ctx_line(at, ca->nodes[call].begin),
                               omplens_fix__ast_name(ca, of), omplens_fix__ast_name(ca, of), item);
    if (d == NONE)
      return omplens_fix__fail(at,
                               "the argument for %s at the call on line %u is neither a plain "
                               "variable nor a pointer into one at an offset a region can "
                               "span (naming constants, locals set before the loop, and "
                               "counters of `for (c = A; c < B; c++)` loops inside it)",
                               name, omplens_fix__ctx_line(at, ca->nodes[call].begin));
    *text = shift && shift->first ? strdup(omplens_fix__ast_name(ca, d))
                   : omplens_fix__ast_text(at->ast, at->src, arg);
  } else if (call != NONE && !a->nodes[d].global) {
    static const char *const allocs[] = {"malloc", "calloc", "aligned_alloc", NULL};
    if (call_on_var(c, fn, d, allocs, 0))
      return local_buffer(c, at, name, fn, d, call, loop_at);
    if (first && a->nodes[d].elem == OMPLENS_FIX__ELEM_UNKNOWN) /* no pointer: its own storage */
      return omplens_fix__fail(c, "%s is a local of %s(), made anew by each call: no region in a "
                                  "caller can hold it",
                               name, omplens_fix__ast_name(a, fn));
    char *expr = omplens_fix__local_in_caller(c, at, fn, d, call, loop_at);
    bool ok = expr && caller_expr(at, expr, first, loop_at, decl, text, declaration);
    free(expr);
    return ok;
  } else if (at != c) { /* a global: its declaration where the loop is */
    d = omplens_fix__ast_lookup(ca, name, loop_at);
    if (d == NONE || !ca->nodes[d].global)
      return omplens_fix__fail(at, "%s in %s is not a global known in %s", name, item,
                               omplens_fix__short_name(at->file->path));
  }
  if (omplens_fix__ast_lookup(ca, omplens_fix__ast_name(ca, d), loop_at) != d) {
    free(*text);
    *text = NULL;
    uint32_t loop = at == c && call == NONE ? omplens_fix__ast_loop_at(ca, fn, offset) : NONE;
    if (loop != NONE && loop_local(c, d, loop, loop_at, first, decl, text, declaration))
      return true;
    return omplens_fix__fail(at, "%s is not visible before the loop at line %u",
                             omplens_fix__ast_name(ca, d), omplens_fix__ctx_line(at, loop_at));
  }
  *decl = d;
  return true;
}

/* Makes an item usable before the loop: its identifiers must be visible
 * there, and through a call, parameters become the call's arguments. *base
 * gets the base variable (the first identifier) as seen there; vars[] the
 * other variables it names (for "not changed in the loop"). *spans (when
 * given) tells whether the item spans the sections of a loop's calls
 * (the base passed as `p + K`, K naming the loop's counter). */
static char *place_item(omplens_fix__ctx *c, omplens_fix__ctx *at, const omplens_fix__site *s,
                        uint32_t loop, uint32_t call, uint32_t *base, uint32_t *vars,
                        size_t *nvars, size_t max_vars, omplens_fix__buf *declaration,
                        bool *spans) {
  char *counted = call == NONE ? counted_item(c, s, loop) : NULL;
  const char *t = counted ? counted : s->dir->items[s->item].text;
  size_t offset = omplens_fix__pragma_at(c, s->dir);
  omplens_fix__buf out = {0};
  omplens_fix__buf_str(&out, "");
  *base = NONE;
  *nvars = 0;
  bool member = false, first = true, ok = true;
  offset_shift shift = {0}; /* the base passed as `p + K` */
  size_t base_len = 0;
  for (size_t i = 0; t[i] && ok;) {
    size_t j = i + 1;
    if (!omplens_fix__ident_char(t[i]) || isdigit((unsigned char)t[i])) { /* punctuation, numbers */
      while (isdigit((unsigned char)t[i]) && (omplens_fix__ident_char(t[j]) || t[j] == '.'))
        j++;
      member = t[i] == '.' || (t[i] == '>' && i && t[i - 1] == '-');
      omplens_fix__buf_add(&out, t + i, j - i);
      i = j;
      continue;
    }
    while (omplens_fix__ident_char(t[j]))
      j++;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(j - i), t + i);
    uint32_t d = NONE;
    char *text = NULL;
    if (!member) /* s.x, p->y: after . or -> a member name, not a variable */
      ok = place_name(c, at, name, t, first, offset, call, at->ast->nodes[loop].begin, &d,
                      &text, first ? &shift : NULL, declaration);
    if (first && text)
      base_len = strlen(text);
    if (d != NONE && first)
      *base = d;
    else if (d != NONE && *nvars < max_vars)
      vars[(*nvars)++] = d;
    omplens_fix__buf_str(&out, text ? text : name);
    free(text);
    member = first = false;
    i = j;
  }
  if (ok && *base == NONE)
    ok = omplens_fix__fail(c, "the item %s does not start with a variable", t);
  char *item = ok ? omplens_fix__buf_take(&out) : NULL;
  if (item && shift.first) {
    char *moved = shift.last ? spanned_item(item, base_len, &shift)
                             : shifted_item(item, base_len, shift.first);
    if (!moved)
      omplens_fix__fail(at, "the base of %s is passed as a pointer into a buffer at an offset, "
                            "and the item has no subscript to move by it", t);
    free(item);
    item = moved;
  }
  if (spans)
    *spans = shift.last != NULL || counted;
  free(counted);
  for (size_t i = 0; i < shift.nvars && *nvars < max_vars; i++)
    vars[(*nvars)++] = shift.vars[i];
  free(shift.first);
  free(shift.last);
  if (!item) {
    omplens_fix__buf_free(&out);
    return NULL;
  }
  return item && declaration ? bounds_without_calls(at, item, at->ast->nodes[loop].begin, declaration)
                             : item;
}

/* ---- uses of variables ---- */

/* Items in one wrapping directive: a solver can keep its whole state
 * (hundreds of arrays) on the device with one `target data`. */
#define WRAP_MAX 256

/* Variables: a wrap's bases (at most WRAP_MAX) and what they alias. */
typedef struct varset {
  uint32_t v[2 * WRAP_MAX];
  size_t n;
} varset;

static bool in_set(const varset *s, uint32_t d) {
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i] == d)
      return true;
  return false;
}

static bool add_set(varset *s, uint32_t d) {
  if (d == NONE || in_set(s, d))
    return false;
  if (s->n < sizeof s->v / sizeof *s->v)
    s->v[s->n++] = d;
  return true;
}

/* A range of the file whose code does not count (device code, the call). */
typedef struct range {
  size_t begin, end;
} range;

static bool excluded(const range *r, size_t n, size_t offset) {
  for (size_t i = 0; i < n; i++)
    if (r[i].begin <= offset && offset < r[i].end)
      return true;
  return false;
}

static int cmp_body(const void *x, const void *y) {
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  return (a > b) - (a < b);
}

/* c's file's kernel bodies, sorted by begin, once (false: none known). */
static bool index_bodies(omplens_fix__ctx *c) {
  omplens_fix__file *f = c->file;
  if (f->bodies_done)
    return f->bodies != NULL;
  f->bodies_done = true;
  omplens_fix__file_dirs(c->fx, f);
  if (!(f->bodies = malloc((2 * f->num_dirs + 2) * sizeof *f->bodies)))
    return false;
  for (size_t i = 0; i < f->num_dirs; i++) {
    const omplens_directive *d = f->dirs[i];
    size_t b, e;
    if (d->kind == OMPLENS_DIRECTIVE_TARGET && d->body.file && omplens_fix__body_range(c, d, &b, &e)) {
      f->bodies[2 * f->num_bodies] = b;
      f->bodies[2 * f->num_bodies++ + 1] = e;
    }
  }
  qsort(f->bodies, f->num_bodies, 2 * sizeof *f->bodies, cmp_body);
  return true;
}

/* The bodies of the kernels (target regions) inside [begin, end), at
 * most max. */
static size_t device_bodies(omplens_fix__ctx *c, size_t begin, size_t end, range *out, size_t max) {
  if (!index_bodies(c))
    return 0;
  const size_t *b = c->file->bodies;
  size_t lo = 0, hi = c->file->num_bodies, n = 0;
  while (lo < hi) { /* the first that begins at begin or after */
    size_t m = lo + (hi - lo) / 2;
    if (b[2 * m] < begin)
      lo = m + 1;
    else
      hi = m;
  }
  for (size_t i = lo; i < c->file->num_bodies && b[2 * i] < end && n < max; i++)
    out[n++] = (range){b[2 * i], b[2 * i + 1]};
  return n;
}

static bool host_uses(omplens_fix__ctx *c, size_t begin, size_t end, const range *ex, size_t nex,
                      varset *set, bool *swapped, const char *what, int depth);

#define ALIAS_DEPTH 3 /* pointers into a buffer followed (`int *p = &v[i];`) */

static bool callee_reads_only(omplens_fix__ctx *c, uint32_t call, uint32_t ref);
static bool reads_only_through(const omplens_fix__ctx *c, uint32_t d, size_t stars);

/* Fails when subject (the host, a kernel, a region's code) changes var in
 * the code of [begin, end), the excluded ranges left out: writes it, passes
 * it to a call, or may change it otherwise, itself or through a pointer
 * into it stored in a local there (depth such pointers deep so far). */
static bool leaves_var_at(omplens_fix__ctx *c, const char *subject, size_t begin, size_t end,
                          const range *ex, size_t nex, uint32_t var, const char *it,
                          const char *consequence, int depth) {
  const omplens_fix__ast *a = c->ast;
  /* a const object or a reference to const (`const Plane &plane`),
   * mapped whole: a section through a pointer member of it (`s.data[0:n]`)
   * is not const with it */
  if (var < a->num_nodes && (a->nodes[var].kind == OMPLENS_FIX__N_VAR ||
                             a->nodes[var].kind == OMPLENS_FIX__N_PARM) &&
      it && !strcmp(it, omplens_fix__ast_name(a, var)) && reads_only_through(c, var, 0))
    return true;
  for (size_t i = 0; i < a->num_nodes; i++) {
    const omplens_fix__node *n = &a->nodes[i];
    if (n->kind != OMPLENS_FIX__N_DECLREF || n->ref != var || n->begin < begin || n->begin >= end ||
        excluded(ex, nex, n->begin))
      continue;
    uint32_t other = NONE;
    int use = omplens_fix__ast_use(a, (uint32_t)i, &other);
    if (use == OMPLENS_FIX__USE_COPIED && other != NONE && other != var) {
      if (depth < ALIAS_DEPTH &&
          !leaves_var_at(c, subject, begin, end, ex, nex, other, it, consequence, depth + 1))
        return false;
      if (depth < ALIAS_DEPTH)
        continue;
      return omplens_fix__fail(c, "%s stores a pointer into %s at line %u: %s", subject, it,
                               omplens_fix__ctx_line(c, n->begin), consequence);
    }
    if (use != OMPLENS_FIX__USE_WRITE && use != OMPLENS_FIX__USE_ESCAPE &&
        use != OMPLENS_FIX__USE_ASSIGNED)
      continue;
    unsigned line = omplens_fix__ctx_line(c, n->begin);
    bool call = other != NONE && a->nodes[other].kind == OMPLENS_FIX__N_CALL;
    if (use == OMPLENS_FIX__USE_ESCAPE && call && callee_reads_only(c, other, (uint32_t)i))
      continue; /* a pointer to const: the callee reads it */
    c->written_at = use == OMPLENS_FIX__USE_WRITE ? line : 0;
    if (use == OMPLENS_FIX__USE_ESCAPE && call)
      return omplens_fix__fail(c, "%s passes %s to %s() at line %u, which may change it: %s",
                               subject, it, omplens_fix__ast_name(a, other), line, consequence);
    return omplens_fix__fail(c, "%s %s %s at line %u: %s", subject,
                             use == OMPLENS_FIX__USE_WRITE ? "writes" : "may change", it, line,
                             consequence);
  }
  return true;
}

static bool leaves_var(omplens_fix__ctx *c, const char *subject, size_t begin, size_t end,
                       const range *ex, size_t nex, uint32_t var, const char *it,
                       const char *consequence) {
  return leaves_var_at(c, subject, begin, end, ex, nex, var, it, consequence, 0);
}

bool omplens_fix__host_leaves(omplens_fix__ctx *c, size_t begin, size_t end, uint32_t var,
                              const char *it, const char *consequence) {
  range ex[64];
  size_t nex = device_bodies(c, begin, end, ex, 64);
  return leaves_var(c, "the host", begin, end, ex, nex, var, it, consequence);
}

#define PASS_DEPTH 3 /* calls followed through, from the loop */

/* The one definition of function name in c's file, or NONE (none, or
 * overloads: which one runs is unknown). */
static uint32_t definition(const omplens_fix__ast *a, const char *name) {
  size_t count;
  const uint32_t *named = omplens_fix__ast_named(a, name, &count);
  uint32_t found = NONE;
  for (size_t k = 0; named && k < count; k++)
    if (a->nodes[named[k]].kind == OMPLENS_FIX__N_FUNCTION) {
      if (found != NONE)
        return NONE;
      found = named[k];
    }
  return found;
}

/* The name a call node calls: the parse's, or in a template, where a
 * dependent call has none, the identifier it starts with. Caller frees. */
static char *called_name(const omplens_fix__ctx *c, uint32_t call) {
  const char *n = omplens_fix__ast_name(c->ast, call);
  if (*n)
    return strdup(n);
  const char *t = c->src->text + c->ast->nodes[call].begin;
  size_t len = 0;
  while (omplens_fix__ident_char(t[len]))
    len++;
  return len ? strndup(t, len) : NULL;
}

/* A call site that led to a construct in the run. */
typedef struct omplens_fix__entry {
  const char *file; /* the annotator's */
  unsigned line;
  uint64_t codeptr;
} omplens_fix__entry;

#define MAX_ENTRIES 256

/* The first call sites of the run's distinct (directive, call path) pairs,
 * once. */
static void build_entries(omplens_fixer *fx) {
  fx->entries_done = true;
  if (!fx->annot || !(fx->entries = calloc(MAX_ENTRIES, sizeof *fx->entries)))
    return;
  uint64_t seen_code[MAX_ENTRIES];
  uint32_t seen_path[MAX_ENTRIES];
  size_t seen = 0, last = 0;
  for (size_t r = 0; r < fx->num_regions && seen < MAX_ENTRIES; r++) {
    const omplens_region *rg = &fx->regions[r];
    if (!rg->call_path ||
        (seen && seen_code[last] == rg->codeptr && seen_path[last] == rg->call_path))
      continue;
    size_t k = 0;
    while (k < seen && !(seen_code[k] == rg->codeptr && seen_path[k] == rg->call_path))
      k++;
    last = k;
    if (k < seen)
      continue;
    seen_code[seen] = rg->codeptr;
    seen_path[seen++] = rg->call_path;
    omplens_call_site site[OMPLENS_MAX_CALL_SITES];
    if (omplens_annotate_call_path(fx->annot, rg->codeptr, rg->call_path, site,
                                   OMPLENS_MAX_CALL_SITES) &&
        site[0].file)
      fx->entries[fx->num_entries++] = (omplens_fix__entry){site[0].file, site[0].line, rg->codeptr};
  }
}

/* The function the call at `line` of file f ran, as the run's call paths
 * show it: the one holding the directive of every construct called from
 * there (a function object's operator(), whose name the call does not
 * say), with its file's context in *in (a copy of c for that file). NONE
 * when the run shows none, or several. */
static uint32_t function_called_at(omplens_fix__ctx *c, unsigned line, omplens_fix__ctx *in) {
  omplens_fixer *fx = c->fx;
  if (!fx->entries_done)
    build_entries(fx);
  char *real = realpath(c->file->path, NULL);
  uint32_t fn = NONE;
  omplens_fix__file *where = NULL;
  for (size_t i = 0; i < fx->num_entries; i++) {
    const omplens_fix__entry *e = &fx->entries[i];
    char *er = e->line == line ? realpath(e->file, NULL) : NULL;
    bool here = er && real && !strcmp(er, real);
    free(er);
    if (!here)
      continue;
    omplens_fix__file *df = NULL;
    const omplens_directive *d = omplens_fix__directive_of(fx, e->codeptr, OMPLENS_RUNTIME_ANY, &df);
    const char *why;
    if (!d || !df || df->src_rc || !omplens_fix__file_ast(fx, df, &why)) {
      fn = NONE;
      break;
    }
    size_t at = omplens_fix__offset(&df->src, d->pragma.line, d->pragma.column);
    uint32_t f = omplens_fix__ast_function_at(&df->ast, at);
    if (f == NONE || (fn != NONE && (f != fn || df != where))) {
      fn = NONE;
      break;
    }
    fn = f;
    where = df;
  }
  free(real);
  if (fn != NONE) {
    *in = *c;
    in->file = where;
    in->src = &where->src;
    in->ast = &where->ast;
  }
  return fn;
}

/* The definition of the function call node `call` runs when the parse
 * saw it in another file (omplens_fix__node.callee), parsed through the
 * caller's unit, with its file's context in *in; NONE when it cannot be
 * read. */
static uint32_t defined_elsewhere(omplens_fix__ctx *c, uint32_t call, omplens_fix__ctx *in) {
  const char *where = c->ast->names + c->ast->nodes[call].callee;
  const char *colon = strrchr(where, ':');
  if (!colon || colon == where)
    return NONE;
  char path[4200];
  snprintf(path, sizeof path, "%.*s", (int)(colon - where), where);
  size_t offset = strtoul(colon + 1, NULL, 10);
  omplens_fix__file *f = omplens_fix__file_get(c->fx, path, NULL);
  const char *why;
  if (f && !f->dwarf_unit) /* the same unit as the caller's: it includes both */
    f->dwarf_unit = c->file->num_units ? c->file->units[0].path : c->file->dwarf_unit;
  if (!f || f->src_rc || offset >= f->src.size || !omplens_fix__file_ast(c->fx, f, &why))
    return NONE;
  uint32_t fn = omplens_fix__ast_function_at(&f->ast, offset);
  if (fn != NONE) {
    *in = *c;
    in->file = f;
    in->src = &f->src;
    in->ast = &f->ast;
  }
  return fn;
}

/* The parameter that call node `call` passes its argument holding ref to:
 * in the definition of the called function in c's file (or the peer's, or
 * another file of the unit, or what the run called there), whose context
 * goes to *other when it is elsewhere; *in points at c, c->peer or other.
 * NONE when the definition or the parameter is unknown; *name is the
 * called name (caller frees; NULL when unknown). */
static uint32_t callee_parameter(omplens_fix__ctx *c, uint32_t call, uint32_t ref,
                                 omplens_fix__ctx *other, omplens_fix__ctx **in, uint32_t *fn,
                                 char **name) {
  const omplens_fix__ast *a = c->ast;
  uint32_t k = 1, arg;
  while ((arg = omplens_fix__ast_child(a, call, k)) != NONE && !omplens_fix__ast_within(a, ref, arg))
    k++;
  *name = called_name(c, call);
  *in = c;
  /* a variable called (a function object) is no function of that name */
  uint32_t var = *name ? omplens_fix__ast_lookup(a, *name, a->nodes[call].begin) : NONE;
  bool object = var != NONE && (a->nodes[var].kind == OMPLENS_FIX__N_VAR ||
                                a->nodes[var].kind == OMPLENS_FIX__N_PARM);
  *fn = *name && arg != NONE && !object ? definition(a, *name) : NONE;
  if (*fn == NONE && *name && arg != NONE && !object && c->peer && c->peer->ast) {
    *in = c->peer;
    *fn = definition((*in)->ast, *name);
  }
  if (*fn == NONE && arg != NONE && !object && a->nodes[call].callee) {
    *fn = defined_elsewhere(c, call, other); /* another header of the unit */
    *in = other;
  }
  if (*fn == NONE && arg != NONE) { /* a function object: what the run called there */
    *fn = function_called_at(c, omplens_fix__ctx_line(c, a->nodes[call].begin), other);
    *in = other;
  }
  uint32_t parm = NONE;
  for (uint32_t i = *fn, n = 0; *fn != NONE && i < omplens_fix__ast_end((*in)->ast, *fn); i++)
    if ((*in)->ast->nodes[i].kind == OMPLENS_FIX__N_PARM && (*in)->ast->nodes[i].parent == *fn &&
        n++ == k - 1)
      parm = i;
  return parm;
}

/* Whether the callee at call takes the argument holding ref as a pointer
 * to const (`const char *s`, `double const *v`): it cannot store through
 * it (short of a cast). Its definition must be found, as
 * callee_parameter() finds it. */
static bool callee_reads_only(omplens_fix__ctx *c, uint32_t call, uint32_t ref) {
  omplens_fix__ctx other, *in;
  uint32_t fn;
  char *name;
  uint32_t parm = callee_parameter(c, call, ref, &other, &in, &fn, &name);
  free(name);
  return parm != NONE && reads_only_through(in, parm, 1);
}

/* Whether what declaration d gives (a parameter or variable of c's tree)
 * cannot be changed through it, short of a cast: with stars pointers in
 * its type (0: an object or a reference), `const` before the first (`const
 * T *p`, `const T &r`, `const T x`; not `T *const p`, nor `const T **p`,
 * whose p[0] can be stored). */
static bool reads_only_through(const omplens_fix__ctx *c, uint32_t d, size_t stars) {
  size_t n, found = 0;
  const char *t = omplens_fix__declared_type(c->src, &c->ast->nodes[d], &n);
  if (!t)
    return false;
  const char *star = t + n;
  for (size_t i = 0; i < n; i++)
    if (t[i] == '*' && found++ == 0)
      star = t + i;
  if (found != stars)
    return false;
  for (const char *q = t; q + 5 <= star; q++)
    if (!strncmp(q, "const", 5) && (q == t || !omplens_fix__ident_char(q[-1])) &&
        !omplens_fix__ident_char(q[5]))
      return true;
  return false;
}

unsigned omplens_fix__callee_writes(omplens_fix__ctx *c, uint32_t call, uint32_t ref,
                                    const char **callee) {
  omplens_fix__ctx other, *in;
  uint32_t fn;
  char *name;
  uint32_t parm = callee_parameter(c, call, ref, &other, &in, &fn, &name);
  *callee = name ? omplens_fix__ownf(c->fx, "%s", name) : NULL;
  free(name);
  if (parm == NONE || in->file != c->file)
    return 0;
  /* Any store through it, wherever it points by then (`p = &p[k];` moves
   * it within the same buffer, and other changes only make it uncertain). */
  const omplens_fix__ast *a = in->ast;
  for (uint32_t i = parm + 1; i < omplens_fix__ast_end(a, fn); i++) {
    uint32_t other_node;
    if (a->nodes[i].kind == OMPLENS_FIX__N_DECLREF && a->nodes[i].ref == parm &&
        omplens_fix__ast_use(a, i, &other_node) == OMPLENS_FIX__USE_WRITE)
      return omplens_fix__ctx_line(in, a->nodes[i].begin);
  }
  return 0;
}

/* Whether a call that gets a buffer of the set as argument node `arg`
 * leaves it alone on the host: its function, defined in c's file (or the
 * peer's), only hands the parameter to kernels and to calls that do the
 * same, never touching it on the host. A parameter found so is noted on
 * its tree (a loop of thousands of calls is checked once per function,
 * not once per call and wrap; at any depth, as a check that passed deeper
 * down the calls passes higher up). */
static bool passes_to_kernels(omplens_fix__ctx *c, uint32_t call, uint32_t ref, int depth) {
  const omplens_fix__ast *a = c->ast;
  omplens_fix__ctx other, *in;
  uint32_t fn;
  char *name;
  uint32_t parm = callee_parameter(c, call, ref, &other, &in, &fn, &name);
  omplens_fix__ast *known = parm != NONE && in->file && in->ast == &in->file->ast ? &in->file->ast
                                                                                 : NULL;
  if (known && known->to_kernels && known->to_kernels[parm]) {
    free(name);
    return true;
  }
  bool ok = false;
  if (parm != NONE) {
    const omplens_fix__node *f = &in->ast->nodes[fn];
    range ex[64];
    size_t nex = device_bodies(in, f->begin, f->end, ex, 64);
    varset one = {{parm}, 1};
    bool swapped = false;
    omplens_fix__reads *reads = in->reads; /* the callee's reads are not the wrap's */
    in->reads = NULL;
    ok = host_uses(in, f->begin, f->end, ex, nex, &one, &swapped,
                   omplens_fix__ownf(c->fx, "in %s(), called at line %u", name,
                                     omplens_fix__ctx_line(c, a->nodes[call].begin)),
                   depth + 1) &&
         !swapped;
    in->reads = reads;
  }
  if (ok && known && !known->to_kernels)
    known->to_kernels = calloc(known->num_nodes, 1);
  if (ok && known && known->to_kernels)
    known->to_kernels[parm] = 1;
  free(name);
  return ok;
}

/* The condition of statement st when st is an `if` with no `else` whose
 * branch, a statement without braces, holds node i, and the condition has
 * no side effect (no call, assignment, ++ or --), so that an update can
 * repeat it (`target update from(...) if(COND)` before the `if`); else
 * NONE. */
static uint32_t read_condition(const omplens_fix__ast *a, uint32_t st, uint32_t i) {
  if (a->nodes[st].kind != OMPLENS_FIX__N_IF || omplens_fix__ast_child(a, st, 2) != NONE)
    return NONE;
  uint32_t cond = omplens_fix__ast_child(a, st, 0), then = omplens_fix__ast_child(a, st, 1);
  if (cond == NONE || then == NONE || i < then || i >= omplens_fix__ast_end(a, then))
    return NONE;
  for (uint32_t k = cond; k < omplens_fix__ast_end(a, cond); k++) {
    const omplens_fix__node *n = &a->nodes[k];
    if (n->kind == OMPLENS_FIX__N_CALL || n->op == OMPLENS_FIX__OP_ASSIGN ||
        n->op == OMPLENS_FIX__OP_UPDATE || n->op == OMPLENS_FIX__OP_INCDEC ||
        n->kind == OMPLENS_FIX__N_DECLSTMT || n->kind == OMPLENS_FIX__N_VAR)
      return NONE;
  }
  return cond;
}

/* Notes the host's read of declaration reference i in c->reads, when set
 * (false otherwise, or with no room): the statement holding it, which a
 * `target update from` will precede (read_updates checks the statement). */
static bool note_read(omplens_fix__ctx *c, uint32_t i) {
  omplens_fix__reads *r = c->reads;
  const omplens_fix__ast *a = c->ast;
  uint32_t st = r ? omplens_fix__statement_of(a, i) : NONE;
  /* before the host construct that holds it, if any (a parallel loop's
   * body would update from every thread): a statement of a block with an
   * OpenMP directive line above it */
  for (uint32_t p = st; p != NONE && a->nodes[p].kind != OMPLENS_FIX__N_FUNCTION;
       p = a->nodes[p].parent) {
    uint32_t up = a->nodes[p].parent;
    if (a->nodes[p].kind == OMPLENS_FIX__N_OTHER_STMT ||
        (up != NONE && a->nodes[up].kind == OMPLENS_FIX__N_COMPOUND &&
         statement_line(c, p) != omplens_fix__ctx_line(c, a->nodes[p].begin)))
      st = omplens_fix__statement_of(a, p);
  }
  if (st == NONE || a->nodes[st].parent == NONE)
    return false;
  uint32_t cond = read_condition(a, st, i);
  for (size_t k = 0; k < r->n; k++)
    if (r->stmt[k] == st && r->base[k] == a->nodes[i].ref) {
      if (r->cond[k] != cond) /* read both in and out of the branch */
        r->cond[k] = NONE;
      return true;
    }
  if (r->n == OMPLENS_FIX__READS)
    return false;
  r->stmt[r->n] = st;
  r->cond[r->n] = cond;
  r->base[r->n++] = a->nodes[i].ref;
  return true;
}

/* One reference i to a variable of set in the host code: false (with the
 * reason) where it reads (but for a read note_read takes), writes, passes
 * on or replaces the buffer; *grew when set gains the variable its value
 * is copied into. */
static bool host_use(omplens_fix__ctx *c, uint32_t i, varset *set, bool *swapped,
                     const char *what, int depth, bool *grew) {
  const omplens_fix__ast *a = c->ast;
  const omplens_fix__node *n = &a->nodes[i];
  uint32_t other;
  int use = omplens_fix__ast_use(a, i, &other);
  const char *name = omplens_fix__ast_name(a, i);
  unsigned line = omplens_fix__ctx_line(c, n->begin);
  c->blamed = n->ref;
  uint32_t storage = use == OMPLENS_FIX__USE_READ || use == OMPLENS_FIX__USE_ESCAPE
                         ? omplens_fix__storage_var(c->file, i)
                         : NONE;
  if (storage != NONE) { /* `p = &v.coefs[0]`: the content is used through p */
    *grew |= add_set(set, storage);
    return true;
  }
  if ((use == OMPLENS_FIX__USE_READ || use == OMPLENS_FIX__USE_ESCAPE) &&
      omplens_fix__size_query(c->file, i))
    return true;
  switch (use) {
  case OMPLENS_FIX__USE_VALUE:
    break;
  case OMPLENS_FIX__USE_READ:
    if (note_read(c, i))
      break;
    /* fall through */
  case OMPLENS_FIX__USE_WRITE:
    return omplens_fix__fail(c, "the host %s %s at line %u, %s",
                             use == OMPLENS_FIX__USE_READ ? "reads" : "writes", name, line,
                             what);
  case OMPLENS_FIX__USE_ESCAPE:
    if (depth < PASS_DEPTH && other != NONE && a->nodes[other].kind == OMPLENS_FIX__N_CALL) {
      size_t said = c->probe ? c->probe->len : 0;
      bool passes = passes_to_kernels(c, other, i, depth);
      c->blamed = n->ref; /* the failure, if any, is this variable's */
      if (passes)
        break;
      /* a callee that takes it as a pointer to const reads it: a read
       * like any other, where the wrap lets the host read (the callee's
       * reason why it does not only hand it to kernels is dropped) */
      if (c->reads && c->probe && callee_reads_only(c, other, i) && note_read(c, i)) {
        c->probe->len = said;
        if (c->probe->data)
          c->probe->data[said] = 0;
        break;
      }
      if (c->probe ? c->probe->len : c->g->reason.len)
        return false; /* the callee said why */
    }
    return omplens_fix__fail(c, "%s is passed on (call, address or aggregate) at line %u, %s",
                             name, line, what);
  case OMPLENS_FIX__USE_ASSIGNED:
    if (!in_set(set, omplens_fix__ast_plain_var(a, other)))
      return omplens_fix__fail(c, "%s is given another buffer at line %u, %s", name, line,
                               what);
    *swapped = true;
    break;
  case OMPLENS_FIX__USE_COPIED:
    if (other == NONE)
      return omplens_fix__fail(c, "%s is stored at line %u, %s", name, line, what);
    *grew |= add_set(set, other);
    break;
  }
  return true;
}

/* Checks the host code of [begin, end) (but the excluded ranges) for uses
 * of the variables in set (growing it with the variables their values are
 * copied into). Reading or writing the buffers fails, and so does passing
 * them on, but to a function that only hands them to kernels
 * (passes_to_kernels, depth calls deep so far); pointer swaps among the
 * set are allowed and reported in *swapped. */
static bool host_uses(omplens_fix__ctx *c, size_t begin, size_t end, const range *ex, size_t nex,
                      varset *set, bool *swapped, const char *what, int depth) {
  const omplens_fix__ast *a = c->ast;
  /* code of one function is its subtree's: not the whole tree's nodes,
   * thousands of functions' in a large file, at each check */
  uint32_t fn = end > begin ? omplens_fix__ast_function_at(a, begin) : NONE;
  bool within = fn != NONE && a->nodes[fn].begin <= begin && end <= a->nodes[fn].end;
  uint32_t lo = within ? fn : 0, hi = within ? omplens_fix__ast_end(a, fn) : (uint32_t)a->num_nodes;
  bool ok = true;
  for (bool grew = true; grew && ok;) {
    grew = false;
    for (uint32_t i = lo; ok && i < hi; i++) {
      const omplens_fix__node *n = &a->nodes[i];
      if (n->kind != OMPLENS_FIX__N_DECLREF || n->begin < begin || n->begin >= end ||
          !in_set(set, n->ref) || excluded(ex, nex, n->begin))
        continue;
      ok = host_use(c, i, set, swapped, what, depth, &grew);
    }
  }
  if (ok)
    c->blamed = NONE;
  return ok;
}

bool omplens_fix__device_reads_only(omplens_fix__ctx *c, const omplens_directive *d, size_t begin,
                                    size_t end, uint32_t var, const char *it,
                                    const char *consequence) {
  /* A target data region's body is host code: what it changes, it
   * changes through the calls and kernels in it. */
  const char *subject = d->kind == OMPLENS_DIRECTIVE_TARGET ? "the kernel" : "the region's code";
  unsigned inc = omplens_fix__include_in(c, begin, end);
  if (inc)
    return omplens_fix__fail(c, "%s at line %u includes a file at line %u, whose code is not "
                                "read: whether it changes %s cannot be checked",
                             subject, d->pragma.line, inc, it);
  return leaves_var(c, subject, begin, end, NULL, 0, var, it, consequence);
}

/* Fails when a variable of set is assigned anywhere in [begin, end). */
static bool unchanged(omplens_fix__ctx *c, size_t begin, size_t end, const uint32_t *vars,
                      size_t n) {
  const omplens_fix__ast *a = c->ast;
  for (size_t i = 0; i < a->num_nodes; i++) {
    const omplens_fix__node *nd = &a->nodes[i];
    bool mine = false;
    for (size_t k = 0; k < n; k++)
      mine |= nd->ref == vars[k];
    if (nd->kind != OMPLENS_FIX__N_DECLREF || !mine || nd->begin < begin || nd->begin >= end)
      continue;
    uint32_t other;
    c->blamed = nd->ref;
    if (omplens_fix__ast_use(a, (uint32_t)i, &other) == OMPLENS_FIX__USE_ASSIGNED)
      return omplens_fix__fail(c, "%s changes at line %u inside the loop",
                               omplens_fix__ast_name(a, (uint32_t)i),
                               omplens_fix__ctx_line(c, nd->begin));
  }
  c->blamed = NONE;
  return true;
}

/* ---- directive text ---- */

static const char *type_word(int t) { return omplens_map_type_name(t); }

/* ---- rule: keep resident (wrap the loop in target data) ---- */

#define SEEDED (SIZE_MAX - 1) /* first_of of an item an earlier wrap of the
                                 loop brought (omplens_fix__group.kept) */

typedef omplens_fix__span span;

static void span_free(span *p) {
  free(p->lo_text);
  free(p->end_text);
  *p = (span){0};
}

/* A copy of p (unknown, without memory). */
static span span_copy(const span *p) {
  span out = *p;
  out.lo_text = p->lo_text ? strdup(p->lo_text) : NULL;
  out.end_text = p->end_text ? strdup(p->end_text) : NULL;
  if (!out.lo_text || !out.end_text)
    span_free(&out);
  return out;
}

/* The wrapping directive being built: one item per directive item of the
 * group, in the order of the findings. */
typedef struct wrap {
  item_plan items[WRAP_MAX];
  const char *vars[WRAP_MAX]; /* the variable as the directive names it */
  size_t first_of[WRAP_MAX];  /* the finding that brought each item */
  uint32_t call_of[WRAP_MAX]; /* ... and the call it came by (NONE: none) */
  size_t n;
  varset set;          /* base variables, as known before the loop */
  uint32_t others[64]; /* the other variables the items name */
  size_t others_of[64]; /* ... the item that names each */
  size_t nothers;
  size_t culprit; /* probing: the finding whose item failed a check, or
                     SIZE_MAX when the check blamed a declaration */
  bool swapped; /* the loop trades the pointers among them */
  char *declarations[WRAP_MAX]; /* per item: the line declaring the pointer
                                   it is written with, or NULL */
  const omplens_directive *copies_dir[WRAP_MAX]; /* per item, or NULL: only
                            its allocation stays (type alloc); this
                            directive copies it each time, `always`
                            (allocation_only) */
  size_t copies_item[WRAP_MAX]; /* ... the directive's item */
  uint32_t returns[16]; /* the returns that leave the region (at's) */
  size_t nreturns;
  uint32_t from; /* the region's first statement: the loop, or a statement of
                    its block before it that calls the directive's function */
  omplens_fix__ctx *at; /* the loop's file: the directive's, or a caller's */
  uint32_t *calls;   /* lifted: the distinct calls in the loop (at's), in
                        source order, however many */
  uint32_t *callees; /* ... the function each calls (c's) */
  size_t ncalls, calls_cap;
  uint32_t *params;  /* lifted: the parameters the items come from (c's
                        declarations), ascending: a function's are a run */
  size_t nparams, params_cap;
  /* Per item, by its first finding, its evidence once asked (known[k]):
   * the same for each finding of the item and in every try of the wrap,
   * and a loop mapping hundreds of items takes a try per item that cannot
   * be kept. NULL without memory. */
  omplens_fix__evidence *evidence;
  bool *known;
  span spans[WRAP_MAX]; /* per item */
  bool spanned[WRAP_MAX]; /* per item: it spans the sections a loop's
                             counter reaches (place_item) */
  bool reads_ok;            /* the host may read the items in the region,
                               each read after a `target update from` */
  omplens_fix__reads reads; /* ... those reads (and an earlier wrap's) */
} wrap;

/* Whether item i is written as an earlier one is (two directives' items,
 * or one item through two calls, that the caller names alike): the wrap
 * maps it once, with both map types (merge_types). */
static bool same_as_earlier(const wrap *w, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (!strcmp(w->items[j].text, w->items[i].text))
      return true;
  return false;
}

static int merged_type(int a, int b) {
  if (a == b || b == OMPLENS_MAP_ALLOC)
    return a;
  return a == OMPLENS_MAP_ALLOC ? b : OMPLENS_MAP_TOFROM;
}

/* Gives the first of items written alike the map types of all of them. */
static void merge_types(wrap *w) {
  for (size_t i = 0; i < w->n; i++)
    for (size_t j = 0; j < i; j++)
      if (!strcmp(w->items[j].text, w->items[i].text)) {
        w->items[j].type = merged_type(w->items[j].type, w->items[i].type);
        break;
      }
}

/* Room for one more in *v (and *v2 beside it, when given); false without
 * memory. */
static bool room_for_one(uint32_t **v, uint32_t **v2, size_t n, size_t *cap) {
  if (n < *cap)
    return true;
  size_t grown = *cap ? 2 * *cap : 16;
  uint32_t *a = realloc(*v, grown * sizeof *a);
  if (a)
    *v = a;
  uint32_t *b = a && v2 ? realloc(*v2, grown * sizeof *b) : NULL;
  if (b)
    *v2 = b;
  if (!a || (v2 && !b))
    return false;
  *cap = grown;
  return true;
}

/* Notes the call of a site's function (once per call), the calls in
 * source order (the parse's nodes are), whatever order the findings come
 * in, and the parameter its item comes from; false without memory. */
static bool add_call(omplens_fix__ctx *c, wrap *w, const omplens_fix__site *s, uint32_t call,
                     uint32_t param) {
  size_t at;
  if (!omplens_fix__u32_place(w->calls, w->ncalls, call, &at)) {
    if (!room_for_one(&w->calls, &w->callees, w->ncalls, &w->calls_cap))
      return omplens_fix__fail(c, "out of memory");
    memmove(w->calls + at + 1, w->calls + at, (w->ncalls - at) * sizeof *w->calls);
    memmove(w->callees + at + 1, w->callees + at, (w->ncalls - at) * sizeof *w->callees);
    w->calls[at] = call;
    w->callees[at] = omplens_fix__ast_function_at(c->ast, omplens_fix__pragma_at(c, s->dir));
    w->ncalls++;
  }
  if (param == NONE || omplens_fix__u32_place(w->params, w->nparams, param, &at))
    return true;
  if (!room_for_one(&w->params, NULL, w->nparams, &w->params_cap))
    return omplens_fix__fail(c, "out of memory");
  memmove(w->params + at + 1, w->params + at, (w->nparams - at) * sizeof *w->params);
  w->params[at] = param;
  w->nparams++;
  return true;
}

static void wrap_free(wrap *w) {
  for (size_t i = 0; i < w->n; i++) {
    free(w->items[i].text);
    free(w->declarations[i]);
    span_free(&w->spans[i]);
  }
  free(w->calls);
  free(w->callees);
  free(w->params);
}

/* Whether every copy back of item k of directive d brought the host what
 * it held (duplicates and round trips): the device never changed it, and a
 * wrap need not copy it back at its end. */
static bool brings_back_held(omplens_fix__ctx *c, const omplens_directive *d, size_t k) {
  if (!d->items[k].var)
    return false;
  const omplens_fix__site s = {.dir = d, .item = k, .var = d->items[k].var};
  omplens_fix__evidence ev;
  omplens_fix__evidence_of(c->fx, c->g, &s, &ev);
  return ev.d2h && ev.d2h_old == ev.d2h;
}

/* Whether directive d maps wrapped item j, which it names `name` (the
 * directive's own name in its function, the caller's in the loop), in a
 * way the wrap changes. */
static bool other_map(omplens_fix__ctx *v, const omplens_directive *d, wrap *w, size_t j,
                      const char *name) {
  for (size_t k = 0; k < d->num_items; k++) {
    if (!d->items[k].var || !name || strcmp(d->items[k].var, name))
      continue;
    if (w->copies_dir[j] && d != w->copies_dir[j])
      return omplens_fix__fail(v, "%s is also mapped by `%s` at line %u, which would find it "
                                  "present and stop copying it",
                               name, d->name, d->pragma.line);
    int mt = d->items[k].map_type;
    /* Inside the region, an enter data that maps it `to` or `alloc` finds
     * it present and only counts a reference, and an exit data that
     * releases it takes that one back (a constructor's and a destructor's
     * maps); one that maps it `from` takes it back too, and its copy moves
     * to the region's end, as a construct's `tofrom` does (below); a
     * `delete` would free it inside the region. */
    bool counts = (d->kind == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA &&
                   (mt == OMPLENS_MAP_TO || mt == OMPLENS_MAP_ALLOC)) ||
                  (d->kind == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA &&
                   (mt == OMPLENS_MAP_RELEASE || mt == OMPLENS_MAP_FROM));
    if ((d->kind == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA ||
         d->kind == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA) && !counts)
      return omplens_fix__fail(v,
                               "the loop also has `%s` of %s at line %u: its reference counts "
                               "would change",
                               omplens_directive_kind_name(d->kind), name, d->pragma.line);
    if ((mt == OMPLENS_MAP_FROM || mt == OMPLENS_MAP_TOFROM) &&
        w->items[j].type == OMPLENS_MAP_TO && !brings_back_held(v, d, k))
      w->items[j].type = OMPLENS_MAP_TOFROM; /* its copy back must still happen, at the end */
  }
  return true;
}

/* Whether other directives of the loop (or, lifted, of the called
 * functions) map these variables in a way the wrap changes. */
static bool other_maps_in_loop(omplens_fix__ctx *c, uint32_t loop, wrap *w) {
  omplens_fix__ctx *at = w->at;
  const omplens_fix__node *l = &at->ast->nodes[loop];
  size_t from = at->ast->nodes[w->from].begin;
  omplens_fix__file_dirs(at->fx, at->file);
  for (size_t i = 0; i < at->file->num_dirs; i++) {
    size_t p = omplens_fix__pragma_at(at, at->file->dirs[i]);
    for (size_t j = 0; j < w->n && p >= from && p < l->end; j++)
      if (!other_map(at, at->file->dirs[i], w, j, omplens_fix__ast_name(at->ast, w->items[j].base))) {
        w->culprit = w->first_of[j];
        return false;
      }
  }
  omplens_fix__file_dirs(c->fx, c->file);
  for (size_t j = 0; j < w->n; j++) {
    if (w->first_of[j] == SEEDED) /* checked with its own directives */
      continue;
    const omplens_fix__site *s = omplens_fix__site_at(c->g, w->first_of[j]);
    if (s->call == NONE)
      continue;
    uint32_t fn = omplens_fix__ast_function_at(c->ast, omplens_fix__pragma_at(c, s->dir));
    for (size_t i = 0; i < c->file->num_dirs; i++) {
      size_t p = omplens_fix__pragma_at(c, c->file->dirs[i]);
      bool in_loop = at == c && p >= from && p < l->end; /* already seen */
      if (!in_loop && omplens_fix__ast_function_at(c->ast, p) == fn &&
          !other_map(c, c->file->dirs[i], w, j, w->vars[j])) {
        w->culprit = w->first_of[j];
        return false;
      }
    }
  }
  return true;
}

/* Appends " map(WORD: a, b)" for the items whose map type is in types (a
 * bit per OMPLENS_MAP_* value), each buffer once. */
static void map_clause(omplens_fix__buf *b, const wrap *w, unsigned types, const char *word) {
  const item_plan *items = w->items;
  bool any = false;
  for (size_t i = 0; i < w->n; i++) {
    if (!(types & 1u << items[i].type) || same_as_earlier(w, i))
      continue;
    if (any)
      omplens_fix__buf_str(b, ", ");
    else
      omplens_fix__buf_printf(b, " map(%s: ", word);
    omplens_fix__buf_str(b, items[i].text);
    any = true;
  }
  if (any)
    omplens_fix__buf_str(b, ")");
}

#define TYPE(t) (1u << OMPLENS_MAP_##t)

/* The directive lines of the wrap: `target data` before the loop, or,
 * for a loop that return leaves, `target enter data` before it and
 * `target exit data` (*exit) after it and before each return. */
static char *wrap_directive(const wrap *w, uint32_t loop, char **exit) {
  omplens_fix__buf b = {0}, e = {0};
  bool split = w->nreturns || w->from != loop; /* a target data region cannot */
  if (!split) {
    omplens_fix__buf_str(&b, "#pragma omp target data");
    map_clause(&b, w, TYPE(TO), type_word(OMPLENS_MAP_TO));
    map_clause(&b, w, TYPE(TOFROM), type_word(OMPLENS_MAP_TOFROM));
    map_clause(&b, w, TYPE(FROM), type_word(OMPLENS_MAP_FROM));
    map_clause(&b, w, TYPE(ALLOC), type_word(OMPLENS_MAP_ALLOC));
  } else {
    omplens_fix__buf_str(&b, "#pragma omp target enter data");
    map_clause(&b, w, TYPE(TO) | TYPE(TOFROM), "to");
    map_clause(&b, w, TYPE(FROM) | TYPE(ALLOC), "alloc");
    omplens_fix__buf_str(&e, "#pragma omp target exit data");
    map_clause(&e, w, TYPE(TOFROM) | TYPE(FROM), "from");
    map_clause(&e, w, TYPE(TO) | TYPE(ALLOC), "release");
    omplens_fix__buf_str(&e, "\n");
  }
  omplens_fix__buf_str(&b, "\n");
  *exit = split ? omplens_fix__buf_take(&e) : NULL;
  return omplens_fix__buf_take(&b);
}

static int wrap_type(const omplens_fixer *fx, const omplens_fix__group *g, size_t k, int mt) {
  const omplens_finding *f = &fx->findings[g->findings[k]];
  if (f->category == OMPLENS_CAT_ROUND_TRIP)
    return OMPLENS_MAP_TOFROM; /* the data came back from the device: bring it back at the end */
  /* A `from` item never gave the kernel the host's values: kept across
   * the loop it starts as each run's did, and comes back at the end. */
  return mt == OMPLENS_MAP_TO || mt == OMPLENS_MAP_FROM ? mt : OMPLENS_MAP_TOFROM;
}

/* Whether finding k's item, whose copies carry content the host changed
 * (the evidence of resident_or_allocated fails), can keep just its
 * allocation across the loop:
 * its findings are all repeated allocations, its directive is a region of
 * the loop's own code that writes the item, and no other item of the wrap
 * has its base. The directive then copies it each time (`always`), the
 * host may use it in the loop, and only the allocations go. */
static bool allocation_only(omplens_fix__ctx *c, const wrap *w, size_t k, size_t j) {
  const omplens_fix__group *g = c->g;
  const omplens_fix__site *s = omplens_fix__site_at(g, k);
  if (s->call != NONE || s->num_more_calls || w->at != c || s->implicit ||
      (s->dir->kind != OMPLENS_DIRECTIVE_TARGET && s->dir->kind != OMPLENS_DIRECTIVE_TARGET_DATA))
    return false;
  if (!g->item_first) /* out of memory when wrap_region made them */
    return false;
  for (size_t i = g->item_first[k]; i != SIZE_MAX; i = g->item_next[i])
    if (c->fx->findings[g->findings[i]].category != OMPLENS_CAT_REPEATED_ALLOC)
      return false;
  for (size_t i = 0; i < w->n; i++)
    if (i != j && w->items[i].base == w->items[j].base)
      return false;
  return true;
}

/* Item j (finding k's) as the evidence allows: resident when the copies
 * the wrap removes carried nothing new, else in its allocation-only form,
 * else failed. */
static bool resident_or_allocated(omplens_fix__ctx *c, wrap *w, size_t k, size_t j) {
  const omplens_fix__site *s = omplens_fix__site_at(c->g, k);
  omplens_fix__evidence ev;
  size_t first = c->g->item_first ? c->g->item_first[k] : k; /* the item's evidence */
  if (w->known && w->known[first]) {
    ev = w->evidence[first];
  } else {
    omplens_fix__evidence_of(c->fx, c->g, s, &ev);
    if (w->known) {
      w->evidence[first] = ev;
      w->known[first] = true;
    }
  }
  if (ev.h2d_new_first_only)
    return true;
  if (!allocation_only(c, w, k, j))
    return omplens_fix__fail(
        c,
        "%s is sent with content the device did not hold in %u of its %u copies (new "
        "values, or resets of what the device changed): the host changes it between "
        "iterations",
        omplens_fix__item_text(s), ev.h2d - ev.h2d_old, ev.h2d);
  /* The host may use its buffer, but not give it another one: the wrap
   * would map what the pointer held before the loop. (A scalar's
   * assignment is a write of its content.) */
  uint32_t base = w->items[j].base;
  if (base != NONE && w->at->ast->nodes[base].elem != OMPLENS_FIX__ELEM_UNKNOWN) {
    if (w->nothers == sizeof w->others / sizeof *w->others)
      return omplens_fix__fail(c, "the items name more than %zu variables",
                               sizeof w->others / sizeof *w->others);
    w->others_of[w->nothers] = j;
    w->others[w->nothers++] = base;
  }
  w->copies_dir[j] = s->dir;
  w->copies_item[j] = s->item;
  w->items[j].type = OMPLENS_MAP_ALLOC;
  for (size_t i = 0; i < w->set.n; i++) /* the host may use it: its copies stay */
    if (w->set.v[i] == w->items[j].base)
      w->set.v[i] = w->set.v[--w->set.n];
  return true;
}

/* A re-sent copy that the kernel changed had to be re-sent: for a
 * duplicate of a `to` item, the kernel may not write it. */
static bool kernel_keeps_it(omplens_fix__ctx *c, size_t k) {
  const omplens_fix__site *s = omplens_fix__site_at(c->g, k);
  const omplens_finding *f = &c->fx->findings[c->g->findings[k]];
  if (s->dir->kind == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA) {
    /* The kernels that use an enter data's mapping are other directives:
     * those that ran between its copies may not write it (each copy gave
     * them a fresh one). */
    omplens_fix__resends rs;
    const omplens_directive *writer;
    omplens_fix__resend_evidence(c->fx, c->g, OMPLENS_EV_H2D, &rs);
    return omplens_fix__kernels_leave(c, s, &rs, "a resident copy would keep its changes",
                                      &writer);
  }
  if (f->category != OMPLENS_CAT_DUPLICATE_SAME_BUFFER || !s->dir->body.file ||
      s->dir->items[s->item].map_type != OMPLENS_MAP_TO)
    return true;
  uint32_t vd = omplens_fix__ast_lookup(c->ast, s->var, omplens_fix__pragma_at(c, s->dir));
  size_t b, e;
  if (!omplens_fix__body_range(c, s->dir, &b, &e))
    return omplens_fix__fail(c, "the body of the directive at line %u is unknown",
                             s->dir->pragma.line);
  return omplens_fix__device_reads_only(c, s->dir, b, e, vd, s->dir->items[s->item].text,
                                        "a resident copy would keep its changes");
}

/* One wrap item per directive item of the group, placed before the loop. */
/* Whether the variable a declaration line of the fix declares ("auto N =
 * ...;" or "__typeof__(...) N = ...;") is named by an item of the wrap. */
static bool declared_used(const wrap *w, const char *line) {
  const char *eq = strstr(line, " = ");
  if (!eq)
    return true;
  const char *b = eq;
  while (b > line && omplens_fix__ident_char(b[-1]))
    b--;
  size_t n = (size_t)(eq - b);
  for (size_t i = 0; i < w->n; i++)
    for (const char *t = w->items[i].text; *t; t++)
      if (!strncmp(t, b, n) && !omplens_fix__ident_char(t[n]) && (t == w->items[i].text || !omplens_fix__ident_char(t[-1])))
        return true;
  return false;
}

/* Two items of one declared storage pointer with bounds written otherwise
 * (miniFE's `r_coefs[0:MIN(...)]` and `r_coefs[0:r_coefs_size]`): both
 * become the object's whole storage, `BASE[0:OBJ_size]` with `auto
 * OBJ_size = OBJ.size();`, which holds each kernel's section (a kernel
 * only reads inside the container). Only for a pointer the fix declares
 * from `&OBJ[0]` or `OBJ.data()` in C++; false otherwise. */
static bool whole_storage(wrap *w, size_t e, char **text, omplens_fix__buf *declaration) {
  size_t base_len = strcspn(*text, "[");
  char prefix[300];
  snprintf(prefix, sizeof prefix, "auto %.*s = ", (int)base_len, *text);
  const char *decl = w->declarations[e] ? strstr(w->declarations[e], prefix) : NULL;
  if (!decl || (decl != w->declarations[e] && decl[-1] != '\n'))
    return false;
  const char *init = decl + strlen(prefix);
  size_t len = strcspn(init, ";");
  char *object = NULL;
  if (len > 4 && init[0] == '&' && !strncmp(init + len - 3, "[0]", 3))
    object = strndup(init + 1, len - 4);
  else if (len > 7 && !strncmp(init + len - 7, ".data()", 7))
    object = strndup(init, len - 7);
  char *size = NULL, *name = NULL, *whole = NULL;
  bool ok = object && asprintf(&size, "%s.size()", object) >= 0 && (name = pointer_name(size)) &&
            asprintf(&whole, "%.*s[0:%s]", (int)base_len, *text, name) >= 0;
  if (ok) {
    char line[600];
    snprintf(line, sizeof line, "auto %s = %s;\n", name, size);
    omplens_fix__buf_str(declaration, line);
    size_t have = strlen(w->declarations[e]);
    char *more = realloc(w->declarations[e], have + strlen(line) + 1);
    ok = more != NULL;
    if (ok) {
      strcpy(more + have, line);
      w->declarations[e] = more;
      free(w->items[e].text);
      w->items[e].text = strdup(whole);
      free(*text);
      *text = whole;
      whole = NULL;
      ok = w->items[e].text && *text;
    }
  }
  free(object);
  free(size);
  free(name);
  free(whole);
  return ok;
}

/* Text that stays one operand beside + and - (parenthesized otherwise). */
static char *additive_operand(const char *t, bool subtracted) {
  bool bare = !t[strcspn(t, subtracted ? " +-<>&|^?:,=!~" : "<>&|^?:,=!~")];
  char *out = NULL;
  return asprintf(&out, bare ? "%s" : "(%s)", t) >= 0 ? out : NULL;
}

/* The run's extent of finding k's buffers, from the lowest host address
 * its operations copied to the highest end: [*lo, *end). With `rising`,
 * false unless the first operation in time is at the lowest address and
 * the last one ends at the highest, as the calls of a loop counting up
 * give (spanned_item). */
static bool run_extent(const omplens_fix__ctx *c, size_t k, bool rising, uint64_t *lo,
                       uint64_t *end) {
  const omplens_finding *f = &c->fx->findings[c->g->findings[k]];
  uint32_t first = UINT32_MAX, last = 0;
  *lo = UINT64_MAX, *end = 0;
  for (size_t i = 0; i < f->num_instances; i++) {
    uint32_t ev = f->instances[i].event;
    const omplens_event *e = ev < c->fx->num_events ? &c->fx->events[ev] : NULL;
    if (!e || !e->host_addr || !e->bytes)
      continue;
    *lo = e->host_addr < *lo ? e->host_addr : *lo;
    *end = e->host_addr + e->bytes > *end ? e->host_addr + e->bytes : *end;
    first = ev < first ? ev : first;
    last = ev > last ? ev : last;
  }
  if (first == UINT32_MAX)
    return false;
  const omplens_event *a = &c->fx->events[first], *b = &c->fx->events[last];
  return !rising || (a->host_addr == *lo && b->host_addr + b->bytes == *end);
}

/* Where finding k's item, placed as text, lies: *p from its first
 * subscript's bounds `base[lo:len]` (one subscript, nothing after) and the
 * finding's buffer in the run (with spans, the extent of its buffers: the
 * item spans a loop's sections); left unknown otherwise. */
static void note_span(omplens_fix__ctx *c, size_t k, const char *text, bool spans, span *p) {
  const omplens_finding *f = &c->fx->findings[c->g->findings[k]];
  subscript sub;
  *p = (span){0};
  /* one subscript, nothing after it, and none inside its length */
  if (!first_subscript(text, strcspn(text, "["), &sub) || *sub.at != ':' ||
      *sub.close != ']' || sub.close[1] || sub.close == sub.at + 1 ||
      memchr(sub.at + 1, '[', (size_t)(sub.close - sub.at - 1)) || !f->host_addr || !f->bytes)
    return;
  const char *lo = sub.lo, *colon = sub.at;
  size_t len = (size_t)(sub.close - colon);
  char *lo_text = sub.lo_end == lo ? strdup("0") : strndup(lo, (size_t)(sub.lo_end - lo));
  char *len_text = strndup(colon + 1, len - 1), *lo_op = NULL, *len_op = NULL;
  bool zero = lo_text && !strcmp(lo_text, "0");
  if (lo_text && len_text && (lo_op = additive_operand(lo_text, false)) &&
      (len_op = additive_operand(len_text, false)) &&
      asprintf(&p->end_text, zero ? "%.0s%s" : "%s + %s", lo_op, len_op) >= 0) {
    p->lo_text = lo_text;
    lo_text = NULL;
    p->lo_addr = f->host_addr;
    p->end_addr = f->host_addr + f->bytes;
    if (spans)
      run_extent(c, k, false, &p->lo_addr, &p->end_addr);
  } else {
    p->end_text = NULL;
  }
  free(lo_text);
  free(len_text);
  free(lo_op);
  free(len_op);
}

/* Item e of the wrap grown to hold another section of its base, text
 * (placed for finding k, whose buffer the run put elsewhere): one
 * construct maps one section of a base, so the item becomes the span of
 * both, from the first one's first element to the last one's end, as
 * the run laid them out in one object. False when either's bounds or
 * place is unknown. */
static bool span_item(omplens_fix__ctx *c, wrap *w, size_t e, size_t k, const char *text,
                      bool spans, int type) {
  span one, *have = &w->spans[e];
  note_span(c, k, text, spans, &one);
  bool ok = one.lo_text && have->lo_text;
  if (ok) {
    bool lower = one.lo_addr < have->lo_addr, further = one.end_addr > have->end_addr;
    const char *lo = lower ? one.lo_text : have->lo_text;
    const char *end = further ? one.end_text : have->end_text;
    char *sub = additive_operand(lo, true), *item = NULL;
    int b = (int)strcspn(text, "[");
    ok = sub && (strcmp(lo, "0") ? asprintf(&item, "%.*s[%s:%s - %s]", b, text, lo, end, sub)
                                 : asprintf(&item, "%.*s[0:%s]", b, text, end)) >= 0;
    free(sub);
    if (ok) {
      free(w->items[e].text);
      w->items[e].text = item;
      w->items[e].type = merged_type(w->items[e].type, type);
      if (lower) {
        free(have->lo_text);
        have->lo_text = one.lo_text, one.lo_text = NULL;
        have->lo_addr = one.lo_addr;
      }
      if (further) {
        free(have->end_text);
        have->end_text = one.end_text, one.end_text = NULL;
        have->end_addr = one.end_addr;
      }
    }
  }
  span_free(&one);
  return ok;
}

static bool leave(omplens_fix__ctx *c, size_t k, const char *why);

/* Notes that site s's item came by call (NONE: none), and the parameter
 * it comes from; false without memory. */
static bool note_call(omplens_fix__ctx *c, wrap *w, const omplens_fix__site *s, uint32_t call) {
  return call == NONE ||
         add_call(c, w, s, call,
                  omplens_fix__ast_lookup(c->ast, s->var, omplens_fix__pragma_at(c, s->dir)));
}

/* How often finding k's operations fall back to a lower address than the
 * one before, in time: where its item spans a loop's sections, each fall
 * starts the sections over. */
static size_t sections_start_over(const omplens_fix__ctx *c, size_t k) {
  const omplens_finding *f = &c->fx->findings[c->g->findings[k]];
  size_t falls = 0;
  uint64_t last = 0;
  for (size_t i = 0; i < f->num_instances; i++) {
    uint32_t ev = f->instances[i].event;
    uint64_t addr = ev < c->fx->num_events ? c->fx->events[ev].host_addr : 0;
    falls += addr && addr < last;
    last = addr ? addr : last;
  }
  return falls;
}

/* A spanned item of finding k, text, in a region around loop: where the
 * loop may run more than once and the run's sections start over, each run
 * of the loop is what sends them anew, and a region around it copies each
 * section in and back at each of its runs, as the directive does now. */
static bool runs_keep_sections(omplens_fix__ctx *c, const wrap *w, uint32_t loop, size_t k,
                               const char *text) {
  size_t falls;
  /* the finding's own operations first: whether the loop runs once reads
   * the whole tree for the calls of its function, and every finding of a
   * spanned item asks */
  if (!(falls = sections_start_over(c, k)) || omplens_fix__runs_once(w->at->ast, loop))
    return true;
  return omplens_fix__fail(c, "the loop at %s:%u may run more than once (it is nested, or its "
                              "function is called from a loop or several places), and the "
                              "run's sections of %s start over %zu times: a region around it "
                              "would copy each section in and back at each of its runs, as "
                              "the directive does now",
                           omplens_fix__short_name(w->at->file->path),
                           omplens_fix__ctx_line(w->at, w->at->ast->nodes[loop].begin), text,
                           falls);
}

/* The wrap item of finding k's item as the call `call` of its function
 * maps it (NONE: the directive's own loop): merged into the one already
 * there, or placed before the loop. */
static bool wrap_item(omplens_fix__ctx *c, wrap *w, uint32_t loop, size_t k, uint32_t call) {
  const omplens_fix__group *g = c->g;
  const omplens_fix__site *s = omplens_fix__site_at(g, k);
  const omplens_fix__ast *ca = w->at->ast;
  if (call != NONE && ca->nodes[call].begin < ca->nodes[w->from].begin)
    return omplens_fix__fail(c, "the run called it at %s:%u too, before the loop, where the "
                                "region cannot start",
                             omplens_fix__short_name(w->at->file->path),
                             omplens_fix__ctx_line(w->at, ca->nodes[call].begin));
  uint32_t wrapped = loop;
  loop = w->from; /* names must be known where the region starts */
  int type = wrap_type(c->fx, g, k, s->dir->items[s->item].map_type);
  size_t j = 0;
  while (j < w->n && !(w->first_of[j] != SEEDED && omplens_fix__site_at(g, w->first_of[j])->dir == s->dir &&
                       omplens_fix__site_at(g, w->first_of[j])->item == s->item && w->call_of[j] == call))
    j++;
  if (j < w->n) { /* another finding of an item already there; one only
                     kept allocated stays `alloc` (its directive copies) */
    if (w->spanned[j] && !runs_keep_sections(c, w, wrapped, k, w->items[j].text))
      return false;
    if (type == OMPLENS_MAP_TOFROM && !w->copies_dir[j])
      w->items[j].type = OMPLENS_MAP_TOFROM;
    return true;
  }
  if (w->n == WRAP_MAX)
    return omplens_fix__fail(c, "more than %d items", WRAP_MAX);
  size_t nv = 0;
  uint32_t base;
  omplens_fix__buf declaration = {0};
  bool spans = false;
  char *text = place_item(c, w->at, s, loop, call, &base, w->others + w->nothers, &nv,
                          sizeof w->others / sizeof *w->others - w->nothers, &declaration, &spans);
  if (!text || declaration.failed) {
    free(text);
    omplens_fix__buf_free(&declaration);
    return text ? omplens_fix__fail(c, "out of memory") : false;
  }
  uint64_t lo, end;
  bool placed = !spans ||
                (run_extent(c, k, true, &lo, &end)
                     ? runs_keep_sections(c, w, wrapped, k, text)
                     : omplens_fix__fail(c, "the run's sections of %s do not rise with its loop's "
                                            "counter, as the span written from the loop's bounds "
                                            "assumes", text));
  if (!placed) {
    free(text);
    omplens_fix__buf_free(&declaration);
    return false;
  }
  size_t base_len = strcspn(text, "[");
  for (size_t e = 0; e < w->n; e++) {
    if (strncmp(w->items[e].text, text, base_len) || w->items[e].text[base_len] != '[' ||
        text[base_len] != '[' || !strcmp(w->items[e].text, text) ||
        whole_storage(w, e, &text, &declaration))
      continue;
    /* sections of one base: the item becomes their span, where neither
     * needs a declaration nor keeps only its allocation */
    bool may_span = base == w->items[e].base && !declaration.len &&
                    (!w->declarations[e] || !*w->declarations[e]) && !w->copies_dir[e];
    if (!may_span || !span_item(c, w, e, k, text, spans, type)) {
      bool ok = omplens_fix__fail(c, "%s is the buffer of %s too, with bounds written "
                                     "otherwise: the source cannot tell they are equal",
                                  text, w->items[e].text);
      free(text);
      omplens_fix__buf_free(&declaration);
      return ok;
    }
    free(text);
    omplens_fix__buf_free(&declaration);
    return note_call(c, w, s, call) && resident_or_allocated(c, w, k, e);
  }
  w->declarations[w->n] = omplens_fix__buf_take(&declaration);
  for (size_t i = 0; i < nv; i++)
    w->others_of[w->nothers + i] = w->n;
  w->nothers += nv;
  w->first_of[w->n] = k;
  w->call_of[w->n] = call;
  w->vars[w->n] = s->var;
  note_span(c, k, text, spans, &w->spans[w->n]);
  w->spanned[w->n] = spans;
  w->items[w->n++] = (item_plan){text, base, type};
  add_set(&w->set, base);
  return note_call(c, w, s, call) && resident_or_allocated(c, w, k, w->n - 1);
}

/* One wrap item per directive item of the group and call it came by,
 * placed before the loop. */
/* Whether finding k's copies could go with a region around the loop: an
 * item mapped `always` is copied each time even where a region holds it
 * (mem2 of AMD's training examples), so only its allocations could. */
static bool copies_could_go(const omplens_fix__ctx *c, size_t k) {
  const omplens_fix__site *s = omplens_fix__site_at(c->g, k);
  return !omplens_fix__maps_always(s) ||
         c->fx->findings[c->g->findings[k]].category == OMPLENS_CAT_REPEATED_ALLOC;
}

static bool copies_can_go(omplens_fix__ctx *c, size_t k) {
  const omplens_fix__site *s = omplens_fix__site_at(c->g, k);
  if (copies_could_go(c, k))
    return true;
  return omplens_fix__fail(c,
                           "%s is mapped `always` at line %u: a region around the loop "
                           "would remove none of its copies",
                           s->dir->items[s->item].text, s->dir->pragma.line);
}

static bool wrap_items(omplens_fix__ctx *c, wrap *w, uint32_t loop) {
  const omplens_fix__group *g = c->g;
  for (size_t k = 0; k < g->num_findings; k++) {
    const omplens_fix__site *s = omplens_fix__site_at(g, k);
    if (g->left && g->left[k])
      continue;
    w->culprit = k;
    if (!copies_can_go(c, k) || !wrap_item(c, w, loop, k, s->call))
      return false;
    for (size_t i = 0; i < s->num_more_calls; i++)
      if (!wrap_item(c, w, loop, k, s->more_calls[i]))
        return false;
    if (!kernel_keeps_it(c, k))
      return false;
  }
  w->culprit = SIZE_MAX;
  return true;
}


/* The parameters of w's items that function fn's code (c's tree) can
 * name: those declared in it, a run of w->params (a function's nodes are
 * its subtree's), and those at file scope; false when they are more than
 * a set holds. */
static bool params_of(omplens_fix__ctx *c, const wrap *w, uint32_t fn, varset *out) {
  const omplens_fix__ast *a = c->ast;
  size_t lo, hi;
  omplens_fix__u32_place(w->params, w->nparams, fn, &lo);
  omplens_fix__u32_place(w->params, w->nparams, omplens_fix__ast_end(a, fn), &hi);
  out->n = 0;
  for (size_t i = 0; i < w->nparams; i++) {
    if ((i < lo || i >= hi) && !a->nodes[w->params[i]].global)
      continue;
    if (out->n == sizeof out->v / sizeof *out->v)
      return omplens_fix__fail(c, "the items come from more than %zu parameters of %s()",
                               sizeof out->v / sizeof *out->v, omplens_fix__ast_name(a, fn));
    out->v[out->n++] = w->params[i];
  }
  return true;
}

/* The code of each function the loop's calls call, once each (many calls
 * may call one), leaves the parameters alone; ex has room for 64 ranges. */
static bool callees_leave_params(omplens_fix__ctx *c, const wrap *w, range *ex) {
  if (!w->ncalls)
    return true; /* the directives' own loop: no function is called */
  uint32_t *fns = malloc(w->ncalls * sizeof *fns);
  if (!fns)
    return omplens_fix__fail(c, "out of memory");
  memcpy(fns, w->callees, w->ncalls * sizeof *fns);
  qsort(fns, w->ncalls, sizeof *fns, omplens_fix__cmp_u32);
  bool ok = true;
  for (size_t i = 0; ok && i < w->ncalls; i++) {
    if (i && fns[i] == fns[i - 1])
      continue;
    const char *name = omplens_fix__ast_name(c->ast, fns[i]);
    const omplens_fix__node *f = &c->ast->nodes[fns[i]];
    bool reassigned = false;
    varset params;
    size_t nex = device_bodies(c, f->begin, f->end, ex, 64);
    ok = params_of(c, w, fns[i], &params) &&
         host_uses(c, f->begin, f->end, ex, nex, &params, &reassigned,
                   omplens_fix__ownf(c->fx, "in %s()", name), 0);
    if (ok && reassigned)
      ok = omplens_fix__fail(c, "the parameters are reassigned in %s()", name);
  }
  free(fns);
  return ok;
}

/* The wrap's item whose base is declaration d, kept resident (not only
 * allocated), or SIZE_MAX. */
static size_t resident_item_of(const wrap *w, uint32_t d) {
  for (size_t j = 0; j < w->n; j++)
    if (w->items[j].base == d && !w->copies_dir[j])
      return j;
  return SIZE_MAX;
}

/* Whether node j (host code of w's region) may have a kernel change w's
 * buffers: a call of one of w's functions, a buffer given to a call, or
 * any call where a buffer is a global. */
static bool may_reach(const wrap *w, uint32_t j) {
  const omplens_fix__ast *a = w->at->ast;
  const omplens_fix__node *n = &a->nodes[j];
  uint32_t other;
  if (n->kind == OMPLENS_FIX__N_DECLREF) { /* (an earlier wrap's items are not in the set) */
    bool buffer = in_set(&w->set, n->ref);
    for (size_t i = 0; i < w->n && !buffer; i++)
      buffer = w->items[i].base == n->ref;
    return buffer && omplens_fix__ast_use(a, j, &other) == OMPLENS_FIX__USE_ESCAPE &&
           !(other != NONE && a->nodes[other].kind == OMPLENS_FIX__N_CALL &&
             callee_reads_only(w->at, other, j)); /* a read, after the update */
  }
  if (n->kind != OMPLENS_FIX__N_CALL)
    return false;
  for (size_t k = 0; k < w->ncalls; k++)
    if (w->calls[k] == j)
      return true;
  for (size_t k = 0; k < w->set.n; k++)
    if (a->nodes[w->set.v[k]].global)
      return true;
  return false;
}

/* " if(COND)" for an update that repeats condition cond (read_condition),
 * "" for NONE; caller frees; NULL without memory. */
static char *if_clause(const omplens_fix__ctx *at, uint32_t cond) {
  char *test = cond != NONE ? omplens_fix__ast_text(at->ast, at->src, cond) : NULL, *out = NULL;
  if (cond != NONE && !test)
    return NULL;
  if (asprintf(&out, "%s%s%s", test ? " if(" : "", test ? test : "", test ? ")" : "") < 0)
    out = NULL;
  free(test);
  return out;
}

/* Whether the code of node n (its subtree) holds nothing that may reach
 * w's buffers (may_reach). */
static bool reaches_nothing(const wrap *w, uint32_t n) {
  for (uint32_t i = n; i < omplens_fix__ast_end(w->at->ast, n); i++)
    if (may_reach(w, i))
      return false;
  return true;
}

/* The statement before which the update for a read in statement st goes:
 * st, or the outermost host loop around it inside the wrapped loop whose
 * code reaches none of the buffers, so that a loop summing a field makes
 * one update, not one per element. */
static uint32_t out_of_host_loops(const wrap *w, uint32_t st, uint32_t loop) {
  const omplens_fix__ast *a = w->at->ast;
  uint32_t best = st;
  for (uint32_t p = a->nodes[st].parent; p != NONE && p != loop; p = a->nodes[p].parent) {
    if (a->nodes[p].kind == OMPLENS_FIX__N_FUNCTION)
      break;
    if (!omplens_fix__ast_is_loop(a->nodes[p].kind))
      continue;
    if (!reaches_nothing(w, p))
      break;
    best = omplens_fix__statement_of(a, p);
  }
  return best;
}

/* Whether each host read noted from reads[from] on may follow a `target
 * update from` of its item: the read's base is an item kept resident, and
 * its statement (out_of_host_loops), in the region, has its lines to
 * itself and holds no kernel and nothing that may reach the buffers
 * (may_reach), so that nothing writes the item on the device between the
 * update and the read. */
static bool read_updates(omplens_fix__ctx *c, wrap *w, uint32_t loop, size_t from, size_t begin,
                         size_t end, const range *ex, size_t nex) {
  omplens_fix__ctx *at = w->at;
  const omplens_fix__ast *a = at->ast;
  for (size_t k = from; k < w->reads.n; k++) {
    uint32_t st = out_of_host_loops(w, w->reads.stmt[k], loop), d = w->reads.base[k];
    if (st != w->reads.stmt[k]) /* before a loop: whatever the branch */
      w->reads.cond[k] = NONE;
    w->reads.stmt[k] = st;
    size_t again = SIZE_MAX; /* two reads of one loop: one update before it */
    for (size_t j = 0; j < k && again == SIZE_MAX; j++)
      again = w->reads.stmt[j] == st && w->reads.base[j] == d ? j : SIZE_MAX;
    if (again != SIZE_MAX) {
      if (w->reads.cond[again] != w->reads.cond[k])
        w->reads.cond[again] = NONE;
      size_t rest = w->reads.n - k - 1;
      memmove(&w->reads.stmt[k], &w->reads.stmt[k + 1], rest * sizeof *w->reads.stmt);
      memmove(&w->reads.base[k], &w->reads.base[k + 1], rest * sizeof *w->reads.base);
      memmove(&w->reads.cond[k], &w->reads.cond[k + 1], rest * sizeof *w->reads.cond);
      w->reads.n--;
      k--;
      continue;
    }
    const omplens_fix__node *n = &a->nodes[st];
    unsigned first, last, line = omplens_fix__ctx_line(at, n->begin);
    bool ok = resident_item_of(w, d) != SIZE_MAX && n->begin >= begin && n->end <= end &&
              omplens_fix__own_lines(at, st, &first, &last);
    for (size_t e = 0; ok && e < nex; e++)
      ok = ex[e].end <= n->begin || ex[e].begin >= n->end;
    ok = ok && reaches_nothing(w, st);
    if (!ok) {
      at->blamed = d;
      return omplens_fix__fail(c, "the host reads %s at line %u, %s", omplens_fix__ast_name(a, d),
                               line, "where a `target update from` could not go right before");
    }
  }
  return true;
}

/* The host code of the loop (and, lifted, of the function) leaves the
 * buffers alone, or, where the wrap lets it (reads_ok), only reads them
 * where an update can go before (read_updates). */
static bool wrap_host_checks(omplens_fix__ctx *c, wrap *w, uint32_t loop) {
  omplens_fix__ctx *at = w->at;
  const omplens_fix__node *l = &at->ast->nodes[loop];
  size_t from = at->ast->nodes[w->from].begin; /* the region: the loop, or from before it */
  size_t cap = 64 + w->ncalls + (loop - w->from);
  range *ex = malloc(cap * sizeof *ex);
  if (!ex)
    return omplens_fix__fail(c, "out of memory");
  size_t nex = device_bodies(at, from, l->end, ex, 64);
  for (size_t i = 0; i < w->ncalls; i++)
    ex[nex++] = (range){at->ast->nodes[w->calls[i]].begin, at->ast->nodes[w->calls[i]].end};
  /* before the loop, the other calls of the wrapped functions (their host
   * code is checked below, as for the calls that brought the findings) */
  for (uint32_t i = w->from; i < loop; i++)
    for (size_t k = 0; k < w->ncalls && at->ast->nodes[i].kind == OMPLENS_FIX__N_CALL; k++)
      if (calls_function(at->file, i, omplens_fix__ast_name(c->ast, w->callees[k]))) {
        ex[nex++] = (range){at->ast->nodes[i].begin, at->ast->nodes[i].end};
        break;
      }
  size_t seeded = w->reads.n;
  at->reads = w->reads_ok ? &w->reads : NULL;
  bool ok = host_uses(at, from, l->end, ex, nex, &w->set, &w->swapped,
                      w->from == loop ? "inside the loop" : "in the region", 0);
  at->reads = NULL;
  ok = ok && read_updates(c, w, loop, seeded, from, l->end, ex, nex) && callees_leave_params(c, w, ex) &&
       unchanged(at, from, l->end, w->others, w->nothers);
  free(ex);
  return ok;
}

/* s without its line end, for a summary. */
static int line_len(const char *s) {
  size_t len = strlen(s);
  return (int)(len && s[len - 1] == '\n' ? len - 1 : len);
}

#define SUMMARY_CALLS 8 /* calls a summary names */

static void resident_summary(omplens_fix__ctx *c, const wrap *w, const char *pragma,
                             const char *exit, uint32_t loop) {
  omplens_fix__group *g = c->g;
  omplens_fix__ctx *at = w->at;
  unsigned line = omplens_fix__ctx_line(at, at->ast->nodes[loop].begin);
  omplens_fix__buf_str(&g->summary, "keep ");
  size_t distinct = 0, said = 0;
  for (size_t i = 0; i < w->n; i++)
    distinct += !same_as_earlier(w, i);
  for (size_t i = 0; i < w->n; i++)
    if (!same_as_earlier(w, i)) {
      omplens_fix__buf_printf(&g->summary, "%s%s",
                              said ? (said + 1 == distinct ? " and " : ", ") : "",
                              w->items[i].text);
      said++;
    }
  omplens_fix__buf_printf(&g->summary, " on the device across the loop at %s:%u",
                          omplens_fix__short_name(at->file->path), line);
  if (w->from != loop)
    omplens_fix__buf_printf(&g->summary, " and the code before it from line %u",
                            omplens_fix__ctx_line(at, at->ast->nodes[w->from].begin));
  /* the calls named: all of a few, the first of many */
  size_t named = w->ncalls <= SUMMARY_CALLS ? w->ncalls : SUMMARY_CALLS - 1;
  for (size_t i = 0; i < named; i++)
    omplens_fix__buf_printf(&g->summary, "%s%s() on line %u",
                            i ? (i + 1 == w->ncalls ? " and " : ", ")
                              : (w->ncalls > 1 ? " (around the calls of " : " (around the call of "),
                            omplens_fix__ast_name(c->ast, w->callees[i]),
                            omplens_fix__ctx_line(at, at->ast->nodes[w->calls[i]].begin));
  if (named < w->ncalls)
    omplens_fix__buf_printf(&g->summary, " and %zu more calls", w->ncalls - named);
  if (w->ncalls)
    omplens_fix__buf_str(&g->summary, ")");
  if (!exit)
    omplens_fix__buf_printf(&g->summary, ": wrap it in `%.*s`", line_len(pragma), pragma);
  else {
    omplens_fix__buf_printf(&g->summary, ": map them with `%.*s` before it, and unmap them "
                                         "with `%.*s` after the loop",
                            line_len(pragma), pragma, line_len(exit), exit);
    for (size_t i = 0; i < w->nreturns; i++)
      omplens_fix__buf_printf(&g->summary, "%s line %u",
                              i ? (i + 1 == w->nreturns ? " and" : ",") : " and before the return on",
                              omplens_fix__ctx_line(at, at->ast->nodes[w->returns[i]].begin));
    omplens_fix__buf_str(&g->summary, w->nreturns ? " that leave it (a `target data` region "
                                                    "cannot be left by return)"
                                                  : " (a `target data` region would take one "
                                                    "statement)");
  }
  for (size_t i = 0; i < w->n; i++)
    if (w->copies_dir[i] && !same_as_earlier(w, i))
      omplens_fix__buf_printf(&g->summary, "; %s is only kept allocated: the host changes it "
                                           "between iterations, so the directive at line %u "
                                           "still copies it, each time (`always`)",
                              w->items[i].text, w->copies_dir[i]->pragma.line);
  /* the items kept only allocated are copied each time: the assumption
   * is about the others */
  size_t copied = 0, resident = 0;
  for (size_t i = 0; i < w->n; i++)
    if (!same_as_earlier(w, i))
      w->copies_dir[i] ? copied++ : resident++;
  const char *which = copied ? (resident > 1 ? "the other buffers" : "the other buffer")
                             : "these buffers";
  if (resident && w->reads.n)
    omplens_fix__buf_printf(&g->summary, "; this assumes the host does not write %s inside the "
                                         "loop and reads them only after the updates below "
                                         "(else add `target update` there), as far as the "
                                         "loop's source shows for these variables",
                            which);
  else if (resident)
    omplens_fix__buf_printf(&g->summary, "; this assumes the host neither reads nor writes %s "
                                         "inside the loop (else add `target update` there), as "
                                         "far as the loop's source shows for these variables",
                            which);
  for (size_t k = 0; k < w->reads.n; k++) {
    size_t i = resident_item_of(w, w->reads.base[k]);
    char *test = i != SIZE_MAX ? if_clause(at, w->reads.cond[k]) : NULL;
    if (test)
      omplens_fix__buf_printf(&g->summary, "; the host reads %s at line %u: `#pragma omp target "
                                           "update from(%s)%s` before it brings it back (a copy "
                                           "the predicted savings do not count)",
                              omplens_fix__ast_name(at->ast, w->reads.base[k]),
                              omplens_fix__ctx_line(at, at->ast->nodes[w->reads.stmt[k]].begin),
                              w->items[i].text, test);
    free(test);
  }
  static const char *const runs[] = {
      [OMPLENS_FIX__RUNS_NESTED] = "the loop is nested in another, so",
      [OMPLENS_FIX__RUNS_AGAIN] = "its function is called from a loop or from several places, so",
      [OMPLENS_FIX__RUNS_UNKNOWN] = "if its function runs more than once (its calls are in other "
                                    "files),"};
  int how = omplens_fix__loop_runs(at->ast, loop);
  if (how != OMPLENS_FIX__RUNS_ONCE)
    omplens_fix__buf_printf(&g->summary, "; %s the region copies these items in and back at "
                                         "each of its runs, and the predicted savings count "
                                         "only the first copy in and the last copy back of the "
                                         "whole recorded run",
                            runs[how]);
}

/* Adds `always` to the map of each allocation-only item in its directive,
 * so that it still copies the item each time it finds it present. */
static bool always_copies(omplens_fix__ctx *c, const wrap *w) {
  for (size_t i = 0; i < w->n; i++) {
    if (!w->copies_dir[i] || same_as_earlier(w, i))
      continue;
    const omplens_fix__site s = {.dir = w->copies_dir[i], .item = w->copies_item[i]};
    omplens_fix__pragma p;
    if (!omplens_fix__scan_site(w->at, &s, &p)) /* the directive is in the loop's file */
      return false;
    char type[32];
    snprintf(type, sizeof type, "always, %s", omplens_map_type_name(s.dir->items[s.item].map_type));
    const char *why = omplens_fix__pragma_set_type(w->at->src, &p, s.item, type, &c->g->edits);
    omplens_fix__pragma_free(&p);
    if (why)
      return omplens_fix__fail(c, "%s", why);
  }
  return true;
}

/* Whether the host's copy of w's item i is current when the loop ends: a
 * read the wrap updates it before is a statement of the loop's own body
 * after which the body runs no kernel and nothing that may reach the
 * buffers (may_reach), nothing in the loop leaves an iteration early, and
 * the region starts at the loop. Then the region need not copy it back at
 * its end. */
static bool updated_last(const wrap *w, uint32_t loop, size_t i) {
  omplens_fix__ctx *at = w->at;
  const omplens_fix__ast *a = at->ast;
  if (w->from != loop)
    return false; /* calls before the loop may write it, and the loop not run */
  for (uint32_t k = loop; k < omplens_fix__ast_end(a, loop); k++) {
    int kind = a->nodes[k].kind;
    if (kind == OMPLENS_FIX__N_BREAK || kind == OMPLENS_FIX__N_CONTINUE ||
        kind == OMPLENS_FIX__N_GOTO || kind == OMPLENS_FIX__N_RETURN)
      return false;
  }
  for (size_t k = 0; k < w->reads.n; k++) {
    uint32_t st = w->reads.stmt[k], body = a->nodes[st].parent;
    if (resident_item_of(w, w->reads.base[k]) != i || body == NONE ||
        a->nodes[body].parent != loop || w->reads.cond[k] != NONE) /* not at every step */
      continue;
    bool quiet = true;
    for (uint32_t j = omplens_fix__ast_end(a, st); quiet && j < omplens_fix__ast_end(a, body); j++)
      quiet = !may_reach(w, j);
    range r[1];
    if (quiet && !device_bodies(at, a->nodes[st].end, a->nodes[body].end, r, 1))
      return true;
  }
  return false;
}

/* Puts `#pragma omp target update from(...)` before each statement where
 * the host reads the wrap's items (read_updates), naming those it reads. */
static bool emit_updates(omplens_fix__ctx *c, const wrap *w) {
  omplens_fix__ctx *at = w->at;
  for (size_t k = 0; k < w->reads.n; k++) {
    uint32_t st = w->reads.stmt[k];
    bool earlier = false, named[WRAP_MAX] = {false};
    for (size_t j = 0; j < k; j++)
      earlier |= w->reads.stmt[j] == st;
    if (earlier)
      continue;
    omplens_fix__buf b = {0};
    omplens_fix__buf_str(&b, "#pragma omp target update from(");
    size_t n = 0;
    uint32_t cond = w->reads.cond[k];
    for (size_t j = k; j < w->reads.n; j++) {
      size_t i = w->reads.stmt[j] == st ? resident_item_of(w, w->reads.base[j]) : SIZE_MAX;
      if (i != SIZE_MAX && !named[i]) {
        omplens_fix__buf_printf(&b, "%s%s", n++ ? ", " : "", w->items[i].text);
        named[i] = true;
      }
      if (w->reads.stmt[j] == st && w->reads.cond[j] != cond)
        cond = NONE;
    }
    char *test = if_clause(at, cond);
    omplens_fix__buf_printf(&b, ")%s\n", test ? test : "");
    b.failed |= !test;
    free(test);
    unsigned line = statement_line(at, st);
    size_t start, ind = omplens_fix__indent(at->src, line, &start);
    if (!b.failed && n)
      omplens_fix__insert_lines(&c->g->edits, at->src, line, at->src->text + start, ind, b.data);
    bool failed = b.failed;
    omplens_fix__buf_free(&b);
    if (failed)
      return omplens_fix__fail(c, "out of memory");
  }
  return true;
}

/* The wrapping line before the loop, the summary and the confidence. */
static bool wrap_emit(omplens_fix__ctx *c, wrap *w, uint32_t loop) {
  omplens_fix__group *g = c->g;
  if (w->swapped) /* pointers trade buffers: each may end up holding results */
    for (size_t i = 0; i < w->n; i++)
      w->items[i].type = OMPLENS_MAP_TOFROM;
  merge_types(w);
  for (size_t i = 0; i < w->n; i++) /* the last update brings it back */
    if (updated_last(w, loop, i))
      w->items[i].type = w->items[i].type == OMPLENS_MAP_TOFROM ? OMPLENS_MAP_TO
                         : w->items[i].type == OMPLENS_MAP_FROM ? OMPLENS_MAP_ALLOC
                                                                : w->items[i].type;
  char *exit = NULL, *pragma = wrap_directive(w, loop, &exit);
  if (!pragma || ((w->nreturns || w->from != loop) && !exit)) {
    free(pragma);
    return omplens_fix__fail(c, "out of memory");
  }
  omplens_fix__ctx *at = w->at;
  const omplens_fix__node *l = &at->ast->nodes[loop];
  /* Above the OpenMP directives that own the statement (if any): the
   * declarations indented as the statement is, the directive as the line
   * it goes before. */
  unsigned line = statement_line(at, w->from);
  size_t start, ind = omplens_fix__indent(at->src, line, &start);
  size_t dstart, dind = omplens_fix__indent(
      at->src, omplens_fix__ctx_line(at, at->ast->nodes[w->from].begin), &dstart);
  omplens_fix__buf before = {0};
  omplens_fix__buf_str(&before, "");
  for (size_t i = 0; i < w->n; i++) /* each declared variable once, if an item uses it */
    for (const char *d = w->declarations[i]; d && *d;) {
      size_t len = strcspn(d, "\n") + 1;
      char *one = strndup(d, len);
      if (one && !strstr(before.data, one) && declared_used(w, one))
        omplens_fix__buf_str(&before, one);
      free(one);
      d += len;
    }
  if (before.failed) {
    omplens_fix__buf_free(&before);
    free(pragma);
    free(exit);
    return omplens_fix__fail(c, "out of memory");
  }
  if (before.len)
    omplens_fix__insert_lines(&g->edits, at->src, line, at->src->text + dstart, dind, before.data);
  omplens_fix__insert_lines(&g->edits, at->src, line, at->src->text + start, ind, pragma);
  omplens_fix__buf_free(&before);
  if (exit) {
    omplens_fix__insert_lines(&g->edits, at->src, omplens_fix__ctx_line(at, l->end - 1) + 1,
                              at->src->text + start, ind, exit);
    for (size_t i = 0; i < w->nreturns; i++) {
      unsigned rl = omplens_fix__ctx_line(at, at->ast->nodes[w->returns[i]].begin);
      size_t rstart, rind = omplens_fix__indent(at->src, rl, &rstart);
      omplens_fix__insert_lines(&g->edits, at->src, rl, at->src->text + rstart, rind, exit);
    }
  }
  if (!always_copies(c, w) || !emit_updates(c, w)) {
    free(pragma);
    free(exit);
    return false;
  }
  resident_summary(c, w, pragma, exit, loop);
  free(pragma);
  free(exit);
  bool global = false;
  for (size_t i = 0; i < w->set.n; i++)
    global |= at->ast->nodes[w->set.v[i]].global;
  /* a check that rests on an object's name (same_storage) said so */
  bool by_name = g->note.data && strstr(g->note.data, "in another function");
  g->confidence = global || by_name ? OMPLENS_FIXC_ASSUMED : OMPLENS_FIXC_CHECKED;
  if (global)
    omplens_fix__buf_str(&g->note, "the buffers are globals: the functions called in the loop "
                                   "must not touch them on the host");
  g->kind = w->ncalls ? OMPLENS_FIX_KEEP_RESIDENT_CALLER : OMPLENS_FIX_KEEP_RESIDENT;
  return true;
}

/* Where the wrap starts: the loop, or the first statement of its block
 * before it that calls a function the wrap's items come through (a first
 * call before the loop: cg_solve.hpp's `matvec(A, p, Ap)` before its CG
 * loop, a warm-up step), so that the data is mapped once for all calls. */
static uint32_t region_start(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t loop) {
  const omplens_fix__ast *a = at->ast;
  uint32_t block = a->nodes[loop].parent, from = loop;
  if (block == NONE)
    return loop;
  /* every wrap of this loop, whatever file its directives are in: they
   * start alike, so that a later one can take in an earlier one's items */
  for (size_t gi = 0; gi < c->fx->num_groups; gi++) {
    const omplens_fix__group *g = &c->fx->groups[gi];
    if (g != c->g && (g->edit_file != at->file || g->loop != loop ||
                      (g->kind != OMPLENS_FIX_KEEP_RESIDENT &&
                       g->kind != OMPLENS_FIX_KEEP_RESIDENT_CALLER)))
      continue;
    for (size_t k = 0; k < g->num_findings; k++) {
      const omplens_fix__site *s = omplens_fix__site_at(g, k);
      const char *why;
      if (s->call == NONE || (g->left && g->left[k]) || !s->file || !s->dir ||
          !omplens_fix__file_ast(c->fx, s->file, &why))
        continue;
      const omplens_fix__ast *sa = &s->file->ast;
      size_t p = omplens_fix__offset(&s->file->src, s->dir->pragma.line, s->dir->pragma.column);
      const char *name = omplens_fix__ast_name(sa, omplens_fix__ast_function_at(sa, p));
      for (uint32_t i = block + 1; i < loop; i++) /* the block's statements before the loop */
        if (a->nodes[i].kind == OMPLENS_FIX__N_CALL && calls_function(at->file, i, name)) {
          uint32_t st = omplens_fix__statement_of(a, i);
          if (st != NONE && a->nodes[st].parent == block &&
              a->nodes[st].begin < a->nodes[from].begin)
            from = st;
          break;
        }
    }
  }
  /* `TICK(); r = f(x); TOCK();`: the line's first statement takes the line before it */
  unsigned line = omplens_fix__ctx_line(at, a->nodes[from].begin);
  for (uint32_t i = block + 1; from != loop && i < from; i = omplens_fix__ast_end(a, i))
    if (a->nodes[i].parent == block && omplens_fix__ctx_line(at, a->nodes[i].begin) == line) {
      from = i;
      break;
    }
  return from;
}

/* The finding whose item the failed check blamed: the one it was
 * checking, or the item whose base, other variables or (lifted) parameter
 * is the declaration it blamed; SIZE_MAX when it blamed none. */
static size_t blamed_finding(omplens_fix__ctx *c, const wrap *w) {
  if (w->culprit != SIZE_MAX)
    return w->culprit == SEEDED ? SIZE_MAX : w->culprit;
  uint32_t d = c->blamed != NONE ? c->blamed : w->at->blamed;
  if (d == NONE)
    return SIZE_MAX;
  for (size_t j = 0; j < w->n; j++)
    if (w->items[j].base == d)
      return w->first_of[j] == SEEDED ? SIZE_MAX : w->first_of[j];
  for (size_t i = 0; i < w->nothers; i++)
    if (w->others[i] == d)
      return w->first_of[w->others_of[i]] == SEEDED ? SIZE_MAX : w->first_of[w->others_of[i]];
  for (size_t j = 0; j < w->n; j++) {
    if (w->first_of[j] == SEEDED)
      continue;
    const omplens_fix__site *s = omplens_fix__site_at(c->g, w->first_of[j]);
    if (s->call != NONE &&
        omplens_fix__ast_lookup(c->ast, s->var, omplens_fix__pragma_at(c, s->dir)) == d)
      return w->first_of[j];
  }
  return SIZE_MAX;
}

/* Leaves finding k's item out of the wrap, with every finding of it; false
 * when no other item would remain (or out of memory). */
static bool leave(omplens_fix__ctx *c, size_t k, const char *why) {
  omplens_fix__group *g = c->g;
  if (!g->left && !(g->left = calloc(g->num_findings, sizeof *g->left)))
    return false;
  if (!omplens_fix__group_items(g))
    return false;
  size_t leaving = 0;
  for (size_t j = g->item_first[k]; j != SIZE_MAX; j = g->item_next[j])
    leaving += !g->left[j];
  /* the last item stays, and the group fails for it */
  if (g->num_left + leaving >= g->num_findings)
    return false;
  const char *reason = omplens_fix__ownf(c->fx, "%s", why);
  if (!reason)
    return false;
  for (size_t j = g->item_first[k]; j != SIZE_MAX; j = g->item_next[j])
    if (!g->left[j])
      g->left[j] = reason;
  g->num_left += leaving;
  return true;
}

/* One try at the wrap of region [from, end of loop]: leaves out the item
 * each failed check blames, until one passes (true, edits made) or none is
 * left (false, the group manual). */
/* The latest earlier wrap of this loop from this statement that no other
 * took in yet: its items start this wrap (one wrap a loop). */
static omplens_fix__group *earlier_wrap(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t loop,
                                        uint32_t from) {
  for (size_t gi = (size_t)(c->g - c->fx->groups); gi-- > 0;) {
    omplens_fix__group *g = &c->fx->groups[gi];
    if (g->num_kept && g->joined == SIZE_MAX && g->edit_file == at->file && g->loop == loop &&
        g->kept_from == from &&
        (g->kind == OMPLENS_FIX_KEEP_RESIDENT || g->kind == OMPLENS_FIX_KEEP_RESIDENT_CALLER))
      return g;
  }
  return NULL;
}

static bool seed(wrap *w, const omplens_fix__group *g) {
  size_t before = w->n;
  for (size_t i = 0; i < g->num_kept && w->n < WRAP_MAX; i++) {
    const omplens_fix__kept *k = &g->kept[i];
    char *text = strdup(k->text), *decl = k->declaration ? strdup(k->declaration) : NULL;
    if (!text || (k->declaration && !decl)) {
      free(text);
      free(decl);
      return false;
    }
    w->items[w->n] = (item_plan){text, k->base, k->type};
    w->declarations[w->n] = decl;
    w->copies_dir[w->n] = k->copies_dir;
    w->copies_item[w->n] = k->copies_item;
    w->spans[w->n] = span_copy(&k->span);
    w->first_of[w->n] = SEEDED;
    w->call_of[w->n] = NONE;
    w->vars[w->n++] = NULL;
    /* not in w->set: the earlier wrap checked the host code of the same
     * region for them, leaving out the calls of its own functions */
  }
  for (size_t k = 0; k < g->kept_reads.n; k++) /* its updates go with its items */
    if (w->reads.n < OMPLENS_FIX__READS) {
      w->reads.stmt[w->reads.n] = g->kept_reads.stmt[k];
      w->reads.cond[w->reads.n] = g->kept_reads.cond[k];
      w->reads.base[w->reads.n++] = g->kept_reads.base[k];
    }
  return w->n - before == g->num_kept;
}

/* Whether the k-th hoist (fx->hoisted) is an allocation hoisted out of
 * this loop, from this statement, that no wrap took in yet: a wrap of the
 * loop takes its item in, `alloc`, so that one region maps it with the
 * others (two changes before one loop could not both be in a patch). */
static bool hoisted_here(const omplens_fix__ctx *c, size_t k, const omplens_fix__ctx *at,
                         uint32_t loop, uint32_t from) {
  const omplens_fix__group *h = &c->fx->groups[c->fx->hoisted[k]];
  return h->joined == SIZE_MAX && h->edit_file == at->file && h->loop == loop &&
         h->kept_from == from;
}

/* Seeds w with the allocations hoisted out of this loop, in the order of
 * their items in their directive (then of their groups). */
static bool seed_hoists(const omplens_fix__ctx *c, const omplens_fix__ctx *at, wrap *w,
                        uint32_t loop, uint32_t from) {
  const omplens_fix__group *gs = c->fx->groups;
  size_t *order = malloc((c->fx->num_hoisted + 1) * sizeof *order), n = 0;
  if (!order)
    return false;
  for (size_t j = 0; j < c->fx->num_hoisted; j++) {
    if (!hoisted_here(c, j, at, loop, from))
      continue;
    size_t i = c->fx->hoisted[j], k = n++; /* insertion: hoists of one loop are few */
    while (k && gs[order[k - 1]].site.dir == gs[i].site.dir &&
           gs[order[k - 1]].site.item > gs[i].site.item) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = i;
  }
  bool ok = true;
  for (size_t k = 0; ok && k < n; k++)
    ok = seed(w, &gs[order[k]]);
  free(order);
  return ok;
}

static bool any_hoisted_here(const omplens_fix__ctx *c, const omplens_fix__ctx *at, uint32_t loop,
                             uint32_t from) {
  for (size_t k = 0; k < c->fx->num_hoisted; k++)
    if (hoisted_here(c, k, at, loop, from))
      return true;
  return false;
}

/* Keeps the built wrap's items on its group, for a later wrap of the loop. */
static void keep(omplens_fix__group *g, const wrap *w) {
  omplens_fix__kept_free(g);
  g->kept = calloc(w->n ? w->n : 1, sizeof *g->kept);
  for (size_t i = 0; g->kept && i < w->n; i++) {
    omplens_fix__kept *k = &g->kept[g->num_kept];
    k->text = strdup(w->items[i].text);
    k->declaration = w->declarations[i] ? strdup(w->declarations[i]) : NULL;
    k->base = w->items[i].base;
    k->type = w->items[i].type;
    k->copies_dir = w->copies_dir[i];
    k->copies_item = w->copies_item[i];
    k->span = span_copy(&w->spans[i]);
    if (!k->text || (w->declarations[i] && !k->declaration)) {
      span_free(&k->span);
      free(k->text);
      free(k->declaration);
      break; /* out of memory: what was kept is still right */
    }
    g->num_kept++;
  }
  g->kept_from = w->from;
  g->kept_reads = w->reads;
}

static bool wrap_region(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t loop, uint32_t from,
                        omplens_fix__group *earlier, bool hoists, bool whole) {
  uint32_t returns[16];
  size_t nreturns = 0;
  /* where every item is copied each time (`always`), no region helps,
   * however the loop is left: that reason, and its recipe, first */
  bool helps = false;
  for (size_t k = 0; k < c->g->num_findings && !helps; k++)
    helps = copies_could_go(c, k);
  if (!helps)
    return copies_can_go(c, 0);
  if (!placeable(at, from, false) || !loop_exits(at, from, loop, returns, &nreturns, true) ||
      ((nreturns || from != loop) && !placeable(at, loop, true)))
    return false;
  omplens_fix__group_items(c->g); /* without memory, no item can leave */
  omplens_fix__buf why = {0};
  omplens_fix__evidence *evidence = malloc((c->g->num_findings + 1) * sizeof *evidence);
  bool *known = evidence ? calloc(c->g->num_findings + 1, sizeof *known) : NULL;
  for (;;) {
    wrap w;
    memset(&w, 0, sizeof w);
    w.reads_ok = true; /* the host may read them, each after an update */
    w.evidence = evidence;
    w.known = known;
    w.at = at->file == c->file ? c : at;
    at->peer = at->file == c->file ? NULL : c;
    memcpy(w.returns, returns, nreturns * sizeof *returns);
    w.nreturns = nreturns;
    w.from = from;
    c->probe = at->probe = &why;
    c->blamed = at->blamed = NONE;
    w.culprit = SIZE_MAX;
    bool ok = (!earlier || seed(&w, earlier)) && (!hoists || seed_hoists(c, at, &w, loop, from)) &&
              wrap_items(c, &w, loop) && wrap_host_checks(c, &w, loop) &&
              other_maps_in_loop(c, loop, &w);
    size_t k = ok ? SIZE_MAX : blamed_finding(c, &w);
    c->probe = at->probe = NULL;
    if (ok)
      ok = wrap_emit(c, &w, loop);
    if (ok) {
      keep(c->g, &w);
      size_t self = (size_t)(c->g - c->fx->groups);
      if (earlier)
        earlier->joined = self;
      for (size_t j = 0; hoists && j < c->fx->num_hoisted; j++)
        if (hoisted_here(c, j, at, loop, from))
          c->fx->groups[c->fx->hoisted[j]].joined = self;
    }
    else if (whole || k == SIZE_MAX || !leave(c, k, why.data ? why.data : "a check failed"))
      omplens_fix__fail(c, "%s", why.data ? why.data : "a check failed");
    wrap_free(&w);
    if (ok || c->g->kind == OMPLENS_FIX_MANUAL) {
      omplens_fix__buf_free(&why);
      free(evidence);
      free(known);
      return ok;
    }
    why.len = 0;
    if (why.data)
      why.data[0] = 0;
  }
}

/* Undoes a failed try at group g's wrap, for another. */
static void reset_wrap(omplens_fix__group *g, int kind) {
  g->kind = kind;
  omplens_fix__buf_free(&g->reason);
  omplens_fix__buf_free(&g->recipe);
  omplens_fix__edits_free(&g->edits);
  free(g->left);
  g->left = NULL;
  g->num_left = 0;
}

/* Tries, in turn: the region from the first call before the loop, taking
 * in the items of an earlier wrap of the loop (another file's directives);
 * the same region alone; the loop alone. whole: with every item, or not
 * at all (else an item that fails a check leaves the wrap). */
static bool wrap_loop(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t loop, bool whole) {
  omplens_fix__group *g = c->g;
  uint32_t from = region_start(c, at, loop);
  int kind = g->kind;
  omplens_fix__group *earlier = earlier_wrap(c, at, loop, from);
  if (any_hoisted_here(c, at, loop, from)) {
    if (wrap_region(c, at, loop, from, earlier, true, whole))
      return true;
    reset_wrap(g, kind);
  }
  if (earlier) {
    if (wrap_region(c, at, loop, from, earlier, false, whole))
      return true;
    reset_wrap(g, kind);
  }
  if (from == loop || wrap_region(c, at, loop, from, NULL, false, whole))
    return from != loop || wrap_region(c, at, loop, loop, NULL, false, whole);
  /* the region from the first call did not hold: the loop alone, anew */
  reset_wrap(g, kind);
  return wrap_region(c, at, loop, loop, NULL, false, whole);
}

/* The loops around loop in its function, outermost first, into up[] (at
 * most n, the innermost ones); how many. */
static size_t loops_around(const omplens_fix__ast *a, uint32_t loop, uint32_t *up, size_t n) {
  size_t m = 0;
  uint32_t fn = omplens_fix__ast_function_at(a, a->nodes[loop].begin);
  for (uint32_t p = a->nodes[loop].parent; p != NONE && p != fn && m < n; p = a->nodes[p].parent)
    if (omplens_fix__ast_is_loop(a->nodes[p].kind))
      up[m++] = p;
  for (size_t i = 0; i < m / 2; i++) {
    uint32_t t = up[i];
    up[i] = up[m - 1 - i];
    up[m - 1 - i] = t;
  }
  return m;
}

#define OUTER_LOOPS 4 /* loops around the group's that a wrap may take */

/* The wrap of the outermost loop around the group's loop (in its function)
 * whose region holds every item, so that it keeps them across the outer
 * loop's steps too (`for (step) { for (c) relax(...); for (r) lift(...); }`:
 * both inner loops' items across the step loop); else that of the group's
 * loop, which leaves out the items that fail a check. */
bool omplens_fix__build_resident(omplens_fix__ctx *c) {
  omplens_fix__ctx at = *c; /* the loop's file */
  if (c->g->edit_file && c->g->edit_file != c->file) {
    at.file = c->g->edit_file;
    at.src = &at.file->src;
  }
  if (!omplens_fix__need_ast(c) || !omplens_fix__need_ast(&at))
    return false;
  omplens_fix__group *g = c->g;
  int kind = g->kind;
  uint32_t up[OUTER_LOOPS];
  size_t n = loops_around(at.ast, g->loop, up, OUTER_LOOPS);
  for (size_t i = 0; i < n; i++) {
    if (wrap_loop(c, &at, up[i], true)) {
      g->loop = up[i];
      return true;
    }
    reset_wrap(g, kind);
  }
  return wrap_loop(c, &at, g->loop, false);
}

/* ---- canonical loops and guards ---- */

void omplens_fix__canon_free(omplens_fix__canon *k) {
  free(k->init);
  free(k->bound);
}

/* Splits text at top-level ';' into up to 3 parts. */
static size_t split3(const char *t, size_t n, const char **part, size_t *len) {
  size_t k = 0, start = 0;
  int depth = 0;
  for (size_t i = 0; i <= n && k < 3; i++) {
    char ch = i < n ? t[i] : ';';
    depth += (ch == '(' || ch == '[') - (ch == ')' || ch == ']');
    if (!depth && ch == ';') {
      part[k] = t + start;
      len[k++] = i - start;
      start = i + 1;
    }
  }
  return k;
}

static bool simple_expr(const char *s) {
  for (; *s; s++)
    if (!omplens_fix__ident_char(*s))
      return false;
  return true;
}

/* Whether s is "VAR" (all of it) and sets var if empty. */
static bool is_var(const char *s, size_t n, const char *var) {
  while (n && *s == ' ')
    s++, n--;
  while (n && s[n - 1] == ' ')
    n--;
  return n == strlen(var) && !strncmp(s, var, n);
}

/* init: "[type] v = A". */
static bool read_init(const char *t, size_t n, omplens_fix__canon *k) {
  char *init = omplens_fix__normalize(t, n);
  char *eq = init ? strchr(init, '=') : NULL;
  bool ok = eq && eq[1] != '=';
  if (ok) {
    char *e = eq;
    while (e > init && e[-1] == ' ')
      e--;
    char *b = e;
    while (b > init && omplens_fix__ident_char(b[-1]))
      b--;
    ok = b < e && (size_t)(e - b) < sizeof k->var;
    if (ok) {
      memcpy(k->var, b, (size_t)(e - b));
      k->init = strdup(eq + 1 + (eq[1] == ' '));
      ok = k->init && *k->init;
    }
  }
  free(init);
  return ok;
}

/* cond: "v < B" or "v <= B", no call in B. */
static bool read_cond(const char *t, size_t n, omplens_fix__canon *k) {
  char *cond = omplens_fix__normalize(t, n);
  char *op = cond ? strchr(cond, '<') : NULL;
  bool ok = op && op[1] != '<' && is_var(cond, (size_t)(op - cond), k->var);
  if (ok) {
    k->less_equal = op[1] == '=';
    const char *b = op + 1 + k->less_equal;
    while (*b == ' ')
      b++;
    k->bound = strdup(b);
    ok = k->bound && *k->bound;
    for (const char *p = k->bound; ok && *p; p++)
      ok = !(*p == '(' && p > k->bound && omplens_fix__ident_char(p[-1]));
  }
  free(cond);
  return ok;
}

/* inc: "v++", "++v", "v += 1" or "v = v + 1". */
static bool read_inc(const char *t, size_t n, const omplens_fix__canon *k) {
  char *inc = omplens_fix__normalize(t, n);
  char forms[4][300];
  snprintf(forms[0], sizeof forms[0], "%s++", k->var);
  snprintf(forms[1], sizeof forms[1], "++%s", k->var);
  snprintf(forms[2], sizeof forms[2], "%s += 1", k->var);
  snprintf(forms[3], sizeof forms[3], "%s = %s + 1", k->var, k->var);
  bool ok = false;
  for (size_t i = 0; inc && i < 4; i++)
    ok |= !strcmp(inc, forms[i]);
  free(inc);
  return ok;
}

bool omplens_fix__read_canonical(const omplens_fix__ctx *c, uint32_t loop, omplens_fix__canon *k) {
  memset(k, 0, sizeof *k);
  if (c->ast->nodes[loop].kind != OMPLENS_FIX__N_FOR)
    return false;
  char *t = omplens_fix__ast_text(c->ast, c->src, loop);
  char *open = t ? strchr(t, '(') : NULL;
  const char *part[3];
  size_t len[3], np = 0;
  if (open) { /* the header: up to the matching parenthesis */
    int depth = 0;
    char *close = open;
    for (; *close; close++) {
      depth += (*close == '(') - (*close == ')');
      if (!depth)
        break;
    }
    if (*close)
      np = split3(open + 1, (size_t)(close - open - 1), part, len);
  }
  bool ok = np == 3 && read_init(part[0], len[0], k) && read_cond(part[1], len[1], k) &&
            read_inc(part[2], len[2], k);
  free(t);
  if (!ok)
    omplens_fix__canon_free(k);
  return ok;
}

/* `for (int v = A; v < B; v++)` and its variants. */
static bool canonical(omplens_fix__ctx *c, uint32_t loop, omplens_fix__canon *k) {
  const omplens_fix__node *l = &c->ast->nodes[loop];
  if (l->kind != OMPLENS_FIX__N_FOR)
    return omplens_fix__fail(c, "the loop at line %u is not a for loop",
                             omplens_fix__ctx_line(c, l->begin));
  if (!omplens_fix__read_canonical(c, loop, k))
    return omplens_fix__fail(c, "the loop at line %u is not of the form `for (v = A; v < B; v++)`",
                             omplens_fix__ctx_line(c, l->begin));
  return true;
}

/* Fails unless the directive runs once per iteration of its innermost loop:
 * a statement of the loop's own body, which no break or continue cuts
 * short, whose variable and bound the body leaves alone. */
/* Fails when an iteration of the loop can end before its last statement:
 * a break or continue of the loop itself, a return or a goto. */
static bool no_early_exit(omplens_fix__ctx *c, uint32_t loop) {
  const omplens_fix__ast *a = c->ast;
  for (size_t i = loop + 1; i < a->num_nodes && omplens_fix__ast_within(a, (uint32_t)i, loop);
       i++) {
    int kd = a->nodes[i].kind;
    if (kd != OMPLENS_FIX__N_BREAK && kd != OMPLENS_FIX__N_CONTINUE &&
        kd != OMPLENS_FIX__N_RETURN && kd != OMPLENS_FIX__N_GOTO)
      continue;
    bool inner = false; /* a break or continue of a nested loop or switch */
    for (uint32_t p = a->nodes[i].parent; p != loop && p != NONE; p = a->nodes[p].parent) {
      int pk = a->nodes[p].kind;
      inner |= pk == OMPLENS_FIX__N_FOR || pk == OMPLENS_FIX__N_WHILE || pk == OMPLENS_FIX__N_DO ||
               (pk == OMPLENS_FIX__N_SWITCH && kd == OMPLENS_FIX__N_BREAK);
    }
    if (!inner || kd == OMPLENS_FIX__N_RETURN || kd == OMPLENS_FIX__N_GOTO)
      return omplens_fix__fail(c, "the loop's iterations can end early (line %u)",
                               omplens_fix__ctx_line(c, a->nodes[i].begin));
  }
  return true;
}

/* The declarations of the loop variable and of the variables of the bound,
 * as seen at offset at. */
static size_t loop_vars(const omplens_fix__ctx *c, const omplens_fix__canon *k, size_t at,
                        uint32_t *vars, size_t max) {
  size_t nv = 0;
  uint32_t v = omplens_fix__ast_lookup(c->ast, k->var, at);
  if (v != NONE)
    vars[nv++] = v;
  char name[128];
  for (const char *p = k->bound; nv < max && omplens_fix__next_identifier(&p, name, sizeof name);) {
    uint32_t d = omplens_fix__ast_lookup(c->ast, name, at);
    if (d != NONE)
      vars[nv++] = d;
  }
  return nv;
}

bool omplens_fix__once_per_iteration(omplens_fix__ctx *c, const omplens_fix__site *s,
                                     uint32_t *loop, omplens_fix__canon *k) {
  size_t at = omplens_fix__pragma_at(c, s->dir);
  uint32_t fn = omplens_fix__ast_function_at(c->ast, at);
  *loop = omplens_fix__ast_loop_at(c->ast, fn, at);
  if (*loop == NONE)
    return omplens_fix__fail(c, "the directive is in no loop of its function");
  uint32_t body = omplens_fix__ast_block_at(c->ast, fn, at);
  if (body == NONE || c->ast->nodes[body].kind != OMPLENS_FIX__N_COMPOUND ||
      c->ast->nodes[body].parent != *loop)
    return omplens_fix__fail(c, "the directive is not a statement of the loop's own body (it is "
                                "nested in another statement)");
  if (!no_early_exit(c, *loop) || !canonical(c, *loop, k))
    return false;
  /* The variable and the bound's variables stay as they are in the body. */
  uint32_t vars[16];
  size_t nv = loop_vars(c, k, at, vars, 16);
  if (!unchanged(c, c->ast->nodes[body].begin, c->ast->nodes[*loop].end, vars, nv)) {
    omplens_fix__canon_free(k);
    return false;
  }
  return true;
}

char *omplens_fix__paren(const char *e) {
  char *s = NULL;
  if (asprintf(&s, simple_expr(e) ? "%s" : "(%s)", e) < 0)
    return NULL;
  return s;
}

/* ---- rule: hoist an allocation out of a loop ---- */

bool omplens_fix__build_hoist(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  if (!omplens_fix__need_ast(c))
    return false;
  size_t at = omplens_fix__pragma_at(c, s->dir);
  uint32_t fn = omplens_fix__ast_function_at(c->ast, at);
  uint32_t loop = omplens_fix__ast_loop_at(c->ast, fn, at);
  if (loop == NONE)
    return omplens_fix__fail(c, "the directive is in no loop of its function");
  if (omplens_fix__has_clause(s->dir, OMPLENS_CLAUSE_IF))
    return omplens_fix__fail(c, "the directive has an if clause");
  if (!placeable(c, loop, true) || !no_jumps(c, loop))
    return false;
  const omplens_fix__node *l = &c->ast->nodes[loop];
  uint32_t base, vars[16];
  size_t nv;
  char *text = place_item(c, c, s, loop, NONE, &base, vars, &nv, 15, NULL, NULL);
  if (!text)
    return false;
  vars[nv++] = base;
  bool ok = unchanged(c, l->begin, l->end, vars, nv);
  /* Other maps of the variable in the loop would stop copying once the
   * allocation is present for the whole loop. */
  size_t body_b =
      s->dir->body.file ? omplens_fix__offset(c->src, s->dir->body.line, s->dir->body.column) : at;
  size_t body_e = s->dir->body.file
                      ? omplens_fix__offset(c->src, s->dir->body.end_line, s->dir->body.end_column)
                      : at;
  omplens_fix__file_dirs(c->fx, c->file);
  for (size_t i = 0; ok && i < c->file->num_dirs; i++) {
    const omplens_directive *d = c->file->dirs[i];
    size_t dat = omplens_fix__pragma_at(c, d);
    if (d == s->dir || dat < l->begin || dat >= l->end || (dat >= body_b && dat <= body_e))
      continue;
    for (size_t k = 0; ok && k < d->num_items; k++)
      if (d->items[k].var && !strcmp(d->items[k].var, s->var) &&
          (d->items[k].map_type != OMPLENS_MAP_ALLOC || d->kind != OMPLENS_DIRECTIVE_TARGET))
        ok =
            omplens_fix__fail(c, "%s is also mapped `%s` by `%s` at line %u in the loop", s->var,
                              omplens_map_type_name(d->items[k].map_type), d->name, d->pragma.line);
  }
  if (ok) {
    unsigned first = statement_line(c, loop), last = omplens_fix__ctx_line(c, l->end - 1);
    size_t ind_at;
    size_t ind = omplens_fix__indent(c->src, omplens_fix__ctx_line(c, l->begin), &ind_at);
    const char *dev = omplens_fix__device_clause(c, s->dir);
    const char *enter =
        omplens_fix__ownf(c->fx, "#pragma omp target enter data map(alloc: %s)%s\n", text, dev);
    const char *exitd =
        omplens_fix__ownf(c->fx, "#pragma omp target exit data map(delete: %s)%s\n", text, dev);
    omplens_fix__insert_lines(&g->edits, c->src, first, c->src->text + ind_at, ind, enter);
    omplens_fix__insert_lines(&g->edits, c->src, last + 1, c->src->text + ind_at, ind, exitd);
    g->confidence = OMPLENS_FIXC_CHECKED;
    /* for a wrap of the same loop, built later, to take in (hoisted_here) */
    omplens_fix__kept_free(g);
    if ((g->kept = calloc(1, sizeof *g->kept)) && (g->kept->text = strdup(text))) {
      g->kept->base = base;
      g->kept->type = OMPLENS_MAP_ALLOC;
      g->num_kept = 1;
      g->loop = loop;
      g->kept_from = loop;
    }
    omplens_fix__buf_printf(&g->summary,
                            "allocate %s once instead of in every iteration of the loop "
                            "at %s:%u: `target enter data map(alloc: %s)` before it and `target "
                            "exit data map(delete: %s)` after it (the directive at line %u then "
                            "finds it present)",
                            text, omplens_fix__short_name(c->file->path), first, text, text,
                            s->dir->pragma.line);
  }
  free(text);
  return ok;
}

/* ---- rule: hoist a device memory API allocation out of a loop ---- */


/* Whether statement st has its lines to itself: [first, last] in *first,
 * *last. */
bool omplens_fix__own_lines(omplens_fix__ctx *c, uint32_t st, unsigned *first, unsigned *last) {
  const omplens_fix__node *n = &c->ast->nodes[st];
  *first = omplens_fix__ctx_line(c, n->begin);
  *last = omplens_fix__ctx_line(c, n->end ? n->end - 1 : n->begin);
  size_t at, end = n->end;
  omplens_fix__indent(c->src, *first, &at);
  while (end < c->src->size && c->src->text[end] == ';') /* a declaration's extent stops before it */
    end++;
  return omplens_fix__blank(c->src, at, n->begin) &&
         omplens_fix__blank(c->src, end, omplens_fix__line_end(c->src, *last));
}

/* The call named name on line `line` of c's file, or NONE. */
static uint32_t api_call_at(omplens_fix__ctx *c, const char *name, unsigned line) {
  uint32_t call = omplens_fix__call_at_line(c->file, name, line, 0);
  return call == OMPLENS_FIX__MANY ? NONE : call;
}

bool omplens_fix__build_hoist_api(omplens_fix__ctx *c) {
  omplens_fix__group *g = c->g;
  const omplens_fix__site *s = &g->site;
  if (!omplens_fix__need_ast(c))
    return false;
  const omplens_fix__ast *a = c->ast;
  uint32_t call = api_call_at(c, s->api, s->api_line);
  if (call == NONE)
    return omplens_fix__fail(c, "the parse shows no call of %s at line %u", s->api, s->api_line);
  /* `T *d = omp_target_alloc(SIZE, DEV);`: a declaration of its own */
  uint32_t var = a->nodes[call].parent;
  while (var != NONE && a->nodes[var].kind != OMPLENS_FIX__N_VAR &&
         a->nodes[var].kind != OMPLENS_FIX__N_DECLSTMT && a->nodes[var].kind != OMPLENS_FIX__N_COMPOUND)
    var = a->nodes[var].parent;
  if (var == NONE || a->nodes[var].kind != OMPLENS_FIX__N_VAR)
    return omplens_fix__fail(c, "the pointer %s returns at line %u is not declared by that "
                                "statement", s->api, s->api_line);
  uint32_t decl = omplens_fix__statement_of(a, var), fn = omplens_fix__ast_function_at(a, a->nodes[call].begin);
  uint32_t loop = omplens_fix__ast_loop_at(a, fn, a->nodes[call].begin);
  unsigned first, last;
  if (loop == NONE)
    return omplens_fix__fail(c, "the call at line %u is in no loop of its function", s->api_line);
  if (a->nodes[a->nodes[decl].parent].parent != loop || !omplens_fix__own_lines(c, decl, &first, &last))
    return omplens_fix__fail(c, "the declaration at line %u is not a statement of its own in "
                                "the loop's body", s->api_line);
  uint32_t returns[16];
  size_t nreturns;
  if (!placeable(c, loop, true) || !loop_exits(c, loop, loop, returns, &nreturns, false))
    return false;
  /* the one omp_target_free(d, ...) of the loop, a statement of the same body */
  const char *name = omplens_fix__ast_name(a, var);
  uint32_t free_call = NONE;
  size_t frees = 0;
  for (uint32_t i = loop; i < omplens_fix__ast_end(a, loop); i++)
    if (a->nodes[i].kind == OMPLENS_FIX__N_CALL && !strcmp(omplens_fix__ast_name(a, i), "omp_target_free")) {
      uint32_t arg = omplens_fix__ast_child(a, i, 1);
      frees++;
      if (arg != NONE && omplens_fix__ast_plain_var(a, arg) == var)
        free_call = i;
    }
  uint32_t free_st = free_call == NONE ? NONE : omplens_fix__statement_of(a, free_call);
  unsigned ffirst, flast;
  if (frees != 1 || free_st == NONE || a->nodes[free_st].parent != a->nodes[decl].parent ||
      !omplens_fix__own_lines(c, free_st, &ffirst, &flast))
    return omplens_fix__fail(c, "the loop frees %s other than with one omp_target_free statement "
                                "of its body", name);
  /* a return between the two leaves d as it did (allocated or NULL); one
   * elsewhere would now skip the free after the loop */
  for (size_t i = 0; i < nreturns; i++)
    if (a->nodes[returns[i]].begin < a->nodes[decl].end ||
        a->nodes[returns[i]].begin > a->nodes[free_st].begin)
      return omplens_fix__fail(c, "the return at line %u would skip the free after the loop",
                               omplens_fix__ctx_line(c, a->nodes[returns[i]].begin));
  /* d keeps its value; SIZE and DEV mean the same before the loop */
  uint32_t vars[16];
  size_t nv = 0;
  for (uint32_t i = call + 1; i < omplens_fix__ast_end(a, call) && nv < 15; i++)
    if (a->nodes[i].kind == OMPLENS_FIX__N_DECLREF && a->nodes[i].ref != NONE) {
      uint32_t d = a->nodes[i].ref;
      if (a->nodes[d].kind == OMPLENS_FIX__N_VAR &&
          omplens_fix__ast_lookup(a, omplens_fix__ast_name(a, d), a->nodes[loop].begin) != d)
        return omplens_fix__fail(c, "%s, in the allocation's arguments, is not visible before "
                                    "the loop at line %u", omplens_fix__ast_name(a, d),
                                 omplens_fix__ctx_line(c, a->nodes[loop].begin));
      vars[nv++] = d;
    }
  vars[nv++] = var;
  const omplens_fix__node *l = &a->nodes[loop];
  if (!unchanged(c, l->begin, l->end, vars, nv))
    return false;
  if (omplens_fix__ast_lookup(a, name, l->begin) != NONE)
    return omplens_fix__fail(c, "%s is already a name before the loop", name);
  unsigned lfirst = omplens_fix__ctx_line(c, l->begin), llast = omplens_fix__ctx_line(c, l->end - 1);
  size_t lind_at;
  size_t lind = omplens_fix__indent(c->src, lfirst, &lind_at);
  char *decl_text = NULL, *free_text = NULL;
  size_t dat, fat; /* the statements' text, after their indentation */
  size_t dind = omplens_fix__indent(c->src, first, &dat);
  size_t find = omplens_fix__indent(c->src, ffirst, &fat);
  dat += dind;
  fat += find;
  size_t dend = omplens_fix__line_end(c->src, last), fend = omplens_fix__line_end(c->src, flast);
  if (asprintf(&decl_text, "%.*s\n", (int)(dend - dat), c->src->text + dat) < 0)
    decl_text = NULL;
  if (asprintf(&free_text, "%.*s\n", (int)(fend - fat), c->src->text + fat) < 0)
    free_text = NULL;
  if (!decl_text || !free_text || first != last || ffirst != flast) {
    free(decl_text);
    free(free_text);
    return omplens_fix__fail(c, decl_text && free_text ? "the allocation or the free spans "
                                                         "several lines"
                                                       : "out of memory");
  }
  omplens_fix__insert_lines(&g->edits, c->src, statement_line(c, loop), c->src->text + lind_at,
                            lind, decl_text);
  omplens_fix__remove_lines(&g->edits, c->src, first, last);
  omplens_fix__remove_lines(&g->edits, c->src, ffirst, flast);
  omplens_fix__insert_lines(&g->edits, c->src, llast + 1, c->src->text + lind_at, lind, free_text);
  free(decl_text);
  free(free_text);
  g->confidence = OMPLENS_FIXC_CHECKED;
  omplens_fix__buf_printf(&g->summary,
                          "allocate %s once, before the loop at %s:%u, instead of in every "
                          "iteration: move its %s (line %u) before the loop and its "
                          "omp_target_free (line %u) after it",
                          name, omplens_fix__short_name(c->file->path), lfirst, s->api, first,
                          ffirst);
  return true;
}

/* How often function fn runs per program run, as its file shows: once
 * (main, or a function called from one place that is in no loop of a
 * function that runs once), again (called from a loop or from several
 * places), or unknown (no call of it in the file: its callers are in
 * other files). */
static int function_runs(const omplens_fix__ast *a, uint32_t fn, int depth) {
  const char *name = omplens_fix__ast_name(a, fn);
  if (!strcmp(name, "main"))
    return OMPLENS_FIX__RUNS_ONCE;
  uint32_t call = NONE;
  size_t refs = 0;
  for (size_t i = 0; i < a->num_nodes; i++)
    if ((a->nodes[i].kind == OMPLENS_FIX__N_CALL || a->nodes[i].kind == OMPLENS_FIX__N_DECLREF) &&
        !strcmp(omplens_fix__ast_name(a, (uint32_t)i), name)) {
      refs += a->nodes[i].kind == OMPLENS_FIX__N_CALL;
      if (a->nodes[i].kind == OMPLENS_FIX__N_CALL)
        call = (uint32_t)i;
      else {
        uint32_t ch, p = omplens_fix__ast_up(a, (uint32_t)i, &ch);
        refs += !(p != NONE && a->nodes[p].kind == OMPLENS_FIX__N_CALL && a->nodes[ch].nth == 0);
      }
    }
  if (refs > 1)
    return OMPLENS_FIX__RUNS_AGAIN;
  if (!refs || call == NONE || depth > 4)
    return OMPLENS_FIX__RUNS_UNKNOWN;
  uint32_t caller = omplens_fix__ast_function_at(a, a->nodes[call].begin);
  if (caller == NONE)
    return OMPLENS_FIX__RUNS_UNKNOWN;
  if (omplens_fix__ast_loop_at(a, caller, a->nodes[call].begin) != NONE)
    return OMPLENS_FIX__RUNS_AGAIN;
  return function_runs(a, caller, depth + 1);
}

int omplens_fix__loop_runs(const omplens_fix__ast *a, uint32_t loop) {
  uint32_t fn = omplens_fix__ast_function_at(a, a->nodes[loop].begin), outer;
  if (loops_around(a, loop, &outer, 1))
    return OMPLENS_FIX__RUNS_NESTED;
  return fn == NONE ? OMPLENS_FIX__RUNS_UNKNOWN : function_runs(a, fn, 0);
}

bool omplens_fix__runs_once(const omplens_fix__ast *a, uint32_t loop) {
  return omplens_fix__loop_runs(a, loop) == OMPLENS_FIX__RUNS_ONCE;
}

bool omplens_fix__loop_runs_once(omplens_fix__ctx *c, uint32_t loop) {
  if (!omplens_fix__runs_once(c->ast, loop))
    return omplens_fix__fail(c,
                             "the loop at line %u may run more than once (it is nested, or "
                             "its function is called from a loop or several places): the "
                             "last iteration of one run may feed the next",
                             omplens_fix__ctx_line(c, c->ast->nodes[loop].begin));
  return true;
}
