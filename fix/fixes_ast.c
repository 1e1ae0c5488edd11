/* libclang's view of a source file, flattened into a table of nodes (kind,
 * extent, parent, referenced declaration) that the rules query without
 * libclang. The parse is the directive index's "plain" one: without
 * -fopenmp, because clang wraps every OpenMP region body in a CapturedStmt
 * that the C API's visitor does not enter, so references inside regions
 * and nested directives would be invisible; the pragmas vanish and the whole
 * tree is there. A header is parsed through a translation unit that
 * includes it, and only the nodes written in the header are kept; class and
 * function templates are read as written (their pattern, not their
 * instantiations). */
#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"
#include "libclang_dl.h"

#define PLAIN_OPENMP "-D_OPENMP=201511"

typedef struct walk {
  const omplens_libclang *lc;
  omplens_fix__ast *a;
  size_t cap_nodes, cap_names, cap_macros;
  uint32_t *ref_loc; /* per node: the referenced declaration's offset */
  CXFile file;       /* the file whose nodes are kept */
  int failed;
  const char *text; /* its bytes as parsed, and their number */
  size_t size;
} walk;

typedef struct level {
  walk *w;
  uint32_t parent;
  uint32_t nth;
} level;

/* Appends c to the name pool: its offset, 0 for "" (or out of memory). */
static uint32_t add_name_text(walk *w, const char *c) {
  size_t n = c ? strlen(c) : 0;
  uint32_t at = 0;
  if (n) {
    if (w->a->names_len + n + 1 > w->cap_names) {
      size_t cap = w->cap_names ? w->cap_names : 4096;
      while (cap < w->a->names_len + n + 1)
        cap *= 2;
      char *p = realloc(w->a->names, cap);
      if (!p) {
        w->failed = 1;
        return 0;
      }
      w->a->names = p;
      w->cap_names = cap;
    }
    at = (uint32_t)w->a->names_len;
    memcpy(w->a->names + at, c, n + 1);
    w->a->names_len += n + 1;
  }
  return at;
}

static uint32_t add_name(walk *w, CXString s) {
  uint32_t at = add_name_text(w, w->lc->getCString(s));
  w->lc->disposeString(s);
  return at;
}

static void add_macro(walk *w, CXCursor c) {
  CXString s = w->lc->getCursorSpelling(c);
  const char *name = w->lc->getCString(s);
  if (name && *name) {
    if (w->a->num_macros == w->cap_macros) {
      size_t cap = w->cap_macros ? 2 * w->cap_macros : 256;
      char **p = realloc(w->a->macros, cap * sizeof *p);
      if (!p)
        w->failed = 1;
      else {
        w->a->macros = p;
        w->cap_macros = cap;
      }
    }
    if (w->a->num_macros < w->cap_macros && !(w->a->macros[w->a->num_macros] = strdup(name)))
      w->failed = 1;
    else if (w->a->num_macros < w->cap_macros)
      w->a->num_macros++;
  }
  w->lc->disposeString(s);
}

/* The member a template's dependent member expression names (libclang
 * spells none), where the expression is a macro's argument
 * (`MIN(x.coefs.size(), n)`): there, the node's offsets are the macro's
 * and its text cannot say; the member is the identifier that ends where the
 * expression's spelling ends. 0 elsewhere: outside macros the text says. */
static uint32_t macro_argument_member(walk *w, CXSourceRange r) {
  CXFile file;
  unsigned begin, end, expanded;
  w->lc->getSpellingLocation(w->lc->getRangeStart(r), &file, NULL, NULL, &begin);
  w->lc->getExpansionLocation(w->lc->getRangeStart(r), NULL, NULL, NULL, &expanded);
  if (!w->text || begin == expanded || !w->lc->File_isEqual(file, w->file))
    return 0;
  w->lc->getSpellingLocation(w->lc->getRangeEnd(r), &file, NULL, NULL, &end);
  if (!w->lc->File_isEqual(file, w->file) || end <= begin || end > w->size)
    return 0;
  size_t from = end;
  while (from > begin && omplens_fix__ident_char(w->text[from - 1]))
    from--;
  if (from == end || (from > begin && w->text[from - 1] != '.' && w->text[from - 1] != '>'))
    return 0;
  char name[128];
  if (end - from >= sizeof name)
    return 0;
  memcpy(name, w->text + from, end - from);
  name[end - from] = 0;
  return add_name_text(w, name);
}

static uint32_t offset_of(const omplens_libclang *lc, CXSourceLocation loc) {
  unsigned off = 0;
  lc->getExpansionLocation(loc, NULL, NULL, NULL, &off);
  return off;
}

static bool arithmetic(CXType t) {
  return (t.kind >= CXType_Bool && t.kind <= CXType_LongDouble) ||
         (t.kind >= CXType_Float128 && t.kind <= CXType_Ibm128) || t.kind == CXType_Enum;
}

static int classify_type(const omplens_libclang *lc, CXType t) {
  t = lc->getCanonicalType(t);
  if (t.kind == CXType_Pointer)
    t = lc->getCanonicalType(lc->getPointeeType(t));
  else if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
           t.kind == CXType_VariableArray)
    t = lc->getCanonicalType(lc->getArrayElementType(t));
  else
    return OMPLENS_FIX__ELEM_UNKNOWN;
  if (arithmetic(t))
    return OMPLENS_FIX__ELEM_ARITH;
  if (t.kind == CXType_Pointer)
    return OMPLENS_FIX__ELEM_POINTER;
  if (t.kind == CXType_Unexposed) /* `T` of a template: dependent */
    return OMPLENS_FIX__ELEM_DEPENDENT;
  return OMPLENS_FIX__ELEM_OTHER;
}

/* What a variable's or parameter's type says of it: its elements', and
 * whether it is a number itself. */
static void classify_declaration(const omplens_libclang *lc, CXCursor c, omplens_fix__node *n) {
  CXType t = lc->getCursorType(c);
  n->elem = (uint8_t)classify_type(lc, t);
  n->arith = arithmetic(lc->getCanonicalType(t));
}

static int binary_op(const omplens_libclang *lc, CXCursor c) {
  enum CXBinaryOperatorKind k = lc->getCursorBinaryOperatorKind(c);
  if (k == CXBinaryOperator_Assign)
    return OMPLENS_FIX__OP_ASSIGN;
  if (k >= CXBinaryOperator_MulAssign && k <= CXBinaryOperator_OrAssign)
    return OMPLENS_FIX__OP_UPDATE;
  if (k == CXBinaryOperator_Add || k == CXBinaryOperator_Sub)
    return OMPLENS_FIX__OP_ARITH;
  if ((k >= CXBinaryOperator_LT && k <= CXBinaryOperator_NE) || k == CXBinaryOperator_LAnd ||
      k == CXBinaryOperator_LOr)
    return OMPLENS_FIX__OP_COMPARE;
  if (k == CXBinaryOperator_Comma)
    return OMPLENS_FIX__OP_COMMA;
  return OMPLENS_FIX__OP_OTHER;
}

