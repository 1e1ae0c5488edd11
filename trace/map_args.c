/* A construct's list of map arguments searched by address
 * (omplens_trace.h): the annotator and the detectors name an operation's
 * map item by the argument that begins at its buffer, where a construct
 * can map hundreds. */
#include <stdlib.h>

#include "omplens_trace.h"

static int place_cmp(const void *pa, const void *pb, void *ctx) {
  const omplens_map_arg *list = ctx;
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  if (list[a].begin != list[b].begin)
    return list[a].begin < list[b].begin ? -1 : 1;
  if (list[a].size != list[b].size)
    return list[a].size < list[b].size ? -1 : 1;
  return (a > b) - (a < b);
}

void omplens_map_args_sort(const omplens_map_arg *list, uint32_t n, uint32_t *order) {
  for (uint32_t k = 0; k < n; k++)
    order[k] = k;
  qsort_r(order, n, sizeof *order, place_cmp, (void *)list);
}

uint32_t omplens_map_args_find(const omplens_map_arg *list, const uint32_t *order, uint32_t n,
                               uint64_t addr, uint64_t bytes) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) { /* the first not before (addr, bytes) */
    uint32_t m = lo + (hi - lo) / 2;
    const omplens_map_arg *g = &list[order[m]];
    if (g->begin < addr || (g->begin == addr && g->size < bytes))
      lo = m + 1;
    else
      hi = m;
  }
  for (; lo < n && list[order[lo]].begin == addr && list[order[lo]].size == bytes; lo++)
    if (omplens_map_arg_is(&list[order[lo]], addr, bytes)) /* not a literal */
      return order[lo];
  return UINT32_MAX;
}

const uint32_t *omplens_map_lists_sort(omplens_map_lists *l, const omplens_map_arg *args,
                                       size_t nargs, uint32_t first, uint32_t n) {
  if (!n || first >= nargs || n > nargs - first)
    return NULL;
  if (!l->order) {
    l->order = malloc(nargs * sizeof *l->order);
    l->sorted = calloc(nargs, sizeof *l->sorted);
    if (!l->order || !l->sorted) {
      omplens_map_lists_free(l);
      return NULL;
    }
  }
  if (!l->sorted[first]) {
    for (uint32_t k = 1; k < n; k++) /* a list sorted before overlaps this one */
      if (l->sorted[first + k])
        return NULL;
    for (uint32_t k = 1; k < n; k++)
      l->sorted[first + k] = OMPLENS_MAP_LIST_INSIDE;
    omplens_map_args_sort(args + first, n, l->order + first);
    l->sorted[first] = n + 1;
  }
  return omplens_map_lists_order(l, first, n);
}

const uint32_t *omplens_map_lists_order(const omplens_map_lists *l, uint32_t first, uint32_t n) {
  return l->sorted && l->sorted[first] == n + 1 ? l->order + first : NULL;
}

void omplens_map_lists_free(omplens_map_lists *l) {
  free(l->order);
  free(l->sorted);
  *l = (omplens_map_lists){0};
}
