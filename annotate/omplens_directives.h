/* omplens directives: from a source location (what the symbolizer made of a
 * recorded code address) to the OpenMP `target...` directive responsible,
 * with its clauses, map items, implicit maps and unused map items.
 * Design notes: docs/directives.md.
 *
 * Sources are read with libclang (a plain parse for statements and
 * references, an OpenMP parse for `_Pragma` in macros) and a textual scan of
 * the `#pragma omp` lines, so that a file libclang cannot fully parse still
 * yields its directives (then marked partial).
 *
 * Functions return 0 or a negative OMPLENS_DIRECTIVES_E* code;
 * omplens_directives_strerror() explains a code. Whether a location could be
 * attributed to a directive is not an error: it is the confidence of the
 * result.
 *
 * Every string and every directive handed out is owned by the index and
 * valid until omplens_directive_index_destroy(). An index is not
 * thread-safe: give each thread its own, or lock. */
#ifndef OMPLENS_DIRECTIVES_H
#define OMPLENS_DIRECTIVES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum omplens_directives_error {
  OMPLENS_DIRECTIVES_OK = 0,
  OMPLENS_DIRECTIVES_EINVAL = -1,  /* NULL index, file or result          */
  OMPLENS_DIRECTIVES_ENOMEM = -2,
  OMPLENS_DIRECTIVES_ENOENT = -3,  /* the source file does not exist      */
  OMPLENS_DIRECTIVES_EIO = -4,     /* it exists but cannot be read        */
  OMPLENS_DIRECTIVES_EFBIG = -5,   /* larger than OMPLENS_DIRECTIVES_MAX_FILE */
  OMPLENS_DIRECTIVES_ECOMPDB = -6, /* the given compile_commands.json is
                                      unreadable or not a JSON array      */
};

/* Sources larger than this are refused: they are not hand-written code. */
#define OMPLENS_DIRECTIVES_MAX_FILE (64u << 20)

/* The directive families omplens follows. Combined forms ("target teams
 * distribute parallel for", ...) are OMPLENS_DIRECTIVE_TARGET with
 * OMPLENS_DIRF_COMBINED; their full name is in omplens_directive.name. */
enum omplens_directive_kind {
  OMPLENS_DIRECTIVE_TARGET = 1,
  OMPLENS_DIRECTIVE_TARGET_DATA,
  OMPLENS_DIRECTIVE_TARGET_ENTER_DATA,
  OMPLENS_DIRECTIVE_TARGET_EXIT_DATA,
  OMPLENS_DIRECTIVE_TARGET_UPDATE,
};

/* The construct kind seen at run time (OMPT ompt_target_t). A `target data`
 * region shows up as ENTER_DATA at its begin and EXIT_DATA at its end. */
enum omplens_runtime_kind {
  OMPLENS_RUNTIME_ANY = 0, /* unknown: every directive kind fits */
  OMPLENS_RUNTIME_TARGET,
  OMPLENS_RUNTIME_ENTER_DATA,
  OMPLENS_RUNTIME_EXIT_DATA,
  OMPLENS_RUNTIME_UPDATE,
};

enum omplens_directive_flags {
  OMPLENS_DIRF_COMBINED = 1u << 0,   /* target combined with other constructs */
  OMPLENS_DIRF_MACRO = 1u << 1,      /* from `_Pragma`, written in a macro or
                                        directly: extents are the expansion */
  OMPLENS_DIRF_TEXT_ONLY = 1u << 2,  /* found by the textual scan only, in a
                                        file libclang could not fully parse:
                                        body and references are approximate */
  OMPLENS_DIRF_TEXT_INCOMPLETE = 1u << 3, /* the macro text could not be
                                        recovered: text is the kind only,
                                        clauses are unknown                */
  OMPLENS_DIRF_BODY_CALLS = 1u << 4, /* the body calls functions: the
                                        reference analysis is lexical, a
                                        callee may use what it says is unused */
  OMPLENS_DIRF_INACTIVE = 1u << 5,   /* in a preprocessor branch the parse
                                        left out (#if with other macros than
                                        the build's): read from its text
                                        (with TEXT_ONLY), found only by a line
                                        inside it, never listed           */
};

/* Clauses omplens reads; every other clause is OMPLENS_CLAUSE_OTHER with its
 * name and text kept. */