static int unary_op(const omplens_libclang *lc, CXCursor c) {
  switch (lc->getCursorUnaryOperatorKind(c)) {
  case CXUnaryOperator_PostInc:
  case CXUnaryOperator_PostDec:
  case CXUnaryOperator_PreInc:
  case CXUnaryOperator_PreDec:
    return OMPLENS_FIX__OP_INCDEC;
  case CXUnaryOperator_AddrOf:
    return OMPLENS_FIX__OP_ADDROF;
  case CXUnaryOperator_Deref:
    return OMPLENS_FIX__OP_DEREF;
  case CXUnaryOperator_LNot:
    return OMPLENS_FIX__OP_COMPARE;
  default:
    return OMPLENS_FIX__OP_OTHER;
  }
}

static bool at_namespace_scope(const omplens_libclang *lc, CXCursor c) {
  enum CXCursorKind k = lc->getCursorKind(lc->getCursorSemanticParent(c));
  return k == CXCursor_TranslationUnit || k == CXCursor_Namespace;
}

/* Node kind and operator of a cursor. */
static void kind_of(const omplens_libclang *lc, CXCursor c, omplens_fix__node *n) {
  enum CXCursorKind k = lc->getCursorKind(c);
  switch (k) {
  case CXCursor_FunctionDecl:
  case CXCursor_FunctionTemplate:
  case CXCursor_CXXMethod:
  case CXCursor_Constructor:
  case CXCursor_Destructor:
  case CXCursor_ConversionFunction:
    n->kind = lc->isCursorDefinition(c) ? OMPLENS_FIX__N_FUNCTION : OMPLENS_FIX__N_OTHER;
    return;
  case CXCursor_VarDecl:
    n->kind = OMPLENS_FIX__N_VAR;
    classify_declaration(lc, c, n);
    n->global = at_namespace_scope(lc, c) || lc->Cursor_getStorageClass(c) == CX_SC_Static;
    return;
  case CXCursor_ParmDecl:
    n->kind = OMPLENS_FIX__N_PARM;
    classify_declaration(lc, c, n);
    return;
  case CXCursor_EnumConstantDecl:
    n->kind = OMPLENS_FIX__N_ENUM_CONST;
    return;
  case CXCursor_TypedefDecl:
  case CXCursor_StructDecl:
  case CXCursor_UnionDecl:
  case CXCursor_EnumDecl:
    n->kind = OMPLENS_FIX__N_TYPE_DECL;
    return;
  case CXCursor_DeclRefExpr:
    n->kind = OMPLENS_FIX__N_DECLREF;
    return;
  case CXCursor_CallExpr:
    n->kind = OMPLENS_FIX__N_CALL;
    return;
  case CXCursor_ForStmt:
    n->kind = OMPLENS_FIX__N_FOR;
    return;
  case CXCursor_WhileStmt:
    n->kind = OMPLENS_FIX__N_WHILE;
    return;
  case CXCursor_DoStmt:
    n->kind = OMPLENS_FIX__N_DO;
    return;
  case CXCursor_IfStmt:
    n->kind = OMPLENS_FIX__N_IF;
    return;
  case CXCursor_SwitchStmt:
    n->kind = OMPLENS_FIX__N_SWITCH;
    return;
  case CXCursor_CompoundStmt:
    n->kind = OMPLENS_FIX__N_COMPOUND;
    return;
  case CXCursor_DeclStmt:
    n->kind = OMPLENS_FIX__N_DECLSTMT;
    return;
  case CXCursor_ReturnStmt:
    n->kind = OMPLENS_FIX__N_RETURN;
    return;
  case CXCursor_GotoStmt:
  case CXCursor_IndirectGotoStmt:
    n->kind = OMPLENS_FIX__N_GOTO;
    return;
  case CXCursor_BreakStmt:
    n->kind = OMPLENS_FIX__N_BREAK;
    return;
  case CXCursor_ContinueStmt:
    n->kind = OMPLENS_FIX__N_CONTINUE;
    return;
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator:
    n->kind = OMPLENS_FIX__N_BINARY;
    n->op = (uint8_t)binary_op(lc, c);
    return;
  case CXCursor_UnaryOperator:
    n->kind = OMPLENS_FIX__N_UNARY;
    n->op = (uint8_t)unary_op(lc, c);
    return;
  case CXCursor_ArraySubscriptExpr:
    n->kind = OMPLENS_FIX__N_SUBSCRIPT;
    return;
  case CXCursor_MemberRefExpr:
    n->kind = OMPLENS_FIX__N_MEMBER;
    return;
  case CXCursor_ParenExpr:
    n->kind = OMPLENS_FIX__N_PAREN;
    return;
  case CXCursor_CStyleCastExpr:
    n->kind = OMPLENS_FIX__N_CAST;
    return;
  case CXCursor_UnexposedExpr:
    n->kind = OMPLENS_FIX__N_IMPLICIT;
    return;
  case CXCursor_ConditionalOperator:
    n->kind = OMPLENS_FIX__N_CONDITIONAL;
    return;
  case CXCursor_IntegerLiteral:
  case CXCursor_FloatingLiteral:
  case CXCursor_CharacterLiteral:
  case CXCursor_StringLiteral:
    n->kind = OMPLENS_FIX__N_LITERAL;
    return;
  default:
    if (lc->isExpression(k))
      n->kind = OMPLENS_FIX__N_OTHER_EXPR;
    else if (lc->isStatement(k))
      n->kind = OMPLENS_FIX__N_OTHER_STMT;
    else
      n->kind = OMPLENS_FIX__N_OTHER;
  }
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data);

static bool in_file(const walk *w, CXSourceLocation loc) {
  CXFile f = NULL;
  w->lc->getExpansionLocation(loc, &f, NULL, NULL, NULL);
  return f && w->lc->File_isEqual(f, w->file);
}

/* The callee's definition of a call into another file, as "PATH:OFFSET"
 * in the name pool (0 when unknown): the referenced function's, or, in a
 * template, where the call is unresolved, the one function its name can
 * mean. */
static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  *(CXCursor *)data = c;
  return CXChildVisit_Break;
}

