/* omplens annotate: where in the source a recorded directive and a recorded
 * buffer are. This is the component's public face; it combines what the
 * runtime told the collector (the directive's ident_t location and map-item
 * names, exact) with the program's debug info (omplens_symbolize.h).
 * Functions return 0 or a negative OMPLENS_ANNOTATE_E* code. */
#ifndef OMPLENS_ANNOTATE_H
#define OMPLENS_ANNOTATE_H

#include <stdint.h>

#include "omplens_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum omplens_annotate_error {
  OMPLENS_ANNOTATE_OK = 0,
  OMPLENS_ANNOTATE_EINVAL = -1,
  OMPLENS_ANNOTATE_ENOMEM = -2,
  OMPLENS_ANNOTATE_ENOTFOUND = -3, /* nothing known about the address/buffer */
};

/* How a location was found, best first. */
enum omplens_location_via {
  OMPLENS_VIA_NONE = 0,
  OMPLENS_VIA_RUNTIME,   /* the directive's own location, passed by the compiler */
  OMPLENS_VIA_DEBUG_INFO,/* DWARF line table of the call                       */
  OMPLENS_VIA_SYMBOL,    /* ELF symbol + offset only (no debug info)            */
};

/* The OpenMP directive at a location, from the source (libclang). For an
 * op of the device memory API (its own code address, no construct) it is
 * the call: kind names the routine, text is the call's source lines. */
typedef struct omplens_location_directive {
  const char *kind;       /* "target teams distribute parallel for", or
                             "omp_target_memcpy" for a call; NULL: none found */
  const char *text;       /* "#pragma omp ..." as written, continuations
                             joined; a call's lines, normalized            */
  const char *file;
  unsigned line, end_line;/* the pragma's lines */
  const char *confidence; /* "exact", "nearest" or "ambiguous" */
  int partial_parse;      /* libclang could not parse the whole file */
  int stale;              /* the source changed after the build */
  size_t num_candidates;  /* with "ambiguous": where it may be */
  unsigned candidate_lines[8];
  const char *note;       /* one line for the reader: why no directive was found
                             (missing source), why it is in doubt (stale), or,
                             once per annotator, that sources were parsed
                             without the build's flags and how to give them */
} omplens_location_directive;

/* Where a code address is in the program. Strings belong to the annotator
 * (valid until it is destroyed) and may be NULL. */
typedef struct omplens_location {
  const char *module;    /* module path, NULL when in no module */
  uint64_t offset;       /* address - module base */
  const char *file;      /* source file, NULL when unknown */
  unsigned line, column;
  const char *unit;      /* the DWARF compile unit that holds the code
                            (absolute path; a header's includer), or NULL */
  const char *function;  /* with VIA_SYMBOL: "symbol+0xoff" */
  int via;               /* enum omplens_location_via */
  const char *note;      /* why the source is not known better, or NULL */
  omplens_location_directive directive;
} omplens_location;

#define OMPLENS_VARIABLE_MAX_CANDIDATES 8

/* The map-clause item a transfer or allocation belongs to. */
typedef struct omplens_variable {
  const char *item;      /* "a[0:n]" as the compiler spelled it */
  const char *name;      /* base variable: "a" */
  uint64_t map_type;     /* OMPLENS_MAPBIT_* bits (exact names only; else 0) */
  int certain;           /* 1: exact (runtime names); 0: a guess from the
                            source by direction and order, see candidates */
  size_t num_candidates; /* with a guess: every item that could be it */
  const char *candidates[OMPLENS_VARIABLE_MAX_CANDIDATES];
  const char *unnamed;   /* OMPLENS_ANNOTATE_ENOTFOUND: why no item names
                            it, as a clause ("the runtime made it for no
                            single map item: ..."), or NULL */
  int attach;            /* ... 1: a pointer's worth of bytes sent where a
                            map item goes through a pointer (PTR_AND_OBJ):
                            the runtime attaching that pointer */
  int pointer_storage;   /* ... 1: the device's copy of one pointer itself,
                            made where the pointer is stored on the host
                            (its allocation, not the attaching copy) */
  const char *pointer;   /* ... the pointer the runtime made it for, as the
                            map items name it ("this->re"; "this->re,
                            this->im" for the storage of several), when
                            known: what it attaches, or the pointers' own
                            storage it allocates (owned by the annotator) */
} omplens_variable;

typedef struct omplens_annotator omplens_annotator;

const char *omplens_annotate_strerror(int err);
const char *omplens_location_via_name(int via); /* "runtime", "debug-info", ... */

typedef struct omplens_annotate_options {
  /* compile_commands.json (or its directory) with the flags the sources were
   * built with; NULL: looked for next to each source and in build/ above it. */
  const char *compile_commands;
} omplens_annotate_options;

/* Creates an annotator for one trace (which must outlive it); opt may be
 * NULL. On success *out is new (caller frees with omplens_annotator_destroy);
 * on failure NULL. */
int omplens_annotator_create(const omplens_trace *t, const omplens_annotate_options *opt,
                             omplens_annotator **out);

