/* Allocation detectors: delete matching, repeated allocations, unused
 * allocations and leftovers. Definitions: docs/detectors.md. */
#include "detect_internal.h"

/* Live allocations, keyed by (device, dev_addr); value: alloc ordinal. */
static int live_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__ctx *c = ctx;
  const omplens_event *a = &c->ev[c->alloc_event[stored]];
  const omplens_event *k = key;
  return a->device == k->device && a->dev_addr == k->dev_addr;
}

static uint64_t live_hash(const omplens_event *e) {
  return omplens_detect__hash_add(omplens_detect__mix((uint64_t)e->device),
                                  e->dev_addr);
}

/* Host buffers, keyed by (device, host_addr, bytes); value: first alloc. */
static int buffer_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_event *a = &((const omplens_detect__ctx *)ctx)->ev[stored];
  const omplens_event *k = key;
  return a->device == k->device && a->host_addr == k->host_addr &&
         a->bytes == k->bytes;
}

static uint64_t buffer_hash(const omplens_event *e) {
  uint64_t h = omplens_detect__mix((uint64_t)e->device);
  return omplens_detect__hash_add(omplens_detect__hash_add(h, e->host_addr),
                                  e->bytes);
}

typedef struct alloc_state {
  omplens_detect__map live;
  omplens_detect__map buffers;
} alloc_state;

/* An allocation without a host buffer (omp_target_alloc) cannot repeat a
 * mapping, so host_addr 0 is left out of repeated allocations. */
static int on_alloc(omplens_detect__ctx *c, alloc_state *s, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  uint32_t ord = c->num_allocs++;
  c->alloc_event[ord] = i;
  c->alloc_delete[ord] = OMPLENS_DETECT__NONE;
  size_t at;
  int rc = omplens_detect__map_insert(&s->live, live_hash(e), ord, live_eq, c,
                                      e, &at);
  if (rc < 0)
    return rc;
  /* Same address still live: its delete was lost; it becomes a leftover. */
  omplens_detect__map_set(&s->live, at, ord);
  if (e->host_addr == 0)
    return 0;
  rc = omplens_detect__map_insert(&s->buffers, buffer_hash(e), i, buffer_eq,
                                  c, e, &at);
  if (rc != 0)
    return rc < 0 ? rc : 0;
  return omplens_detect__emit(c, OMPLENS_CAT_REPEATED_ALLOC, i,
                              omplens_detect__map_value(&s->buffers, at));
}

/* The runtime reports only the device pointer of a delete. */
static void on_delete(omplens_detect__ctx *c, alloc_state *s, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  size_t at = omplens_detect__map_find(&s->live, live_hash(e), live_eq, c, e);
  if (at == OMPLENS_DETECT__MAP_NONE)
    return;
  c->alloc_delete[omplens_detect__map_value(&s->live, at)] = i;
  omplens_detect__map_remove(&s->live, at);
}

static int match_allocations(omplens_detect__ctx *c) {
  alloc_state s = {{0}, {0}};
  int rc = 0;
  for (uint32_t i = 0; i < c->n && rc == 0; i++) {
    if (c->ev[i].kind == OMPLENS_EV_ALLOC)
      rc = on_alloc(c, &s, i);
    else if (c->ev[i].kind == OMPLENS_EV_DELETE)
      on_delete(c, &s, i);
  }
  omplens_detect__map_free(&s.live);
  omplens_detect__map_free(&s.buffers);
  return rc;
}

/* Lifetime runs from the allocation's begin to its delete's end, or to the
 * end of time when it is never deleted. */
static int is_unused(const omplens_detect__ctx *c, uint32_t ord) {
  const omplens_event *a = &c->ev[c->alloc_event[ord]];
  uint32_t d = c->alloc_delete[ord];
  uint64_t end = d == OMPLENS_DETECT__NONE ? UINT64_MAX : c->ev[d].end_ns;
  return !omplens_detect__kernel_overlaps(&c->kernels, a->device, a->begin_ns,
                                          end);
}

static int collect_leftovers(omplens_detect__ctx *c) {
  size_t count = 0;
  for (uint32_t ord = 0; ord < c->num_allocs; ord++)
    count += c->alloc_delete[ord] == OMPLENS_DETECT__NONE;
  c->leftovers = omplens_detect__array(count, sizeof *c->leftovers);
  if (!c->leftovers)
    return OMPLENS_DETECT_ENOMEM;
  for (uint32_t ord = 0; ord < c->num_allocs; ord++) {
    if (c->alloc_delete[ord] != OMPLENS_DETECT__NONE)
      continue;
    const omplens_event *a = &c->ev[c->alloc_event[ord]];
    c->leftovers[c->num_leftovers++] = (omplens_leftover){
        .device = a->device, .host_addr = a->host_addr,
        .dev_addr = a->dev_addr, .bytes = a->bytes, .codeptr = a->codeptr,
        .alloc_event = c->alloc_event[ord]};
  }
  return 0;
}

int omplens_detect__allocations(omplens_detect__ctx *c) {
  c->alloc_event = omplens_detect__array(c->max_allocs, sizeof *c->alloc_event);
  c->alloc_delete =
      omplens_detect__array(c->max_allocs, sizeof *c->alloc_delete);
  if (!c->alloc_event || !c->alloc_delete)
    return OMPLENS_DETECT_ENOMEM;
  int rc = match_allocations(c);
  for (uint32_t ord = 0; ord < c->num_allocs && rc == 0; ord++)
    if (is_unused(c, ord))
      rc = omplens_detect__emit(c, OMPLENS_CAT_UNUSED_ALLOC,
                                c->alloc_event[ord], OMPLENS_DETECT__NONE);
  return rc < 0 ? rc : collect_leftovers(c);
}

/* First ordinal in [lo, hi) whose allocation event is >= event. */
static uint32_t lower_bound(const uint32_t *alloc_event, uint32_t lo,
                            uint32_t hi, uint32_t event) {
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (alloc_event[mid] < event)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Callers look up increasing events, so gallop forward from the hint
 * instead of searching the whole (cache-cold) array each time. */
uint32_t omplens_detect__delete_of(const omplens_detect__ctx *c,
                                   uint32_t alloc_event, uint32_t *hint) {
  uint32_t lo = *hint < c->num_allocs ? *hint : 0;
  if (lo < c->num_allocs && c->alloc_event[lo] > alloc_event)
    lo = 0;
  uint32_t step = 1, hi = lo;
  while (hi < c->num_allocs && c->alloc_event[hi] < alloc_event) {
    lo = hi + 1;
    hi = c->num_allocs - hi > step ? hi + step : c->num_allocs;
    step *= 2;
  }
  uint32_t at = lower_bound(c->alloc_event, lo, hi, alloc_event);
  *hint = at;
  if (at < c->num_allocs && c->alloc_event[at] == alloc_event)
    return c->alloc_delete[at];
  return OMPLENS_DETECT__NONE;
}