enum omplens_clause_kind {
  OMPLENS_CLAUSE_OTHER = 0,
  OMPLENS_CLAUSE_MAP,
  OMPLENS_CLAUSE_TO,     /* motion clause of `target update` */
  OMPLENS_CLAUSE_FROM,   /* motion clause of `target update` */
  OMPLENS_CLAUSE_NOWAIT,
  OMPLENS_CLAUSE_DEVICE,
  OMPLENS_CLAUSE_DEPEND,
  OMPLENS_CLAUSE_IF,
  OMPLENS_CLAUSE_DEFAULTMAP,
  OMPLENS_CLAUSE_PRIVATE,
  OMPLENS_CLAUSE_FIRSTPRIVATE,
  OMPLENS_CLAUSE_IS_DEVICE_PTR,
  OMPLENS_CLAUSE_HAS_DEVICE_ADDR,
  OMPLENS_CLAUSE_USE_DEVICE_PTR,
  OMPLENS_CLAUSE_USE_DEVICE_ADDR,
  OMPLENS_CLAUSE_REDUCTION,
};

enum omplens_map_type {
  OMPLENS_MAP_NONE = 0, /* not a map (firstprivate, unknown)   */
  OMPLENS_MAP_TO,
  OMPLENS_MAP_FROM,
  OMPLENS_MAP_TOFROM,
  OMPLENS_MAP_ALLOC,
  OMPLENS_MAP_RELEASE,
  OMPLENS_MAP_DELETE,
  OMPLENS_MAP_PRESENT,  /* defaultmap(present) only            */
};

enum omplens_map_modifier {
  OMPLENS_MAPMOD_ALWAYS = 1u << 0,
  OMPLENS_MAPMOD_CLOSE = 1u << 1,
  OMPLENS_MAPMOD_PRESENT = 1u << 2,
  OMPLENS_MAPMOD_MAPPER = 1u << 3,
  OMPLENS_MAPMOD_ITERATOR = 1u << 4,
  OMPLENS_MAPMOD_HOLD = 1u << 5,     /* ompx_hold */
  OMPLENS_MAPMOD_TYPE_IMPLIED = 1u << 8, /* no map type written: map_type is
                                        the default for the directive       */
};

/* Whether the body uses an item's variable. */
enum omplens_item_use {
  OMPLENS_USE_UNKNOWN = 0, /* no body (enter/exit/update), or no variable */
  OMPLENS_USE_REFERENCED,
  OMPLENS_USE_UNREFERENCED,
};

/* What a variable's type makes of an implicit map (OpenMP 5.x rules). */
enum omplens_var_category {
  OMPLENS_VAR_UNKNOWN = 0, /* dependent template type, or no AST          */
  OMPLENS_VAR_SCALAR,
  OMPLENS_VAR_AGGREGATE,   /* array, struct, union, class                 */
  OMPLENS_VAR_POINTER,
};

enum omplens_implicit_treatment {
  OMPLENS_IMPLICIT_UNKNOWN = 0,
  OMPLENS_IMPLICIT_FIRSTPRIVATE, /* copied as a kernel argument: no transfer */
  OMPLENS_IMPLICIT_MAP,          /* mapped with map_type (tofrom by default) */
  OMPLENS_IMPLICIT_POINTER,      /* zero-length array section: attaches to
                                    what is already mapped, moves no data   */
};

/* A stretch of source. Lines and columns are 1-based, columns in bytes as
 * the compiler counts them; end_column is that of the last character. */
typedef struct omplens_directive_extent {
  const char *file; /* absolute; NULL when the extent does not exist */
  uint32_t line, column;
  uint32_t end_line, end_column;
} omplens_directive_extent;

typedef struct omplens_directive_clause {
  int kind;             /* enum omplens_clause_kind                       */
  const char *name;     /* "map", "nowait", "device", ... as written      */
  const char *text;     /* the whole clause: "map(always, to: a[0:n])"    */
  const char *argument; /* between the parentheses; NULL without them     */
} omplens_directive_clause;

/* One list item of a map, to or from clause. */
typedef struct omplens_map_item {
  int clause_kind;      /* OMPLENS_CLAUSE_MAP, _TO or _FROM                */
  int map_type;         /* enum omplens_map_type; TO / FROM for motion     */
  unsigned modifiers;   /* enum omplens_map_modifier                       */
  const char *text;     /* "a[0:n]", as written, whitespace normalized     */
  const char *var;      /* base variable: "a" for a[0:n], s.x, p->y[0:n];
                           NULL when the item does not start with one     */
  uint32_t line, column;/* where the item is written (macro: expansion)   */
  int use;              /* enum omplens_item_use                           */
  size_t clause;        /* index in omplens_directive.clauses             */
  /* With OMPLENS_USE_UNREFERENCED: the body calls functions
   * (OMPLENS_DIRF_BODY_CALLS) and the variable is not known to be declared
   * in the directive's function, so a callee may name it. A local or a
   * parameter of that function is its own: no callee names it. */
  int callees_may_use;
} omplens_map_item;

