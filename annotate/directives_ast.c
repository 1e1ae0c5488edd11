/* What libclang tells about one translation unit. It is parsed twice:
 *
 *  - plainly, without -fopenmp (but with _OPENMP defined, so #ifdef'd code
 *    stays in): pragmas vanish and every statement and reference is
 *    visible. With -fopenmp the C API hides the body of every OpenMP region
 *    (clang wraps it in a CapturedStmt whose children it does not visit),
 *    which would lose directives nested in a `target data` and every
 *    reference in a region;
 *  - with -fopenmp: only to find the directives written with `_Pragma`,
 *    which the textual scan cannot see inside macros, and the #if'd-out
 *    ranges as the real build sees them. Function bodies are skipped
 *    unless a file of the unit spells `_Pragma` (needs_bodies): clang's
 *    analysis of the OpenMP regions was three quarters of this parse.
 *
 * Locations are expansion locations, as DWARF has them: a macro's code is
 * at the line of its use. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "directives_internal.h"
#include "libclang_dl.h"

#define NONE OMPLENS_DIRECTIVES__NONE
#define MAX_HEADERS 64
/* Below every OpenMP 5.0 feature test: omp.h then declares no variants,
 * which a parse without -fopenmp would reject. */
#define PLAIN_OPENMP "-D_OPENMP=201511"
/* The device memory API: omp_target_* (and LLVM's llvm_omp_target_*). */
#define API_PREFIX "omp_target_"

typedef omplens_directives__file_work file_work;
typedef omplens_directives__span span;

typedef struct visit {
  const omplens_libclang *lc;
  omplens_directives__unit *u;
  CXTranslationUnit tu;
  CXFile *cxfiles;  /* per u->files, this unit's handle */
  CXFile last;
  int last_index;
} visit;

/* ---- small helpers ---- */

static char *take_string(const omplens_libclang *lc, CXString s)
{
  const char *c = lc->getCString(s);
  char *out = c != NULL ? strdup(c) : NULL;
  lc->disposeString(s);
  return out;
}

static char *file_path(const omplens_libclang *lc, CXFile f)
{
  char *real = take_string(lc, lc->File_tryGetRealPathName(f));
  if (real != NULL && real[0] != '\0')
    return real;
  free(real);
  char *name = take_string(lc, lc->getFileName(f));
  char *resolved = name != NULL ? realpath(name, NULL) : NULL;
  if (resolved == NULL)
    return name;
  free(name);
  return resolved;
}

static int file_index(visit *v, CXFile f)
{
  if (f == NULL)
    return -1;
  if (f == v->last)
    return v->last_index;
  int found = -1;
  for (size_t i = 0; i < v->u->num_files && found < 0; i++)
    if (v->cxfiles[i] != NULL && v->lc->File_isEqual(v->cxfiles[i], f))
      found = (int)i;
  v->last = f;
  v->last_index = found;
  return found;
}

/* The cursor's expansion extent, if it lies in one of the unit's files. */
static file_work *extent_of(visit *v, CXCursor c, span *out)
{
  const omplens_libclang *lc = v->lc;
  CXSourceRange r = lc->getCursorExtent(c);
  CXFile f = NULL, g = NULL;
  unsigned b = 0, e = 0;
  lc->getExpansionLocation(lc->getRangeStart(r), &f, NULL, NULL, &b);
  lc->getExpansionLocation(lc->getRangeEnd(r), &g, NULL, NULL, &e);
  int i = file_index(v, f);
  if (i < 0)
    return NULL;
  out->begin = b;
  out->end = e >= b && (g == NULL || g == f || lc->File_isEqual(f, g)) ? e : b;
  return &v->u->files[i];
}

static void oom_if(omplens_directives__unit *u, bool failed)
{
  u->oom = u->oom || failed;
}

/* ---- the plain parse ---- */

static bool is_function(enum CXCursorKind k)
{
  return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
         k == CXCursor_Constructor || k == CXCursor_Destructor ||
         k == CXCursor_ConversionFunction || k == CXCursor_FunctionTemplate;
}

/* Remembers, for the pragma just before it, the statement that begins
 * first after the pragma (the outermost one when several begin there). */
