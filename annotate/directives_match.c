/* Which directive a source location stands for. The file and line decide;
 * names only break ties. The rules, in order (see docs/directives.md for why
 * each exists):
 *   1. the line is within a directive's pragma, or is the closing line of a
 *      `target data` region seen exiting: exact;
 *   2. the line is in the body of a directive: the innermost one; exact on
 *      the first line of a target construct's statement past nested pragmas
 *      (clang puts loop constructs there), nearest elsewhere;
 *   3. otherwise, or for line 0: the only directive of the kind in the
 *      function is nearest; several are ambiguous.
 * Only directives whose kind fits the run-time kind take part; one in a
 * branch the parse left out (INACTIVE) is found by its lines only (1 and 2).
 * The file is stale only when it really changed: a stamp differs, or
 * without one the line is past the end, or is the pragma's own line (the
 * runtime's location) and holds no OpenMP pragma. Staleness turns exact
 * into nearest; nothing else does. */
#include <stdlib.h>
#include <string.h>

#include "directives_internal.h"
#include "function_names.h"

typedef omplens_directives__entry entry;
typedef omplens_directives__file file;

static bool fits(int kind, int runtime)
{
  switch (runtime) {
  case OMPLENS_RUNTIME_TARGET:
    return kind == OMPLENS_DIRECTIVE_TARGET;
  case OMPLENS_RUNTIME_ENTER_DATA:
    return kind == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA ||
           kind == OMPLENS_DIRECTIVE_TARGET_DATA;
  case OMPLENS_RUNTIME_EXIT_DATA:
    return kind == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA ||
           kind == OMPLENS_DIRECTIVE_TARGET_DATA;
  case OMPLENS_RUNTIME_UPDATE:
    return kind == OMPLENS_DIRECTIVE_TARGET_UPDATE;
  default:
    return true;
  }
}

static void add_candidate(omplens_directive_match *m, const entry *e)
{
  if (m->num_candidates < OMPLENS_DIRECTIVE_MAX_CANDIDATES)
    m->candidates[m->num_candidates] = &e->pub;
  m->num_candidates++;
}

static void decide(omplens_directive_match *m, int confidence, const char *rule)
{
  m->rule = rule;
  if (m->num_candidates == 0) {
    m->confidence = OMPLENS_MATCH_NONE;
    return;
  }
  m->confidence = m->num_candidates == 1 ? confidence : OMPLENS_MATCH_AMBIGUOUS;
  m->directive = m->num_candidates == 1 ? m->candidates[0] : NULL;
}

/* ---- function names ---- */

bool omplens_directives__same_function(const char *a, const char *b)
{
  const char *x, *y;
  size_t nx, ny;
  if (!omplens_bare_function_name(a, &x, &nx) || !omplens_bare_function_name(b, &y, &ny))
    return true; /* unknown on either side: nothing contradicts */
  return nx == ny && memcmp(x, y, nx) == 0;
}

bool omplens_directives__names_function(const char *f)
{
  const char *x;
  size_t n;
  return omplens_bare_function_name(f, &x, &n);
}

/* Several candidates: those in the function DWARF names, if any are. */
static void narrow_by_function(omplens_directive_match *m, const char *function)
{
  if (!omplens_directives__names_function(function) || m->num_candidates < 2 ||
      m->num_candidates > OMPLENS_DIRECTIVE_MAX_CANDIDATES)
    return;
  size_t kept = 0;
  for (size_t i = 0; i < m->num_candidates; i++)
    if (m->candidates[i]->function != NULL &&
        omplens_directives__same_function(m->candidates[i]->function, function))
      m->candidates[kept++] = m->candidates[i];
  if (kept > 0)
    m->num_candidates = kept;
}

/* ---- the rules ---- */

static bool inactive(const entry *e)
{
  return (e->pub.flags & OMPLENS_DIRF_INACTIVE) != 0;
}

static bool on_pragma_line(const entry *e, uint32_t line)
{
  return line >= e->pub.pragma.line && line <= e->pub.pragma.end_line;
}

static bool closer(const entry *e)
{
  return e->pub.kind == OMPLENS_DIRECTIVE_TARGET_DATA && e->pub.body.file != NULL;
}

static bool closes_data(const entry *e, uint32_t line, int runtime)
{
  return closer(e) && e->pub.body.end_line == line &&
         (runtime == OMPLENS_RUNTIME_EXIT_DATA || runtime == OMPLENS_RUNTIME_ANY);
}

