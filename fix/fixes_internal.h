/* Internals of omplens fixes (omplens_fix.h). Four layers meet here:
 *   fixes_text.c      a source file as bytes and lines; edits; unified diffs
 *   fixes_pragma.c    a `#pragma omp` line as written (continuations,
 *                     comments), its clauses and items, and edits of them
 *   fixes_ast.c       libclang's view of a file, flattened into a node table
 *                     that the rules query without libclang
 *   fixes_evidence.c  what the trace says about a directive's item
 * and fixes_rules.c / fixes_plan.c / fixes.c decide. Design note:
 * docs/fixes.md. Nothing here includes clang-c: the unit tests use the text
 * and pragma layers alone. */
#ifndef OMPLENS_FIXES_INTERNAL_H
#define OMPLENS_FIXES_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omplens_fix.h"
#include "omplens_names.h"

#define OMPLENS_FIX__NONE UINT32_MAX
/* An item edit's type that takes the item out of its map into a
 * `firstprivate(...)` clause of the directive (rule firstprivate). */
#define OMPLENS_FIX__FIRSTPRIVATE "firstprivate"
#define OMPLENS_FIX__CONTEXT 3 /* lines of context around a hunk */

/* ---- growable strings (fixes_text.c) ---- */

typedef struct omplens_fix__buf {
  char *data; /* NUL-terminated once anything was appended */
  size_t len, cap;
  int failed; /* an allocation failed: the content is incomplete */
} omplens_fix__buf;

