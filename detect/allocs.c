/* Allocation detectors: delete matching, repeated allocations, unused
 * allocations and leftovers. Definitions: docs/detectors.md. */
#include <stdlib.h>

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

/* What an allocation allocates for: its host buffer, or, without one (the
 * device memory API: omp_target_alloc), the call site that allocates, so
 * that the same size allocated at the same call site every step repeats
 * itself. The top bit keeps call sites apart from host addresses. */
#define CALL_SITE (UINT64_C(1) << 63)
static uint64_t owner_of(const omplens_detect__ctx *c, const omplens_event *e) {
  return e->host_addr ? e->host_addr : CALL_SITE | omplens_detect__codeptr(c, e);
}

/* Buffers, keyed by (device, owner, bytes); value: index into
 * scan.buffers, which keeps the key: the buffer's earlier allocations are
 * seldom still cached. */
static int buffer_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__ctx *c = ctx;
  const omplens_detect__buffer *b = &c->scan.buffers[stored];
  const omplens_event *k = key;
  return b->device == k->device && b->owner == owner_of(c, k) && b->bytes == k->bytes;
}

static uint64_t buffer_hash(const omplens_detect__ctx *c, const omplens_event *e) {
  uint64_t h = omplens_detect__mix((uint64_t)e->device);
  return omplens_detect__hash_add(omplens_detect__hash_add(h, owner_of(c, e)), e->bytes);
}

/* The first allocation of the buffer of allocation i, or NONE when i is
 * the first. */
static int first_of_buffer(omplens_detect__ctx *c, uint32_t i,
                           uint32_t *first) {
  omplens_detect__scan *s = &c->scan;
  const omplens_event *e = &c->ev[i];
  uint32_t id = (uint32_t)s->num_buffers;
  size_t at;
  int rc = omplens_detect__reserve(&s->buffers, &s->cap_buffers,
                                   s->num_buffers + 1, sizeof *s->buffers);
  if (rc < 0)
    return rc;
  rc = omplens_detect__map_insert(&s->buffer_of, buffer_hash(c, e), id,
                                  buffer_eq, c, e, &at);
  if (rc < 0)
    return rc;
  if (rc == 1) {
    s->buffers[s->num_buffers++] = (omplens_detect__buffer){
        .owner = owner_of(c, e), .bytes = e->bytes, .first = i,
        .device = e->device};
    *first = OMPLENS_DETECT__NONE;
    return 0;
  }
  *first = s->buffers[omplens_detect__map_value(&s->buffer_of, at)].first;
  return 0;
}

/* Whether a repeated allocation is wasted as repeated or as unused is
 * known once its lifetime ends: both are emitted after the scan. */
static int repeat_of_buffer(omplens_detect__ctx *c, uint32_t ord) {
  uint32_t i = c->alloc_event[ord];
  c->alloc_first[ord] = OMPLENS_DETECT__NONE;
  return first_of_buffer(c, i, &c->alloc_first[ord]);
}

int omplens_detect__on_alloc(omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  uint32_t ord = c->num_allocs++;
  c->alloc_event[ord] = i;
  c->alloc_delete[ord] = OMPLENS_DETECT__NONE;
  size_t at;
  int rc = omplens_detect__map_insert(&c->scan.live, live_hash(e), ord,
                                      live_eq, c, e, &at);
  if (rc < 0)
    return rc;
  /* Same address still live: its delete was lost; it becomes a leftover. */
  omplens_detect__map_set(&c->scan.live, at, ord);
  rc = omplens_detect__uses_alloc(c, ord);
  return rc < 0 ? rc : repeat_of_buffer(c, ord);
}

/* Lifetime runs from the allocation's begin to its delete's end, or to the
 * end of time when it is never deleted. Unused: no kernel ran on its
 * device meanwhile, or those that ran were not given it. */
static void judge_use(omplens_detect__ctx *c, uint32_t ord, uint64_t end) {
  const omplens_event *a = &c->ev[c->alloc_event[ord]];
  if (!omplens_detect__kernel_overlaps(&c->kernels, a->device, a->begin_ns,
                                       end))
    omplens_detect__set_bit(c->unused_allocs, ord);
  else if (omplens_detect__passed_over(c, ord, end)) {
    omplens_detect__set_bit(c->unused_allocs, ord);
    omplens_detect__set_bit(c->passed_over, ord);
  }
}

/* The runtime reports only the device pointer of a delete. The lifetime
 * is complete, so whether a kernel used the allocation is known now. */
int omplens_detect__on_delete(omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  omplens_detect__map *live = &c->scan.live;
  size_t at = omplens_detect__map_find(live, live_hash(e), live_eq, c, e);
  if (at == OMPLENS_DETECT__MAP_NONE)
    return 0;
  uint32_t ord = omplens_detect__map_value(live, at);
  omplens_detect__map_remove(live, at);
  c->alloc_delete[ord] = i;
  judge_use(c, ord, e->end_ns);
  omplens_detect__uses_delete(c, ord);
  return 0;
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
        .dev_addr = a->dev_addr, .bytes = a->bytes, .codeptr = omplens_detect__codeptr(c, a),
        .alloc_event = c->alloc_event[ord]};
    judge_use(c, ord, UINT64_MAX);
  }
  return 0;
}

static uint64_t lifetime_end(const omplens_detect__ctx *c, uint32_t ord) {
  uint32_t d = c->alloc_delete[ord];
  return d != OMPLENS_DETECT__NONE ? c->ev[d].end_ns : UINT64_MAX;
}

/* Fixing a repeated or an unused allocation removes it and its delete.
 * Unused comes first: what no kernel needs is removed, not hoisted. An
 * unused allocation stays marked in unused_allocs, for its copies. */
