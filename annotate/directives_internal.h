/* Internals of the directive index (omplens_directives.h). One translation
 * unit (directives_unit.c) is read in three passes that meet here: the
 * textual scan of each file (directives_text.c), the plain libclang parse
 * for statements, references and functions, and the OpenMP parse for
 * `_Pragma` directives (directives_ast.c, with directives_macro.c to rebuild
 * their text). directives_build.c turns them into directives, with the
 * clauses of directives_clauses.c; directives_match.c answers lookups;
 * directives_compdb.c finds compile arguments (directives_producer.c: the
 * ones DWARF recorded); directives_md5.c checks DWARF
 * file stamps; directives_pool.c holds the memory.
 * Design notes: docs/directives.md. */
#ifndef OMPLENS_DIRECTIVES_INTERNAL_H
#define OMPLENS_DIRECTIVES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omplens_directives.h"
#include "omplens_names.h"

#define OMPLENS_DIRECTIVES__NONE UINT32_MAX

/* ---- memory (directives_pool.c) ---- */

/* Everything an index hands out lives in its pool and dies with it. */
/* Whether two function names (DWARF's qualified "ns::S<T>::run(int)", the
 * runtime's bare "run") can name the same function: their last components
 * agree, or either says nothing about the source. */
bool omplens_directives__same_function(const char *a, const char *b);
/* Whether a function name says something about the source (not empty,
 * not mangled, not a function clang made for a target region). */
bool omplens_directives__names_function(const char *f);

typedef struct omplens_directives__chunk omplens_directives__chunk;
typedef struct omplens_directives__pool {
  omplens_directives__chunk *head;
} omplens_directives__pool;

void *omplens_directives__pool_alloc(omplens_directives__pool *p, size_t size);
char *omplens_directives__pool_strndup(omplens_directives__pool *p,
                                       const char *s, size_t n);
char *omplens_directives__pool_strdup(omplens_directives__pool *p,
                                      const char *s);
void omplens_directives__pool_free(omplens_directives__pool *p);

/* A growable array for transient data; len counts elements. */
typedef struct omplens_directives__vec {
  void *data;
  size_t len, cap;
} omplens_directives__vec;

void *omplens_directives__vec_push(omplens_directives__vec *v, size_t elem,
                                   const void *value);
/* The same for a list found by name: value goes at the end of v and name
 * (which must live as long as names) into names with its index. NULL,
 * with v and names unchanged, when memory is short. */
void *omplens_directives__vec_push_named(omplens_directives__vec *v, size_t elem,
                                         const void *value, omplens_names *names,
                                         const char *name);
void omplens_directives__vec_free(omplens_directives__vec *v);
#define OMPLENS_DIRECTIVES__AT(v, type, i) (((type *)(v).data)[i])

/* malloc'd copy of s[0..n) with a terminator; NULL on failure. */
char *omplens_directives__strndup(const char *s, size_t n);

/* ---- source text (directives_text.c) ---- */

typedef struct omplens_directives__source {
  char *path;          /* absolute, as given to source_load             */
  char *text;          /* NUL-terminated copy of the file               */
  uint32_t size;
  uint32_t *line_start;/* offset of each line's first byte               */
  uint32_t num_lines;
  int64_t mtime, fsize;
} omplens_directives__source;

int omplens_directives__source_load(const char *path,
                                    omplens_directives__source *out);
/* The same from memory (the fuzzer's way in). */
int omplens_directives__source_from(const char *path, const char *data,
                                    size_t len, omplens_directives__source *out);
void omplens_directives__source_free(omplens_directives__source *s);
void omplens_directives__source_position(const omplens_directives__source *s,
                                         uint32_t offset, uint32_t *line,
                                         uint32_t *column);

enum omplens_directives__token_kind {
  OMPLENS_DIRECTIVES__TOK_IDENT,
  OMPLENS_DIRECTIVES__TOK_NUMBER,
  OMPLENS_DIRECTIVES__TOK_STRING,
  OMPLENS_DIRECTIVES__TOK_PUNCT,
  OMPLENS_DIRECTIVES__TOK_PRAGMA, /* a whole #pragma line or _Pragma(...) */
};