struct omplens_directive_index;
/* The annotator's libclang index (created on first use), so that other
 * components read the same parses; NULL when it cannot be had. Owned by the
 * annotator. */
struct omplens_directive_index *omplens_annotator_directives(omplens_annotator *a);

/* Works out where every directive of the trace is, and has the index read
 * their compile units at once, on a thread per CPU
 * (omplens_directives_prefetch), instead of one by one as findings first
 * ask; progress (may be NULL) is told the units done and their number.
 * Call it once other components have hooked into the index's parses
 * (omplens_fixer_create). Returns 0 (a unit that cannot be read is
 * reported by the lookups that need it), or ENOMEM. */
int omplens_annotate_prefetch(omplens_annotator *a, omplens_progress_fn *progress, void *ctx);
void omplens_annotator_destroy(omplens_annotator *a); /* NULL accepted */

/* Locates a directive's code address. *out is always filled (at least the
 * module and offset when known); returns 0 when a source file or a symbol
 * was found, OMPLENS_ANNOTATE_ENOTFOUND otherwise. NULL a gives EINVAL. */
int omplens_annotate_location(omplens_annotator *a, uint64_t codeptr, omplens_location *out);

/* Names the map item of a transfer or allocation event: exactly from the
 * runtime's map names when the trace has them, else a guess from the
 * directive's map items (libclang) by direction and order, marked as such.
 * An event of the device memory API (OMPLENS_EVF_OWN_CODEPTR) is named
 * exactly by the call's argument as written: the device pointer, or the
 * host pointer of omp_target_(dis)associate_ptr.
 * Returns OMPLENS_ANNOTATE_ENOTFOUND when neither is possible. */
int omplens_annotate_variable(omplens_annotator *a, const omplens_event *e,
                              omplens_variable *out);

/* One call on the way to a directive: a source line in the calling
 * function. Strings belong to the annotator. */
typedef struct omplens_call_site {
  const char *file;
  unsigned line, column;
  const char *function;
} omplens_call_site;

/* Enough for the recorded frames and a few inlined calls in each. */
#define OMPLENS_MAX_CALL_SITES 16

/* The calls that led to the directive at codeptr along a recorded call
 * path (omplens_trace_event_call_path()), innermost first: the calls that
 * inlined the directive's function into its caller (read at the path's
 * own call site, else at codeptr), then each recorded caller with the
 * calls inlined there. Frames without source (the C
 * library's start) are left out. Fills up to max entries; returns how many. */
size_t omplens_annotate_call_path(omplens_annotator *a, uint64_t codeptr, uint32_t path,
                                  omplens_call_site *out, size_t max);

/* The call path most of the given events came by (an event number every
 * stride bytes from events: omplens_instance arrays work), in source
 * terms: paths that differ only in code addresses, such as an unrolled
 * loop's copies of one call, are one. Fills up to max call sites like
 * omplens_annotate_call_path(); *num_paths gets the number of distinct
 * paths (the first OMPLENS_MAX_COMMON_PATHS recorded ones looked at), and
 * *num_top (may be NULL) how many of them came as often as the one given
 * (1: it came most often alone; the first of them is given). */
#define OMPLENS_MAX_COMMON_PATHS 32
size_t omplens_annotate_common_call_path(omplens_annotator *a, uint64_t codeptr,
                                         const uint32_t *events, size_t num_events, size_t stride,
                                         omplens_call_site *out, size_t max, size_t *num_paths,
                                         size_t *num_top);
/* How many of a call path's first sites (n of them) are in the
 * directive's own function: the task or parallel constructs whose
 * outlined bodies hold the directive. The call of the function is the
 * site after them (the last site when all are). */
size_t omplens_annotate_own_frames(omplens_annotator *a, uint64_t codeptr,
                                   const omplens_call_site *sites, size_t n);
/* The distinct call sites of the events' call paths (the calls of the
 * directive's function, or of the function that inlined it, past its own
 * frames), in source terms, up to max; 0 when there are more (or none is
 * known). */
size_t omplens_annotate_call_sites(omplens_annotator *a, uint64_t codeptr, const uint32_t *events,
                                   size_t num_events, size_t stride, omplens_call_site *out,
                                   size_t max);

/* Whether the ELF file at path holds offload code (the sections clang
 * writes for -fopenmp-targets): 1 yes, 0 no, -1 unknown (unreadable). */
int omplens_annotate_offload_code(const char *path);

/* A map item of a target construct whose body never names its variable:
 * only the source can tell (libclang). */
typedef struct omplens_unreferenced {
  const char *item;      /* "z[0:n]" as written */
  const char *name;      /* "z" */
  int certain;           /* 0 when a function the body calls may name it */
} omplens_unreferenced;

/* Fills up to max entries for the directive at codeptr; returns how many
 * items are unreferenced (0 when unknown). */
size_t omplens_annotate_unreferenced(omplens_annotator *a, uint64_t codeptr,
                                     omplens_unreferenced *out, size_t max);

#ifdef __cplusplus
}
#endif
#endif