/* ---- the indexes: a file with thousands of directives is asked about
 * each of them, and a scan of its entries per question would make the
 * look-ups quadratic ---- */

static int by_closing_line(const void *x, const void *y, void *ctx)
{
  const file *f = ctx;
  uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
  uint32_t a = f->entries[i].pub.body.end_line, b = f->entries[j].pub.body.end_line;
  if (a != b)
    return a < b ? -1 : 1;
  return (i > j) - (i < j);
}

bool omplens_directives__index_entries(file *f, omplens_directives__pool *pool)
{
  f->pragmas_ascend = true;
  size_t n = 0;
  for (size_t i = 0; i < f->num_entries; i++) {
    const entry *e = &f->entries[i];
    if (i > 0 && (e->pub.pragma.line < e[-1].pub.pragma.line ||
                  e->pub.pragma.end_line < e[-1].pub.pragma.end_line))
      f->pragmas_ascend = false;
    n += closer(e);
  }
  f->closers = omplens_directives__pool_alloc(pool, (n > 0 ? n : 1) * sizeof(*f->closers));
  if (f->closers == NULL)
    return false;
  f->num_closers = 0;
  for (size_t i = 0; i < f->num_entries; i++)
    if (closer(&f->entries[i]))
      f->closers[f->num_closers++] = (uint32_t)i;
  /* units are read on several threads at once: no global for the order */
  qsort_r(f->closers, f->num_closers, sizeof(*f->closers), by_closing_line, f);
  return true;
}

/* The entries whose pragma may hold line: entries[*lo, *hi). When the
 * pragmas' lines ascend, those holding it are one run ending with the last
 * that begins at or before it (one that ends before it ends no later than
 * any after it); else every entry. */
static void pragma_run(const file *f, uint32_t line, size_t *lo, size_t *hi)
{
  size_t a = 0, b = f->num_entries;
  if (!f->pragmas_ascend) {
    *lo = a;
    *hi = b;
    return;
  }
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (f->entries[mid].pub.pragma.line <= line)
      a = mid + 1;
    else
      b = mid;
  }
  *hi = a;
  while (a > 0 && line <= f->entries[a - 1].pub.pragma.end_line)
    a--;
  *lo = a;
}

/* The target data entries whose body ends on line: closers[*lo, *hi). */
static void closer_run(const file *f, uint32_t line, size_t *lo, size_t *hi)
{
  size_t a = 0, b = f->num_closers;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (f->entries[f->closers[mid]].pub.body.end_line < line)
      a = mid + 1;
    else
      b = mid;
  }
  *lo = a;
  while (a < f->num_closers && f->entries[f->closers[a]].pub.body.end_line == line)
    a++;
  *hi = a;
}

/* Several pragmas on one line (one macro): the column may tell them apart. */
static void narrow_by_column(omplens_directive_match *m, uint32_t column)
{
  if (column == 0 || m->num_candidates < 2 ||
      m->num_candidates > OMPLENS_DIRECTIVE_MAX_CANDIDATES)
    return;
  size_t kept = 0;
  for (size_t i = 0; i < m->num_candidates; i++)
    if (m->candidates[i]->pragma.column == column)
      m->candidates[kept++] = m->candidates[i];
  if (kept > 0)
    m->num_candidates = kept;
}

static bool rule_pragma(const file *f, const omplens_directive_query *q,
                        omplens_directive_match *m)
{
  bool closing = false;
  size_t lo, hi, clo = 0, chi = 0;
  pragma_run(f, q->line, &lo, &hi);
  if (q->runtime_kind == OMPLENS_RUNTIME_EXIT_DATA || q->runtime_kind == OMPLENS_RUNTIME_ANY)
    closer_run(f, q->line, &clo, &chi);
  /* the entries of both runs, in source order */
  for (size_t i = lo, k = clo; i < hi || k < chi;) {
    size_t at = k < chi && (i >= hi || f->closers[k] < i) ? f->closers[k] : i;
    i += i < hi && i == at;
    k += k < chi && f->closers[k] == at;
    const entry *e = &f->entries[at];
    bool here = on_pragma_line(e, q->line);
    bool closes = closes_data(e, q->line, q->runtime_kind);
    if ((here || closes) && fits(e->pub.kind, q->runtime_kind)) {
      add_candidate(m, e);
      closing = closing || (closes && !here);
    }
  }
  narrow_by_column(m, q->column);
  narrow_by_function(m, q->function);
  if (m->num_candidates > 0) {
    decide(m, OMPLENS_MATCH_EXACT,
           closing ? "closing line of the target data region" : "pragma line");
    return true;
  }
  /* The line is a pragma, of a kind the run time did not report. */
  for (size_t i = lo; i < hi; i++)
    if (on_pragma_line(&f->entries[i], q->line))
      add_candidate(m, &f->entries[i]);
  if (m->num_candidates == 0)
    return false;
  m->flags |= OMPLENS_MATCHF_KIND_MISMATCH;
  decide(m, OMPLENS_MATCH_NEAREST, "pragma line of another kind of directive");
  return true;
}