typedef struct omplens_directives__token {
  uint32_t kind;
  uint32_t begin, end; /* byte offsets, end exclusive                 */
  uint32_t pragma;     /* with TOK_PRAGMA: index in scan.pragmas        */
} omplens_directives__token;

/* One pragma as written, its text normalized. pos[i] is the file offset the
 * i-th character of text came from, so clause items keep their columns. */
typedef struct omplens_directives__pragma {
  uint32_t begin, end; /* '#' or '_Pragma' .. last byte, end exclusive */
  char *text;          /* "#pragma ...", malloc'd                       */
  uint32_t *pos;
  uint32_t len;
  bool omp;
  bool operator_form;  /* _Pragma("...") written outside a #define      */
} omplens_directives__pragma;

typedef struct omplens_directives__scan {
  omplens_directives__vec tokens;  /* omplens_directives__token        */
  omplens_directives__vec pragmas; /* omplens_directives__pragma       */
} omplens_directives__scan;

int omplens_directives__scan_source(const omplens_directives__source *src,
                                    omplens_directives__scan *out);
void omplens_directives__scan_free(omplens_directives__scan *scan);
/* The statement that follows pragma p, found from tokens alone: [*begin,
 * *end) in bytes. False when nothing follows. */
bool omplens_directives__text_statement(const omplens_directives__source *src,
                                        const omplens_directives__scan *scan,
                                        uint32_t p, uint32_t *begin,
                                        uint32_t *end);
/* Offset of the first token at or after offset that is not a pragma,
 * NONE if there is none. */
uint32_t omplens_directives__text_after_pragmas(const omplens_directives__scan *scan,
                                                uint32_t offset);
/* Identifier tokens within [begin, end) equal to name. */
bool omplens_directives__text_names(const omplens_directives__source *src,
                                    const omplens_directives__scan *scan,
                                    uint32_t begin, uint32_t end,
                                    const char *name);
/* Normalizes s[0..n) like a pragma line (whitespace runs to one space,
 * comments dropped, trimmed) into a malloc'd string. */
char *omplens_directives__normalize(const char *s, size_t n);
/* Reads `_Pragma ( "..." )` at text: on success the unescaped, normalized
 * string (malloc'd) and the offset just past ')'. */
char *omplens_directives__pragma_operator(const char *text, uint32_t size,
                                          uint32_t at, uint32_t *after);

/* At p, a line past its leading blanks: `# include "x"` or `<x>`. Sets
 * the name (not terminated), its length and delimiter ('"' or '<'). */
bool omplens_directives__include_at(const char *p, const char *end, char *delim,
                                    const char **name, size_t *len);

/* directives_md5.c */
void omplens_directives__md5(const void *data, size_t len, uint8_t out[16]);

/* ---- pragma text (directives_clauses.c) ---- */

typedef struct omplens_directives__span {
  uint32_t begin, end; /* into the pragma text; begin NONE: absent */
} omplens_directives__span;

typedef struct omplens_directives__clause_draft {
  int kind;
  omplens_directives__span name, text, argument;
} omplens_directives__clause_draft;

typedef struct omplens_directives__item_draft {
  int clause_kind, map_type;
  unsigned modifiers;
  uint32_t clause;
  omplens_directives__span text, var;
} omplens_directives__item_draft;

/* A name listed by a clause that is not a map: private, reduction, ... */
typedef struct omplens_directives__listed {
  int clause_kind;
  omplens_directives__span var;
} omplens_directives__listed;

enum omplens_directives__category_slot {
  OMPLENS_DIRECTIVES__DM_SCALAR,
  OMPLENS_DIRECTIVES__DM_AGGREGATE,
  OMPLENS_DIRECTIVES__DM_POINTER,
  OMPLENS_DIRECTIVES__DM_SLOTS,
};