static uint32_t callee_elsewhere(walk *w, CXCursor call, CXCursor d) {
  const omplens_libclang *lc = w->lc;
  enum CXCursorKind dk = lc->Cursor_isNull(d) ? CXCursor_InvalidCode : lc->getCursorKind(d);
  CXCursor callee = dk >= CXCursor_FirstInvalid && dk <= CXCursor_LastInvalid ? lc->getNullCursor() : d;
  if (lc->Cursor_isNull(callee)) { /* a dependent call: its callee names an overload set */
    lc->visitChildren(call, first_child, &callee);
    while (!lc->Cursor_isNull(callee) && lc->getCursorKind(callee) == CXCursor_UnexposedExpr) {
      CXCursor inner = lc->getNullCursor();
      lc->visitChildren(callee, first_child, &inner);
      callee = inner;
    }
  }
  if (!lc->Cursor_isNull(callee) && lc->getCursorKind(callee) == CXCursor_DeclRefExpr &&
      lc->Cursor_isNull(d)) /* an unresolved name refers to its overload set */
    callee = lc->getCursorReferenced(callee);
  if (!lc->Cursor_isNull(callee) && lc->getCursorKind(callee) == CXCursor_OverloadedDeclRef)
    d = lc->getNumOverloadedDecls(callee) == 1 ? lc->getOverloadedDecl(callee, 0)
                                               : lc->getNullCursor();
  if (lc->Cursor_isNull(d))
    return 0;
  CXCursor def = lc->getCursorDefinition(d);
  if (lc->Cursor_isNull(def))
    return 0;
  CXFile file;
  unsigned line, column, offset;
  lc->getSpellingLocation(lc->getCursorLocation(def), &file, &line, &column, &offset);
  if (!file)
    return 0;
  CXString name = lc->File_tryGetRealPathName(file);
  const char *path = lc->getCString(name);
  if (!path || !*path) {
    lc->disposeString(name);
    name = lc->getFileName(file);
    path = lc->getCString(name);
  }
  char text[4200];
  int k = path ? snprintf(text, sizeof text, "%s:%u", path, offset) : -1;
  lc->disposeString(name);
  if (k <= 0 || (size_t)k >= sizeof text)
    return 0;
  return add_name_text(w, text);
}

static void record(walk *w, level *lv, CXCursor c) {
  const omplens_libclang *lc = w->lc;
  omplens_fix__ast *a = w->a;
  if (a->num_nodes == w->cap_nodes) {
    size_t cap = w->cap_nodes ? 2 * w->cap_nodes : 1024;
    omplens_fix__node *v = realloc(a->nodes, cap * sizeof *v);
    uint32_t *r = v ? realloc(w->ref_loc, cap * sizeof *r) : NULL;
    if (v)
      a->nodes = v;
    if (!v || !r || cap > UINT32_MAX / 2) {
      w->failed = 1;
      return;
    }
    w->ref_loc = r;
    w->cap_nodes = cap;
  }
  uint32_t idx = (uint32_t)a->num_nodes++;
  omplens_fix__node *n = &a->nodes[idx];
  memset(n, 0, sizeof *n);
  kind_of(lc, c, n);
  CXSourceRange r = lc->getCursorExtent(c);
  n->begin = offset_of(lc, lc->getRangeStart(r));
  n->end = offset_of(lc, lc->getRangeEnd(r));
  n->loc = offset_of(lc, lc->getCursorLocation(c));
  n->parent = lv->parent;
  n->nth = lv->nth++;
  n->ref = OMPLENS_FIX__NONE;
  w->ref_loc[idx] = OMPLENS_FIX__NONE;
  if (n->kind == OMPLENS_FIX__N_DECLREF || n->kind == OMPLENS_FIX__N_CALL ||
      n->kind == OMPLENS_FIX__N_VAR || n->kind == OMPLENS_FIX__N_PARM ||
      n->kind == OMPLENS_FIX__N_FUNCTION || n->kind == OMPLENS_FIX__N_ENUM_CONST ||
      n->kind == OMPLENS_FIX__N_MEMBER || n->kind == OMPLENS_FIX__N_OTHER)
    n->name = add_name(w, lc->getCursorSpelling(c));
  if (n->kind == OMPLENS_FIX__N_MEMBER && !n->name)
    n->name = macro_argument_member(w, r);
  if (n->kind == OMPLENS_FIX__N_DECLREF || n->kind == OMPLENS_FIX__N_CALL) {
    CXCursor d = lc->getCursorReferenced(c);
    if (!lc->Cursor_isNull(d) && in_file(w, lc->getCursorLocation(d)))
      w->ref_loc[idx] = offset_of(lc, lc->getCursorLocation(d));
    else if (n->kind == OMPLENS_FIX__N_CALL)
      n->callee = callee_elsewhere(w, c, d);
  }
  level sub = {w, idx, 0};
  lc->visitChildren(c, visit, &sub);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  level *lv = data;
  walk *w = lv->w;
  if (w->failed)
    return CXChildVisit_Break;
  enum CXCursorKind k = w->lc->getCursorKind(c);
  if (k == CXCursor_MacroDefinition) {
    add_macro(w, c);
    return CXChildVisit_Continue;
  }
  if (k == CXCursor_MacroExpansion || k == CXCursor_InclusionDirective)
    return CXChildVisit_Continue;
  if (!in_file(w, w->lc->getCursorLocation(c))) {
    /* `extern "C" { #include "h" }`: the header's nodes are inside */
    if (k == CXCursor_LinkageSpec || k == CXCursor_Namespace)
      w->lc->visitChildren(c, visit, lv);
    return CXChildVisit_Continue;
  }
  record(w, lv, c);
  return CXChildVisit_Continue;
}

static const omplens_fix__ast *sort_ast; /* for cmp_loc only */

static int cmp_loc(const void *x, const void *y) {
  uint32_t a = sort_ast->nodes[*(const uint32_t *)x].loc,
           b = sort_ast->nodes[*(const uint32_t *)y].loc;
  return a < b ? -1 : a > b;
}

static bool is_decl(int kind) {
  return kind == OMPLENS_FIX__N_VAR || kind == OMPLENS_FIX__N_PARM ||
         kind == OMPLENS_FIX__N_FUNCTION || kind == OMPLENS_FIX__N_ENUM_CONST ||
         kind == OMPLENS_FIX__N_OTHER;
}

/* DECLREF and CALL nodes point at the declaration node at their offset
 * (same name: a prototype and a macro can share an offset). */
