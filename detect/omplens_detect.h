/* omplens detectors: find wasted data movement in one process's events.
 * The exact definitions of every category are in docs/detectors.md.
 *
 * Input is the normalized event array of one trace (omplens_trace.h), sorted
 * by begin time. Output is an opaque analysis holding findings, per-directive
 * totals, a program total and notes. Functions return 0 or a negative
 * OMPLENS_DETECT_E* code; omplens_detect_strerror() explains a code. */
#ifndef OMPLENS_DETECT_H
#define OMPLENS_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "omplens_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each operation is in at most one category (docs/detectors.md, "One
 * category per operation"). */
enum omplens_category {
  OMPLENS_CAT_DUPLICATE_SAME_BUFFER = 0, /* the receiver still holds it, in
                                            the same host buffer's copy     */
  OMPLENS_CAT_DUPLICATE_OTHER_BUFFER,    /* ... in another buffer's copy    */
  OMPLENS_CAT_ROUND_TRIP,                /* first unchanged return of a copy
                                            to the buffer that sent it      */
  OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER,   /* ... through another host buffer */
  OMPLENS_CAT_REINIT,                    /* re-sent after the receiver's copy
                                            changed: a reset (sum = 0)      */
  OMPLENS_CAT_REPEATED_ALLOC,
  OMPLENS_CAT_UNUSED_ALLOC,
  OMPLENS_CAT_UNUSED_TRANSFER,
  OMPLENS_CAT_COUNT
};

enum omplens_detect_error {
  OMPLENS_DETECT_OK = 0,
  OMPLENS_DETECT_EINVAL = -1,
  OMPLENS_DETECT_ENOMEM = -2,
};

/* One wasteful operation. */
typedef struct omplens_instance {
  uint32_t event;   /* index of the wasteful event in the input array        */
  uint32_t related; /* the earlier event that makes it wasteful (first
                       receipt of the content, start of the trip, first
                       allocation), or UINT32_MAX (unused allocations and
                       transfers)                                          */
} omplens_instance;

/* A finding groups the instances of one category that share device,
 * directive, variable (map item; without one, host buffer) and size. */
typedef struct omplens_finding {
  int category;          /* enum omplens_category                       */
  int16_t device;        /* the device side of the operations (receiver,
                            holder, or source of a D2H that completes a
                            round trip); OMPLENS_HOST for D2H duplicates */
  uint8_t setup;         /* 1 when every instance began in the program's
                            set-up phase (omplens_program_total.setup_end_ns):
                            ranked after the others                      */
  uint8_t passed_over;   /* unused allocations: kernels ran on the device
                            in an instance's lifetime, and the trace shows
                            none was given it (docs/detectors.md)       */
  uint64_t codeptr;      /* directive of the wasteful operations        */
  uint64_t host_addr;    /* host buffer of the first instance; others may
                            differ (swapped or re-allocated buffers)     */
  uint64_t bytes;        /* size of one operation                       */
  size_t num_instances;
  const omplens_instance *instances; /* sorted by time                  */
  uint64_t total_bytes;  /* sum over instances                           */
  uint64_t total_ns;     /* sum of the instances' durations             */
  uint64_t savings_ns;   /* time saved by fixing this finding: the
                            durations of the removed operations, each once */
} omplens_finding;       /* 72 bytes: the stress mix holds 66k per million events */

typedef struct omplens_directive_total {
  uint64_t codeptr;
  uint32_t count[OMPLENS_CAT_COUNT]; /* instances per category             */
  uint64_t bytes[OMPLENS_CAT_COUNT];
  uint64_t savings_ns;   /* each removed operation counted once            */
  uint64_t transfer_ns;  /* all transfer time at this directive           */
  uint64_t transfer_bytes;
  uint32_t executions;   /* region instances with this codeptr             */
  int setup;             /* all its findings are set-up findings: ranked
                            after the others                             */
} omplens_directive_total;

/* One kind of operation at a directive: how many, their bytes (0 for
 * kernels, allocations and frees) and their summed durations. */
typedef struct omplens_operation_sum {
  uint64_t count, bytes, ns;
} omplens_operation_sum;

/* The profile of one directive (codeptr), with or without findings: the
 * sums of all its events, taken in one pass over the trace. */
typedef struct omplens_directive_profile {
  uint64_t codeptr;
  uint32_t executions;          /* as omplens_directive_total's           */
  int has_findings;             /* in omplens_analysis_directives()       */
  omplens_operation_sum kernels, h2d, d2h, d2d, allocs, frees;
  uint64_t total_ns;            /* kernels + transfers + allocs + frees   */
  omplens_operation_sum waits;  /* its synchronous executions (not nowait):
                                   the host thread that met it is blocked
                                   from its begin to its end, whatever work
                                   it waits for (not in total_ns); and the
                                   deferred waits below                   */
  omplens_operation_sum deferred_waits; /* of waits: host threads waiting at
                                   a taskwait, taskgroup or barrier until
                                   one of its nowait executions ended
                                   (omplens_trace_waits())                */
} omplens_directive_profile;

/* A mapping still present when the program ended. */
typedef struct omplens_leftover {
  int16_t device;
  uint64_t host_addr, dev_addr, bytes, codeptr;
  uint32_t alloc_event;
} omplens_leftover;