/* defaultmap behaviour per category; DEFAULT_RULE when not given. */
enum omplens_directives__dm_behaviour {
  OMPLENS_DIRECTIVES__DM_DEFAULT_RULE = 0,
  OMPLENS_DIRECTIVES__DM_FIRSTPRIVATE,
  OMPLENS_DIRECTIVES__DM_MAP, /* with the map type in dm_map_type */
  OMPLENS_DIRECTIVES__DM_NONE,
};

typedef struct omplens_directives__parsed {
  int kind;              /* enum omplens_directive_kind, 0: not target */
  bool combined, takes_body;
  omplens_directives__span name;
  omplens_directives__vec clauses; /* clause_draft */
  omplens_directives__vec items;   /* item_draft   */
  omplens_directives__vec listed;  /* listed       */
  int dm_behaviour[OMPLENS_DIRECTIVES__DM_SLOTS];
  int dm_map_type[OMPLENS_DIRECTIVES__DM_SLOTS];
} omplens_directives__parsed;

/* Parses "#pragma omp ..." text. Fails only for lack of memory; a pragma
 * that is not OpenMP gives kind 0 and takes_body true. */
int omplens_directives__parse_pragma(const char *text, uint32_t len,
                                     omplens_directives__parsed *out);
void omplens_directives__parsed_free(omplens_directives__parsed *p);
/* Whether "#pragma ..." text is followed by a statement it applies to
 * (false for standalone and declarative directives). */
bool omplens_directives__takes_body(const char *text, uint32_t len);
/* The directive name libclang's cursor kind stands for, NULL if not a
 * target directive (a CXCursorKind passed as int). */
const char *omplens_directives__cursor_name(int cursor_kind);

/* ---- one translation unit being read ---- */

typedef struct omplens_directives__ref {
  uint32_t offset;     /* expansion offset of the reference            */
  const char *name;    /* in the unit's scratch pool                   */
  uint32_t decl_offset;/* NONE when the declaration is in another file */
  int category;        /* enum omplens_var_category                    */
} omplens_directives__ref;

typedef struct omplens_directives__function {
  uint32_t begin, end;
  const char *name;
} omplens_directives__function;

/* A target directive libclang's OpenMP parse saw. */
typedef struct omplens_directives__ast_directive {
  int cursor_kind;
  uint32_t begin, end;       /* expansion extent, end exclusive         */
  const char *spelling_file; /* where its `_Pragma` is spelled, or NULL */
  uint32_t spelling_offset;
} omplens_directives__ast_directive;

typedef struct omplens_directives__macro_use {
  uint32_t begin, end;
  const char *name;
} omplens_directives__macro_use;

typedef struct omplens_directives__macro_def {
  const char *name, *file;
  uint32_t begin, end;
} omplens_directives__macro_def;

/* A call of the device memory API the plain parse saw: spans are
 * expansion offsets in the file, names in the unit's scratch pool. */
typedef struct omplens_directives__call_arg {
  omplens_directives__span text;
  const char *var; /* the first variable it names, or NULL */
} omplens_directives__call_arg;

typedef struct omplens_directives__api_draft {
  uint32_t begin, end;        /* the call expression              */
  const char *routine;        /* "omp_target_memcpy"              */
  omplens_directives__call_arg result; /* what its value is assigned to
                                 (text.begin NONE: nothing)       */
  omplens_directives__call_arg *args; /* in the scratch pool      */
  size_t num_args;
} omplens_directives__api_draft;

/* `x = ...` or `T x = ...` around a call of the API: its left side. */
typedef struct omplens_directives__assign {
  uint32_t begin, end;
  omplens_directives__call_arg lhs;
} omplens_directives__assign;