static void resolve_refs(walk *w) {
  omplens_fix__ast *a = w->a;
  uint32_t *decls = malloc((a->num_nodes + 1) * sizeof *decls);
  if (!decls) {
    w->failed = 1;
    return;
  }
  size_t nd = 0;
  for (size_t i = 0; i < a->num_nodes; i++)
    if (is_decl(a->nodes[i].kind))
      decls[nd++] = (uint32_t)i;
  sort_ast = a;
  qsort(decls, nd, sizeof *decls, cmp_loc);
  for (size_t i = 0; i < a->num_nodes; i++) {
    if (w->ref_loc[i] == OMPLENS_FIX__NONE)
      continue;
    size_t lo = 0, hi = nd;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (a->nodes[decls[mid]].loc < w->ref_loc[i])
        lo = mid + 1;
      else
        hi = mid;
    }
    for (; lo < nd && a->nodes[decls[lo]].loc == w->ref_loc[i]; lo++)
      if (!strcmp(omplens_fix__ast_name(a, decls[lo]), omplens_fix__ast_name(a, (uint32_t)i))) {
        a->nodes[i].ref = decls[lo];
        break;
      }
  }
  free(decls);
}

static void read_errors(const omplens_libclang *lc, omplens_fix__ast *a,
                        CXTranslationUnit tu) {
  unsigned n = lc->getNumDiagnostics(tu);
  for (unsigned i = 0; i < n; i++) {
    CXDiagnostic d = lc->getDiagnostic(tu, i);
    if (lc->getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      if (!a->errors++) {
        CXString s = lc->formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation |
                                                 CXDiagnostic_DisplayColumn);
        const char *c = lc->getCString(s);
        a->first_error = strdup(c ? c : "error");
        lc->disposeString(s);
      }
    }
    lc->disposeDiagnostic(d);
  }
}

/* One parse of a translation unit: main's source (text replacing path's
 * contents when not NULL), with args, lead (-D_OPENMP=... or -fopenmp) and
 * -I main's directory, in that order, as the directive index parses a unit
 * plainly (omplens_fix__unit_parsed takes that parse). *tu is NULL when
 * libclang fails. */
typedef struct parse_job {
  const char *main, *path, *text, *lead;
  const char *const *args;
  size_t num_args;
  unsigned options;
} parse_job;

static int parse_unit(const omplens_libclang *lc, CXIndex cx, const parse_job *j,
                      CXTranslationUnit *tu) {
  *tu = NULL;
  const char **argv = calloc(j->num_args + 3, sizeof *argv);
  char *dir = strdup(j->main);
  if (!argv || !dir) {
    free(argv);
    free(dir);
    return OMPLENS_FIX_ENOMEM;
  }
  char *slash = strrchr(dir, '/');
  char inc[4200];
  snprintf(inc, sizeof inc, "-I%s", slash ? (slash == dir ? "/" : (*slash = 0, dir)) : ".");
  size_t n = 0;
  for (size_t i = 0; i < j->num_args; i++)
    argv[n++] = j->args[i];
  argv[n++] = j->lead;
  argv[n++] = inc;
  struct CXUnsavedFile unsaved = {j->path, j->text, j->text ? (unsigned long)strlen(j->text) : 0};
  enum CXErrorCode err = lc->parseTranslationUnit2(cx, j->main, argv, (int)n, &unsaved,
                                                   j->text ? 1 : 0, j->options, tu);
  free(argv);
  free(dir);
  if (err != CXError_Success)
    *tu = NULL;
  return *tu ? 0 : OMPLENS_FIX_EINVAL;
}

/* ---- the parse cache (annotate/libclang_dl.h) ----
 * A node table is kept whole: a later report of the same sources, flags
 * and libclang reads it back instead of parsing. */

#define AST_TAG "fix-ast-v5"
#define ERRORS_TAG "fix-openmp-errors-v2"

/* Bumped when the walk records more of a node than before (cached trees
 * made by an older walk are then parsed again). */
#define AST_WALK_VERSION 2

static int job_key(const char *tag, const parse_job *j, omplens_libclang_key *key) {
  const char **parts = calloc(j->num_args + 5, sizeof *parts);
  char options[64]; /* the node table's layout, which the payload copies, and
                       the walk's version (what it records of each node) */
  if (!parts)
    return -1;
  snprintf(options, sizeof options, "%u %zu %d", j->options, sizeof(omplens_fix__node),
           AST_WALK_VERSION);
  size_t n = 0;
  parts[n++] = j->main;
  parts[n++] = j->path;
  parts[n++] = j->text;
  parts[n++] = j->lead;
  parts[n++] = options;
  for (size_t i = 0; i < j->num_args; i++)
    parts[n++] = j->args[i];
  int rc = omplens_libclang_key_of(tag, parts, n, key);
  free(parts);
  return rc;
}

static void put_ast(const omplens_fix__ast *a, omplens_libclang_writer *w) {
  omplens_libclang_put_u32(w, (uint32_t)a->errors);
  omplens_libclang_put_str(w, a->first_error);
  omplens_libclang_put_u64(w, a->num_nodes);
  omplens_libclang_put_bytes(w, a->nodes, a->num_nodes * sizeof *a->nodes);
  omplens_libclang_put_u64(w, a->names_len);
  omplens_libclang_put_bytes(w, a->names, a->names_len);
  omplens_libclang_put_u32(w, (uint32_t)a->num_macros);
  for (size_t i = 0; i < a->num_macros; i++)
    omplens_libclang_put_str(w, a->macros[i]);
}

/* Whether the nodes' links stay within the table. */
static bool nodes_sound(const omplens_fix__ast *a) {
  for (size_t i = 0; i < a->num_nodes; i++) {
    const omplens_fix__node *n = &a->nodes[i];
    if ((n->parent != OMPLENS_FIX__NONE && n->parent >= a->num_nodes) ||
        (n->ref != OMPLENS_FIX__NONE && n->ref >= a->num_nodes) || n->name >= a->names_len ||
        n->callee >= a->names_len)
      return false;
  }
  return a->names_len > 0 && a->names[a->names_len - 1] == 0;
}

static void *copy_out(omplens_libclang_reader *r, size_t n) {
  const void *p = omplens_libclang_get_bytes(r, n);
  void *out = p ? malloc(n ? n : 1) : NULL;
  if (out && n)
    memcpy(out, p, n);
  return out;
}

