/* libclang, loaded on first need. omplens links no libclang: dlopen() of
 * libclang (and through it libLLVM, z3, icu...) costs ~60 MB of resident
 * memory and start-up time, which an analysis that parses no source should
 * not pay. The directive index (directives_ast.c) and the fixer
 * (fix/fixes_ast.c) call libclang through the table below; its types still
 * come from <clang-c/Index.h>.
 *
 * Which library: $OMPLENS_LIBCLANG when set (a path, or a name for the
 * dynamic loader's search), else the SONAME of the libclang found at build
 * time, else that library's absolute path. Sanitized builds also link it,
 * for LeakSanitizer's sake (annotate/directives.cmake says why). */
#ifndef OMPLENS_LIBCLANG_DL_H
#define OMPLENS_LIBCLANG_DL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <clang-c/Index.h>

/* Every libclang function omplens calls, without its clang_ prefix. The
 * table's fields and the symbols looked up are both made from this list. */
#define OMPLENS_LIBCLANG_FUNCTIONS(X)                                          \
  /* index and translation units */                                           \
  X(createIndex) X(disposeIndex) X(parseTranslationUnit2)                      \
  X(disposeTranslationUnit) X(getTranslationUnitCursor) X(visitChildren)      \
  X(getInclusions) X(getSkippedRanges) X(disposeSourceRangeList)              \
  /* diagnostics and strings */                                               \
  X(getNumDiagnostics) X(getDiagnostic) X(getDiagnosticSeverity)              \
  X(getDiagnosticLocation) X(formatDiagnostic) X(disposeDiagnostic)           \
  X(getCString) X(disposeString)                                              \
  /* cursors */                                                               \
  X(getCursorKind) X(getCursorSpelling) X(getCursorExtent)                    \
  X(getCursorLocation) X(getCursorReferenced) X(getCursorSemanticParent)      \
  X(getCursorType) X(isCursorDefinition) X(Cursor_isNull)                     \
  X(Cursor_getStorageClass) X(getCursorBinaryOperatorKind)                    \
  X(getCursorUnaryOperatorKind) X(isExpression) X(isStatement)                \
  X(isPreprocessing) X(Cursor_getNumArguments) X(Cursor_getArgument)         \
  X(getNullCursor) X(getCursorDefinition) X(getNumOverloadedDecls)           \
  X(getOverloadedDecl)                                                        \
  /* types */                                                                 \
  X(getCanonicalType) X(getPointeeType) X(getArrayElementType)                \
  /* locations and files */                                                   \
  X(getRangeStart) X(getRangeEnd) X(getExpansionLocation)                     \
  X(getSpellingLocation) X(getFileLocation) X(getLocationForOffset)           \
  X(Location_isFromMainFile) X(Location_isInSystemHeader) X(getFile)          \
  X(getFileName) X(File_tryGetRealPathName) X(File_isEqual)                   \
  X(getFileContents)                                                          \
  /* the cache key (libclang_cache.c) */                                      \
  X(getClangVersion)

/* lc->getCursorKind(c) calls clang_getCursorKind(c), with the type that
 * <clang-c/Index.h> declares. */
typedef struct omplens_libclang {
#define OMPLENS_LIBCLANG__FIELD(name) __typeof__(clang_##name) *name;
  OMPLENS_LIBCLANG_FUNCTIONS(OMPLENS_LIBCLANG__FIELD)
#undef OMPLENS_LIBCLANG__FIELD
} omplens_libclang;

/* Loads libclang and resolves every function, on the first call only (safe
 * from several threads). Returns the table, valid until the process exits
 * (libclang is never unloaded), or NULL when libclang cannot be loaded or
 * lacks a function; omplens_libclang_strerror() then says why. */
const omplens_libclang *omplens_libclang_load(void);

/* Drops from the process the code pages of the libraries that loading
 * libclang added (they stay in the page cache, and come back when run
 * again): after the constructors that loading runs, and after a round of
 * parses. Safe while other threads run libclang; nothing before a load. */
void omplens_libclang_release_code(void);

/* Why omplens_libclang_load() returned NULL, in one line ("" before the
 * first call or after a success). Static storage. */
const char *omplens_libclang_strerror(void);

/* ---- what libclang costs, and the cache of parse results ----
 * (libclang_cache.c; docs/directives.md, "The parse cache").
 * A parse's result is what omplens derives from it (the directive index's
 * per-unit data, the fixer's node table), stored under a key made of the
 * parse's arguments and libclang's version, with the content hash of every
 * file the unit included: a changed header, flag or libclang misses. */

/* Where results are kept: dir (created on first store, with its parent),
 * or nowhere with NULL. Copied. Call before any parse starts. */
void omplens_libclang_cache_at(const char *dir);
/* Where results are kept: a malloc'd copy (caller frees), or NULL. */
char *omplens_libclang_cache_where(void);
/* Whether the cache holds no result (no cache, a missing directory, or an
 * empty one): a first report, whose parses will all miss. */
bool omplens_libclang_cache_empty(void);

typedef struct omplens_libclang_key {
  uint64_t low, high;
} omplens_libclang_key;

/* The key of a parse: tag names the kind of result (and its format
 * version); parts are everything else that decides it (file names,
 * arguments, unsaved text), NULL parts allowed. 0, or -1 without libclang
 * or memory (then nothing is cached). */
int omplens_libclang_key_of(const char *tag, const char *const *parts, size_t n,
                            omplens_libclang_key *out);