typedef struct omplens_directive omplens_directive;

/* A variable the body references that no clause of the directive lists. */
typedef struct omplens_implicit_map {
  const char *var;
  int category;         /* enum omplens_var_category                      */
  int treatment;        /* enum omplens_implicit_treatment                */
  int map_type;         /* with OMPLENS_IMPLICIT_MAP: enum omplens_map_type */
  uint32_t line, column;/* its first reference in the body                */
  /* An enclosing `target data` in the same file that maps the variable:
   * the implicit map then finds it present. NULL if none is known. */
  const omplens_directive *covered_by;
} omplens_implicit_map;

struct omplens_directive {
  int kind;               /* enum omplens_directive_kind                  */
  unsigned flags;         /* enum omplens_directive_flags                 */
  const char *name;       /* "target teams distribute parallel for"       */
  const char *text;       /* "#pragma omp ..." with continuation lines
                             joined, comments removed, whitespace runs
                             made one space; a `_Pragma` is shown as the
                             #pragma it stands for                         */
  const char *macro;      /* macro whose expansion holds it, else NULL    */
  omplens_directive_extent pragma;
  omplens_directive_extent body; /* the associated statement (target and
                             target data); file NULL for the others. With
                             OMPLENS_DIRF_MACRO both are the expansion     */
  const char *function;   /* enclosing function (unqualified), or NULL    */

  size_t num_clauses;
  const omplens_directive_clause *clauses;
  size_t num_items;       /* map / to / from items, in written order      */
  const omplens_map_item *items;
  size_t num_implicit;    /* target forms only                            */
  const omplens_implicit_map *implicit;
  size_t num_unreferenced;/* items whose variable the body never names    */
  const omplens_map_item *const *unreferenced;
};

enum omplens_directive_confidence {
  OMPLENS_MATCH_NONE = 0,  /* no directive fits                             */
  OMPLENS_MATCH_EXACT,     /* the line is the directive's own (pragma line,
                              first loop line of a combined construct, or
                              closing line of a target data region for an
                              exit) and nothing else fits                  */
  OMPLENS_MATCH_NEAREST,   /* a best guess: innermost enclosing region, or
                              the only directive of that kind in the
                              function. Present it as such                 */
  OMPLENS_MATCH_AMBIGUOUS, /* several fit equally: see candidates          */
};

enum omplens_directive_match_flags {
  OMPLENS_MATCHF_PARTIAL = 1u << 0,  /* libclang reported errors: the file
                                        was read partly from its text       */
  OMPLENS_MATCHF_STALE = 1u << 1,    /* the file changed since the build:
                                        its MD5, mtime or size differ; or,
                                        without a stamp, the line is past
                                        the end, or is a pragma line (query
                                        pragma_line) that holds no OpenMP
                                        pragma                              */
  OMPLENS_MATCHF_FUNCTION_MISMATCH = 1u << 2, /* the caller's function is
                                        not the directive's (compared by
                                        bare name); says nothing about the
                                        confidence: lines decide            */
  OMPLENS_MATCHF_KIND_MISMATCH = 1u << 3, /* the line is a pragma of another
                                        kind than the run time saw          */
  OMPLENS_MATCHF_NO_LINE = 1u << 4,  /* line 0: chosen by function and kind */
  OMPLENS_MATCHF_OFF_DIRECTIVE = 1u << 5, /* the line is in no directive,
                                        and nothing says the file changed:
                                        optimized code (clang -O2 moves
                                        lines); chosen by function and kind */
  OMPLENS_MATCHF_GUESSED_FLAGS = 1u << 6, /* the file was parsed without a
                                        compile_commands.json entry or a
                                        command recorded in DWARF, and it
                                        shows: the parse is PARTIAL, or the
                                        directive is INACTIVE               */
};

#define OMPLENS_DIRECTIVE_MAX_CANDIDATES 8