/* What the passes learned about one file of the unit. */
typedef struct omplens_directives__file_work {
  omplens_directives__source src;
  omplens_directives__scan scan;
  /* Per pragma of scan: the outermost statement beginning first after it,
   * per the plain parse; begin NONE when none was seen. */
  omplens_directives__span *stmt;
  omplens_directives__vec refs;      /* ref, by offset            */
  omplens_directives__vec calls;     /* uint32_t offsets          */
  omplens_directives__vec loop_vars; /* uint32_t offsets of `i` in
                                        `for (i = ...` with i declared
                                        outside the loop           */
  omplens_directives__vec functions; /* function                  */
  omplens_directives__vec ast_dirs;  /* ast_directive             */
  omplens_directives__vec macro_uses;/* macro_use                 */
  omplens_directives__vec skipped;   /* span: #if'd out           */
  omplens_directives__vec api_calls; /* api_draft, in source order */
  omplens_directives__vec assigns;   /* assign: around API calls  */
  const char *error;   /* libclang's first error located here    */
  bool ast_seen;       /* the plain parse produced cursors here  */
} omplens_directives__file_work;

typedef struct omplens_directives__located_error {
  const char *file;    /* absolute, in the scratch pool */
  const char *message; /* in the scratch pool           */
} omplens_directives__located_error;

typedef struct omplens_directives__unit {
  omplens_directive_index *index;
  omplens_directives__pool scratch;   /* dies with the unit       */
  omplens_directives__file_work *files;
  size_t num_files;
  omplens_directives__vec macro_defs; /* macro_def                */
  omplens_directives__vec sources;    /* source *: files macros are
                                         defined in, read on demand */
  omplens_directives__vec pragma_macros; /* see macro_spelling       */
  bool pragma_macros_done;
  /* Errors decide per file: one located in a file makes that file
   * partial. The unit's own (no parse, no libclang, a fatal error, after
   * which clang reports nothing more) make every file partial. */
  omplens_directives__vec errors; /* located_error                */
  bool unit_error;
  bool guessed_flags; /* no compile_commands.json entry: the build's
                         -D, -I and language are guessed             */
  char *first_error;  /* the unit's own, malloc'd                  */
  bool oom;
  omplens_directives__vec plain_headers; /* const char * (scratch): headers
                         outside the system the unit includes whose text
                         holds no OpenMP pragma nor device memory API
                         call: they hold no directive                 */
  void **cx;          /* the libclang index the plain parse uses, made
                         on first need (a parse thread's own); NULL:
                         the directive index's                        */
} omplens_directives__unit;

/* ---- the index ---- */

typedef struct omplens_directives__entry {
  omplens_directive pub;
  uint32_t pragma_begin, pragma_end;
  uint32_t body_begin, body_end; /* body_begin NONE: no body */
  uint32_t stmt_line; /* first line of the statement past any nested
                         pragmas (0: none): where clang puts loops */
} omplens_directives__entry;

typedef struct omplens_directives__span_lines {
  const char *name;
  uint32_t line, end_line;
} omplens_directives__span_lines;

typedef struct omplens_directives__file {
  const char *path;
  bool partial;
  const char *diagnostic;
  int64_t mtime, size;
  uint32_t num_lines;
  omplens_directives__entry *entries; /* in source order */
  size_t num_entries;
  /* The look-ups' indexes (directives_match.c), made with the entries:
   * whether the pragmas' first and last lines both ascend with the
   * entries (then the pragmas holding a line are one run of them), and
   * the target data entries with a body, by their body's last line. */
  bool pragmas_ascend;
  uint32_t *closers;
  size_t num_closers;
  const omplens_directive **list;     /* the entries not INACTIVE */
  size_t num_listed;
  bool guessed_flags; /* parsed without a compile_commands.json entry */
  uint32_t *omp_lines; /* pairs (line, end_line) of every omp pragma */
  size_t num_omp_lines;
  omplens_directives__span_lines *functions; /* as the parse saw them */
  size_t num_functions;
  omplens_api_call *api_calls;        /* in source order */
  size_t num_api_calls;
  uint8_t md5[16];
  /* Read as a header alone, or through a header read alone: no unit that
   * includes it was known. Read again through the first one that does. */
  bool alone;
} omplens_directives__file;

/* Makes f's look-up indexes (pragmas_ascend, closers) once its entries are
 * set; closers from the pool. False without memory. */
bool omplens_directives__index_entries(omplens_directives__file *f,
                                       omplens_directives__pool *pool);

typedef struct omplens_directives__compdb omplens_directives__compdb;