/* libclang's file (path, size and time), read without loading it: what a
 * cache key holds of the library, so that a report whose parses all come
 * from the cache never loads libclang (whose relocations alone cost tens of
 * megabytes of memory). */
const char *omplens_libclang_identity(void);

/* The result stored under key if every file it depended on still has the
 * content it had: malloc'd (caller frees), its size in *len. NULL on a
 * miss, with no cache, or when the entry is damaged (it is then ignored). */
void *omplens_libclang_cache_load(const omplens_libclang_key *key, size_t *len);

/* Stores payload under key, depending on every file the units tus
 * included (their main file too; NULL units are skipped). Silent: a result
 * that cannot be stored is parsed again next time. Safe from several
 * threads. */
void omplens_libclang_cache_store(const omplens_libclang_key *key,
                                  const CXTranslationUnit *tus, size_t num_tus,
                                  const void *payload, size_t len);

/* Payloads are written and read with these. A writer that ran out of
 * memory, or a reader past its end, has failed set and reads zeros. */
typedef struct omplens_libclang_writer {
  unsigned char *data; /* malloc'd, caller frees */
  size_t len, cap;
  int failed;
} omplens_libclang_writer;
void omplens_libclang_put_u32(omplens_libclang_writer *w, uint32_t v);
void omplens_libclang_put_u64(omplens_libclang_writer *w, uint64_t v);
void omplens_libclang_put_bytes(omplens_libclang_writer *w, const void *p, size_t n);
/* A string or NULL. */
void omplens_libclang_put_str(omplens_libclang_writer *w, const char *s);

typedef struct omplens_libclang_reader {
  const unsigned char *at, *end;
  int failed;
} omplens_libclang_reader;
uint32_t omplens_libclang_get_u32(omplens_libclang_reader *r);
uint64_t omplens_libclang_get_u64(omplens_libclang_reader *r);
/* n bytes in the payload, or NULL (failed) when fewer are left. */
const void *omplens_libclang_get_bytes(omplens_libclang_reader *r, size_t n);
/* A string put by put_str, pointing into the payload (NUL-terminated), or
 * NULL (failed set when it was not a NULL that was put). */
const char *omplens_libclang_get_str(omplens_libclang_reader *r);

/* Accounting, for the stage times: each parse (or cache hit standing for
 * one) adds the wall time since `since` (omplens_libclang_clock()). */
double omplens_libclang_clock(void);
void omplens_libclang_count(double since, int from_cache);
typedef struct omplens_libclang_cost {
  unsigned parsed;  /* parses libclang ran                          */
  unsigned cached;  /* parses the cache answered                    */
  double seconds;   /* wall time of each, added up                  */
} omplens_libclang_cost;
void omplens_libclang_cost_get(omplens_libclang_cost *out);

/* ---- parses in helper processes (libclang_apart.c) ----
 * A parse whose result goes to the cache can run in a helper process: the
 * caller's program started anew (`exe command CACHE_DIR`, serving requests
 * on its standard input), which runs the same job, stores the result in
 * the cache and answers; the caller then reads the result from the cache.
 * libclang's code and data (tens of megabytes resident, more for a large
 * C++ unit) then never enter the caller's process, nor does a crash of
 * libclang. Jobs are named; each names its inputs as parts (strings or
 * NULL) from which the helper repeats the caller's work exactly. */

/* Helpers are started as `exe command CACHE_DIR` (copied); NULL: parses run
 * in the caller's process (the default). Needs the parse cache on. */
void omplens_libclang_apart_with(const char *exe, const char *command);

enum {
  OMPLENS_LIBCLANG_HERE,    /* no helper ran it: parse in this process   */
  OMPLENS_LIBCLANG_APART,   /* a helper ran it: its result is cached,
                               unless it could not be stored or the parse
                               stores none (then parse here)            */
  OMPLENS_LIBCLANG_CRASHED  /* the helper ended running it, of signal
                               *sig (0: it exited): a parse here would
                               likely end this process                  */
};
/* Runs job with parts in a helper (up to 4 at once, from any thread; each
 * started on first need and kept for the next job). */
int omplens_libclang_apart(const char *job, const char *const *parts, size_t n, int *sig);
/* Starts a helper now, when none runs, so that it loads libclang while the
 * caller does other work (a first report, whose parses all miss the
 * cache); omplens_libclang_apart_end ends it as any other, once it has
 * loaded libclang, also when it was never sent a job. */
void omplens_libclang_apart_warm(void);
/* Ends the helpers (a later job starts new ones). */
void omplens_libclang_apart_end(void);
/* Helpers started so far, by this process. */
unsigned omplens_libclang_helpers_started(void);

/* The jobs a helper knows: run returns what the reply carries. */
typedef struct omplens_libclang_job {
  const char *name;
  int (*run)(const char *const *parts, size_t n);
} omplens_libclang_job;
/* A helper's life: serves the requests read from fd, storing results in
 * cache_dir, until the caller closes its end (0) or sends what is not a
 * request of jobs (-1). */
int omplens_libclang_serve(int fd, const char *cache_dir, const omplens_libclang_job *jobs,
                           size_t num_jobs);

/* The jobs of omplens's own parses, and the parts each takes. */
#define OMPLENS_LIBCLANG_JOB_UNIT "directives-unit" /* hook, main, argv... */
#define OMPLENS_LIBCLANG_JOB_AST "fix-ast"          /* path, unit, NULL, argv... */
#define OMPLENS_LIBCLANG_JOB_ERRORS "fix-errors"    /* path, unit, text, argv... */

#endif
