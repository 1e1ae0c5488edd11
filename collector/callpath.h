/* Internal: the call path of a directive, as the collector records it.
 * A call path is the chain of user calls that led to a target construct or
 * device memory API call: the return addresses above the directive's own
 * call site (its codeptr), innermost caller first. */
#ifndef OMPLENS_CALLPATH_H
#define OMPLENS_CALLPATH_H

#include <stdint.h>

#include "trace_format.h"

/* Frames a cached unwind keeps: the call site and the path above it. */
#define OMPLENS_CALLPATH_KEPT OMPLENS_TF_MAX_PATH
/* Unwinds a thread's cache remembers (the oldest is replaced). */
#define OMPLENS_CALLPATH_CACHED 32

/* The last unwind from one call site: where each return address was found
 * on the stack, so that the next call from the same site with the same
 * stack pointer can check them instead of unwinding again. */
typedef struct omplens_callpath__entry {
  uint64_t site, sp;
  uint32_t n;                             /* frames kept, site's included */
  uint64_t ip[OMPLENS_CALLPATH_KEPT];     /* return addresses, site first */
  uint64_t slot[OMPLENS_CALLPATH_KEPT];   /* where each was on the stack  */
} omplens_callpath__entry;

/* One per thread, in storage the caller zeroed. */
typedef struct omplens_callpath__cache {
  omplens_callpath__entry entry[OMPLENS_CALLPATH_CACHED];
  uint32_t next; /* the entry to replace */
} omplens_callpath__cache;

/* Loads the unwinder (which allocates once) outside any OMPT callback. */
void omplens_callpath__prime(void);

/* Finds the frame returning to `site` among the calling thread's first
 * `search` frames and stores up to `max` return addresses in out: `site`
 * itself, then the frames above it. Returns how many; 0 when `site` is
 * not found. Takes no
 * lock and does not allocate once primed. cache (may be NULL) spares the
 * unwind when the same site is called again with the same stack. */
uint32_t omplens_callpath__capture(uint64_t site, uint32_t search, uint64_t *out, uint32_t max,
                                   omplens_callpath__cache *cache);

#endif