/* Shown each unit's plain parse before it is disposed of: the unit's main
 * file, the files of it that hold directives (the main file first), then
 * the headers without directives that name a function holding one of
 * them (its callers, whose loops the fixer reads), the
 * compile arguments it was parsed with (omplens_directives__build_args'),
 * then -D_OPENMP=201511 and -I the main file's directory, with a detailed
 * preprocessing record and CXTranslationUnit_KeepGoing; tu is the
 * CXTranslationUnit. */
typedef void (*omplens_directives__unit_hook)(const char *const *files, size_t num_files,
                                              const char *const *args, size_t num_args,
                                              void *tu);
/* Sets ix's hook (ix may be NULL). */
void omplens_directives__on_plain_unit(omplens_directive_index *ix,
                                       omplens_directives__unit_hook hook);

struct omplens_directive_index {
  omplens_directives__pool pool;
  char **extra_args;
  size_t num_extra_args;
  char *compdb_path;  /* given by the caller, resolved to the file */
  char *comp_dir;
  char **sources;
  size_t num_sources;
  omplens_directives__vec compdbs;  /* omplens_directives__compdb *  */
  omplens_directives__vec files;    /* omplens_directives__file *    */
  omplens_directives__vec units;    /* char *: units already read    */
  omplens_directives__vec resolved; /* omplens_directives__resolved   */
  omplens_directives__vec searched; /* char *: headers whose including
                                       sources were looked for        */
  /* Each list above, and plain_headers and cu_sources, by path (file's
   * path, the unit, resolved's file, ...): the index in the list. */
  omplens_names file_index, unit_index, resolved_index, searched_index,
      plain_header_index, cu_source_index;
  void *cx;                         /* CXIndex, created lazily       */
  char **binaries;                  /* the program's ELF files        */
  size_t num_binaries;
  omplens_directives__compdb *recorded; /* their DWARF's compile commands,
                                       read on first need; NULL: none */
  omplens_directives__vec cu_sources; /* cu_source: their compile
                                       units' primary sources, read with
                                       recorded                       */
  bool recorded_read;
  omplens_directives__unit_hook plain_unit; /* NULL: none */
  omplens_directives__vec plain_headers; /* const char * (pool): headers a
                                       unit read included that hold no
                                       directive by their text (unit's
                                       plain_headers): a lookup makes their
                                       record from the text, not a parse
                                       of them alone                    */
};

/* The primary source of one of the binaries' compile units. */
typedef struct omplens_directives__cu_source {
  char *path;   /* absolute, malloc'd */
  int language; /* DW_AT_language: 1 C++, 0 C, -1 other or unknown */
} omplens_directives__cu_source;

/* A file name as a lookup gave it, and its resolved name (NULL: none), so
 * that realpath runs once per name, not once per finding. */
typedef struct omplens_directives__resolved {
  char *file;
  char *real;
} omplens_directives__resolved;

/* directives.c */
const omplens_directives__file *
omplens_directives__file_lookup(const omplens_directive_index *ix,
                                const char *path);
bool omplens_directives__is_cxx(const char *path);
bool omplens_directives__is_header(const char *path);

/* Whether path (absolute) is compiled as a translation unit of its own
 * rather than included by one (a header, or a .c file that another
 * #includes): the DWARF compile unit holding the code decides (unit, NULL:
 * unknown), else the build's databases, else, with neither, the extension
 * (then *known, when given, is false). */
bool omplens_directives__is_unit(omplens_directive_index *ix, const char *path,
                                 const char *unit, bool *known);

/* LLVM's recursive parser wants a deep stack: a parse thread's size. */
#define OMPLENS_DIRECTIVES__PARSE_STACK (8u << 20)

/* directives_unit.c: reads main_path and the headers it includes that hold
 * pragmas, adding a file record for each. alone: main_path is no unit of
 * the build (no unit that includes it is known), so its record gives way
 * to one read through a unit that does. */
int omplens_directives__read_unit(omplens_directive_index *ix,
                                  const char *main_path, bool alone);
