/* Internals of the detectors: the analysis body, the working context shared
 * by the passes, and helpers. Design note: docs/detectors.md. */
#ifndef OMPLENS_DETECT_INTERNAL_H
#define OMPLENS_DETECT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "map_internal.h"
#include "omplens_detect.h"

/* "No event" in event-index fields (omplens_instance.related and others). */
#define OMPLENS_DETECT__NONE UINT32_MAX

struct omplens_analysis {
  omplens_finding *findings;
  size_t num_findings;
  omplens_instance *instances; /* all findings' instances, finding by finding */
  omplens_directive_total *directives;
  size_t num_directives;
  omplens_leftover *leftovers;
  size_t num_leftovers;
  omplens_program_total total;
};

/* Kernel intervals per device, for "does a kernel overlap / follow" queries.
 * Kernels of device d are [offset[d], offset[d+1]) in begin order. */
typedef struct omplens_detect__kernels {
  size_t num_devices;
  uint32_t *offset;  /* num_devices + 1 entries */
  uint64_t *begin;   /* kernel begin times                               */
  uint64_t *max_end; /* prefix maximum of end times within each device  */
} omplens_detect__kernels;

/* An instance before grouping: which finding it belongs to. */
typedef struct omplens_detect__raw {
  uint32_t event;
  uint32_t related;
  uint32_t finding;
} omplens_detect__raw;

/* Working state of one omplens_detect_run call. Every pointer is owned by
 * the context and freed by omplens_detect__ctx_free. */
typedef struct omplens_detect__ctx {
  const omplens_event *ev;
  uint32_t n;
  uint64_t run_ns;
  omplens_detect__kernels kernels;
  /* Allocations by ordinal (time order): their event and matching delete. */
  uint32_t max_allocs; /* ALLOC events in the input */
  uint32_t num_allocs;
  uint32_t *alloc_event;  /* ascending event indices */
  uint32_t *alloc_delete; /* event index, or OMPLENS_DETECT__NONE */
  /* Instances as the detectors emit them, and the findings they form. */
  omplens_detect__raw *raw;
  size_t num_raw, cap_raw;
  omplens_finding *findings;
  size_t num_findings, cap_findings;
  omplens_detect__map groups; /* group key -> index into findings */
  omplens_leftover *leftovers;
  size_t num_leftovers;
} omplens_detect__ctx;

void omplens_detect__ctx_free(omplens_detect__ctx *c);

/* Passes, in the order omplens_detect_run calls them. Each returns 0 or
 * OMPLENS_DETECT_ENOMEM. */
int omplens_detect__kernels_build(omplens_detect__kernels *k,
                                  const omplens_event *ev, uint32_t n);
void omplens_detect__kernels_free(omplens_detect__kernels *k);
int omplens_detect__allocations(omplens_detect__ctx *c);
int omplens_detect__duplicates(omplens_detect__ctx *c);
int omplens_detect__round_trips(omplens_detect__ctx *c);
int omplens_detect__unused_transfers(omplens_detect__ctx *c);
/* Groups the instances into findings and computes savings and totals.
 * Moves the findings, instances and leftovers into a. */
int omplens_detect__finish(omplens_detect__ctx *c, omplens_analysis *a);

/* Begin time of the first kernel on device that begins at or after t, or
 * UINT64_MAX when there is none. */
uint64_t omplens_detect__kernel_after(const omplens_detect__kernels *k,
                                      int device, uint64_t t);
/* Nonzero when a kernel on device overlaps [begin, end]. */
int omplens_detect__kernel_overlaps(const omplens_detect__kernels *k,
                                    int device, uint64_t begin, uint64_t end);

/* Records that event is wasteful in category (related: see
 * omplens_instance). Detectors emit each category in time order. */
int omplens_detect__emit(omplens_detect__ctx *c, int category, uint32_t event,
                         uint32_t related);
/* The delete matching the allocation event, or OMPLENS_DETECT__NONE.
 * *hint (start with 0) carries the position between calls; lookups in
 * increasing event order are fastest. */
uint32_t omplens_detect__delete_of(const omplens_detect__ctx *c,
                                   uint32_t alloc_event, uint32_t *hint);

/* Memory: malloc/calloc/realloc of n elements with an overflow check. They
 * return NULL on overflow or failure; n == 0 still gives a unique pointer.
 * Free with omplens_detect__free. */
void *omplens_detect__array(size_t n, size_t size);
void *omplens_detect__zarray(size_t n, size_t size);
void *omplens_detect__rearray(void *p, size_t n, size_t size);
void omplens_detect__free(void *p);
/* Makes room for need elements of size bytes in the array whose pointer is
 * at array (a T **), capacity *cap, doubling. On failure nothing changes. */
int omplens_detect__reserve(void *array, size_t *cap, size_t need,
                            size_t size);
/* Test hook: when nonzero, the countdown-th allocation from now fails. */
extern size_t omplens_detect__fail_countdown;

/* Bitmaps over event indices. */
static inline uint64_t *omplens_detect__bitmap(uint32_t n) {
  return omplens_detect__zarray(((size_t)n + 63) / 64, sizeof(uint64_t));
}
static inline int omplens_detect__bit(const uint64_t *b, uint32_t i) {
  return (int)((b[i >> 6] >> (i & 63)) & 1u);
}
static inline void omplens_detect__set_bit(uint64_t *b, uint32_t i) {
  b[i >> 6] |= (uint64_t)1 << (i & 63);
}

/* Duration of an event; a malformed end before begin counts as 0. */
static inline uint64_t omplens_detect__dur(const omplens_event *e) {
  return e->end_ns > e->begin_ns ? e->end_ns - e->begin_ns : 0;
}

static inline int omplens_detect__is_transfer(const omplens_event *e) {
  return e->kind == OMPLENS_EV_H2D || e->kind == OMPLENS_EV_D2H ||
         e->kind == OMPLENS_EV_D2D;
}

static inline int omplens_detect__is_alloc_category(int category) {
  return category == OMPLENS_CAT_REPEATED_ALLOC ||
         category == OMPLENS_CAT_UNUSED_ALLOC;
}

#endif