static void statement_candidate(file_work *fw, span s)
{
  const omplens_directives__pragma *p = fw->scan.pragmas.data;
  size_t lo = 0, hi = fw->scan.pragmas.len;
  while (lo < hi) { /* first pragma ending after s.begin */
    size_t mid = lo + (hi - lo) / 2;
    if (p[mid].end <= s.begin)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return;
  span *best = &fw->stmt[lo - 1];
  if (best->begin == NONE || s.begin < best->begin ||
      (s.begin == best->begin && s.end > best->end))
    *best = s;
}

static int category_of(const omplens_libclang *lc, CXType t)
{
  t = lc->getCanonicalType(t);
  if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
    t = lc->getCanonicalType(lc->getPointeeType(t));
  switch (t.kind) {
  case CXType_ConstantArray:
  case CXType_IncompleteArray:
  case CXType_VariableArray:
  case CXType_DependentSizedArray:
  case CXType_Record:
    return OMPLENS_VAR_AGGREGATE;
  case CXType_Pointer:
  case CXType_BlockPointer:
  case CXType_MemberPointer:
    return OMPLENS_VAR_POINTER;
  case CXType_Unexposed:
  case CXType_Invalid:
    return OMPLENS_VAR_UNKNOWN; /* dependent (template) types */
  default:
    return OMPLENS_VAR_SCALAR;
  }
}

static void add_ref(visit *v, file_work *fw, CXCursor c, uint32_t offset)
{
  const omplens_libclang *lc = v->lc;
  CXCursor d = lc->getCursorReferenced(c);
  enum CXCursorKind k = lc->getCursorKind(d);
  if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
    return;
  char *name = take_string(lc, lc->getCursorSpelling(d));
  CXFile f = NULL;
  unsigned at = 0;
  lc->getExpansionLocation(lc->getCursorLocation(d), &f, NULL, NULL, &at);
  int where = file_index(v, f);
  omplens_directives__ref ref = {
      offset, omplens_directives__pool_strdup(&v->u->scratch, name),
      where >= 0 && &v->u->files[where] == fw ? at : NONE,
      category_of(lc, lc->getCursorType(d))};
  free(name);
  oom_if(v->u, ref.name == NULL ||
                   !omplens_directives__vec_push(&fw->refs, sizeof(ref), &ref));
}

/* `for (i = 0; ...` with i declared outside: i is the loop's own. */
static void loop_var(visit *v, file_work *fw, CXCursor c, CXCursor parent,
                     span s)
{
  span ps;
  if (v->lc->getCursorKind(parent) != CXCursor_ForStmt ||
      extent_of(v, parent, &ps) != fw || ps.begin >= s.begin)
    return;
  const char *t = fw->src.text + ps.begin;
  size_t gap = s.begin - ps.begin;
  if (gap < 4 || strncmp(t, "for", 3) != 0)
    return;
  for (size_t i = 3; i < gap; i++)
    if (t[i] != ' ' && t[i] != '\t' && t[i] != '(' && t[i] != '\n')
      return;
  char *op = take_string(v->lc, v->lc->getCursorSpelling(c));
  bool assign = op != NULL && strcmp(op, "=") == 0;
  free(op);
  if (assign)
    oom_if(v->u, !omplens_directives__vec_push(&fw->loop_vars, sizeof(s.begin),
                                               &s.begin));
}

static void add_function(visit *v, file_work *fw, CXCursor c, span s)
{
  char *name = take_string(v->lc, v->lc->getCursorSpelling(c));
  omplens_directives__function f = {
      s.begin, s.end, omplens_directives__pool_strdup(&v->u->scratch, name)};
  free(name);
  oom_if(v->u, f.name == NULL ||
                   !omplens_directives__vec_push(&fw->functions, sizeof(f), &f));
}

/* ---- calls of the device memory API ---- */

/* The variable an expression names first: a variable or parameter it
 * refers to anywhere, else a member (`buf_` of `this`). */
typedef struct var_search {
  const omplens_libclang *lc;
  char *var, *member;
} var_search;

static void consider_var(var_search *vs, CXCursor c)
{
  const omplens_libclang *lc = vs->lc;
  enum CXCursorKind k = lc->getCursorKind(c);
  if (k != CXCursor_DeclRefExpr && k != CXCursor_MemberRefExpr)
    return;
  enum CXCursorKind d = lc->getCursorKind(lc->getCursorReferenced(c));
  if (k == CXCursor_DeclRefExpr && vs->var == NULL &&
      (d == CXCursor_VarDecl || d == CXCursor_ParmDecl))
    vs->var = take_string(lc, lc->getCursorSpelling(c));
  else if (k == CXCursor_MemberRefExpr && vs->member == NULL && d == CXCursor_FieldDecl)
    vs->member = take_string(lc, lc->getCursorSpelling(c));
}

static enum CXChildVisitResult var_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  (void)parent;
  var_search *vs = data;
  consider_var(vs, c);
  return vs->var != NULL ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* e's text span in fw and the variable it names (in the scratch pool). */
static bool call_arg(visit *v, file_work *fw, CXCursor e,
                     omplens_directives__call_arg *out)
{
  span s;
  *out = (omplens_directives__call_arg){{NONE, NONE}, NULL};
  if (extent_of(v, e, &s) != fw || s.end <= s.begin)
    return false;
  out->text = s;
  var_search vs = {v->lc, NULL, NULL};
  consider_var(&vs, e);
  if (vs.var == NULL)
    v->lc->visitChildren(e, var_visit, &vs);
  const char *name = vs.var != NULL ? vs.var : vs.member;
  if (name != NULL) {
    out->var = omplens_directives__pool_strdup(&v->u->scratch, name);
    oom_if(v->u, out->var == NULL);
  }
  free(vs.var);
  free(vs.member);
  return true;
}

static bool mentions_api(const file_work *fw, span s)
{
  return s.end > s.begin &&
         memmem(fw->src.text + s.begin, s.end - s.begin, API_PREFIX, sizeof(API_PREFIX) - 1);
}

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data)
{
  (void)parent;
  *(CXCursor *)data = c;
  return CXChildVisit_Break;
}