/* 1 with *out filled from the cache; 0 (out empty) on a miss. */
static int get_ast(const omplens_libclang_key *key, omplens_fix__ast *out) {
  size_t len;
  unsigned char *payload = omplens_libclang_cache_load(key, &len);
  if (!payload)
    return 0;
  omplens_libclang_reader r = {payload, payload + len, 0};
  out->errors = (int)omplens_libclang_get_u32(&r);
  const char *first = omplens_libclang_get_str(&r);
  out->first_error = first ? strdup(first) : NULL;
  uint64_t n = omplens_libclang_get_u64(&r);
  if (n > len / sizeof *out->nodes)
    r.failed = 1;
  out->num_nodes = r.failed ? 0 : (size_t)n;
  out->nodes = r.failed ? NULL : copy_out(&r, out->num_nodes * sizeof *out->nodes);
  uint64_t names = omplens_libclang_get_u64(&r);
  out->names_len = names > len ? 0 : (size_t)names;
  out->names = names > len ? NULL : copy_out(&r, out->names_len);
  uint32_t m = omplens_libclang_get_u32(&r);
  out->macros = m <= len ? calloc(m ? m : 1, sizeof *out->macros) : NULL;
  for (uint32_t i = 0; out->macros && i < m && !r.failed; i++) {
    const char *s = omplens_libclang_get_str(&r);
    if (s && (out->macros[out->num_macros] = strdup(s)))
      out->num_macros++;
    else
      r.failed = 1;
  }
  bool hit = !r.failed && r.at == r.end && out->nodes && out->names && out->macros &&
             (!first || out->first_error) && nodes_sound(out);
  free(payload);
  if (!hit)
    omplens_fix__ast_free(out);
  return hit;
}

static void put_cached_ast(const omplens_libclang_key *key, CXTranslationUnit tu,
                           const omplens_fix__ast *a) {
  omplens_libclang_writer w = {0};
  put_ast(a, &w);
  if (!w.failed)
    omplens_libclang_cache_store(key, &tu, 1, w.data, w.len);
  free(w.data);
}

/* The nodes of w->file in tu, into out (which holds tu's errors). */
static int walk_file(const omplens_libclang *lc, CXTranslationUnit tu, walk *w) {
  omplens_fix__ast *out = w->a;
  out->names = malloc(1);
  if (out->names) {
    out->names[0] = 0;
    out->names_len = w->cap_names = 1;
  }
  level top = {w, OMPLENS_FIX__NONE, 0};
  w->failed = !out->names;
  if (!w->failed)
    lc->visitChildren(lc->getTranslationUnitCursor(tu), visit, &top);
  if (!w->failed)
    resolve_refs(w);
  free(w->ref_loc);
  if (w->failed) {
    omplens_fix__ast_free(out);
    return OMPLENS_FIX_ENOMEM;
  }
  return 0;
}

/* The nodes of path in the parsed unit tu, into out, and into the parse
 * cache under key (when keyed). */
static int walk_unit(const omplens_libclang *lc, CXTranslationUnit tu, const char *path,
                     const omplens_libclang_key *key, omplens_fix__ast *out) {
  read_errors(lc, out, tu);
  walk w = {lc, out, 0, 0, 0, NULL, lc->getFile(tu, path), 0, NULL, 0};
  if (!w.file && !out->errors++) /* the unit does not include it */
    out->first_error = strdup("the unit that should include the file does not");
  if (w.file)
    w.text = lc->getFileContents(tu, w.file, &w.size);
  int rc = walk_file(lc, tu, &w);
  if (!rc && key)
    put_cached_ast(key, tu, out);
  return rc;
}

/* What the fixer's plain parse of a unit is: parse_unit's job for its
 * main file. */
static parse_job plain_job(const char *path, const char *unit, const char *const *args,
                           size_t num_args) {
  return (parse_job){unit ? unit : path, path, NULL, PLAIN_OPENMP, args, num_args,
                     CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing};
}

void omplens_fix__unit_parsed(const char *const *files, size_t num_files,
                              const char *const *args, size_t num_args, void *tu) {
  const omplens_libclang *lc = omplens_libclang_load();
  for (size_t i = 0; lc && i < num_files; i++) {
    parse_job j = plain_job(files[i], files[0], args, num_args);
    omplens_libclang_key key;
    omplens_fix__ast a;
    memset(&a, 0, sizeof a);
    if (!job_key(AST_TAG, &j, &key) && !walk_unit(lc, tu, files[i], &key, &a))
      omplens_fix__ast_free(&a);
  }
}

/* A parse in a helper process (libclang_dl.h), which stores its result in
 * the cache: OMPLENS_LIBCLANG_APART, _HERE or _CRASHED. Both jobs take
 * path, unit, text (NULL for a node table) and the arguments. */
static int parse_apart(const char *job, const char *path, const char *unit, const char *text,
                       const char *const *args, size_t num_args, int *sig) {
  const char **parts = malloc((num_args + 3) * sizeof *parts);
  if (!parts)
    return OMPLENS_LIBCLANG_HERE;
  parts[0] = path;
  parts[1] = unit;
  parts[2] = text;
  for (size_t i = 0; i < num_args; i++)
    parts[3 + i] = args[i];
  int rc = omplens_libclang_apart(job, parts, num_args + 3, sig);
  free(parts);
  return rc;
}

/* Whether parts are a job's: a path, a unit and a text (each may be NULL
 * but the path), then arguments. */
static bool job_parts(const char *const *parts, size_t n) {
  if (n < 3 || !parts[0])
    return false;
  for (size_t i = 3; i < n; i++)
    if (!parts[i])
      return false;
  return true;
}

int omplens_fix_ast_job(const char *const *parts, size_t n) {
  if (!job_parts(parts, n))
    return OMPLENS_FIX_EINVAL;
  omplens_fix__ast a;
  int rc = omplens_fix__ast_parse_in(parts[0], parts[1], parts + 3, n - 3, &a);
  if (!rc)
    omplens_fix__ast_free(&a);
  return rc;
}

int omplens_fix_errors_job(const char *const *parts, size_t n) {
  if (!job_parts(parts, n))
    return OMPLENS_FIX_EINVAL;
  return omplens_fix__openmp_errors_in(parts[0], parts[1], parts[2], parts + 3, n - 3, NULL);
}