void omplens_fix__buf_add(omplens_fix__buf *b, const char *s, size_t n);
void omplens_fix__buf_str(omplens_fix__buf *b, const char *s);
void omplens_fix__buf_printf(omplens_fix__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands the string over (caller frees); NULL if an allocation failed. */
char *omplens_fix__buf_take(omplens_fix__buf *b);
void omplens_fix__buf_free(omplens_fix__buf *b);

/* Room for element n of the growable array *array (a T **, passed as
 * void *) of *cap elements of size bytes: doubles it, from first, when full.
 * False when out of memory (the array is then unchanged). */
bool omplens_fix__room(void *array, size_t n, size_t *cap, size_t size, size_t first);

/* ---- source text (fixes_text.c) ---- */

typedef struct omplens_fix__source {
  char *path; /* as given */
  char *text; /* the bytes, NUL-terminated */
  size_t size;
  size_t *line_start; /* num_lines + 1 entries: line L (1-based) is
                         [line_start[L-1], line_start[L]), EOL included */
  size_t num_lines;
  const char *eol; /* "\n" or "\r\n": what most lines end with */
  bool pragmas_flush; /* every `#pragma` line starts in column 0 (and one
                         does): inserted pragmas go there too */
} omplens_fix__source;

/* Reads path (at most OMPLENS_DIRECTIVES_MAX_FILE bytes). 0, or
 * OMPLENS_FIX_EINVAL (unreadable, too big, NUL bytes), OMPLENS_FIX_ENOMEM. */
int omplens_fix__source_load(const char *path, omplens_fix__source *out);
/* The same from memory (unit tests); data is copied. */
int omplens_fix__source_from(const char *path, const char *data, size_t len,
                             omplens_fix__source *out);
void omplens_fix__source_free(omplens_fix__source *s);
/* Offset of line:column (both 1-based, column in bytes); SIZE_MAX when out
 * of the file. */
size_t omplens_fix__offset(const omplens_fix__source *s, unsigned line, unsigned column);
/* 1-based line holding offset (the last line for offset == size). */
unsigned omplens_fix__line_of(const omplens_fix__source *s, size_t offset);
/* The leading spaces and tabs of a line: its length, *at its offset. */
size_t omplens_fix__indent(const omplens_fix__source *s, unsigned line, size_t *at);
/* End of a line's content, before its EOL. */
size_t omplens_fix__line_end(const omplens_fix__source *s, unsigned line);
/* True when [from, to) holds only spaces, tabs and comments. */
bool omplens_fix__blank(const omplens_fix__source *s, size_t from, size_t to);

/* One replacement of the original bytes [begin, end) by text. */
typedef struct omplens_fix__edit {
  size_t begin, end;
  char *text;
} omplens_fix__edit;

typedef struct omplens_fix__edits {
  omplens_fix__edit *v;
  size_t n, cap;
  int failed; /* out of memory while adding */
} omplens_fix__edits;

/* Adds a replacement. Every "\n" of text becomes the source's EOL. */
void omplens_fix__replace(omplens_fix__edits *e, const omplens_fix__source *s, size_t begin,
                          size_t end, const char *text);
/* The same without converting line endings (copying another edit). */
void omplens_fix__edit_raw(omplens_fix__edits *e, size_t begin, size_t end, const char *text);
/* Inserts whole lines before line (1-based; num_lines + 1 appends). lines
 * is one or more "...\n"; each gets indent (indent_len bytes) first. */
void omplens_fix__insert_lines(omplens_fix__edits *e, const omplens_fix__source *s, unsigned line,
                               const char *indent, size_t indent_len, const char *lines);
/* Removes lines first..last (1-based, EOLs included). */
void omplens_fix__remove_lines(omplens_fix__edits *e, const omplens_fix__source *s, unsigned first,
                               unsigned last);
void omplens_fix__edits_free(omplens_fix__edits *e);
/* Sorts by begin (stable); false when two edits overlap (an insertion at
 * the start of a replacement does not). */
bool omplens_fix__edits_sort(omplens_fix__edits *e);
/* a's and b's edits together, sorted, in *out (caller frees), an edit of b
 * that a makes already taken once; false, with
 * *out freed, when they overlap or memory ran out. */
bool omplens_fix__edits_merged(const omplens_fix__edits *a, const omplens_fix__edits *b,
                               omplens_fix__edits *out);
/* Applies sorted edits: the new text (caller frees), NULL on ENOMEM. */
char *omplens_fix__apply(const omplens_fix__source *s, const omplens_fix__edits *e);
/* Appends to out the unified diff (3 lines of context, headers "--- a/" and
 * "+++ b/" + name, where a name starting with '/' gives "a/..." with one
 * slash) of sorted, non-overlapping edits. Nothing when there is no edit. */
void omplens_fix__diff(const omplens_fix__source *s, const omplens_fix__edits *e, const char *name,
                       omplens_fix__buf *out);

/* Applies a one-file diff strictly (hunks at their lines, exact context)
 * to s and compares the result with expected. */
bool omplens_fix__diff_verify(const omplens_fix__source *s, const char *diff, const char *expected);

/* ---- pragma lines as written (fixes_pragma.c) ---- */

typedef struct omplens_fix__pitem {
  size_t begin, end; /* raw bytes of the item, trimmed */
  char *text;        /* normalized: comments dropped, whitespace runs made
                        one space, continuations joined */
  size_t clause;     /* index of its clause */
} omplens_fix__pitem;

typedef struct omplens_fix__pclause {
  char name[32];
  size_t begin, end;           /* name .. ')' inclusive (raw), end exclusive */
  size_t open, close;          /* raw offsets of '(' and ')'; SIZE_MAX without */
  size_t colon;                /* the top-level ':' ending the modifiers, SIZE_MAX */
  size_t type_begin, type_end; /* the map-type keyword, SIZE_MAX if none */
  char *modifiers;             /* normalized text before the map type ("always, ")
                                  or "" */
  size_t first_item, num_items;
  size_t before; /* raw offset just after the previous clause or the
                    directive name: removing [before, end) removes the
                    clause and the space (and comma) before it */
} omplens_fix__pclause;

typedef struct omplens_fix__pragma {
  size_t begin; /* the '#' */
  size_t end;   /* just past the last byte of the logical line, before
                   its final EOL (trailing comments included) */
  size_t last;  /* just past the last byte of the last clause or
                   word: where a clause is appended */
  unsigned first_line, last_line;
  bool clean_start; /* only blanks before '#' on its line */
  bool clean_end;   /* only blanks and comments after `last` on the last
                       line */
  char *name;       /* "target teams distribute parallel for" */
  omplens_fix__pclause *clauses;
  size_t num_clauses;
  omplens_fix__pitem *items; /* items of map, to and from clauses */
  size_t num_items;
  bool kept;        /* its file's own (omplens_fix__scan_site): freed with
                       the file, omplens_fix__pragma_free leaves it */
} omplens_fix__pragma;

/* Reads the pragma whose '#' is at offset at. 0, OMPLENS_FIX_EINVAL (not a
 * `#pragma omp` line or unbalanced parentheses) or OMPLENS_FIX_ENOMEM. */
int omplens_fix__pragma_scan(const omplens_fix__source *s, size_t at, omplens_fix__pragma *out);
void omplens_fix__pragma_free(omplens_fix__pragma *p);
/* Index of the clause named name (first from `from`), or SIZE_MAX. */
size_t omplens_fix__pragma_clause(const omplens_fix__pragma *p, const char *name, size_t from);
/* Number of map, to and from clauses. */
size_t omplens_fix__pragma_data_clauses(const omplens_fix__pragma *p);

/* Edits of one pragma. Each returns 0, or a static reason it cannot. */
/* Drops item i; the clause with it when it was the clause's only item. */
const char *omplens_fix__pragma_remove_item(const omplens_fix__source *s,
                                            const omplens_fix__pragma *p, size_t item,
                                            omplens_fix__edits *e);
/* Drops items[0..n) (each once, any order): a clause that loses all its
 * items goes; from one that keeps some, each run of adjacent items goes
 * with the separator before it, or after it when the run starts the
 * clause, so that the removals never meet. */
const char *omplens_fix__pragma_remove_items(const omplens_fix__source *s,
                                             const omplens_fix__pragma *p, const size_t *items,
                                             size_t n, omplens_fix__edits *e);
/* Gives item i of a map clause the map type type ("to", "alloc", ...):
 * rewrites the clause's type when the item is alone in it, else moves the
 * item into a new clause `map(MODIFIERS type: item)` after it. `always` is
 * dropped for alloc, release and delete. */
const char *omplens_fix__pragma_set_type(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                         size_t item, const char *type, omplens_fix__edits *e);
/* Gives items[0..n) of the directive's map clauses the map type type, in
 * one edit per clause: a clause whose items all move changes its type; one
 * that keeps some is written again with the moving items in a new clause
 * `map(MODIFIERS type: ...)` after it. */
const char *omplens_fix__pragma_set_types(const omplens_fix__source *s,
                                          const omplens_fix__pragma *p, const size_t *items,
                                          size_t n, const char *type, omplens_fix__edits *e);
/* One item's change in omplens_fix__pragma_change: a new map type, or
 * NULL: the item goes. */
typedef struct omplens_fix__item_edit {
  size_t item;
  const char *type;
} omplens_fix__item_edit;
/* Makes changes[0..n) (each item once) in one edit per clause they touch:
 * removals alone as omplens_fix__pragma_remove_items makes them, a clause
 * whose items all get one type changes its type, any other is written
 * again, its staying items as they were, then a `map(MODIFIERS type: ...)`
 * for each new type. Two rules' changes of one directive become one. */
const char *omplens_fix__pragma_change(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                       const omplens_fix__item_edit *changes, size_t n,
                                       omplens_fix__edits *e);
/* Appends " clause" after the last clause. */
const char *omplens_fix__pragma_add_clause(const omplens_fix__source *s,
                                           const omplens_fix__pragma *p, const char *clause,
                                           omplens_fix__edits *e);
/* Removes the pragma's lines. */
const char *omplens_fix__pragma_remove(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                       omplens_fix__edits *e);

/* Normalizes s[0..n) (comments to a space, continuations joined, whitespace
 * runs to one space, trimmed) into a malloc'd string. */
char *omplens_fix__normalize(const char *s, size_t n);

/* ---- the syntax tree, flattened (fixes_ast.c) ---- */

enum omplens_fix__node_kind {
  OMPLENS_FIX__N_OTHER = 0,
  OMPLENS_FIX__N_FUNCTION, /* a definition (has a body) */
  OMPLENS_FIX__N_VAR,      /* VarDecl */
  OMPLENS_FIX__N_PARM,
  OMPLENS_FIX__N_ENUM_CONST,
  OMPLENS_FIX__N_TYPE_DECL, /* typedef, struct, enum names */
  OMPLENS_FIX__N_DECLREF,
  OMPLENS_FIX__N_CALL,
  OMPLENS_FIX__N_FOR,
  OMPLENS_FIX__N_WHILE,
  OMPLENS_FIX__N_DO,
  OMPLENS_FIX__N_IF,
  OMPLENS_FIX__N_SWITCH,
  OMPLENS_FIX__N_COMPOUND,
  OMPLENS_FIX__N_DECLSTMT,
  OMPLENS_FIX__N_RETURN,
  OMPLENS_FIX__N_GOTO,
  OMPLENS_FIX__N_BREAK,
  OMPLENS_FIX__N_CONTINUE,
  OMPLENS_FIX__N_BINARY, /* op: enum omplens_fix__op */
  OMPLENS_FIX__N_UNARY,
  OMPLENS_FIX__N_SUBSCRIPT,
  OMPLENS_FIX__N_MEMBER,
  OMPLENS_FIX__N_PAREN,
  OMPLENS_FIX__N_CAST,     /* written casts */
  OMPLENS_FIX__N_IMPLICIT, /* UnexposedExpr: implicit conversions */
  OMPLENS_FIX__N_CONDITIONAL,
  OMPLENS_FIX__N_LITERAL,
  OMPLENS_FIX__N_OTHER_EXPR,
  OMPLENS_FIX__N_OTHER_STMT,
};

enum omplens_fix__op {
  OMPLENS_FIX__OP_NONE = 0,
  OMPLENS_FIX__OP_ASSIGN,  /* = */
  OMPLENS_FIX__OP_UPDATE,  /* += -= ... (compound assignment) */
  OMPLENS_FIX__OP_INCDEC,  /* ++ -- */
  OMPLENS_FIX__OP_DEREF,   /* unary * */
  OMPLENS_FIX__OP_ADDROF,  /* unary & */
  OMPLENS_FIX__OP_ARITH,   /* binary + - (pointer arithmetic keeps the base) */
  OMPLENS_FIX__OP_COMPARE, /* == != < <= > >= && || ! */
  OMPLENS_FIX__OP_COMMA,
  OMPLENS_FIX__OP_OTHER,
};

enum omplens_fix__elem {
  OMPLENS_FIX__ELEM_UNKNOWN = 0,
  OMPLENS_FIX__ELEM_ARITH,   /* pointer to / array of an arithmetic type */
  OMPLENS_FIX__ELEM_POINTER, /* ... of a pointer type */
  OMPLENS_FIX__ELEM_OTHER,   /* ... of a struct, union, ... */
  OMPLENS_FIX__ELEM_DEPENDENT, /* ... of a template's parameter type: what
                                  an element is, each instantiation says */
};

typedef struct omplens_fix__node {
  uint8_t kind;        /* enum omplens_fix__node_kind */
  uint8_t op;          /* enum omplens_fix__op */
  uint8_t elem;        /* VAR and PARM: enum omplens_fix__elem */
  uint8_t global : 1;  /* VAR: file scope or static storage */
  uint8_t arith : 1;   /* VAR and PARM: its own type is arithmetic (a
                          number, bool or enum, through typedefs and
                          macros: libclang's canonical type) */
  uint32_t begin, end; /* offsets in the file (macro uses: the expansion) */
  uint32_t loc;        /* the name's offset (declarations, references) */
  uint32_t parent;     /* node index, NONE at the top */
  uint32_t nth;        /* position among its parent's children */
  uint32_t ref;        /* DECLREF and CALL: the declaration's node, or NONE
                          (outside the file) */
  uint32_t name;       /* offset into the name pool, 0: none */
  uint32_t callee;     /* CALL of a function defined in another file: its
                          definition, "PATH:OFFSET" in the name pool (0:
                          unknown, or in this file: see ref) */
} omplens_fix__node;

typedef struct omplens_fix__ast {
  omplens_fix__node *nodes;
  size_t num_nodes;
  char *names; /* NUL-separated; names[0] is "" */
  size_t names_len;
  char **macros; /* names of the macros defined (any file) */
  size_t num_macros;
  int errors; /* libclang errors: the tree may be partial */
  char *first_error;
  struct omplens_fix__ast_index *index; /* built by the first query (fixes_ast_index.c) */
  uint8_t *to_kernels; /* by node, NULL until asked: 1 for a parameter its
                          function only hands to kernels (fixes_loops.c) */
} omplens_fix__ast;

/* Parses path (its text is src) without -fopenmp (clang hides region
 * bodies from the C API otherwise), with args, -D_OPENMP=201511 and -I its
 * directory. 0, OMPLENS_FIX_EINVAL (no parse at all), OMPLENS_FIX__ECRASHED
 * (the helper process parsing it ended: annotate/libclang_dl.h) or
 * OMPLENS_FIX_ENOMEM. A parse is read from the parse cache when it holds
 * it. */
#define OMPLENS_FIX__ECRASHED (-100)
int omplens_fix__ast_parse(const char *path, const char *const *args, size_t num_args,
                           omplens_fix__ast *out);
/* The same through unit, a source that includes path (NULL: path itself):
 * unit is parsed, and only the nodes written in path are kept. A unit that
 * does not include path gives an error. */
int omplens_fix__ast_parse_in(const char *path, const char *unit, const char *const *args,
                              size_t num_args, omplens_fix__ast *out);
void omplens_fix__ast_free(omplens_fix__ast *a);
/* The directive index's plain parse of the unit files[0] (tu, a
 * CXTranslationUnit made as omplens_fix__ast_parse_in would make it with
 * args): the nodes of each of files go into the parse cache, where the
 * fixer finds them instead of parsing the unit again. */
void omplens_fix__unit_parsed(const char *const *files, size_t num_files,
                              const char *const *args, size_t num_args, void *tu);
/* Parses text as path's contents with -fopenmp (the OpenMP rules checked,
 * where the plain parse ignores pragmas): the number of errors, their first
 * in *first (caller frees; may be NULL), or -1 when libclang fails. */
int omplens_fix__openmp_errors(const char *path, const char *text, const char *const *args,
                               size_t num_args, char **first);
/* The same for the unit that includes path (NULL: path itself), with text
 * as path's contents: the errors of the whole unit. */
int omplens_fix__openmp_errors_in(const char *path, const char *unit, const char *text,
                                  const char *const *args, size_t num_args, char **first);
const char *omplens_fix__ast_name(const omplens_fix__ast *a, uint32_t node);
/* The source text of a node of a (parsed from src), whitespace normalized
 * (omplens_fix__normalize; caller frees). */
char *omplens_fix__ast_text(const omplens_fix__ast *a, const omplens_fix__source *src,
                            uint32_t node);
/* True when node n lies within node ancestor (or is it). */
bool omplens_fix__ast_within(const omplens_fix__ast *a, uint32_t n, uint32_t ancestor);
/* fixes_ast_index.c: one past the last node of n's subtree (pre-order). */
uint32_t omplens_fix__ast_end(const omplens_fix__ast *a, uint32_t n);
/* The children of node n, in tree order (*kids, valid until a is freed),
 * and whether they follow one another in the source without overlapping
 * (*disjoint: then at most one holds an offset). 0 and NULL when the index
 * could not be built. */
size_t omplens_fix__ast_kids(const omplens_fix__ast *a, uint32_t n, const uint32_t **kids,
                             bool *disjoint);
/* The nodes named name, in tree order (*count of them); NULL when the
 * index could not be built (then scan every node). */
const uint32_t *omplens_fix__ast_named(const omplens_fix__ast *a, const char *name, size_t *count);
void omplens_fix__ast_index_free(omplens_fix__ast *a);
/* The function definition containing offset, or NONE. */
uint32_t omplens_fix__ast_function_at(const omplens_fix__ast *a, size_t offset);
/* The innermost for/while/do of function fn whose extent contains offset. */
uint32_t omplens_fix__ast_loop_at(const omplens_fix__ast *a, uint32_t fn, size_t offset);
/* Whether a node of this kind is a loop: for, while or do. */
static inline bool omplens_fix__ast_is_loop(int kind) {
  return kind == OMPLENS_FIX__N_FOR || kind == OMPLENS_FIX__N_WHILE || kind == OMPLENS_FIX__N_DO;
}
/* Whether path is a C source (`.c`), whose parameters are no references
 * and whose declarations take `__typeof__`, not `auto`. */
bool omplens_fix__c_source(const char *path);
/* The loop a region can wrap for loop: loop itself, or, where loop is the
 * whole body of an enclosing loop (bare, or alone in braces: nothing runs
 * between two runs of it but the outer loop's step), the outermost loop of
 * that nest. */
uint32_t omplens_fix__ast_loop_nest(const omplens_fix__ast *a, uint32_t loop);
/* The innermost statement-list (compound), loop, if or switch containing
 * offset (for "is it directly in the loop's body"). */
uint32_t omplens_fix__ast_block_at(const omplens_fix__ast *a, uint32_t fn, size_t offset);
/* The declaration named name visible at offset (innermost scope first):
 * VAR, PARM or ENUM_CONST node, or NONE. */
uint32_t omplens_fix__ast_lookup(const omplens_fix__ast *a, const char *name, size_t offset);
bool omplens_fix__ast_is_macro(const omplens_fix__ast *a, const char *name);
/* The scope a declaration is visible in: its block, for statement or
 * function (parameters); NONE for file scope. */
uint32_t omplens_fix__ast_scope(const omplens_fix__ast *a, uint32_t decl);
/* Parent skipping parentheses and implicit conversions; *child gets the
 * child of the result on the way. */
uint32_t omplens_fix__ast_up(const omplens_fix__ast *a, uint32_t n, uint32_t *child);
/* The i-th child of n, or NONE. */
uint32_t omplens_fix__ast_child(const omplens_fix__ast *a, uint32_t n, uint32_t i);

/* How a reference to a pointer (or array) variable uses it. */
enum omplens_fix__use {
  OMPLENS_FIX__USE_VALUE = 0, /* its value only: tested, compared, an index  */
  OMPLENS_FIX__USE_READ,      /* reads the memory it points to              */
  OMPLENS_FIX__USE_WRITE,     /* writes that memory                         */
  OMPLENS_FIX__USE_ESCAPE,    /* passed to a call, address taken, stored in
                                 something that is not a plain variable     */
  OMPLENS_FIX__USE_ASSIGNED,  /* the variable gets a new value: *other is the
                                 value's node (or the ++/-- node)           */
  OMPLENS_FIX__USE_COPIED,    /* its value (or a pointer into its memory, `q =
                                 &v[i]`) is copied into a variable: *other
                                 is that variable's declaration, or NONE    */
};
int omplens_fix__ast_use(const omplens_fix__ast *a, uint32_t ref, uint32_t *other);
/* Expression e without the parentheses, implicit conversions and casts
 * around it, or NONE. */
uint32_t omplens_fix__ast_operand(const omplens_fix__ast *a, uint32_t e);
/* Whether expression e is a fresh allocation (`(int *)malloc(n)`): memory
 * no other name holds. */
bool omplens_fix__ast_fresh_allocation(const omplens_fix__ast *a, uint32_t e);
/* The variable an expression plainly names (through parentheses and
 * casts): its VAR or PARM node, or NONE. */
uint32_t omplens_fix__ast_plain_var(const omplens_fix__ast *a, uint32_t expr);

/* ---- the fixer (fixes.c, fixes_plan.c, fixes_rules.c, fixes_evidence.c) ---- */

/* One source file as the fixer sees it. */
/* A translation unit a file is parsed through: the file itself (a
 * source), or a source of the compile database that includes it (a
 * header: a header alone is not what the build compiled). */
typedef struct omplens_fix__unit {
  char *path;     /* the unit's main source */
  char **args;    /* what libclang parses it with: the directive index's
                     arguments for it, then the fixer's extra ones (see
                     omplens_fix__unit_args) */
  size_t num_args;
  bool args_done;
  int omp_errors; /* errors of its -fopenmp parse with the file as it is;
                     -2 until asked */
} omplens_fix__unit;

typedef struct omplens_fix__file {
  char *path;
  int src_rc; /* 0: src is loaded */
  omplens_fix__source src;
  int ast_rc; /* 1: not parsed yet */
  omplens_fix__ast ast;
  const omplens_directive *const *dirs; /* every target directive, in order */
  size_t num_dirs;
  bool dirs_done;
  size_t *bodies; /* the kernels' bodies, [begin, end) offsets in pairs,
                     by begin (fixes_loops.c, device_bodies) */
  size_t num_bodies;
  bool bodies_done;
  bool newer_than_binary; /* the source changed after the build */
  omplens_fix__unit *units; /* units[0] gives the syntax tree; a change
                               must compile in each (omplens_fix__file_units) */
  size_t num_units;
  bool units_done;
  bool header;              /* a header: parsed through the units that include it */
  const char *dwarf_unit;   /* the DWARF compile unit holding code of it (the
                               annotator's): its includer when the compile
                               database names none; NULL when unknown */
  bool includers_capped;    /* more units may include it than units lists */
  const char *header_why;   /* a header no diff may touch: why (owned by the
                               fixer); NULL otherwise */
  struct omplens_fix__line_call *calls; /* the tree's calls by line, made by the
                                           first omplens_fix__call_at_line() */
  size_t num_calls;
  bool calls_done;
  /* The directive last read back from src and found as the index read it
   * (omplens_fix__scan_site), and where (its '#' + 1; 0: none): the fixes
   * of a directive's items read it once, not once an item. */
  omplens_fix__pragma scanned;
  size_t scanned_at;
} omplens_fix__file;

/* A finding's directive item: one written in a clause (item), or, for a
 * variable no clause lists, the construct's implicit map of it. */
#define OMPLENS_FIX__MORE_CALLS 3
typedef struct omplens_fix__site {
  omplens_fix__file *file;
  const omplens_directive *dir;
  size_t item;                         /* in dir->items; SIZE_MAX: none written */
  const omplens_implicit_map *implicit; /* no item written: its implicit map
                                           (tofrom), else NULL              */
  const char *var;    /* the item's or the implicit map's variable */
  const char *reason; /* why there is none (owned by the fixer) */
  const char *api;    /* no directive: the device memory API routine the
                         operation is a call of ("omp_target_alloc"), or
                         NULL (owned by the annotator)                   */
  unsigned api_line;  /* ... the line of that call                       */
  bool attach;        /* no item: the runtime attaching a pointer (the
                         annotator's omplens_variable.attach)              */
  const char *pointer; /* no item: "the pointer this->re" the runtime's own
                         operation is for (omplens_variable.pointer), or
                         NULL (owned by the fixer)                       */
  const char *named;  /* no item: the runtime's name of the operation's
                         item ("this->w[0:n]", owned by the annotator),
                         for the texts only; or NULL                     */
  uint32_t call;      /* keep-resident around a caller's loop: the call of
                         the directive's function in that loop (a node of
                         the group's edit_file); else OMPLENS_FIX__NONE   */
  uint32_t more_calls[OMPLENS_FIX__MORE_CALLS]; /* ... the other calls in that
                         loop the finding's operations came by (each maps
                         its own objects: an item each)                  */
  size_t num_more_calls;
} omplens_fix__site;

/* Whether two sites are the same item of the same directive. */
bool omplens_fix__same_item(const omplens_fix__site *a, const omplens_fix__site *b);
/* Whether var is a list item of one of d's reduction clauses. */
bool omplens_fix__reduction_var(const omplens_directive *d, const char *var);

/* A rule that only a recipe describes: the change is to the program's code
 * (the host's copies), not to a directive. A manual group's intended rule,
 * never a published kind. */
enum {
  OMPLENS_FIX__SWAP_ON_DEVICE = 100, /* round trip through another buffer: keep
                                        the result on the device, swap pointers */
  OMPLENS_FIX__HOST_HOLDS = 101,     /* a device-to-host duplicate: the host
                                        holds the bytes; copy back less      */
};

/* Where a wrap item written `base[lo:len]` lies (else lo_text NULL): the
 * host bytes of its buffer in the run, and the texts of its first element
 * and of its end, `lo + len`; a span of sections of one base grows them
 * (fixes_loops.c, span_item), however many they are. Owns its texts. */
typedef struct omplens_fix__span {
  uint64_t lo_addr, end_addr;
  char *lo_text, *end_text;
} omplens_fix__span;

/* An item of a built wrap, as a later wrap of the same loop takes it. */
typedef struct omplens_fix__kept {
  char *text;        /* the item as the wrap writes it */
  uint32_t base;     /* its base variable's declaration (edit file's tree) */
  int type;          /* OMPLENS_MAP_* */
  char *declaration; /* the lines declaring what it is written with, or NULL */
  const struct omplens_directive *copies_dir; /* an allocation-only item: the
                        directive that copies it, `always` (else NULL) */
  size_t copies_item;
  omplens_fix__span span;
} omplens_fix__kept;

/* The host reads a wrap's region lets through, each after a `target
 * update from` of the items it reads (a step loop whose body reads a field
 * on the host after its kernels): the statement that reads (in the loop's
 * file) and the base variable it reads. */
#define OMPLENS_FIX__READS 8
typedef struct omplens_fix__reads {
  uint32_t stmt[OMPLENS_FIX__READS], base[OMPLENS_FIX__READS];
  uint32_t cond[OMPLENS_FIX__READS]; /* the condition of the braceless `if`
                                        that stmt is and whose branch reads,
                                        which the update repeats; or NONE */
  size_t n;
} omplens_fix__reads;

typedef struct omplens_fix__group {
  int kind;               /* the rule chosen (enum omplens_fix_kind) */
  int intended;           /* manual groups: the rule that would apply (a kind,
                             or one of OMPLENS_FIX__*_ON_DEVICE) */
  omplens_fix__site site; /* the first finding's */
  omplens_fix__file *edit_file; /* the file its edits change: the site's,
                             or, for a wrap around the loop of a call in
                             another file (from the call path), that one */
  uint32_t loop;          /* wraps, hoists and guards: the loop node
                             (in edit_file's syntax tree; the calls of a
                             wrap around a caller's loop are its sites') */
  size_t *findings;
  size_t num_findings, cap_findings;
  uint32_t *site_of;      /* per finding, its site in sites
                             (omplens_fix__site_at)                      */
  omplens_fix__site *sites; /* the findings' sites, each kept once when
                             findings in a row share it (the instances of
                             one item: 88 bytes a finding otherwise) */
  size_t num_sites, cap_sites;
  const char **left;      /* keep-resident: per finding, why its item left
                             the wrap (owned by the fixer), or NULL; the
                             planner moves those findings to groups of their
                             own once the wrap is built (NULL: none left) */
  size_t num_left;        /* ... how many findings are left */
  size_t *item_first;     /* the findings by item (omplens_fix__group_items):
                             per finding, its item's first finding, */
  size_t *item_next;      /* ... and its item's next one, or SIZE_MAX */
  omplens_fix__buf reason;  /* manual: why                              */
  omplens_fix__buf recipe;  /* manual: what to do                       */
  bool settled;             /* manual: the recipe finds nothing to change */
  omplens_fix__buf summary;
  omplens_fix__buf note;
  omplens_fix__buf account; /* what the source shows of its duplicates
                             that the trace could not (omplens_fix_account) */
  bool account_all;     /* ... told every finding of it, whatever its kind */
  omplens_fix__edits edits;
  int confidence;
  const char *new_type; /* map type the rule gives the item          */
  const char *condition; /* guards: the if clause (owned by the fixer) */
  bool first_only;      /* ... that runs only the first iteration      */
  size_t leftover;      /* ADD_EXIT_DATA: its leftover, else SIZE_MAX */
  bool unreferenced;    /* removes an item the kernel never names   */
  bool removes_item;    /* its edits only take its item out of the
                           directive (an unreferenced item, a target
                           update's, an unused allocation's): a join can
                           take several out in one change */
  omplens_fix__site *more_items; /* unreferenced: items of its construct
                           that it removes too and no finding of it names
                           (omplens_fix__join_items) */
  size_t num_more_items;
  bool taken;           /* its item is changed by another group's change,
                           which took its findings (join_items,
                           take_joined) */
  bool compile_pending; /* built, its compile check still to come     */
  bool left_out;        /* its edits overlap an earlier fix's: not in
                           the merged patch                           */
  uint64_t codeptr;     /* unreferenced groups: the kernel's address;
                           sourceless groups: the directive's        */
  int category;         /* sourceless groups: the findings' category */
  const char *reset;    /* INIT_ON_DEVICE: the host statement that resets
                           the item right before the directive, or NULL */
  unsigned reset_line;
  bool reset_decl;      /* ... a declaration with its initializer */
  uint32_t next_same_key; /* the next group of the same key (fixes_plan.c) */
  omplens_fix__kept *kept; /* keep-resident: the items of its wrap as built,
                             for a later group of the same loop (one wrap a
                             loop, whatever files its directives are in) */
  size_t num_kept;
  uint32_t kept_from;     /* ... the region's first statement */
  omplens_fix__reads kept_reads; /* ... the host reads it updates before */
  size_t joined;          /* SIZE_MAX, or the later group whose wrap holds
                             this one's items too: the patch takes that
                             one's edits for both */
  omplens_fix__item_edit *clause_changes; /* what its edits do to its
                             directive's clauses as written, where one call
                             makes them (items removed or retyped), so that
                             another rule's change of the directive can be
                             made with it (omplens_fix__merge_changes) */
  size_t num_clause_changes;
} omplens_fix__group;

/* The site of g's finding k (k < g->num_findings); valid until a finding
 * is added to g. */
static inline const omplens_fix__site *omplens_fix__site_at(const omplens_fix__group *g, size_t k) {
  return &g->sites[g->site_of[k]];
}

/* Fills g->item_first and g->item_next for g's findings as they are now
 * (dropped with omplens_fix__group_items_free when they change): a group
 * of a loop's wrap can hold thousands of items, and each finding's item
 * is then found in constant time. False without memory. */
bool omplens_fix__group_items(omplens_fix__group *g);
/* Adds finding (index) at site s to group g; false without memory. */
bool omplens_fix__add_finding(omplens_fix__group *g, size_t finding, const omplens_fix__site *s);
/* Makes the changes of each directive's items that one rule changes
 * alike (removals, one new map type, one if clause), built one item a
 * group, one change (fixes_rules.c); 0 or OMPLENS_FIX_ENOMEM. */
int omplens_fix__join_items(omplens_fixer *fx);
/* An item whose unused allocation a fix removes loses its copies with it:
 * the fixes of the same item's unused transfers (map it alloc, guard the
 * copy) join that removal, before the items are joined, and where the
 * removal has no diff its reason holds them too (fixes_rules.c); 0 or
 * OMPLENS_FIX_ENOMEM. */
int omplens_fix__take_removed(omplens_fixer *fx);
/* Records that g's edits make changes[0..n) of its directive's clauses
 * (a removal when type is NULL; items[0..n) with one type). False
 * without memory (nothing recorded). */
bool omplens_fix__note_changes(omplens_fix__group *g, const size_t *items, size_t n,
                               const char *type);
/* Two groups of one directive whose clause changes overlap as edits (the
 * minifmm enter data: two arrays removed, three mapped alloc and zeroed
 * on the device) become one change, the earlier group's, which takes the
 * other's findings; after join_items (fixes_rules.c). 0 or
 * OMPLENS_FIX_ENOMEM. */
int omplens_fix__merge_changes(omplens_fixer *fx);
/* Gives each group joined to a wrap (omplens_fix__group.joined, followed
 * to the last) that still has a diff the joined group's findings: the
 * patch applies that wrap's change for both, and the report then shows
 * one change. 0 or OMPLENS_FIX_ENOMEM. */
int omplens_fix__take_joined(omplens_fixer *fx);
void omplens_fix__group_items_free(omplens_fix__group *g);

#define OMPLENS_FIX__RECENT_VARS 256 /* a power of two */

struct omplens_fixer {
  const omplens_trace *trace;
  const omplens_analysis *analysis;
  omplens_annotator *annot;
  omplens_directive_index *index;
  bool own_index;
  char *base_dir;   /* diffs name files relative to it              */
  char *no_diff;    /* options' no_diff, or NULL                      */
  bool base_fixed;  /* given by the caller; else the sources' root */
  char **args;
  size_t num_args;

  const omplens_event *events;
  size_t num_events;
  const omplens_region *regions;
  size_t num_regions;
  const omplens_finding *findings;
  size_t num_findings;
  uint64_t run_ns;

  omplens_fix__file **files;
  size_t num_files, cap_files;
  omplens_names file_index; /* path -> index in files */
  struct omplens_fix__code *codes; /* codeptr -> directive */
  size_t num_codes, cap_codes;
  uint32_t *code_slots; /* open addressing over codes; a power of two */
  size_t cap_code_slots;
  /* Each ALLOC's DELETE (fixes_evidence.c), built on first use. */
  omplens_lifetimes lifetimes;
  bool deletes_built;
  /* The operations of each directive, built once (fixes_evidence.c):
   * the events of transfers and allocations sorted by directive, then
   * variable (below), then event; directive op_dirs[r] (by address) has
   * op_events[op_start[r], op_start[r + 1]). */
  uint32_t *op_events;
  size_t num_op_events;
  const omplens_directive **op_dirs;
  size_t *op_start;
  size_t num_op_dirs;
  bool ops_indexed;
  /* Within a directive's operations, those of each variable stay
   * together, in event order: the directive's items (segments)
   * op_segs[op_dir_seg[r], op_dir_seg[r + 1]), by variable number, the
   * operations of no known variable (number 0) first. A directive that
   * maps hundreds of variables asks for each one's operations. */
  omplens_names op_var_numbers; /* a variable's name -> its number, from 1 */
  /* The same by the name's address, for the names seen last (the
   * annotator makes each name once per map argument's text, so one name
   * has few addresses): one per slot, NULL when empty. */
  const char *recent_var_name[OMPLENS_FIX__RECENT_VARS];
  uint32_t recent_var_number[OMPLENS_FIX__RECENT_VARS];
  struct omplens_fix__op_seg *op_segs;
  size_t *op_dir_seg;
  uint32_t *finding_of_event; /* the finding flagging each event, or NONE */
  /* The findings of the group whose evidence was asked last, sorted: a
   * wrap asks for each of its items in turn, and one group may hold the
   * findings of thousands (fixes_evidence.c, sort_findings). */
  struct {
    const struct omplens_fix__group *group;
    const size_t *findings; /* the group's list, its length and sum then */
    size_t n;
    uint64_t sum;
    size_t *sorted;
  } sorted_findings;

  bool derived;
  int derive_rc;
  omplens_fix__group *groups;
  size_t num_groups, cap_groups;
  /* While the wraps are built (omplens_fix__derive): the built hoists
   * whose item a wrap of their loop can take in (indices into groups). */
  size_t *hoisted;
  size_t num_hoisted;
  uint32_t *group_slots; /* groups by key: the first of each chain; cap a power of two */
  size_t cap_group_slots, num_keyed;
  /* Groups of findings whose directive has no source (indices into
   * groups): one per directive and category, so a trace without sources
   * gets a manual recipe per directive and pattern, not per finding. */
  size_t *sourceless;
  size_t num_sourceless, cap_sourceless;
  omplens_fix *fixes;     /* one per group                             */
  size_t *fix_of_finding; /* index into fixes, SIZE_MAX: none          */
  uint32_t *place_of_finding; /* its place among its fix's group's
                                 findings (where fix_of_finding says) */
  size_t first_leftover;  /* the group of leftover 0; the others follow  */
  char *patch[2];
  char *skipped;
  void *whatif; /* omplens_whatif *, when built with it      */

  /* Where the run's constructs were called from: the first call site of
   * each distinct (directive, call path) pair (fixes_loops.c, built on
   * first use), to find the function a call in a loop runs when its name
   * does not say (a function object's operator()). */
  struct omplens_fix__entry *entries;
  size_t num_entries;
  bool entries_done;

  char **owned;
  size_t num_owned, cap_owned;
  /* Texts of published fixes, each kept once: a trace without sources
   * gives tens of thousands of findings whose recipes read the same. */
  const char **texts;  /* open addressing; cap_texts a power of two or 0 */
  size_t num_texts, cap_texts;
};

/* fixes.c: whether the group's change has a diff (its edits are sound). */
bool omplens_fix__has_diff(const omplens_fix__group *g);
/* Makes base_dir the directory every edited file is under (unless the
 * caller gave base_dir). */
void omplens_fix__find_sources_root(omplens_fixer *fx);

/* Strings the fixer owns (NULL on ENOMEM); ownf's equal texts share one
 * copy. */
const char *omplens_fix__own(omplens_fixer *fx, char *s);
const char *omplens_fix__ownf(omplens_fixer *fx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* fixes.c: the file record of path (loaded lazily); NULL on ENOMEM. */
omplens_fix__file *omplens_fix__file_get(omplens_fixer *fx, const char *path, const char *module);
/* Parses the file when first asked; false (and *why) when it cannot. */
bool omplens_fix__file_ast(omplens_fixer *fx, omplens_fix__file *f, const char **why);
/* The arguments every parse of the file's syntax tree uses: those of its
 * first unit (omplens_fix__unit_args). */
const char *const *omplens_fix__file_args(omplens_fixer *fx, omplens_fix__file *f, size_t *n);

/* fixes_header.c: the units a file is parsed through, and whether a header
 * is the program's own. */
bool omplens_fix__is_header(const char *path);
/* Fills f->units when first asked: the file itself, or for a header the
 * compile database's sources that include it (nearest first), else the
 * header alone. The number of units (0: out of memory). */
size_t omplens_fix__file_units(omplens_fixer *fx, omplens_fix__file *f);
/* The arguments of unit u of f, *n of them (made when first asked; the
 * fixer's extra ones alone when out of memory). */
const char *const *omplens_fix__unit_args(omplens_fixer *fx, omplens_fix__file *f, size_t u,
                                          size_t *n);
/* Why no diff may touch a directive in header f (a system header, one no
 * unit of the compile database includes, one outside the program's source
 * tree), or NULL: f is a source, or a header the program owns. */
const char *omplens_fix__header_unsafe(omplens_fixer *fx, omplens_fix__file *f);
/* Appends to b what a diff of header f reaches: the units that include it. */
void omplens_fix__header_note(omplens_fixer *fx, omplens_fix__file *f, omplens_fix__buf *b);
/* Frees f's units. */
void omplens_fix__units_free(omplens_fix__file *f);
/* The file's target directives (from the index). */
void omplens_fix__file_dirs(omplens_fixer *fx, omplens_fix__file *f);

/* fixes_plan.c */
int omplens_fix__derive(omplens_fixer *fx);

/* The call of the function named name on the line the finding's call path
 * gives for it (the one path all its operations came by; with most, the
 * path most of them came by), in whichever file: *at is that file
 * (parsed), *call the call's node. False with *why (which it extends:
 * ", and the run ...") when there is none. */
bool omplens_fix__call_on_path(omplens_fixer *fx, const omplens_finding *f, const char *name,
                               bool most, omplens_fix__file **at, uint32_t *call,
                               const char **why);
/* The call of name at line in f's syntax tree: with several there, the
 * one whose text holds column (0: unknown); NONE when there is none,
 * OMPLENS_FIX__MANY when the column does not tell them apart. */
#define OMPLENS_FIX__MANY (OMPLENS_FIX__NONE - 1)
uint32_t omplens_fix__call_at_line(omplens_fix__file *f, const char *name, unsigned line,
                                   unsigned column);
/* The statement of a block that holds node n (n itself when it is one). */
uint32_t omplens_fix__statement_of(const omplens_fix__ast *a, uint32_t n);
/* Argument k (from 0) of call node call, or NONE: after the callee's name
 * in a call, first in a constructor's. */
uint32_t omplens_fix__call_arg(const omplens_fix__ast *a, uint32_t call, uint32_t k);
/* The position of parameter node parm among function fn's, or NONE. */
uint32_t omplens_fix__param_index(const omplens_fix__ast *a, uint32_t fn, uint32_t parm);

/* omplens_fix_storage() and omplens_fix_call_loop() once the fixes are
 * derived. */
const char *omplens_fix__storage(omplens_fixer *fx, size_t finding, const char **where);
/* The object whose storage an initializer takes: "v_" of "v_.data()",
 * "x.coefs" of "&x.coefs[0]", "" of "data()" (caller frees), or NULL. */
char *omplens_fix__storage_object(const char *init);
/* The initializer of variable node d, normalized (caller frees), or NULL. */
char *omplens_fix__initializer(const omplens_fix__file *f, uint32_t d);
/* The local pointer whose initializer takes the storage of the object that
 * reference node ref names (`xcoefs` of `const double *xcoefs =
 * &x.coefs[0];` for the `x` in it, or of `v.data()`), or NONE: the object's
 * content is then used through that pointer. */
uint32_t omplens_fix__storage_var(const omplens_fix__file *f, uint32_t ref);
/* Whether reference ref only asks its object (or a member of it) for its
 * size: `x.coefs.size()`, `v.empty()`; the content is not touched. */
bool omplens_fix__size_query(const omplens_fix__file *f, uint32_t ref);

unsigned omplens_fix__call_loop(omplens_fixer *fx, size_t finding);

/* The loop a keep-resident wrap goes around: the directive's own, else the
 * loop around the call of its function: the only call in its file, or the
 * call the finding's call path names, in whichever file (*at: the file of
 * the loop and the call; *call NONE for the directive's own loop), or the
 * calls (up to 1 + OMPLENS_FIX__MORE_CALLS) its operations came by, all in
 * one loop (the others in more[], their number in *num_more). False with
 * *why when there is none. */
bool omplens_fix__resident_loop(omplens_fixer *fx, const omplens_fix__site *s,
                                const omplens_finding *f, uint32_t *loop, uint32_t *call,
                                uint32_t *more, size_t *num_more, omplens_fix__file **at,
                                const char **why);
/* Whether item i of d is one its kernel's body never names (and the body
 * calls nothing that could). */
bool omplens_fix__unreferenced(const omplens_directive *d, size_t item);
/* Why no diff may touch directive d of file path (macro, partial parse,
 * newer than the binary; a header, whose including units are not known
 * here), or NULL. */
const char *omplens_fix__directive_unsafe(const omplens_directive *d, const char *path, bool newer);
/* The same for the fixer's file f: a header may be changed when the
 * program owns it (omplens_fix__header_unsafe). */
const char *omplens_fix__site_unsafe(omplens_fixer *fx, const omplens_directive *d,
                                     omplens_fix__file *f);
/* The directive a code address belongs to (cached), or NULL. */
const omplens_directive *omplens_fix__directive_of(omplens_fixer *fx, uint64_t codeptr,
                                                   int runtime_kind, omplens_fix__file **file);

/* fixes_evidence.c: what the trace says about the events of a directive item. */
typedef struct omplens_fix__evidence {
  uint32_t h2d, d2h, allocs;                         /* events at the directive item       */
  uint32_t h2d_flagged, d2h_flagged, allocs_flagged; /* by the group's findings */
  uint32_t h2d_zeros;                                /* H2Ds whose bytes are all zero    */
  uint32_t d2h_unchanged; /* D2Hs flagged, or that bring back what their
                             construct sent */
  uint32_t h2d_old; /* H2Ds the group flags, or that another group's
                       duplicate or round trip flags: they sent what the
                       device held or had given back                     */
  uint32_t d2h_old; /* the same of the D2Hs: the host held what they brought */
  bool h2d_new_first_only; /* the other H2Ds, which may carry the host's
                              changes, are each the first of their buffer  */
  bool h2d_unflagged_first_only;                     /* the H2Ds not flagged are each the
                                                        first of their buffer            */
  bool h2d_unflagged_last_only;                      /* ... each the last of its buffer  */
  bool d2h_unflagged_last_only;
  uint32_t buffers; /* distinct host buffers            */
} omplens_fix__evidence;

/* Frees fx->sorted_findings (omplens_fix__ops_free does too). */
void omplens_fix__sorted_findings_free(omplens_fixer *fx);
void omplens_fix__evidence_of(omplens_fixer *fx, const omplens_fix__group *g,
                              const omplens_fix__site *site, omplens_fix__evidence *out);
/* The events the group's change removes (sorted, distinct; caller frees). */
int omplens_fix__removed(omplens_fixer *fx, const omplens_fix__group *g, uint32_t **out, size_t *n);
/* Sorts ids and drops repeats; *n becomes the new count. */
void omplens_fix__sort_unique(uint32_t *ids, size_t *n);
/* qsort/bsearch order of uint32_t values. */
int omplens_fix__cmp_u32(const void *a, const void *b);
/* Where x goes in the ascending v[0, n): *at; whether it is there. */
bool omplens_fix__u32_place(const uint32_t *v, size_t n, uint32_t x, size_t *at);
/* Proves that the changes built so far compile: all of a file's at once,
 * else one by one; a failing one becomes manual. */
void omplens_fix__check_compiles(omplens_fixer *fx);
/* Fills f->predicted_* from f->removed. */
void omplens_fix__predict(omplens_fixer *fx, omplens_fix *f);
/* Frees the index of operations by directive (built again if asked). */
void omplens_fix__ops_free(omplens_fixer *fx);
/* Builds the allocations' DELETEs (left unbuilt without memory). */
void omplens_fix__deletes(omplens_fixer *fx);
/* The DELETE of the ALLOC at event alloc, or NONE (none recorded, not
 * built, not an allocation). *at (0 at first) remembers where the search
 * ended: asked in event order, each search is short. */
uint32_t omplens_fix__delete_of(const omplens_fixer *fx, uint32_t alloc, size_t *at);
void omplens_fix__deletes_free(omplens_fixer *fx);
/* Whether every copy back of finding f's host buffer by its directive
 * brings what was sent (omplens_fix__returned_as_sent), not only those the
 * finding flags. */
bool omplens_fix__every_copy_back_returned(omplens_fixer *fx, const omplens_finding *f);
/* Whether finding f's directive sends its host buffer again after its
 * first instance (an H2D): read from the index of operations by
 * directive, not from every later event. */
bool omplens_fix__sent_again(omplens_fixer *fx, const omplens_finding *f);
/* Whether the kernel at codeptr moved or allocated var. */
bool omplens_fix__moved(omplens_fixer *fx, uint64_t codeptr, const char *var);
/* Whether, at a launch of the kernel at codeptr that moved or allocated
 * var, a pointer the body uses without a map (its implicit argument of no
 * size: the pointer's value) pointed into the buffer var moved there: 1
 * yes, 0 no at every such launch, -1 unknown (a launch whose map
 * arguments the trace lacks, or no such launch). */
int omplens_fix__pointer_into(omplens_fixer *fx, uint64_t codeptr, const char *var);
/* What the trace says about the copies of direction kind (OMPLENS_EV_H2D:
 * re-sends of what the device held; OMPLENS_EV_D2H: copies back of what
 * the host held) that the group's round trips and duplicates flag. */
#define OMPLENS_FIX__MAX_KERNELS 16
typedef struct omplens_fix__resends {
  /* The first that fills a device buffer not kept mapped since the previous
   * copy of its host buffer to or from that device (another device address,
   * or an allocation or free of it in between); NONE when every one refills
   * a buffer that stayed. */
  uint32_t remapped;
  /* The target constructs whose kernels ran on that device between a
   * re-send and that previous copy: they may have changed the device's copy
   * where the trace cannot see it. */
  uint64_t kernels[OMPLENS_FIX__MAX_KERNELS];
  size_t num_kernels;
  bool too_many; /* more constructs than that */
} omplens_fix__resends;
void omplens_fix__resend_evidence(omplens_fixer *fx, const omplens_fix__group *g, int kind,
                                  omplens_fix__resends *out);
/* Whether D2H event d2h brings back the bytes its construct instance sent
 * to the device (the same buffer, size and content): the device left them
 * as they were, in the recorded run. */
bool omplens_fix__returned_as_sent(omplens_fixer *fx, uint32_t d2h);
/* Whether that holds for each of the n events (a finding's instances,
 * usually one item's copies: its operations are looked up once). */
bool omplens_fix__all_returned_as_sent(omplens_fixer *fx, const omplens_instance *events, size_t n);
/* Whether the content of every event of events[0..n) is value v in every
 * element, each copy in one element type (double, float, int32 or int64;
 * copies of a template's instantiations may differ). */
bool omplens_fix__filled(const omplens_fixer *fx, const uint32_t *events, size_t n, double v);
/* The same for every H2D of site s's item (all its copies, flagged or not). */
bool omplens_fix__site_filled(omplens_fixer *fx, const omplens_fix__group *g,
                              const omplens_fix__site *s, double v);
/* The value a statement before site s's directive, in its function,
 * assigns to an element of its variable (`w[i] = 1.0;`), as written, or
 * NULL (owned by the fixer). The trace decides whether it filled the
 * array. */
const char *omplens_fix__fill_value(omplens_fixer *fx, const omplens_fix__file *file,
                                    const omplens_fix__site *s);
/* Whether every instance of finding f carries XXH3-64 of f->bytes zeros. */
bool omplens_fix__all_zero(const omplens_fixer *fx, const omplens_finding *f);
/* Whether finding f says that the device still holds what its copies
 * send (a duplicate of the same buffer, or a round trip, host to device):
 * the claim a kernel's write between the copies refutes. */
bool omplens_fix__claims_held(const omplens_fixer *fx, const omplens_finding *f);
/* The index of event e's construct kind as an OMPLENS_RUNTIME_* value. */
int omplens_fix__runtime_kind(const omplens_fixer *fx, const omplens_event *e);

/* ---- rules (fixes_rules.c, fixes_loops.c) ---- */

/* What a rule works on. */
typedef struct omplens_fix__ctx {
  omplens_fixer *fx;
  omplens_fix__group *g;
  omplens_fix__file *file;
  const omplens_fix__source *src;
  const omplens_fix__ast *ast; /* NULL until omplens_fix__need_ast() */
  omplens_fix__buf *probe;     /* when set, a failure only writes its reason
                                  here (the first one) and leaves the group
                                  as it is: a check of one item of many */
  uint32_t blamed;             /* probing: the declaration whose use failed
                                  the last check (set to NONE before) */
  unsigned written_at;         /* the line where the last failed check of a
                                  variable's uses saw code write it (0: it
                                  saw a call or an address taken instead) */
  struct omplens_fix__ctx *peer; /* a wrap around a caller's loop: the
                                  directive's file, where the functions the
                                  loop calls may be defined; else NULL */
  omplens_fix__reads *reads;   /* when set, the host's reads of a wrap's
                                  buffers are noted here, not failed */
} omplens_fix__ctx;

/* Whether statement st has its lines to itself; *first and *last its lines. */
bool omplens_fix__own_lines(omplens_fix__ctx *c, uint32_t st, unsigned *first, unsigned *last);

/* Whether the kernels that ran between the copies of site s's item (rs)
 * leave its memory as it was: each a construct of s's function whose body
 * does not write the variable, or of another function of the file that
 * reaches the same storage (`p = v_.data()`, `p = host_`) and only reads
 * it. A kernel that writes it is *writer (consequence says what that
 * means); false with the reason otherwise. */
bool omplens_fix__kernels_leave(omplens_fix__ctx *c, const omplens_fix__site *s,
                                const omplens_fix__resends *rs, const char *consequence,
                                const omplens_directive **writer);

/* Gives up on a diff: records the reason (the first one given) and the
 * recipe of the group's rule, makes the group manual; returns false. With
 * c->probe set, only writes the reason there. */
bool omplens_fix__fail(omplens_fix__ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Parses the file if needed; false (and the group manual) when it cannot. */
bool omplens_fix__need_ast(omplens_fix__ctx *c);
/* Whether ch may be part of a C identifier. */
static inline bool omplens_fix__ident_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_';
}
/* The text of declaration d's type as written before its name (`const
 * double *`, `Plane &`) in src, *len bytes; NULL when not known. */
static inline const char *omplens_fix__declared_type(const omplens_fix__source *src,
                                                     const omplens_fix__node *d, size_t *len) {
  if (!src || d->loc <= d->begin || d->loc > src->size)
    return NULL;
  *len = d->loc - d->begin;
  return src->text + d->begin;
}
/* The next identifier of expression text from *p on, into word (cut to
 * size bytes); numbers are skipped whole, with their suffixes and
 * exponents ("20u", "1e5", "0x1fUL"). Moves *p past it; false when none
 * is left. */
bool omplens_fix__next_identifier(const char **p, char *word, size_t size);
/* The text of argument node arg of at's file as it stands inside a larger
 * expression: in parentheses unless it is one operand (no operator, no
 * space). Caller frees; NULL when out of memory. */
char *omplens_fix__argument_text(const omplens_fix__ctx *at, uint32_t arg);
/* A local d of function fn (c's file, the directive's) as the caller
 * writes it at call (a node of at's file) before the loop at offset
 * loop_at: its initializer, never assigned after, with parameters replaced
 * by the call's arguments, members of the object a method is called on
 * prefixed with it, locals of the same kind written out (2 deep); macros,
 * enumerators and globals the caller knows stay (`xs = x.data()` in
 * `velocity.axpy(0.5, force)`: `force.data()`; `n = size()`:
 * `velocity.size()`). Caller frees; NULL, failed on c, when it cannot be
 * written. The result may not compile (a free function taken for a
 * member): the compile check decides. */
char *omplens_fix__local_in_caller(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t fn,
                                   uint32_t d, uint32_t call, size_t loop_at);
/* Reads the site's pragma as written and checks its items against the
 * index; false (group manual) on a mismatch. */
bool omplens_fix__scan_site(omplens_fix__ctx *c, const omplens_fix__site *s,
                            omplens_fix__pragma *p);
const char *omplens_fix__item_text(const omplens_fix__site *s); /* "the buffer" if unknown */
/* Whether s's map item says `always` (copied even while it is mapped). */
bool omplens_fix__maps_always(const omplens_fix__site *s);
unsigned omplens_fix__ctx_line(const omplens_fix__ctx *c, size_t offset);
const char *omplens_fix__short_name(const char *path);
/* Offset of the directive's '#'; SIZE_MAX if outside the file. */
size_t omplens_fix__pragma_at(const omplens_fix__ctx *c, const omplens_directive *d);
/* The bytes of directive d's body (its associated statement), end
 * exclusive; false when unknown. */
/* The line of the first `#include` in the bytes [begin, end) of c's file,
 * or 0: code the parse of the file does not hold (HeCBench streamcluster
 * includes its kernel's body). */
unsigned omplens_fix__include_in(const omplens_fix__ctx *c, size_t begin, size_t end);
bool omplens_fix__body_range(const omplens_fix__ctx *c, const omplens_directive *d, size_t *begin,
                             size_t *end);
bool omplens_fix__has_clause(const omplens_directive *d, int kind);
/* " device(...)" of a directive (owned by the fixer), or "". */
const char *omplens_fix__device_clause(omplens_fix__ctx *c, const omplens_directive *d);

/* Removes item s->item of the scanned pragma p, or the whole directive when
 * it is the last data item (kind REMOVE_ITEM or REMOVE_DIRECTIVE); false
 * (group manual) when a clause that must stay forbids it. */
bool omplens_fix__remove_item_or_directive(omplens_fix__ctx *c, const omplens_fix__site *s,
                                           const omplens_fix__pragma *p);

/* fixes_init.c: init-on-device, and its recipe (appended to the group's
 * recipe; where is "file:line" of the directive). */
bool omplens_fix__build_init(omplens_fix__ctx *c);
void omplens_fix__recipe_init(omplens_fix__ctx *c, const char *where);
/* Whether finding f (a duplicate copy in) is sent by a `target enter data
 * map(to:)` item that the kernel right after it sets in full, so that no
 * copy is read, whatever it holds: the zero rule then maps it alloc. */
bool omplens_fix__overwritten_next(omplens_fixer *fx, const omplens_finding *f,
                                   const omplens_fix__site *s);
/* Whether site s's item is a whole local variable of its directive's
 * function (not a parameter, not static) and no loop of the function
 * holds the directive: each call makes it anew, and only calls repeat the
 * directive. Parses
 * the file if no rule did; false where it cannot be parsed. */
bool omplens_fix__local_variable(const omplens_fix__ctx *c, const omplens_fix__site *s);
/* Rule firstprivate for manual group g, whose findings are of one item:
 * the group gets its diff where the rule applies, else stays as it is. */
void omplens_fix__try_firstprivate(omplens_fixer *fx, omplens_fix__group *g);
/* Whether site s's variable is declared inside the innermost loop around
 * its directive (*loop_line, *decl_line): each run of the loop maps a new
 * variable, which no wrap of the loop can name. */
bool omplens_fix__declared_in_loop(const omplens_fix__ctx *c, const omplens_fix__site *s,
                                   unsigned *loop_line, unsigned *decl_line);

/* fixes_loops.c: keep-resident (both kinds) and hoist-alloc. */
bool omplens_fix__build_resident(omplens_fix__ctx *c);
void omplens_fix__kept_free(omplens_fix__group *g);
/* The line where the function that call node `call` calls, defined in
 * c's file, writes the parameter its argument holding ref is passed to
 * (in its kernels or on the host); 0 when it does not, only passes it on,
 * or is not known. *callee gets the called name (owned by the fixer), or
 * NULL. */
unsigned omplens_fix__callee_writes(omplens_fix__ctx *c, uint32_t call, uint32_t ref,
                                    const char **callee);
/* Fails (group manual) when the body [begin, end) of d (a kernel, or a
 * target data region's host code) writes through var (or passes it on, or
 * assigns it): it is the item it, and consequence says what the change
 * would then do wrong. */
bool omplens_fix__device_reads_only(omplens_fix__ctx *c, const omplens_directive *d, size_t begin,
                                    size_t end, uint32_t var, const char *it,
                                    const char *consequence);
/* Fails (group manual) when the host code of [begin, end), kernels'
 * bodies left out, writes var, passes it to a call or may change it
 * otherwise: it is the item it, and consequence says what a change would
 * then do wrong. */
bool omplens_fix__host_leaves(omplens_fix__ctx *c, size_t begin, size_t end, uint32_t var,
                              const char *it, const char *consequence);
bool omplens_fix__build_hoist(omplens_fix__ctx *c);
/* The same for memory from the device memory API: `T *d =
 * omp_target_alloc(SIZE, DEV);` and `omp_target_free(d, DEV);` in one
 * loop body move before and after the loop (the group's site is the
 * call: site.api, site.api_line). */
bool omplens_fix__build_hoist_api(omplens_fix__ctx *c);

/* `for ([type] v = A; v < B; v++)` as read from the source. */
typedef struct omplens_fix__canon {
  char var[128];
  char *init;  /* A */
  char *bound; /* B */
  bool less_equal;
} omplens_fix__canon;
void omplens_fix__canon_free(omplens_fix__canon *k);
/* Reads loop as `for ([type] v = A; v < B; v++)`; false (nothing to free)
 * when it is not one. */
bool omplens_fix__read_canonical(const omplens_fix__ctx *c, uint32_t loop, omplens_fix__canon *k);
/* Whether the site's directive runs once per iteration of its innermost
 * loop, a canonical one (then *loop and *k are set; free k). */
bool omplens_fix__once_per_iteration(omplens_fix__ctx *c, const omplens_fix__site *s,
                                     uint32_t *loop, omplens_fix__canon *k);
/* How often a loop runs per program run, as its file shows. */
enum {
  OMPLENS_FIX__RUNS_ONCE,    /* not nested, in main or in a function called
                                once from outside any loop */
  OMPLENS_FIX__RUNS_NESTED,  /* inside another loop */
  OMPLENS_FIX__RUNS_AGAIN,   /* its function is called from a loop or from
                                several places */
  OMPLENS_FIX__RUNS_UNKNOWN, /* its function's calls are in other files */
};
int omplens_fix__loop_runs(const omplens_fix__ast *a, uint32_t loop);
/* Whether the loop runs once per program run (OMPLENS_FIX__RUNS_ONCE). */
bool omplens_fix__runs_once(const omplens_fix__ast *a, uint32_t loop);
/* The same; false makes the group manual, saying why. */
bool omplens_fix__loop_runs_once(omplens_fix__ctx *c, uint32_t loop);
/* e, or (e) when it is not a plain name or number (caller frees). */
char *omplens_fix__paren(const char *e);

/* fixes_rules.c: fills the group's edits and texts (or its manual recipe). */
void omplens_fix__build(omplens_fixer *fx, omplens_fix__group *g);
/* A manual group whose first finding changed (the planner moved the
 * findings before it to groups of their own): its recipe and summary made
 * again for its site as it is now. */
void omplens_fix__retext_manual(omplens_fixer *fx, omplens_fix__group *g);
/* fixes_rules.c: whether edits of file f give a text that the strict
 * patch check and the -fopenmp parse accept; *why (owned) when not. */
bool omplens_fix__edits_ok(omplens_fixer *fx, omplens_fix__file *f, const omplens_fix__edits *e,
                           const char **why);
/* fixes_rules.c: the group of a leftover (ADD_EXIT_DATA or manual). */
void omplens_fix__build_leftover(omplens_fixer *fx, omplens_fix__group *g,
                                 const omplens_leftover *lo);

#endif