/* `x = ...` and `T x = ...` whose text names the API: what a call inside
 * them (omp_target_alloc) gives its value to. */
static void assignment(visit *v, file_work *fw, CXCursor c, enum CXCursorKind k, span s)
{
  const omplens_libclang *lc = v->lc;
  if (!mentions_api(fw, s))
    return;
  omplens_directives__assign a = {s.begin, s.end, {{NONE, NONE}, NULL}};
  if (k == CXCursor_VarDecl) {
    CXFile f = NULL;
    unsigned at = 0;
    lc->getExpansionLocation(lc->getCursorLocation(c), &f, NULL, NULL, &at);
    char *name = take_string(lc, lc->getCursorSpelling(c));
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0 || at + n > fw->src.size || memcmp(fw->src.text + at, name, n) != 0) {
      free(name);
      return; /* the name is not written where the parse says: a macro */
    }
    a.lhs = (omplens_directives__call_arg){{at, at + (uint32_t)n},
                                           omplens_directives__pool_strdup(&v->u->scratch, name)};
    oom_if(v->u, a.lhs.var == NULL);
    free(name);
  } else {
    CXCursor lhs = lc->getNullCursor();
    if (lc->getCursorBinaryOperatorKind(c) != CXBinaryOperator_Assign)
      return;
    lc->visitChildren(c, first_child, &lhs);
    if (lc->Cursor_isNull(lhs) || !call_arg(v, fw, lhs, &a.lhs))
      return;
  }
  oom_if(v->u, !omplens_directives__vec_push(&fw->assigns, sizeof(a), &a));
}

/* The innermost assignment whose right side holds the call at offset;
 * they were met before the call, outermost first. */
static omplens_directives__call_arg result_of(const file_work *fw, uint32_t offset)
{
  for (size_t i = fw->assigns.len; i-- > 0;) {
    const omplens_directives__assign *a =
        &OMPLENS_DIRECTIVES__AT(fw->assigns, omplens_directives__assign, i);
    if (offset >= a->begin && offset < a->end &&
        !(offset >= a->lhs.text.begin && offset < a->lhs.text.end))
      return a->lhs;
  }
  return (omplens_directives__call_arg){{NONE, NONE}, NULL};
}

static bool is_api_routine(const char *name)
{
  return name != NULL && (strncmp(name, API_PREFIX, sizeof(API_PREFIX) - 1) == 0 ||
                          strncmp(name, "llvm_" API_PREFIX, sizeof(API_PREFIX) + 4) == 0);
}

/* The routine's name is spelled near a call's start (after a wrapper
 * macro's name at most): calls without it there are not asked for one. */
#define API_NAME_WINDOW 256

static void api_call(visit *v, file_work *fw, CXCursor c, span s)
{
  const omplens_libclang *lc = v->lc;
  span head = {s.begin, s.end - s.begin > API_NAME_WINDOW ? s.begin + API_NAME_WINDOW : s.end};
  if (!mentions_api(fw, head))
    return;
  char *routine = take_string(lc, lc->getCursorSpelling(c));
  if (!is_api_routine(routine)) {
    free(routine);
    return;
  }
  int n = lc->Cursor_getNumArguments(c);
  omplens_directives__api_draft d = {s.begin, s.end,
                                     omplens_directives__pool_strdup(&v->u->scratch, routine),
                                     result_of(fw, s.begin), NULL, 0};
  free(routine);
  if (n > 0)
    d.args = omplens_directives__pool_alloc(&v->u->scratch, (size_t)n * sizeof(*d.args));
  oom_if(v->u, d.routine == NULL || (n > 0 && d.args == NULL));
  for (int i = 0; d.args != NULL && i < n; i++)
    call_arg(v, fw, lc->Cursor_getArgument(c, (unsigned)i), &d.args[d.num_args++]);
  oom_if(v->u, !omplens_directives__vec_push(&fw->api_calls, sizeof(d), &d));
}

static enum CXChildVisitResult plain_visit(CXCursor c, CXCursor parent,
                                           CXClientData data)
{
  visit *v = data;
  enum CXCursorKind k = v->lc->getCursorKind(c);
  span s;
  file_work *fw = v->lc->isPreprocessing(k) ? NULL : extent_of(v, c, &s);
  if (fw == NULL || v->u->oom)
    return CXChildVisit_Continue;
  fw->ast_seen = true;
  if (v->lc->isStatement(k) || v->lc->isExpression(k))
    statement_candidate(fw, s);
  if (k == CXCursor_DeclRefExpr) {
    add_ref(v, fw, c, s.begin);
  } else if (k == CXCursor_CallExpr) {
    oom_if(v->u, !omplens_directives__vec_push(&fw->calls, sizeof(s.begin),
                                               &s.begin));
    api_call(v, fw, c, s);
  } else if (k == CXCursor_BinaryOperator) {
    loop_var(v, fw, c, parent, s);
    assignment(v, fw, c, k, s);
  } else if (k == CXCursor_VarDecl) {
    assignment(v, fw, c, k, s);
  } else if (is_function(k)) {
    add_function(v, fw, c, s);
  }
  return CXChildVisit_Recurse;
}