int omplens_fix__ast_parse_in(const char *path, const char *unit, const char *const *args,
                              size_t num_args, omplens_fix__ast *out) {
  memset(out, 0, sizeof *out);
  parse_job j = plain_job(path, unit, args, num_args);
  double since = omplens_libclang_clock();
  omplens_libclang_key key;
  bool keyed = !job_key(AST_TAG, &j, &key);
  if (keyed && get_ast(&key, out)) { /* no libclang needed */
    omplens_libclang_count(since, 1);
    return 0;
  }
  int sig = 0;
  int where = keyed ? parse_apart(OMPLENS_LIBCLANG_JOB_AST, path, unit, NULL, args, num_args, &sig)
                    : OMPLENS_LIBCLANG_HERE;
  if (where != OMPLENS_LIBCLANG_HERE && (where == OMPLENS_LIBCLANG_CRASHED || get_ast(&key, out))) {
    omplens_libclang_count(since, 0);
    return where == OMPLENS_LIBCLANG_CRASHED ? OMPLENS_FIX__ECRASHED : 0;
  }
  const omplens_libclang *lc = omplens_libclang_load();
  if (!lc)
    return OMPLENS_FIX_EINVAL; /* as when libclang cannot parse the file */
  CXIndex cx = lc->createIndex(0, 0);
  if (!cx)
    return OMPLENS_FIX_EINVAL;
  CXTranslationUnit tu;
  int rc = parse_unit(lc, cx, &j, &tu);
  if (!rc) {
    rc = walk_unit(lc, tu, path, keyed ? &key : NULL, out);
    lc->disposeTranslationUnit(tu);
  }
  lc->disposeIndex(cx);
  omplens_libclang_count(since, 0);
  return rc;
}

int omplens_fix__ast_parse(const char *path, const char *const *args, size_t num_args,
                           omplens_fix__ast *out) {
  return omplens_fix__ast_parse_in(path, NULL, args, num_args, out);
}

void omplens_fix__ast_free(omplens_fix__ast *a) {
  for (size_t i = 0; i < a->num_macros; i++)
    free(a->macros[i]);
  free(a->macros);
  free(a->nodes);
  free(a->names);
  free(a->first_error);
  free(a->to_kernels);
  omplens_fix__ast_index_free(a);
  memset(a, 0, sizeof *a);
}

/* ---- queries ---- */

char *omplens_fix__ast_text(const omplens_fix__ast *a, const omplens_fix__source *src,
                            uint32_t node) {
  const omplens_fix__node *n = &a->nodes[node];
  return omplens_fix__normalize(src->text + n->begin, n->end > n->begin ? n->end - n->begin : 0);
}

const char *omplens_fix__ast_name(const omplens_fix__ast *a, uint32_t node) {
  if (node >= a->num_nodes || !a->names)
    return "";
  return a->names + a->nodes[node].name;
}

bool omplens_fix__ast_within(const omplens_fix__ast *a, uint32_t n, uint32_t ancestor) {
  for (; n != OMPLENS_FIX__NONE; n = a->nodes[n].parent)
    if (n == ancestor)
      return true;
  return false;
}

static bool contains(const omplens_fix__node *n, size_t offset) {
  return n->begin <= offset && offset < n->end;
}

/* The nodes below node holding offset, in tree order, each into *best
 * when its kind passes want and it lies within the best so far. Of
 * children that follow one another apart, only the last beginning at or
 * before offset can hold it: found by binary search, since a loop body
 * may hold thousands of statements. */
static void holding(const omplens_fix__ast *a, uint32_t node, size_t offset,
                    bool (*want)(int kind), uint32_t *best) {
  const uint32_t *kids;
  bool disjoint;
  size_t from = 0, to = omplens_fix__ast_kids(a, node, &kids, &disjoint);
  if (disjoint) {
    size_t lo = 0, hi = to; /* the first beginning after offset */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (a->nodes[kids[mid]].begin <= offset)
        lo = mid + 1;
      else
        hi = mid;
    }
    from = lo ? lo - 1 : 0;
    to = lo;
  }
  for (size_t k = from; k < to; k++) {
    uint32_t i = kids[k];
    if (!contains(&a->nodes[i], offset))
      continue;
    if (want(a->nodes[i].kind) && (*best == OMPLENS_FIX__NONE || omplens_fix__ast_within(a, i, *best)))
      *best = i;
    holding(a, i, offset, want, best);
  }
}

/* The innermost node of fn containing offset whose kind passes want. */
static uint32_t innermost(const omplens_fix__ast *a, uint32_t fn, size_t offset,
                          bool (*want)(int kind)) {
  uint32_t best = OMPLENS_FIX__NONE;
  if (fn == OMPLENS_FIX__NONE)
    return best;
  const uint32_t *kids;
  bool disjoint;
  if (omplens_fix__ast_kids(a, fn, &kids, &disjoint) || fn + 1 >= omplens_fix__ast_end(a, fn)) {
    holding(a, fn, offset, want, &best);
    return best;
  }
  /* Without the index: pre-order, a node's descendants follow it; a
   * subtree whose node does not hold offset is skipped whole. */
  for (uint32_t i = fn + 1, end = omplens_fix__ast_end(a, fn); i < end;) {
    const omplens_fix__node *n = &a->nodes[i];
    if (!contains(n, offset)) {
      i = omplens_fix__ast_end(a, i);
      continue;
    }
    if (want(n->kind) && (best == OMPLENS_FIX__NONE || omplens_fix__ast_within(a, i, best)))
      best = i;
    i++;
  }
  return best;
}

static bool is_block(int k) {
  return omplens_fix__ast_is_loop(k) || k == OMPLENS_FIX__N_COMPOUND || k == OMPLENS_FIX__N_IF ||
         k == OMPLENS_FIX__N_SWITCH;
}

uint32_t omplens_fix__ast_loop_at(const omplens_fix__ast *a, uint32_t fn, size_t offset) {
  return innermost(a, fn, offset, omplens_fix__ast_is_loop);
}

bool omplens_fix__c_source(const char *path) {
  size_t len = strlen(path);
  return len > 2 && !strcmp(path + len - 2, ".c");
}

/* The loop whose whole body statement n is, bare or alone in braces, or
 * NONE (a statement in a loop's header is none). */
static uint32_t body_of(const omplens_fix__ast *a, uint32_t n) {
  uint32_t p = a->nodes[n].parent;
  if (p == OMPLENS_FIX__NONE || omplens_fix__ast_is_loop(a->nodes[p].kind))
    return p;
  const uint32_t *kids;
  bool disjoint;
  if (a->nodes[p].kind != OMPLENS_FIX__N_COMPOUND || omplens_fix__ast_kids(a, p, &kids, &disjoint) != 1)
    return OMPLENS_FIX__NONE;
  uint32_t l = a->nodes[p].parent;
  return l != OMPLENS_FIX__NONE && omplens_fix__ast_is_loop(a->nodes[l].kind) ? l : OMPLENS_FIX__NONE;
}