static bool contains(const entry *e, uint32_t line)
{
  return e->pub.body.file != NULL && line >= e->pub.body.line &&
         line <= e->pub.body.end_line;
}

static bool rule_body(const file *f, const omplens_directive_query *q,
                      omplens_directive_match *m)
{
  const entry *inner = NULL;
  for (size_t i = 0; i < f->num_entries; i++) {
    const entry *e = &f->entries[i];
    if (contains(e, q->line) && fits(e->pub.kind, q->runtime_kind) &&
        (inner == NULL || e->body_begin > inner->body_begin ||
         (e->body_begin == inner->body_begin && e->body_end < inner->body_end)))
      inner = e;
  }
  if (inner == NULL)
    return false;
  for (size_t i = 0; i < f->num_entries; i++) { /* twins: one macro, two pragmas */
    const entry *e = &f->entries[i];
    if (fits(e->pub.kind, q->runtime_kind) && e->body_begin == inner->body_begin &&
        e->body_end == inner->body_end)
      add_candidate(m, e);
  }
  narrow_by_function(m, q->function);
  bool first = inner->pub.kind == OMPLENS_DIRECTIVE_TARGET &&
               (inner->pub.body.line == q->line || inner->stmt_line == q->line);
  decide(m, first ? OMPLENS_MATCH_EXACT : OMPLENS_MATCH_NEAREST,
         first ? "first line of the target construct's statement"
               : "innermost enclosing region");
  return true;
}

/* A guess from names: a directive the parse left out has no function. */
static void rule_function(const file *f, const omplens_directive_query *q,
                          omplens_directive_match *m)
{
  bool by_name = omplens_directives__names_function(q->function);
  for (size_t i = 0; i < f->num_entries; i++) {
    const entry *e = &f->entries[i];
    if (fits(e->pub.kind, q->runtime_kind) && !inactive(e) &&
        (!by_name || (e->pub.function != NULL && omplens_directives__same_function(e->pub.function, q->function))))
      add_candidate(m, e);
  }
  static const char *const rules[2][3] = {
      {"no directive of that kind in the file", "only directive of that kind in the file",
       "several directives of that kind in the file"},
      {"no directive of that kind in the function",
       "only directive of that kind in the function",
       "several directives of that kind in the function"}};
  size_t n = m->num_candidates < 2 ? m->num_candidates : 2;
  decide(m, OMPLENS_MATCH_NEAREST, rules[by_name][n]);
}

/* ---- staleness ---- */

/* Whether an OpenMP pragma, active or not, is written on the line. */
static bool pragma_at(const file *f, uint32_t line)
{
  size_t lo, hi;
  pragma_run(f, line, &lo, &hi);
  for (size_t i = lo; i < hi; i++)
    if (on_pragma_line(&f->entries[i], line))
      return true;
  /* the text's pragmas, in order and apart: the last one beginning at or
   * before line, and those before it ending on it */
  size_t a = 0, b = f->num_omp_lines;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (f->omp_lines[2 * mid] <= line)
      a = mid + 1;
    else
      b = mid;
  }
  for (; a > 0 && line <= f->omp_lines[2 * (a - 1) + 1]; a--)
    if (line >= f->omp_lines[2 * (a - 1)])
      return true;
  return false;
}

/* -1: a stamp differs, 1: stamps given and all equal, 0: none given. */
static int stamps(const file *f, const omplens_directive_query *q)
{
  bool any = q->mtime != 0 || q->size != 0 || q->md5 != NULL;
  bool differ = (q->mtime != 0 && q->mtime != f->mtime) ||
                (q->size != 0 && q->size != f->size) ||
                (q->md5 != NULL && memcmp(q->md5, f->md5, sizeof(f->md5)) != 0);
  return differ ? -1 : any ? 1 : 0;
}