/* ---- the OpenMP parse ---- */

static void add_directive(visit *v, file_work *fw, CXCursor c, span s)
{
  const omplens_libclang *lc = v->lc;
  omplens_directives__ast_directive d = {lc->getCursorKind(c), s.begin, s.end,
                                         NULL, 0};
  CXFile f = NULL;
  unsigned at = 0;
  lc->getSpellingLocation(lc->getCursorLocation(c), &f, NULL, NULL, &at);
  if (f != NULL) {
    char *path = file_path(lc, f);
    d.spelling_file = omplens_directives__pool_strdup(&v->u->scratch, path);
    d.spelling_offset = at;
    oom_if(v->u, path != NULL && d.spelling_file == NULL);
    free(path);
  }
  oom_if(v->u, !omplens_directives__vec_push(&fw->ast_dirs, sizeof(d), &d));
}

static void add_macro_use(visit *v, file_work *fw, CXCursor c, span s)
{
  char *name = take_string(v->lc, v->lc->getCursorSpelling(c));
  omplens_directives__macro_use m = {
      s.begin, s.end, omplens_directives__pool_strdup(&v->u->scratch, name)};
  free(name);
  oom_if(v->u, m.name == NULL ||
                   !omplens_directives__vec_push(&fw->macro_uses, sizeof(m), &m));
}

/* Macro definitions anywhere outside system headers: a `_Pragma` may be
 * built by a macro of another header. */
static void add_macro_def(visit *v, CXCursor c)
{
  const omplens_libclang *lc = v->lc;
  CXSourceRange r = lc->getCursorExtent(c);
  if (lc->Location_isInSystemHeader(lc->getRangeStart(r)))
    return;
  CXFile f = NULL;
  unsigned b = 0, e = 0;
  lc->getSpellingLocation(lc->getRangeStart(r), &f, NULL, NULL, &b);
  lc->getSpellingLocation(lc->getRangeEnd(r), NULL, NULL, NULL, &e);
  if (f == NULL)
    return;
  char *name = take_string(lc, lc->getCursorSpelling(c));
  char *path = file_path(lc, f);
  omplens_directives__macro_def m = {
      omplens_directives__pool_strdup(&v->u->scratch, name),
      omplens_directives__pool_strdup(&v->u->scratch, path), b, e};
  free(name);
  free(path);
  oom_if(v->u, m.name == NULL || m.file == NULL ||
                   !omplens_directives__vec_push(&v->u->macro_defs, sizeof(m), &m));
}

static enum CXChildVisitResult omp_visit(CXCursor c, CXCursor parent,
                                         CXClientData data)
{
  visit *v = data;
  enum CXCursorKind k = v->lc->getCursorKind(c);
  if (v->u->oom)
    return CXChildVisit_Break;
  if (k == CXCursor_MacroDefinition) {
    add_macro_def(v, c);
    return CXChildVisit_Continue;
  }
  span s;
  file_work *fw = extent_of(v, c, &s);
  if (fw == NULL)
    return CXChildVisit_Continue;
  if (k == CXCursor_MacroExpansion)
    add_macro_use(v, fw, c, s);
  else if (omplens_directives__cursor_name(k) != NULL)
    add_directive(v, fw, c, s);
  /* Other directives hide their bodies from the C API: nothing below. */
  bool hidden = k >= CXCursor_OMPParallelDirective && k <= CXCursor_LastStmt;
  return v->lc->isPreprocessing(k) || hidden || omplens_directives__cursor_name(k)
             ? CXChildVisit_Continue
             : CXChildVisit_Recurse;
}

static void add_skipped(visit *v, size_t i)
{
  const omplens_libclang *lc = v->lc;
  if (v->cxfiles[i] == NULL)
    return;
  CXSourceRangeList *list = lc->getSkippedRanges(v->tu, v->cxfiles[i]);
  for (unsigned k = 0; list != NULL && k < list->count; k++) {
    unsigned b = 0, e = 0;
    lc->getFileLocation(lc->getRangeStart(list->ranges[k]), NULL, NULL, NULL, &b);
    lc->getFileLocation(lc->getRangeEnd(list->ranges[k]), NULL, NULL, NULL, &e);
    span s = {b, e};
    oom_if(v->u, !omplens_directives__vec_push(&v->u->files[i].skipped,
                                               sizeof(s), &s));
  }
  if (list != NULL)
    lc->disposeSourceRangeList(list);
}

/* ---- parsing ---- */

/* An error of the whole unit: every file of it is partial. */
static void note_error(omplens_directives__unit *u, const char *msg)
{
  u->unit_error = true;
  if (u->first_error == NULL)
    u->first_error = strdup(msg);
}