uint32_t omplens_fix__ast_loop_nest(const omplens_fix__ast *a, uint32_t loop) {
  for (uint32_t up; loop != OMPLENS_FIX__NONE && (up = body_of(a, loop)) != OMPLENS_FIX__NONE;)
    loop = up;
  return loop;
}

uint32_t omplens_fix__ast_block_at(const omplens_fix__ast *a, uint32_t fn, size_t offset) {
  return innermost(a, fn, offset, is_block);
}

uint32_t omplens_fix__ast_scope(const omplens_fix__ast *a, uint32_t decl) {
  uint32_t p = a->nodes[decl].parent;
  if (p == OMPLENS_FIX__NONE)
    return p;
  if (a->nodes[decl].kind == OMPLENS_FIX__N_PARM)
    return p; /* the function */
  if (a->nodes[p].kind == OMPLENS_FIX__N_DECLSTMT)
    return a->nodes[p].parent;
  return a->nodes[p].kind == OMPLENS_FIX__N_FUNCTION ? p : OMPLENS_FIX__NONE;
}

bool omplens_fix__ast_is_macro(const omplens_fix__ast *a, const char *name) {
  for (size_t i = 0; i < a->num_macros; i++)
    if (!strcmp(a->macros[i], name))
      return true;
  return false;
}

uint32_t omplens_fix__ast_up(const omplens_fix__ast *a, uint32_t n, uint32_t *child) {
  uint32_t p = a->nodes[n].parent;
  *child = n;
  while (p != OMPLENS_FIX__NONE && (a->nodes[p].kind == OMPLENS_FIX__N_PAREN ||
                                    a->nodes[p].kind == OMPLENS_FIX__N_IMPLICIT)) {
    *child = p;
    p = a->nodes[p].parent;
  }
  return p;
}

uint32_t omplens_fix__ast_child(const omplens_fix__ast *a, uint32_t n, uint32_t i) {
  for (size_t k = n + 1; k < a->num_nodes && omplens_fix__ast_within(a, (uint32_t)k, n); k++)
    if (a->nodes[k].parent == n && a->nodes[k].nth == i)
      return (uint32_t)k;
  return OMPLENS_FIX__NONE;
}

uint32_t omplens_fix__ast_operand(const omplens_fix__ast *a, uint32_t e) {
  while (e != OMPLENS_FIX__NONE &&
         (a->nodes[e].kind == OMPLENS_FIX__N_PAREN || a->nodes[e].kind == OMPLENS_FIX__N_IMPLICIT ||
          a->nodes[e].kind == OMPLENS_FIX__N_CAST)) {
    uint32_t c = OMPLENS_FIX__NONE;
    /* the operand is the last child (a cast's first may be its type) */
    for (size_t k = e + 1; k < a->num_nodes && omplens_fix__ast_within(a, (uint32_t)k, e); k++)
      if (a->nodes[k].parent == e)
        c = (uint32_t)k;
    e = c;
  }
  return e;
}

bool omplens_fix__ast_fresh_allocation(const omplens_fix__ast *a, uint32_t e) {
  static const char *const allocs[] = {"malloc", "calloc", "aligned_alloc", "realloc",
                                       "omp_alloc", "omp_aligned_alloc", NULL};
  e = omplens_fix__ast_operand(a, e);
  if (e == OMPLENS_FIX__NONE || a->nodes[e].kind != OMPLENS_FIX__N_CALL)
    return false;
  for (size_t k = 0; allocs[k]; k++)
    if (!strcmp(omplens_fix__ast_name(a, e), allocs[k]))
      return true;
  return false;
}

uint32_t omplens_fix__ast_plain_var(const omplens_fix__ast *a, uint32_t e) {
  e = omplens_fix__ast_operand(a, e);
  if (e == OMPLENS_FIX__NONE || a->nodes[e].kind != OMPLENS_FIX__N_DECLREF)
    return OMPLENS_FIX__NONE;
  uint32_t d = a->nodes[e].ref;
  return d != OMPLENS_FIX__NONE &&
                 (a->nodes[d].kind == OMPLENS_FIX__N_VAR || a->nodes[d].kind == OMPLENS_FIX__N_PARM)
             ? d
             : OMPLENS_FIX__NONE;
}

/* The plain variable that the value of expression e is stored into (a
 * declaration's initializer, or the right side of an assignment to a plain
 * variable; casts around e skipped), or NONE. */
static uint32_t stored_into(const omplens_fix__ast *a, uint32_t e) {
  uint32_t child, p = omplens_fix__ast_up(a, e, &child);
  while (p != OMPLENS_FIX__NONE && a->nodes[p].kind == OMPLENS_FIX__N_CAST)
    p = omplens_fix__ast_up(a, p, &child);
  if (p == OMPLENS_FIX__NONE)
    return OMPLENS_FIX__NONE;
  if (a->nodes[p].kind == OMPLENS_FIX__N_VAR)
    return p;
  if (a->nodes[p].kind == OMPLENS_FIX__N_BINARY && a->nodes[p].op == OMPLENS_FIX__OP_ASSIGN &&
      a->nodes[child].nth == 1)
    return omplens_fix__ast_plain_var(a, omplens_fix__ast_child(a, p, 0));
  return OMPLENS_FIX__NONE;
}

/* What the memory reached through an access node n (subscript, deref,
 * member) undergoes; a pointer into it stored in a plain variable (`int
 * *q = &v[i];`) is copied into that variable (*other). */
static int access_use(const omplens_fix__ast *a, uint32_t n, uint32_t *other) {
  for (;;) {
    uint32_t child, p = omplens_fix__ast_up(a, n, &child);
    if (p == OMPLENS_FIX__NONE)
      return OMPLENS_FIX__USE_READ;
    const omplens_fix__node *pn = &a->nodes[p];
    switch (pn->kind) {
    case OMPLENS_FIX__N_MEMBER:
    case OMPLENS_FIX__N_CAST:
      n = p;
      continue;
    case OMPLENS_FIX__N_SUBSCRIPT:
      if (a->nodes[child].nth == 0) {
        n = p;
        continue;
      }
      return OMPLENS_FIX__USE_READ;
    case OMPLENS_FIX__N_BINARY:
      if ((pn->op == OMPLENS_FIX__OP_ASSIGN || pn->op == OMPLENS_FIX__OP_UPDATE) &&
          a->nodes[child].nth == 0)
        return OMPLENS_FIX__USE_WRITE;
      return OMPLENS_FIX__USE_READ;
    case OMPLENS_FIX__N_UNARY:
      if (pn->op == OMPLENS_FIX__OP_INCDEC)
        return OMPLENS_FIX__USE_WRITE;
      if (pn->op == OMPLENS_FIX__OP_ADDROF) {
        *other = stored_into(a, p);
        return *other != OMPLENS_FIX__NONE ? OMPLENS_FIX__USE_COPIED : OMPLENS_FIX__USE_ESCAPE;
      }
      if (pn->op == OMPLENS_FIX__OP_DEREF) {
        n = p;
        continue;
      }
      return OMPLENS_FIX__USE_READ;
    case OMPLENS_FIX__N_CALL:
      /* a member array decays to a pointer the callee may write through */
      return a->nodes[n].kind == OMPLENS_FIX__N_MEMBER ? OMPLENS_FIX__USE_ESCAPE
                                                       : OMPLENS_FIX__USE_READ;
    default:
      return OMPLENS_FIX__USE_READ;
    }
  }
}

