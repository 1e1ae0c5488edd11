/* Allocation lifetimes (omplens_trace.h): which DELETE ends each ALLOC,
 * as the detectors pair them. One pass over the events with an
 * open-addressing table of the allocations live at each device address. */
#include <stdlib.h>
#include <string.h>

#include "omplens_trace.h"

#define NONE UINT32_MAX

int omplens_lifetimes_build(omplens_lifetimes *l, const omplens_event *ev, size_t n) {
  memset(l, 0, sizeof *l);
  size_t allocs = 0; /* keys are never removed: at most one per ALLOC */
  for (size_t i = 0; i < n; i++)
    allocs += ev[i].kind == OMPLENS_EV_ALLOC;
  size_t cap = 64;
  while (cap < 2 * allocs + 2)
    cap *= 2;
  l->allocs = malloc((allocs + 1) * sizeof *l->allocs);
  l->deletes = malloc((allocs + 1) * sizeof *l->deletes);
  uint32_t *live = malloc(cap * sizeof *live); /* by slot: an allocation's number */
  if (!l->allocs || !l->deletes || !live) {
    free(live);
    omplens_lifetimes_free(l);
    return -1;
  }
  memset(live, 0xff, cap * sizeof *live);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const omplens_event *e = &ev[i];
    if (e->kind != OMPLENS_EV_ALLOC && e->kind != OMPLENS_EV_DELETE)
      continue;
    uint64_t key = e->dev_addr * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uint16_t)e->device;
    size_t j = (size_t)(key >> 17) & (cap - 1);
    while (live[j] != NONE && (ev[l->allocs[live[j]]].dev_addr != e->dev_addr ||
                               ev[l->allocs[live[j]]].device != e->device))
      j = (j + 1) & (cap - 1);
    if (e->kind == OMPLENS_EV_ALLOC) {
      l->allocs[k] = (uint32_t)i;
      l->deletes[k] = NONE;
      live[j] = (uint32_t)k++; /* replaces an allocation whose delete was lost */
    } else if (live[j] != NONE && l->deletes[live[j]] == NONE) {
      l->deletes[live[j]] = (uint32_t)i;
    }
  }
  free(live);
  l->count = k;
  return 0;
}

uint32_t omplens_lifetimes_delete_of(const omplens_lifetimes *l, uint32_t alloc, size_t *at) {
  size_t n = l->count, lo = *at < n && l->allocs[*at] <= alloc ? *at : 0;
  size_t hi = lo; /* every entry below lo is an earlier allocation */
  for (size_t step = 1; hi < n && l->allocs[hi] < alloc; step *= 2) {
    lo = hi + 1;
    hi += step;
  }
  if (hi > n)
    hi = n;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (l->allocs[m] < alloc)
      lo = m + 1;
    else
      hi = m;
  }
  *at = lo;
  return lo < n && l->allocs[lo] == alloc ? l->deletes[lo] : NONE;
}

void omplens_lifetimes_free(omplens_lifetimes *l) {
  free(l->allocs);
  free(l->deletes);
  memset(l, 0, sizeof *l);
}