typedef struct omplens_directive_match {
  int confidence;          /* enum omplens_directive_confidence            */
  unsigned flags;          /* enum omplens_directive_match_flags           */
  const char *rule;        /* static text: the rule that decided           */
  const omplens_directive *directive; /* EXACT and NEAREST; NULL otherwise */
  size_t num_candidates;   /* all that fitted; the first
                              OMPLENS_DIRECTIVE_MAX_CANDIDATES are below   */
  const omplens_directive *candidates[OMPLENS_DIRECTIVE_MAX_CANDIDATES];
  const char *diagnostic;  /* with PARTIAL: libclang's first error         */
} omplens_directive_match;

/* A call of the OpenMP device memory API (a routine named omp_target_*
 * or llvm_omp_target_*: omp_target_alloc, omp_target_free,
 * omp_target_memcpy[_rect][_async], omp_target_associate_ptr, ...) as the
 * plain parse sees it. Its events carry the call's own code address. */
typedef struct omplens_api_argument {
  const char *text;  /* as written, whitespace normalized: "d_table + off";
                        NULL when absent                                */
  const char *var;   /* the first variable it names ("d_table"; "s" of
                        "s->buf"; a member of `this`: "buf_"), or NULL   */
} omplens_api_argument;

typedef struct omplens_api_call {
  const char *routine;           /* "omp_target_memcpy", as called     */
  const char *text;              /* the source lines the call spans,
                                    joined and whitespace normalized:
                                    "d = omp_target_alloc(n, dev);"    */
  omplens_directive_extent call; /* the call expression (expansion)    */
  const char *function;          /* enclosing function, or NULL        */
  omplens_api_argument result;   /* what its value is assigned to or
                                    initializes (`d = omp_target_alloc(..)`,
                                    `double *d = ...`); text NULL: none */
  size_t num_args;
  const omplens_api_argument *args;
} omplens_api_call;

typedef struct omplens_api_call_match {
  int confidence;       /* EXACT: the one call on the line (the column
                           separates several); NEAREST: the same in a
                           STALE file; AMBIGUOUS: several, no column;
                           NONE: no call of the API on the line        */
  unsigned flags;       /* OMPLENS_MATCHF_PARTIAL, _STALE, _GUESSED_FLAGS */
  const char *rule;     /* static text: the rule that decided          */
  const omplens_api_call *call; /* EXACT and NEAREST; NULL otherwise   */
  const char *diagnostic; /* with PARTIAL: libclang's first error      */
} omplens_api_call_match;

typedef struct omplens_directive_options {
  const char *const *extra_args; /* appended to every parse               */
  size_t num_extra_args;
  /* compile_commands.json, or the directory holding it. NULL: look next to
   * each source and in build/ of it and of its parents. */
  const char *compile_commands;
  /* DW_AT_comp_dir: resolves relative file names and is added with -I. */
  const char *comp_dir;
  /* Sources that include headers holding directives: a header is parsed
   * through the query's unit, else the first of these that includes it,
   * else the compile database's sources that include it, else alone. */
  const char *const *sources;
  size_t num_sources;
  /* The program's ELF files: a unit without a compile_commands.json entry
   * is parsed with the command its DWARF compile unit recorded (clang
   * -grecord-command-line), read from these on first need. */
  const char *const *binaries;
  size_t num_binaries;
} omplens_directive_options;

/* The full form of a lookup; omplens_directive_find() is the short one. */
typedef struct omplens_directive_query {
  const char *file;      /* as DWARF names it; relative: against comp_dir  */
  uint32_t line;         /* 0: unknown                                    */
  uint32_t column;       /* 0: unknown                                    */
  const char *function;  /* enclosing function from DWARF, or NULL        */
  int runtime_kind;      /* enum omplens_runtime_kind                     */
  const char *unit;      /* the source whose translation unit holds the
                            code (DWARF CU name, relative: against
                            comp_dir), or NULL: a header is read through
                            it                                            */
  int64_t mtime;         /* as DWARF recorded them (seconds); 0: unknown  */
  int64_t size;
  const uint8_t *md5;    /* the 16 bytes of DW_LNCT_MD5 (what clang
                            records in DWARF 5), or NULL                  */
  int pragma_line;       /* 1: line is where the directive's pragma was
                            when it was built (the runtime's location), not
                            a line of code from DWARF                     */
} omplens_directive_query;

typedef struct omplens_directive_index omplens_directive_index;

const char *omplens_directives_strerror(int err);
/* "target", "target data", "target enter data", ...; "unknown" otherwise. */
const char *omplens_directive_kind_name(int kind);
/* "none", "exact", "nearest", "ambiguous". */
const char *omplens_directive_confidence_name(int confidence);
/* "to", "from", "tofrom", "alloc", "release", "delete", "present", "none". */
const char *omplens_map_type_name(int map_type);