typedef struct omplens_program_total {
  uint64_t run_ns;        /* measured run time (trace duration)           */
  uint64_t savings_ns;    /* each removed operation counted once          */
  double speedup;         /* run_ns / (run_ns - savings_ns); 0.0 when the
                             savings reach the run time (overlapping work
                             on several threads or devices): undefined   */
  uint32_t count[OMPLENS_CAT_COUNT];
  uint64_t bytes[OMPLENS_CAT_COUNT];
  uint64_t transfer_ns, transfer_bytes, num_transfers;
  uint64_t alloc_ns, num_allocs; /* alloc_ns: allocations and frees      */
  uint64_t free_ns, num_frees;   /* the frees (DELETE events) alone       */
  uint64_t kernel_ns, num_kernels;
  uint64_t wait_ns, num_waits;   /* host threads blocked in synchronous
                                    constructs or waiting for nowait ones:
                                    the directives' waits                */
  uint64_t deferred_wait_ns, num_deferred_waits; /* the part of those
                                    spent waiting for nowait constructs  */
  uint64_t setup_end_ns;  /* the set-up phase, [0, setup_end_ns): up to the
                             construct of the first execution of the
                             earliest kernel directive that runs more than
                             once; 0 when none does (docs/detectors.md) */
} omplens_program_total;

typedef struct omplens_detect_params {
  uint64_t run_ns;  /* measured run time, for the speedup; 0 (or NULL
                       params): the latest event end is used              */
  const uint64_t *sites; /* the code addresses that omplens_event.site
                            indexes (omplens_trace_sites()); a site past
                            num_sites is 0. NULL (or NULL params): each
                            event's site is its code address itself      */
  size_t num_sites;
  const omplens_region *regions; /* omplens_trace_regions() and
                                    omplens_trace_args(): an instance's map
                                    item names its variable, so findings
                                    group by variable across host buffers.
                                    NULL: by host buffer                  */
  size_t num_regions;
  const omplens_map_arg *args;
  size_t num_args;
  /* Host waits count the regions and waits that begin in
   * [window_begin_ns, window_end_ns); both 0: every region. */
  uint64_t window_begin_ns, window_end_ns;
  /* omplens_trace_pauses(): the stretches the program had omplens paused,
   * in time order. No finding relates operations across one
   * (docs/detectors.md, "Unseen stretches"). */
  const omplens_trace_pause *pauses;
  size_t num_pauses;
  /* The program did not finish (omplens_trace_info.complete is 0): what it
   * would have done after its last recorded event is unknown, as in a
   * pause that never ends. */
  int incomplete;
  /* omplens_trace_waits(): host waits for nowait constructs, each tied to
   * a region of `regions` (NULL: none) */
  const omplens_trace_wait *waits;
  size_t num_waits;
} omplens_detect_params;

typedef struct omplens_analysis omplens_analysis;

const char *omplens_detect_strerror(int err);
/* Stable names: duplicate-transfer, duplicate-content, round-trip,
 * round-trip-other-buffer, reinitialization, repeated-alloc, unused-alloc,
 * unused-transfer. */
const char *omplens_category_name(int category);
const char *omplens_category_title(int category); /* "Duplicate transfer"  ... */

/* Runs all detectors. events must be sorted by begin_ns and fewer than
 * UINT32_MAX (else OMPLENS_DETECT_EINVAL), and stay valid for the analysis'
 * lifetime (instances index into it). On success *out is a new analysis
 * (caller frees with omplens_analysis_free); on failure *out is NULL. */
int omplens_detect_run(const omplens_event *events, size_t num_events,
                       const omplens_detect_params *params,
                       omplens_analysis **out);
/* omplens_detect_run over a trace's events, with its duration as the run
 * time (with omplens_trace_set_window: the window's part of it) and its
 * sites table. */
int omplens_detect_trace(const omplens_trace *t, omplens_analysis **out);

typedef struct omplens_detect_options {
  omplens_progress_fn *progress; /* NULL: not told (omplens_trace.h) */
  void *progress_ctx;            /* its first argument */
} omplens_detect_options;

/* omplens_detect_trace, telling opts->progress (opts may be NULL) of the
 * events examined: every 64k events of each pass over them, a pass
 * weighted by what it costs per event (detect.c, "Progress"). */
int omplens_detect_trace_with(const omplens_trace *t, const omplens_detect_options *opts,
                              omplens_analysis **out);
void omplens_analysis_free(omplens_analysis *a);

/* Pointers below are valid until omplens_analysis_free(a). A NULL a gives
 * NULL and a zero count. */
/* Findings sorted by savings, largest first. */
const omplens_finding *omplens_analysis_findings(const omplens_analysis *a, size_t *count);
/* Directives with at least one finding, sorted by savings, largest first. */
const omplens_directive_total *omplens_analysis_directives(const omplens_analysis *a, size_t *count);
/* Every directive the events name, by total_ns, largest first (then by
 * codeptr). Valid until a is freed. */
const omplens_directive_profile *omplens_analysis_profiles(const omplens_analysis *a, size_t *count);
const omplens_program_total *omplens_analysis_total(const omplens_analysis *a);
const omplens_leftover *omplens_analysis_leftovers(const omplens_analysis *a, size_t *count);

#ifdef __cplusplus
}
#endif
#endif