/* An error in one file makes that file partial, not the unit's others: a
 * header's status must not depend on the unit it was read through. */
static void note_located_error(omplens_directives__unit *u, const char *file,
                               const char *msg)
{
  omplens_directives__located_error e = {
      omplens_directives__pool_strdup(&u->scratch, file),
      omplens_directives__pool_strdup(&u->scratch, msg)};
  oom_if(u, e.file == NULL || e.message == NULL ||
                !omplens_directives__vec_push(&u->errors, sizeof(e), &e));
}

/* Where an error is: the file its expansion location is in (a macro's
 * error is at its use, where the code is). NULL when nowhere. */
static char *error_file(const omplens_libclang *lc, CXDiagnostic d)
{
  CXFile f = NULL;
  lc->getExpansionLocation(lc->getDiagnosticLocation(d), &f, NULL, NULL, NULL);
  return f != NULL ? file_path(lc, f) : NULL;
}

/* After a fatal error clang reports nothing more: the errors it would
 * have found may be in any file. */
static void read_diagnostics(const omplens_libclang *lc,
                             omplens_directives__unit *u, CXTranslationUnit tu)
{
  unsigned n = lc->getNumDiagnostics(tu);
  for (unsigned i = 0; i < n; i++) {
    CXDiagnostic d = lc->getDiagnostic(tu, i);
    enum CXDiagnosticSeverity severity = lc->getDiagnosticSeverity(d);
    if (severity >= CXDiagnostic_Error) {
      char *msg = take_string(lc, lc->formatDiagnostic(
          d, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn));
      char *file = severity == CXDiagnostic_Fatal ? NULL : error_file(lc, d);
      if (file != NULL)
        note_located_error(u, file, msg != NULL ? msg : "error");
      else
        note_error(u, msg != NULL ? msg : "error");
      free(file);
      free(msg);
    }
    lc->disposeDiagnostic(d);
  }
}

/* The libclang index of u's plain parse: the thread's, else the
 * directive index's (an index serves one thread at a time). */
static CXIndex cx_index(const omplens_libclang *lc, omplens_directives__unit *u)
{
  void **cx = u->cx != NULL ? u->cx : &u->index->cx;
  if (*cx == NULL)
    *cx = lc->createIndex(0, 0);
  return *cx;
}

/* One parse, run on a thread of its own or the caller's. */
typedef struct parse_job {
  const omplens_libclang *lc;
  CXIndex cx;
  const char *path;
  const char **argv;
  int argc;
  unsigned options;
  CXTranslationUnit tu;
  enum CXErrorCode err;
} parse_job;

static void *run_parse(void *data)
{
  parse_job *j = data;
  j->err = j->lc->parseTranslationUnit2(j->cx, j->path, j->argv, j->argc, NULL, 0,
                                        j->options | CXTranslationUnit_KeepGoing, &j->tu);
  return NULL;
}

/* The job's arguments: args, then extra and include (when not NULL).
 * False without memory. */
static bool prepare_job(parse_job *j, const omplens_libclang *lc, CXIndex cx,
                        omplens_directives__unit *u, const omplens_directives__args *args,
                        const char *extra, const char *include, unsigned options)
{
  size_t n = args->argv.len;
  *j = (parse_job){lc, cx, u->files[0].src.path, malloc((n + 2) * sizeof(char *)),
                   (int)n + 1 + (include != NULL), options, NULL, CXError_Failure};
  if (j->argv == NULL)
    return false;
  for (size_t i = 0; i < n; i++)
    j->argv[i] = OMPLENS_DIRECTIVES__AT(args->argv, char *, i);
  j->argv[n] = extra;
  j->argv[n + 1] = include;
  return true;
}

/* "-I" and the directory of path, into buf. */
static const char *include_dir(char *buf, size_t size, const char *path)
{
  const char *slash = strrchr(path, '/');
  if (slash == NULL)
    snprintf(buf, size, "-I.");
  else if (slash == path)
    snprintf(buf, size, "-I/");
  else
    snprintf(buf, size, "-I%.*s", (int)(slash - path), path);
  return buf;
}

/* The job's unit, its diagnostics noted; NULL when it failed. */
static CXTranslationUnit finish_job(parse_job *j, omplens_directives__unit *u)
{
  bool no_argv = j->argv == NULL;
  free(j->argv);
  if (j->cx == NULL || no_argv) {
    oom_if(u, no_argv);
    note_error(u, "libclang could not create an index");
    return NULL;
  }
  if (j->err != CXError_Success || j->tu == NULL) {
    char msg[128];
    snprintf(msg, sizeof(msg), "libclang could not parse the file (error %d%s)", (int)j->err,
             j->err == CXError_ASTReadError ? ": it refused the compile arguments" : "");
    note_error(u, msg);
    if (j->tu != NULL)
      j->lc->disposeTranslationUnit(j->tu);
    return NULL;
  }
  read_diagnostics(j->lc, u, j->tu);
  return j->tu;
}

#define PARSE_STACK OMPLENS_DIRECTIVES__PARSE_STACK