static int emit_allocation(omplens_detect__ctx *c, uint32_t ord) {
  uint32_t i = c->alloc_event[ord], d = c->alloc_delete[ord];
  int unused = omplens_detect__bit(c->unused_allocs, ord);
  if (unused && /* kernels may have used it where the trace did not see */
      omplens_detect__unseen_between(c, c->ev[i].begin_ns, lifetime_end(c, ord))) {
    unused = 0;
    omplens_detect__clear_bit(c->unused_allocs, ord);
  }
  if (!unused && c->alloc_first[ord] == OMPLENS_DETECT__NONE)
    return 0;
  uint64_t removal = omplens_detect__dur(&c->ev[i]);
  if (d != OMPLENS_DETECT__NONE)
    removal += omplens_detect__dur(&c->ev[d]);
  if (unused)
    return omplens_detect__emit_passed(c, OMPLENS_CAT_UNUSED_ALLOC, i, OMPLENS_DETECT__NONE,
                                       removal, omplens_detect__bit(c->passed_over, ord));
  return omplens_detect__emit(c, OMPLENS_CAT_REPEATED_ALLOC, i,
                              c->alloc_first[ord], removal);
}

/* ---- Copies into and out of unused allocations ---------------------------
 * No kernel reads a copy into memory no kernel used: each H2D to the start
 * of an unused allocation in its lifetime is an unused transfer (a content
 * category that holds it keeps it). A D2H from its start before any copy
 * came into it brings the host memory nothing wrote (a `map(from:)` of a
 * variable only the host sets, whose copy back overwrites it): an unused
 * transfer too. The unused allocations' windows are
 * few: sorted by (device, dev_addr, begin), an H2D falls in one when the
 * last that begins before it reaches it, or an earlier one of its buffer
 * does (an allocation whose delete was lost lives on): each window keeps
 * the latest end of its buffer's windows up to it. */

typedef struct window {
  uint64_t dev_addr, begin, end;
  uint64_t reach; /* the latest end of this and the buffer's earlier ones */
  int16_t device;
  bool filled; /* a copy came into it */
} window;

static int window_before(const window *w, int16_t device, uint64_t dev_addr, uint64_t t) {
  if (w->device != device)
    return w->device < device;
  if (w->dev_addr != dev_addr)
    return w->dev_addr < dev_addr;
  return w->begin <= t;
}

static int cmp_window(const void *pa, const void *pb) {
  const window *a = pa, *b = pb;
  if (a->device != b->device)
    return a->device < b->device ? -1 : 1;
  if (a->dev_addr != b->dev_addr)
    return a->dev_addr < b->dev_addr ? -1 : 1;
  return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/* The window e falls in, or NULL. */
static window *in_window(window *w, size_t n, const omplens_event *e) {
  size_t a = 0, b = n; /* the first window not before e */
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (window_before(&w[mid], e->device, e->dev_addr, e->begin_ns))
      a = mid + 1;
    else
      b = mid;
  }
  return a > 0 && w[a - 1].device == e->device && w[a - 1].dev_addr == e->dev_addr &&
                 e->begin_ns <= w[a - 1].reach
             ? &w[a - 1]
             : NULL;
}

static int copies_unused(omplens_detect__ctx *c) {
  size_t n = 0;
  for (uint32_t ord = 0; ord < c->num_allocs; ord++)
    n += omplens_detect__bit(c->unused_allocs, ord);
  if (!n)
    return 0;
  window *w = omplens_detect__array(n, sizeof *w);
  if (!w)
    return OMPLENS_DETECT_ENOMEM;
  uint32_t from = UINT32_MAX; /* the first event a window may hold */
  n = 0;
  for (uint32_t ord = 0; ord < c->num_allocs; ord++) {
    if (!omplens_detect__bit(c->unused_allocs, ord))
      continue;
    const omplens_event *a = &c->ev[c->alloc_event[ord]];
    w[n++] = (window){a->dev_addr, a->begin_ns, lifetime_end(c, ord), 0, a->device, false};
    if (c->alloc_event[ord] < from)
      from = c->alloc_event[ord];
  }
  while (from > 0 && c->ev[from - 1].begin_ns == c->ev[from].begin_ns)
    from--; /* begun at the same time */
  qsort(w, n, sizeof *w, cmp_window);
  for (size_t k = 0; k < n; k++) {
    int same = k && w[k - 1].device == w[k].device && w[k - 1].dev_addr == w[k].dev_addr;
    w[k].reach = same && w[k - 1].reach > w[k].end ? w[k - 1].reach : w[k].end;
  }
  for (uint32_t i = from; i < c->n; i++) {
    const omplens_event *e = &c->ev[i];
    bool in = e->kind == OMPLENS_EV_H2D || e->kind == OMPLENS_EV_D2D;
    window *at = e->bytes && (in || e->kind == OMPLENS_EV_D2H) ? in_window(w, n, e) : NULL;
    /* a copy back judged in the allocation it falls in itself, not one
     * it reaches through an earlier one whose delete was lost */
    if (at && (e->kind == OMPLENS_EV_H2D ||
               (e->kind == OMPLENS_EV_D2H && !at->filled && e->begin_ns <= at->end)))
      omplens_detect__set_bit(c->unused, i);
    if (at && in)
      at->filled = true;
  }
  omplens_detect__free(w);
  return 0;
}

/* After the scan: the allocations never deleted are leftovers, and their
 * use is judged up to the end of time; then the wasted ones, in time
 * order, and the copies into the unused ones. */
int omplens_detect__allocations(omplens_detect__ctx *c) {
  int rc = collect_leftovers(c);
  for (uint32_t ord = 0; ord < c->num_allocs && rc == 0; ord++)
    rc = emit_allocation(c, ord);
  return rc == 0 ? copies_unused(c) : rc;
}