/* Makes the record of a header that a unit read included and that holds
 * no directive by its text (ix->plain_headers), from its text alone. */
int omplens_directives__read_plain(omplens_directive_index *ix, const char *path);
/* Whether a unit read included path and path's text holds no directive. */
bool omplens_directives__plain_header(const omplens_directive_index *ix, const char *path);
/* The same as read_unit for several units (main paths, resolved, none read
 * yet), each as part of the build (not alone): the parses on up to
 * `threads` threads, the records kept in the order given, progress told
 * after each (NULL: not told). */
int omplens_directives__read_units(omplens_directive_index *ix, char *const *paths,
                                   size_t count, unsigned threads,
                                   omplens_directives_progress *progress, void *ctx);

/* directives_ast.c */
typedef struct omplens_directives__args {
  omplens_directives__vec argv; /* char *, malloc'd */
  bool from_compdb;             /* the file's own compile_commands.json
                                   entry or recorded command gave them (a
                                   header: the nearest)                  */
} omplens_directives__args;
void omplens_directives__args_free(omplens_directives__args *a);
bool omplens_directives__args_add(omplens_directives__args *a, const char *s);

/* Parses main_path twice (plain and OpenMP), adds the main file and the
 * headers holding pragmas to u->files (the main file must be u->files[0]
 * already), and fills their file_work. Only allocation failure is an
 * error: a failed parse sets u->errors. */
int omplens_directives__ast_read(omplens_directives__unit *u,
                                 const omplens_directives__args *args);
/* Readies u (its main file only, holding no OpenMP text) as a parse
 * would leave it, without one. */
int omplens_directives__ast_none(omplens_directives__unit *u);
void omplens_directives__ast_dispose(void *cx);
/* Adds a file to the unit: loads and scans it. */
int omplens_directives__unit_add_file(omplens_directives__unit *u,
                                      const char *path);
/* A source the unit already read (or reads now); NULL when unreadable. */
const omplens_directives__source *
omplens_directives__unit_source(omplens_directives__unit *u, const char *path);

/* directives_cache.c: what the parses of a unit told, kept between
 * reports (libclang_dl.h's parse cache). */
struct omplens_libclang_key;
/* What decides u's parses with args, as strings: its main file, then the
 * arguments, after lead slots the caller fills. malloc'd (caller frees),
 * its length in *n; NULL without memory. */
const char **omplens_directives__unit_parts(const omplens_directives__unit *u,
                                            const omplens_directives__args *args, size_t lead,
                                            size_t *n);
/* The key of u's parses with args: 0, or -1 (then nothing is cached). */
int omplens_directives__cache_key(const omplens_directives__unit *u,
                                  const omplens_directives__args *args,
                                  struct omplens_libclang_key *out);
/* Fills u (its main file loaded and scanned, nothing parsed) from the
 * cache: 1 on a hit; 0 on a miss, with u as it was. */
int omplens_directives__cache_load(omplens_directives__unit *u,
                                   const struct omplens_libclang_key *key);
/* Keeps what the parses tus (CXTranslationUnit; NULL ones skipped) told
 * about u. Silent on failure. */
void omplens_directives__cache_store(const omplens_directives__unit *u,
                                     const struct omplens_libclang_key *key,
                                     void *const *tus, size_t num_tus);

/* directives_compdb.c */
/* Reads the compile_commands.json the caller named (ix->compdb_path, a
 * file or its directory), so that a broken one fails at create. */
int omplens_directives__compdb_preload(omplens_directive_index *ix);
int omplens_directives__compdb_load(const char *path,
                                    omplens_directives__compdb **out);
void omplens_directives__compdb_free(omplens_directives__compdb *db);
/* Arguments to parse main_path with: language, the compile database's
 * include and macro flags, -I of its directory and of comp_dir, the extra
 * arguments. */
int omplens_directives__build_args(omplens_directive_index *ix,
                                   const char *main_path,
                                   omplens_directives__args *out);