/* Whether the OpenMP parse must see function bodies: only a `_Pragma` in
 * a body makes a directive the textual scan cannot see. Any `_Pragma` in a
 * file outside system headers counts (the macro that builds one may be
 * used anywhere); in a system header, one whose line names `target`
 * (glibc's `omp declare simd` in math.h does not). */
typedef struct pragma_scan {
  const omplens_libclang *lc;
  CXTranslationUnit tu;
  bool found;
} pragma_scan;

static bool target_pragma_line(const char *text, size_t size)
{
  const char *at = text, *end = text + size;
  while ((at = memmem(at, (size_t)(end - at), "_Pragma", 7)) != NULL) {
    const char *eol = memchr(at, '\n', (size_t)(end - at));
    size_t line = (size_t)((eol != NULL ? eol : end) - at);
    if (memmem(at, line, "target", 6) != NULL)
      return true;
    at += 7;
  }
  return false;
}

static void pragma_file(CXFile f, CXSourceLocation *stack, unsigned depth,
                        CXClientData data)
{
  (void)stack;
  (void)depth;
  pragma_scan *ps = data;
  const omplens_libclang *lc = ps->lc;
  size_t size = 0;
  const char *text = ps->found ? NULL : lc->getFileContents(ps->tu, f, &size);
  if (text == NULL || memmem(text, size, "_Pragma", 7) == NULL)
    return;
  bool system = lc->Location_isInSystemHeader(lc->getLocationForOffset(ps->tu, f, 0));
  ps->found = !system || target_pragma_line(text, size);
}

static bool needs_bodies(const omplens_libclang *lc, CXTranslationUnit tu)
{
  pragma_scan ps = {lc, tu, false};
  lc->getInclusions(tu, pragma_file, &ps);
  return ps.found;
}

/* The OpenMP and plain parses of u, the first on a second thread with an
 * index of its own (*own_index: disposed of after the unit), as an index
 * serves one thread at a time. Diagnostics are read afterwards, OpenMP's
 * first, as one thread would. */
static void parse_both(const omplens_libclang *lc, omplens_directives__unit *u,
                       const omplens_directives__args *args, CXTranslationUnit *omp,
                       CXTranslationUnit *plain, CXIndex *own_index)
{
  parse_job jo, jp;
  CXIndex own = *own_index = lc->createIndex(0, 0);
  /* Without function bodies first: clang's analysis of every OpenMP
   * region is most of this parse, and what it is for is rarely there. */
  bool ok_o = prepare_job(&jo, lc, own, u, args, "-fopenmp", NULL,
                          CXTranslationUnit_DetailedPreprocessingRecord |
                              CXTranslationUnit_SkipFunctionBodies);
  char inc[4200]; /* made as the fixer parses a unit: the fixer takes it */
  bool ok_p = prepare_job(&jp, lc, cx_index(lc, u), u, args, PLAIN_OPENMP,
                          include_dir(inc, sizeof inc, u->files[0].src.path),
                          CXTranslationUnit_DetailedPreprocessingRecord);
  pthread_attr_t attr;
  pthread_t thread;
  bool threaded = ok_o && own != NULL && pthread_attr_init(&attr) == 0;
  if (threaded) {
    pthread_attr_setstacksize(&attr, PARSE_STACK);
    threaded = pthread_create(&thread, &attr, run_parse, &jo) == 0;
    pthread_attr_destroy(&attr);
  }
  if (ok_p && jp.cx != NULL)
    run_parse(&jp);
  if (threaded)
    pthread_join(thread, NULL);
  else if (ok_o && own != NULL)
    run_parse(&jo);
  if (jo.tu != NULL && needs_bodies(lc, jo.tu)) { /* again, whole */
    lc->disposeTranslationUnit(jo.tu);
    jo.tu = NULL;
    jo.options &= ~(unsigned)CXTranslationUnit_SkipFunctionBodies;
    run_parse(&jo);
  }
  *omp = finish_job(&jo, u);
  *plain = finish_job(&jp, u);
}

/* ---- the unit's files ---- */

typedef struct inclusion_scan {
  const omplens_libclang *lc;
  omplens_directives__unit *u;
  CXTranslationUnit tu;
} inclusion_scan;

/* A header whose text holds no directive: remembered, so that a lookup
 * of it needs no parse of its own. */
static void plain_header(omplens_directives__unit *u, const omplens_libclang *lc, CXFile f)
{
  char *path = file_path(lc, f);
  const char *kept = path != NULL ? omplens_directives__pool_strdup(&u->scratch, path) : NULL;
  oom_if(u, path != NULL && (kept == NULL || !omplens_directives__vec_push(&u->plain_headers,
                                                                           sizeof(kept), &kept)));
  free(path);
}

/* Headers worth reading: outside system directories, with an omp pragma
 * or a call of the device memory API. */