/* Creates an index. opts may be NULL; it is copied. A given
 * compile_commands.json is read now (ECOMPDB when it is unusable). Sources
 * are parsed lazily, each once. On success *out is new (caller frees with
 * omplens_directive_index_destroy); on failure *out is NULL. */
int omplens_directive_index_create(const omplens_directive_options *opts,
                                   omplens_directive_index **out);
/* Frees the index, every directive and string it handed out. NULL is
 * accepted. */
void omplens_directive_index_destroy(omplens_directive_index *index);

/* Finds the directive at file:line:column. function may be NULL,
 * runtime_kind OMPLENS_RUNTIME_ANY. *out is always overwritten; a NULL index
 * (from a failed create) gives confidence NONE and EINVAL. A missing or
 * unreadable file is an error (ENOENT, EIO); one libclang cannot parse is
 * not (OMPLENS_MATCHF_PARTIAL). */
int omplens_directive_find(omplens_directive_index *index, const char *file,
                           uint32_t line, uint32_t column,
                           const char *function, int runtime_kind,
                           omplens_directive_match *out);
/* The same with the header's including source, DWARF file stamps, and
 * whether the line is the pragma's own. A stamp that is given decides
 * staleness alone: when it matches, nothing the lines show is staleness. */
int omplens_directive_find_query(omplens_directive_index *index,
                                 const omplens_directive_query *query,
                                 omplens_directive_match *out);

/* The call of the device memory API at query's file:line (column, when
 * not 0, picks one of several). Reads the file as omplens_directive_find
 * does (unit, stamps); runtime_kind, function and pragma_line are not
 * used. *out is always overwritten; errors as omplens_directive_find. */
int omplens_directive_find_api_call(omplens_directive_index *index,
                                    const omplens_directive_query *query,
                                    omplens_api_call_match *out);

/* Told how many of the units to read are done, on the caller's thread. */
typedef void omplens_directives_progress(void *ctx, uint64_t done, uint64_t total);

/* Reads the compile units named (as queries name them in `unit`) that are
 * not read yet, so that the queries that follow find them parsed: the
 * parses run on a thread per CPU (at most 4), and the units' records are
 * kept in the order named, whatever the number of threads; progress (may
 * be NULL) is told 0 before the first parse, then after each unit. A unit that cannot be read is left for its
 * queries, which report it. Returns 0, or ENOMEM. */
int omplens_directives_prefetch(omplens_directive_index *index, const char *const *units,
                                size_t count, omplens_directives_progress *progress,
                                void *ctx);

/* Every target directive of file the parse saw, in source order (not the
 * INACTIVE ones). *directives (owned by the index) and *count are set to
 * NULL and 0 on failure. */
int omplens_directive_list(omplens_directive_index *index, const char *file,
                           const omplens_directive *const **directives,
                           size_t *count);

/* A helper process's share of a unit's read (annotate/libclang_dl.h,
 * the job OMPLENS_LIBCLANG_JOB_UNIT without its first part): parts are the
 * unit's main file and its parse arguments. Parses them as the requesting
 * index would, into the parse cache, and keeps nothing in ix (whose plain
 * parses are shared with the fixer exactly when the requester's were).
 * Returns 0 or an error code. */
int omplens_directives_unit_job(omplens_directive_index *ix, const char *const *parts,
                                size_t n);

/* ---- libclang's cost across every index of the process ---- */

/* Where the results of parses are kept between reports (the parse cache,
 * docs/directives.md): dir, made on first need with its parent, or
 * nowhere (NULL, the default). Set it before the first lookup. */
void omplens_directives_cache_at(const char *dir);

typedef struct omplens_directives_cost {
  unsigned parsed;  /* translation units libclang parsed (each lookup's
                       unit once, the fixer's too)                   */
  unsigned cached;  /* parses the cache answered instead              */
  double seconds;   /* wall time of each, added up                    */
  unsigned helpers; /* helper processes started to run them            */
} omplens_directives_cost;

/* What libclang has cost so far, the fixer's parses included. */
void omplens_directives_parse_cost(omplens_directives_cost *out);

/* No parse is due for a while (a report's attribution and fixes are
 * made): the memory libclang's code took is given back, as after every
 * omplens_directives_prefetch(), and the parse helpers end
 * (annotate/libclang_dl.h). A later parse brings back what it needs. */
void omplens_directives_parses_done(void);

#ifdef __cplusplus
}
#endif
#endif