/* Whether file is compiled as a unit of its own: 1 when an entry of the
 * compile database or of the commands DWARF recorded compiles it, or it is
 * the primary source of one of the binaries' compile units; 0 when these
 * are known and none is it (the file is included); -1 when none is known. */
int omplens_directives__compdb_compiles(omplens_directive_index *ix,
                                        const char *file);
/* Splits a shell command line (compile_commands "command"). */
int omplens_directives__split_command(const char *cmd,
                                      omplens_directives__args *out);
/* An empty database made in memory; path says where it comes from. */
int omplens_directives__compdb_new(const char *path,
                                   omplens_directives__compdb **out);
/* Adds the entry of file (relative: against directory) compiled by args
 * (args[0] the compiler), which it takes over: args is left empty. */
int omplens_directives__compdb_add(omplens_directives__compdb *db,
                                   const char *directory, const char *file,
                                   omplens_directives__args *args);

/* directives_producer.c: compile commands recorded in DWARF (clang
 * -grecord-command-line). */
/* Appends to out the command a DW_AT_producer records (out[0] the
 * compiler): 0, or 1 when it records none (not clang's, or clang's
 * version alone), or ENOMEM. */
int omplens_directives__producer_command(const char *producer,
                                         omplens_directives__args *out);
/* The compile database made of the commands the compile units of
 * ix->binaries recorded, read on the first call; NULL when none did.
 * Owned by the index. */
const omplens_directives__compdb *
omplens_directives__producer_db(omplens_directive_index *ix);
/* Whether file (absolute) is the primary source (DW_AT_name) of a compile
 * unit of ix->binaries: 1 or 0; -1 when they hold no compile unit. */
int omplens_directives__is_cu_source(omplens_directive_index *ix, const char *file);
/* The language that unit was compiled in (DW_AT_language): 1 C++, 0 C,
 * -1 when unknown or file is no unit's. */
int omplens_directives__cu_language(omplens_directive_index *ix, const char *file);

/* directives_macro.c: the pragma text of a `_Pragma` directive. Returns a
 * malloc'd "#pragma ..." or NULL when it cannot be recovered. */
char *omplens_directives__macro_text(omplens_directives__unit *u,
                                     const omplens_directives__file_work *fw,
                                     const omplens_directives__ast_directive *d,
                                     const char **macro_name);

/* Whether the macro name expands to a `_Pragma` (directly or through one
 * other macro), and where that `_Pragma` is spelled. */
bool omplens_directives__macro_spelling(omplens_directives__unit *u,
                                        const char *name, const char **file,
                                        uint32_t *offset);

/* directives_build.c */
int omplens_directives__build_file(omplens_directives__unit *u,
                                   omplens_directives__file_work *fw,
                                   omplens_directives__file **out);

/* directives_includers.c: the sources of the compile database that
 * include header, directly or through other headers (by their #include
 * lines, resolved as the entry's -I, -iquote, -isystem and -idirafter
 * say), nearest to the header first. Fills out with malloc'd paths. */
int omplens_directives__compdb_includers(omplens_directive_index *ix,
                                         const char *header,
                                         omplens_directives__vec *out);
/* The compile database that applies to file (given, or found above it);
 * NULL when there is none. */
const omplens_directives__compdb *
omplens_directives__compdb_for(omplens_directive_index *ix, const char *file);
size_t omplens_directives__compdb_size(const omplens_directives__compdb *db);
const char *omplens_directives__compdb_file(const omplens_directives__compdb *db,
                                            size_t i);
/* The include search directories of entry i, in the order clang tries
 * them for "x" (quoted first: -iquote) and <x>; malloc'd paths. */
int omplens_directives__compdb_include_dirs(const omplens_directives__compdb *db,
                                            size_t i, omplens_directives__vec *quote,
                                            omplens_directives__vec *angle);

/* directives_match.c */
void omplens_directives__match(const omplens_directives__file *f,
                               const omplens_directive_query *q,
                               omplens_directive_match *out);
void omplens_directives__match_api_call(const omplens_directives__file *f,
                                        const omplens_directive_query *q,
                                        omplens_api_call_match *out);

#endif