static void inclusion(CXFile f, CXSourceLocation *stack, unsigned depth,
                      CXClientData data)
{
  inclusion_scan *is = data;
  const omplens_libclang *lc = is->lc;
  if (depth == 0 || is->u->num_files >= MAX_HEADERS || is->u->oom)
    return;
  CXSourceLocation start = lc->getLocationForOffset(is->tu, f, 0);
  if (lc->Location_isInSystemHeader(start))
    return;
  size_t size = 0;
  const char *text = lc->getFileContents(is->tu, f, &size);
  if (text == NULL)
    return;
  if (memmem(text, size, "omp", 3) == NULL ||
      (memmem(text, size, "pragma", 6) == NULL && memmem(text, size, "Pragma", 6) == NULL &&
       memmem(text, size, API_PREFIX, sizeof(API_PREFIX) - 1) == NULL)) {
    plain_header(is->u, lc, f); /* no directive to look for */
    return;
  }
  char *path = file_path(lc, f);
  if (path != NULL && omplens_directives__unit_source(is->u, path) != NULL) {
    bool known = false;
    for (size_t i = 0; i < is->u->num_files && !known; i++)
      known = strcmp(is->u->files[i].src.path, path) == 0;
    if (!known)
      oom_if(is->u, omplens_directives__unit_add_file(is->u, path) ==
                        OMPLENS_DIRECTIVES_ENOMEM);
  }
  free(path);
}

static CXFile *file_handles(const omplens_libclang *lc,
                            omplens_directives__unit *u, CXTranslationUnit tu)
{
  CXFile *files = calloc(u->num_files, sizeof(*files));
  for (size_t i = 0; files != NULL && i < u->num_files; i++)
    files[i] = lc->getFile(tu, u->files[i].src.path);
  oom_if(u, files == NULL);
  return files;
}

static void collect(const omplens_libclang *lc, omplens_directives__unit *u,
                    CXTranslationUnit tu, bool openmp)
{
  visit v = {lc, u, tu, file_handles(lc, u, tu), NULL, -1};
  if (v.cxfiles == NULL)
    return;
  lc->visitChildren(lc->getTranslationUnitCursor(tu),
                      openmp ? omp_visit : plain_visit, &v);
  for (size_t i = 0; openmp && i < u->num_files; i++)
    add_skipped(&v, i);
  free(v.cxfiles);
}

static int prepare_statements(omplens_directives__unit *u)
{
  for (size_t i = 0; i < u->num_files; i++) {
    file_work *fw = &u->files[i];
    size_t n = fw->scan.pragmas.len;
    fw->stmt = malloc((n > 0 ? n : 1) * sizeof(*fw->stmt));
    if (fw->stmt == NULL)
      return OMPLENS_DIRECTIVES_ENOMEM;
    for (size_t k = 0; k < n; k++)
      fw->stmt[k] = (span){NONE, NONE};
  }
  return 0;
}

int omplens_directives__ast_none(omplens_directives__unit *u)
{
  return prepare_statements(u);
}

/* The function of fw that holds offset, or NULL. */
static const char *function_at(const file_work *fw, uint32_t offset)
{
  for (size_t i = 0; i < fw->functions.len; i++) {
    const omplens_directives__function *f =
        &OMPLENS_DIRECTIVES__AT(fw->functions, omplens_directives__function, i);
    if (f->begin <= offset && offset < f->end)
      return f->name;
  }
  return NULL;
}

