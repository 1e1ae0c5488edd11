/* Call paths by libgcc's unwinder, which reads .eh_frame, so code built
 * without frame pointers (-O2) unwinds too. Once libgcc_s is loaded
 * (omplens_callpath__prime), an unwind neither allocates nor locks: libgcc
 * finds each frame's unwind table with glibc's _dl_find_object.
 *
 * An unwind costs about 0.1 us a frame, so a loop's directive would pay
 * it at every construct. On x86-64, where a frame's return address lies
 * just below the CFA libgcc gives for it, each thread remembers per call site where the
 * last unwind found each return address: called again from the same site
 * with the same stack pointer, the frames are the same exactly when those
 * stack slots still hold the same return addresses (frame k's place
 * follows from frame k - 1's address and place, so the first frame that
 * differs is caught at its own slot). Elsewhere every call unwinds. */
#include "callpath.h"

#include <execinfo.h>
#include <string.h>
#include <unwind.h>

#if defined(__x86_64__)
#define RETURN_SLOT_OFFSET 8 /* the return address sits just below the CFA */
#endif

/* Frames looked at: the deepest search the callers use plus the path. */
#define MAX_UNWIND (32 + OMPLENS_CALLPATH_KEPT)

typedef struct unwind_state {
  uint64_t ip[MAX_UNWIND], cfa[MAX_UNWIND];
  uint32_t n, max;
} unwind_state;

static _Unwind_Reason_Code on_frame(struct _Unwind_Context *ctx, void *arg) {
  unwind_state *u = arg;
  if (u->n == u->max)
    return _URC_END_OF_STACK;
  u->ip[u->n] = (uint64_t)_Unwind_GetIP(ctx);
  u->cfa[u->n] = (uint64_t)_Unwind_GetCFA(ctx);
  u->n++;
  return _URC_NO_REASON;
}

void omplens_callpath__prime(void) {
  void *frames[4];
  (void)backtrace(frames, 4); /* glibc loads libgcc_s, which _Unwind_* are in */
}

/* The cached frames when they still hold: same site, same stack pointer,
 * same return addresses in the same stack slots. A site may have several
 * entries: an unrolled loop's copies of one call differ above it. */
static const omplens_callpath__entry *cached(const omplens_callpath__cache *cache, uint64_t site,
                                             uint64_t sp) {
#ifdef RETURN_SLOT_OFFSET
  for (uint32_t i = 0; i < OMPLENS_CALLPATH_CACHED; i++) {
    const omplens_callpath__entry *e = &cache->entry[i];
    if (e->site != site || e->sp != sp || !e->n)
      continue;
    uint32_t k = 0;
    while (k < e->n && *(const uint64_t *)(uintptr_t)e->slot[k] == e->ip[k])
      k++;
    if (k == e->n)
      return e;
  }
#else
  (void)cache, (void)site, (void)sp;
#endif
  return NULL;
}

static void remember(omplens_callpath__cache *cache, uint64_t site, uint64_t sp,
                     const unwind_state *u, uint32_t at) {
#ifdef RETURN_SLOT_OFFSET
  omplens_callpath__entry *e = &cache->entry[cache->next++ % OMPLENS_CALLPATH_CACHED];
  e->site = site;
  e->sp = sp;
  e->n = 0;
  for (uint32_t k = at; k < u->n && u->ip[k] && e->n < OMPLENS_CALLPATH_KEPT; k++, e->n++) {
    e->ip[e->n] = u->ip[k];
    e->slot[e->n] = u->cfa[k] - RETURN_SLOT_OFFSET;
  }
#else
  (void)cache, (void)site, (void)sp, (void)u, (void)at;
#endif
}

static uint32_t copy_path(const uint64_t *ip, uint32_t n, uint64_t *out, uint32_t max) {
  uint32_t k = 0;
  for (uint32_t j = 0; j < n && ip[j] && k < max; j++) /* ip[0] is the site itself */
    out[k++] = ip[j];
  return k;
}

__attribute__((noinline)) uint32_t omplens_callpath__capture(uint64_t site, uint32_t search,
                                                             uint64_t *out, uint32_t max,
                                                             omplens_callpath__cache *cache) {
  if (!site)
    return 0;
  char here;
  uint64_t sp = (uint64_t)(uintptr_t)&here;
  const omplens_callpath__entry *e = cache ? cached(cache, site, sp) : NULL;
  if (e)
    return copy_path(e->ip, e->n, out, max);
  unwind_state u = {.max = search + OMPLENS_CALLPATH_KEPT};
  if (u.max > MAX_UNWIND)
    u.max = MAX_UNWIND;
  _Unwind_Backtrace(on_frame, &u);
  for (uint32_t i = 0; i < u.n && i < search; i++) {
    if (u.ip[i] != site)
      continue;
    if (cache)
      remember(cache, site, sp, &u, i);
    return copy_path(u.ip + i, u.n - i, out, max);
  }
  return 0;
}