int omplens_fix__ast_use(const omplens_fix__ast *a, uint32_t ref, uint32_t *other) {
  uint32_t n = ref;
  *other = OMPLENS_FIX__NONE;
  for (;;) {
    uint32_t child, p = omplens_fix__ast_up(a, n, &child);
    if (p == OMPLENS_FIX__NONE)
      return OMPLENS_FIX__USE_ESCAPE;
    const omplens_fix__node *pn = &a->nodes[p];
    uint32_t nth = a->nodes[child].nth;
    switch (pn->kind) {
    case OMPLENS_FIX__N_SUBSCRIPT:
      return nth == 0 ? access_use(a, p, other) : OMPLENS_FIX__USE_VALUE;
    case OMPLENS_FIX__N_MEMBER:
      return access_use(a, p, other);
    case OMPLENS_FIX__N_UNARY:
      if (pn->op == OMPLENS_FIX__OP_DEREF)
        return access_use(a, p, other);
      if (pn->op == OMPLENS_FIX__OP_ADDROF)
        return OMPLENS_FIX__USE_ESCAPE;
      if (pn->op == OMPLENS_FIX__OP_INCDEC) {
        *other = p;
        return n == ref ? OMPLENS_FIX__USE_ASSIGNED : OMPLENS_FIX__USE_VALUE;
      }
      return OMPLENS_FIX__USE_VALUE;
    case OMPLENS_FIX__N_BINARY:
      if (pn->op == OMPLENS_FIX__OP_ARITH || (pn->op == OMPLENS_FIX__OP_COMMA && nth == 1)) {
        n = p; /* pointer arithmetic keeps pointing into the buffer */
        continue;
      }
      if (pn->op == OMPLENS_FIX__OP_ASSIGN || pn->op == OMPLENS_FIX__OP_UPDATE) {
        if (nth == 0) {
          *other = pn->op == OMPLENS_FIX__OP_ASSIGN ? omplens_fix__ast_child(a, p, 1) : p;
          return n == ref ? OMPLENS_FIX__USE_ASSIGNED : OMPLENS_FIX__USE_ESCAPE;
        }
        *other = omplens_fix__ast_plain_var(a, omplens_fix__ast_child(a, p, 0));
        return OMPLENS_FIX__USE_COPIED;
      }
      return OMPLENS_FIX__USE_VALUE;
    case OMPLENS_FIX__N_CAST:
      n = p;
      continue;
    case OMPLENS_FIX__N_CONDITIONAL:
      if (nth == 0)
        return OMPLENS_FIX__USE_VALUE;
      n = p;
      continue;
    case OMPLENS_FIX__N_VAR:
      *other = p;
      return OMPLENS_FIX__USE_COPIED;
    case OMPLENS_FIX__N_CALL:
      *other = p;
      return nth == 0 ? OMPLENS_FIX__USE_VALUE : OMPLENS_FIX__USE_ESCAPE;
    case OMPLENS_FIX__N_IF:
    case OMPLENS_FIX__N_WHILE:
    case OMPLENS_FIX__N_DO:
    case OMPLENS_FIX__N_FOR:
    case OMPLENS_FIX__N_SWITCH:
    case OMPLENS_FIX__N_COMPOUND:
      return OMPLENS_FIX__USE_VALUE; /* a condition, or a statement of its own */
    default:
      return OMPLENS_FIX__USE_ESCAPE;
    }
  }
}

int omplens_fix__openmp_errors_in(const char *path, const char *unit, const char *text,
                                  const char *const *args, size_t num_args, char **first) {
  if (first)
    *first = NULL;
  parse_job j = {unit ? unit : path, path,     text, "-fopenmp",
                 args,               num_args, CXTranslationUnit_KeepGoing};
  double since = omplens_libclang_clock();
  omplens_libclang_key key;
  bool keyed = !job_key(ERRORS_TAG, &j, &key);
  omplens_fix__ast a;
  memset(&a, 0, sizeof a);
  CXTranslationUnit tu = NULL;
  int errors = -1;
  bool hit = keyed && get_ast(&key, &a); /* no libclang needed */
  int sig = 0;
  int where = hit || !keyed ? OMPLENS_LIBCLANG_HERE
                            : parse_apart(OMPLENS_LIBCLANG_JOB_ERRORS, path, unit, text, args,
                                          num_args, &sig);
  if (where == OMPLENS_LIBCLANG_CRASHED) {
    omplens_libclang_count(since, 0);
    return -1;
  }
  bool apart = where == OMPLENS_LIBCLANG_APART && get_ast(&key, &a);
  const omplens_libclang *lc = hit || apart ? NULL : omplens_libclang_load();
  CXIndex cx = lc ? lc->createIndex(0, 0) : NULL;
  if (!hit && !apart && !cx)
    return -1;
  if (hit || apart) {
    errors = a.errors;
  } else if (!parse_unit(lc, cx, &j, &tu)) {
    read_errors(lc, &a, tu);
    errors = a.errors;
    /* Only the errors are kept: an empty table stands for the rest. */
    a.names = calloc(1, 1);
    a.names_len = a.names ? 1 : 0;
    if (keyed && a.names)
      put_cached_ast(&key, tu, &a);
    lc->disposeTranslationUnit(tu);
  }
  if (first) {
    *first = a.first_error;
    a.first_error = NULL;
  }
  omplens_fix__ast_free(&a);
  if (cx)
    lc->disposeIndex(cx);
  omplens_libclang_count(since, hit);
  return errors;
}

int omplens_fix__openmp_errors(const char *path, const char *text, const char *const *args,
                               size_t num_args, char **first) {
  return omplens_fix__openmp_errors_in(path, NULL, text, args, num_args, first);
}