static int by_name(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the functions holding the unit's OpenMP pragmas, sorted;
 * *count of them. NULL when none (or no memory). */
static const char **directive_functions(const omplens_directives__unit *u, size_t *count)
{
  size_t n = 0, cap = 0;
  for (size_t i = 0; i < u->num_files; i++)
    cap += u->files[i].scan.pragmas.len;
  const char **names = cap ? malloc(cap * sizeof(*names)) : NULL;
  for (size_t i = 0; names != NULL && i < u->num_files; i++) {
    const file_work *fw = &u->files[i];
    for (size_t k = 0; k < fw->scan.pragmas.len; k++) {
      const omplens_directives__pragma *p =
          &OMPLENS_DIRECTIVES__AT(fw->scan.pragmas, omplens_directives__pragma, k);
      const char *name = p->omp ? function_at(fw, p->begin) : NULL;
      if (name != NULL)
        names[n++] = name;
    }
  }
  if (names != NULL)
    qsort(names, n, sizeof(*names), by_name);
  *count = n;
  return names;
}

/* Whether text names, as an identifier, one of the sorted names: a header
 * without directives that calls a function holding one, whose node table
 * the fixer asks for (the loop around the call). One pass over the text. */
static bool names_any(const char *text, size_t size, const char **names, size_t count)
{
  char word[256];
  for (size_t i = 0; i < size && count > 0;) {
    if (!(isalpha((unsigned char)text[i]) || text[i] == '_')) {
      i++;
      continue;
    }
    size_t b = i;
    while (i < size && (isalnum((unsigned char)text[i]) || text[i] == '_'))
      i++;
    if (i - b >= sizeof(word))
      continue;
    memcpy(word, text + b, i - b);
    word[i - b] = '\0';
    const char *key = word;
    if (bsearch(&key, names, count, sizeof(*names), by_name) != NULL)
      return true;
  }
  return false;
}

/* The plain parse, to the index's hook: the files holding directives, and
 * the headers without any that call one of their functions. */
static void show_plain(omplens_directives__unit *u, const omplens_directives__args *args,
                       CXTranslationUnit tu)
{
  const omplens_libclang *lc = omplens_libclang_load();
  size_t n = 0, num_names = 0;
  const char **names = u->plain_headers.len ? directive_functions(u, &num_names) : NULL;
  const char **files = malloc((u->num_files + u->plain_headers.len) * sizeof(*files));
  for (size_t i = 0; files != NULL && i < u->num_files; i++)
    files[n++] = u->files[i].src.path;
  for (size_t i = 0; files != NULL && names != NULL && i < u->plain_headers.len; i++) {
    const char *path = OMPLENS_DIRECTIVES__AT(u->plain_headers, const char *, i);
    CXFile f = lc->getFile(tu, path);
    size_t size = 0;
    const char *text = f != NULL ? lc->getFileContents(tu, f, &size) : NULL;
    if (text != NULL && names_any(text, size, names, num_names))
      files[n++] = path;
  }
  if (files != NULL)
    u->index->plain_unit(files, n, (const char *const *)args->argv.data, args->argv.len, tu);
  free(names);
  free(files);
}

/* The unit's parses in a helper process (libclang_dl.h), which stores
 * their result in the cache: OMPLENS_LIBCLANG_APART, _HERE or _CRASHED. */
static int parse_apart(const omplens_directives__unit *u, const omplens_directives__args *args,
                       int *sig)
{
  size_t n;
  const char **parts = omplens_directives__unit_parts(u, args, 1, &n);
  if (parts == NULL)
    return OMPLENS_LIBCLANG_HERE;
  parts[0] = u->index->plain_unit != NULL ? "hook" : "";
  int rc = omplens_libclang_apart(OMPLENS_LIBCLANG_JOB_UNIT, parts, n, sig);
  free(parts);
  return rc;
}

int omplens_directives__ast_read(omplens_directives__unit *u,
                                 const omplens_directives__args *args)
{
  /* The cache first: a hit needs no libclang at all. */
  double since = omplens_libclang_clock();
  omplens_libclang_key key;
  bool keyed = omplens_directives__cache_key(u, args, &key) == 0;
  if (keyed && omplens_directives__cache_load(u, &key)) {
    omplens_libclang_count(since, 1);
    return 0;
  }
  /* Then a helper's parse, read from the cache. */
  int sig = 0;
  int where = keyed ? parse_apart(u, args, &sig) : OMPLENS_LIBCLANG_HERE;
  if (where == OMPLENS_LIBCLANG_APART && omplens_directives__cache_load(u, &key)) {
    omplens_libclang_count(since, 0);
    return 0;
  }
  if (where == OMPLENS_LIBCLANG_CRASHED) {
    char why[64];
    if (sig != 0)
      snprintf(why, sizeof(why), "libclang crashed parsing it (signal %d)", sig);
    else
      snprintf(why, sizeof(why), "libclang's process ended while parsing it");
    note_error(u, why);
    omplens_libclang_count(since, 0);
    return prepare_statements(u);
  }
  /* Without libclang the unit is read from its text alone, as when
   * libclang cannot parse it: partial, with the reason as diagnostic. */
  const omplens_libclang *lc = omplens_libclang_load();
  if (lc == NULL) {
    note_error(u, omplens_libclang_strerror());
    return prepare_statements(u);
  }
  CXTranslationUnit omp = NULL, plain = NULL;
  CXIndex own = NULL;
  parse_both(lc, u, args, &omp, &plain, &own);
  inclusion_scan is = {lc, u, omp != NULL ? omp : plain};
  if (is.tu != NULL)
    lc->getInclusions(is.tu, inclusion, &is);
  int err = prepare_statements(u);
  if (err == 0 && omp != NULL)
    collect(lc, u, omp, true);
  if (err == 0 && plain != NULL)
    collect(lc, u, plain, false);
  if (err == 0 && keyed && !u->oom) {
    void *tus[] = {omp, plain};
    omplens_directives__cache_store(u, &key, tus, 2);
  }
  if (omp != NULL)
    lc->disposeTranslationUnit(omp);
  if (plain != NULL && err == 0 && !u->oom && u->index->plain_unit != NULL)
    show_plain(u, args, plain);
  if (plain != NULL)
    lc->disposeTranslationUnit(plain);
  if (own != NULL)
    lc->disposeIndex(own);
  omplens_libclang_count(since, 0);
  return err != 0 || u->oom ? OMPLENS_DIRECTIVES_ENOMEM : 0;
}

void omplens_directives__on_plain_unit(omplens_directive_index *ix,
                                       omplens_directives__unit_hook hook)
{
  if (ix != NULL)
    ix->plain_unit = hook;
}

/* A non-NULL index was made by a loaded libclang. */
void omplens_directives__ast_dispose(void *cx)
{
  if (cx != NULL)
    omplens_libclang_load()->disposeIndex(cx);
}