/* Only evidence that the file changed counts: a stamp that differs or,
 * without one, a line the file no longer has, or a pragma line (the
 * runtime's, exact) with no pragma on it. A DWARF line in no directive
 * proves nothing: clang -O2 moves lines, and the parse may miss a pragma. */
static bool changed(const file *f, const omplens_directive_query *q, int stamp)
{
  if (stamp != 0)
    return stamp < 0;
  return q->line > f->num_lines || (q->pragma_line && q->line != 0 && !pragma_at(f, q->line));
}

/* The parse went without the build's flags, and it shows. */
static bool shows_guessed_flags(const file *f, const omplens_directive_match *m)
{
  return f->guessed_flags &&
         (f->partial || (m->directive != NULL && (m->directive->flags & OMPLENS_DIRF_INACTIVE)));
}

static void finish(const file *f, const omplens_directive_query *q,
                   omplens_directive_match *m)
{
  if (m->directive != NULL && q->function != NULL &&
      !omplens_directives__same_function(m->directive->function, q->function))
    m->flags |= OMPLENS_MATCHF_FUNCTION_MISMATCH;
  if (shows_guessed_flags(f, m))
    m->flags |= OMPLENS_MATCHF_GUESSED_FLAGS;
  if ((m->flags & OMPLENS_MATCHF_STALE) && m->confidence == OMPLENS_MATCH_EXACT)
    m->confidence = OMPLENS_MATCH_NEAREST;
}

void omplens_directives__match(const file *f, const omplens_directive_query *q,
                               omplens_directive_match *m)
{
  if (f->partial) {
    m->flags |= OMPLENS_MATCHF_PARTIAL;
    m->diagnostic = f->diagnostic;
  }
  if (changed(f, q, stamps(f, q)))
    m->flags |= OMPLENS_MATCHF_STALE;
  if (q->line == 0) {
    m->flags |= OMPLENS_MATCHF_NO_LINE;
  } else if (q->line <= f->num_lines && (rule_pragma(f, q, m) || rule_body(f, q, m))) {
    finish(f, q, m);
    return;
  } else if (!(m->flags & OMPLENS_MATCHF_STALE)) {
    m->flags |= OMPLENS_MATCHF_OFF_DIRECTIVE;
  }
  memset(m->candidates, 0, sizeof(m->candidates));
  m->num_candidates = 0;
  m->directive = NULL;
  rule_function(f, q, m);
  finish(f, q, m);
}

/* ---- calls of the device memory API ---- */

static bool call_on_line(const omplens_api_call *c, uint32_t line)
{
  return line >= c->call.line && line <= c->call.end_line;
}

/* The call's own code address names its line (and the column of its
 * name): a call there is it. Several on the line: the column decides. */
void omplens_directives__match_api_call(const file *f, const omplens_directive_query *q,
                                        omplens_api_call_match *m)
{
  if (f->partial) {
    m->flags |= OMPLENS_MATCHF_PARTIAL;
    m->diagnostic = f->diagnostic;
  }
  omplens_directive_query code_line = *q;
  code_line.pragma_line = 0;
  if (changed(f, &code_line, stamps(f, q)))
    m->flags |= OMPLENS_MATCHF_STALE;
  if (f->guessed_flags && f->partial)
    m->flags |= OMPLENS_MATCHF_GUESSED_FLAGS;
  const omplens_api_call *first = NULL, *at_column = NULL;
  size_t n = 0, n_column = 0;
  for (size_t i = 0; q->line != 0 && i < f->num_api_calls; i++) {
    const omplens_api_call *c = &f->api_calls[i];
    if (!call_on_line(c, q->line))
      continue;
    n++;
    first = first != NULL ? first : c;
    if (q->column != 0 && c->call.line == q->line && c->call.column == q->column) {
      n_column++;
      at_column = c;
    }
  }
  const omplens_api_call *found = n == 1 ? first : n_column == 1 ? at_column : NULL;
  m->rule = n == 0 ? "no call of the device memory API on the line"
            : found == NULL ? "several calls of the device memory API on the line"
            : n == 1 ? "the call on the line" : "the call at the column";
  m->confidence = n == 0 ? OMPLENS_MATCH_NONE
                  : found == NULL ? OMPLENS_MATCH_AMBIGUOUS
                  : (m->flags & OMPLENS_MATCHF_STALE) ? OMPLENS_MATCH_NEAREST
                                                      : OMPLENS_MATCH_EXACT;
  m->call = found;
}
