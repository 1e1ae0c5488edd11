/* Public entry points of the detectors, the survey and the scan; the
 * detectors live in allocs.c and transfers.c, grouping and totals in
 * findings.c. Design note: docs/detectors.md. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "detect_internal.h"

/* Names are part of findings.json (docs/findings-schema.md). */
static const char *const category_names[OMPLENS_CAT_COUNT] = {
    [OMPLENS_CAT_DUPLICATE_SAME_BUFFER] = "duplicate-transfer",
    [OMPLENS_CAT_DUPLICATE_OTHER_BUFFER] = "duplicate-content",
    [OMPLENS_CAT_ROUND_TRIP] = "round-trip",
    [OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER] = "round-trip-other-buffer",
    [OMPLENS_CAT_REINIT] = "reinitialization",
    [OMPLENS_CAT_REPEATED_ALLOC] = "repeated-alloc",
    [OMPLENS_CAT_UNUSED_ALLOC] = "unused-alloc",
    [OMPLENS_CAT_UNUSED_TRANSFER] = "unused-transfer",
};

static const char *const category_titles[OMPLENS_CAT_COUNT] = {
    [OMPLENS_CAT_DUPLICATE_SAME_BUFFER] = "Duplicate transfer",
    [OMPLENS_CAT_DUPLICATE_OTHER_BUFFER] = "Duplicate content",
    [OMPLENS_CAT_ROUND_TRIP] = "Round trip",
    [OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER] = "Round trip through another buffer",
    [OMPLENS_CAT_REINIT] = "Re-initialization",
    [OMPLENS_CAT_REPEATED_ALLOC] = "Repeated allocation",
    [OMPLENS_CAT_UNUSED_ALLOC] = "Unused allocation",
    [OMPLENS_CAT_UNUSED_TRANSFER] = "Unused transfer",
};

const char *omplens_detect_strerror(int err) {
  switch (err) {
  case OMPLENS_DETECT_OK:
    return "success";
  case OMPLENS_DETECT_EINVAL:
    return "invalid argument (NULL pointer, too many events, or events not "
           "sorted by begin time)";
  case OMPLENS_DETECT_ENOMEM:
    return "out of memory";
  default:
    return "unknown detector error";
  }
}

const char *omplens_category_name(int category) {
  if (category < 0 || category >= OMPLENS_CAT_COUNT)
    return "unknown";
  return category_names[category];
}

const char *omplens_category_title(int category) {
  if (category < 0 || category >= OMPLENS_CAT_COUNT)
    return "Unknown";
  return category_titles[category];
}

int omplens_detect__unseen_between(const omplens_detect__ctx *c, uint64_t from, uint64_t to) {
  if (c->incomplete && c->unseen_from >= from && c->unseen_from < to)
    return 1;
  size_t lo = 0, hi = c->num_pauses; /* the first pause beginning at or after from */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->pauses[mid].begin_ns < from)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < c->num_pauses && c->pauses[lo].begin_ns < to;
}

void omplens_detect__ctx_free(omplens_detect__ctx *c) {
  omplens_detect__free(c->sums);
  omplens_detect__map_free(&c->sums_of);
  omplens_detect__free(c->region_owner);
  omplens_detect__map_free(&c->executions);
  omplens_detect__free(c->data_exits);
  omplens_detect__free(c->kernel_list);
  omplens_detect__free(c->blind_list);
  omplens_detect__kernels_free(&c->kernels);
  omplens_detect__kernels_free(&c->blind);
  omplens_detect__uses_free(&c->uses);
  omplens_detect__free(c->passed_over);
  omplens_detect__free(c->alloc_event);
  omplens_detect__free(c->alloc_delete);
  omplens_detect__free(c->alloc_first);
  omplens_detect__free(c->unused_allocs);
  omplens_detect__scan_free(&c->scan);
  omplens_detect__free(c->unused);
  omplens_detect__free(c->removed);
  omplens_detect__blocks_free(&c->raw);
  omplens_detect__blocks_free(&c->groups);
  omplens_detect__map_free(&c->group_of);
  omplens_detect__free(c->leftovers);
  *c = (omplens_detect__ctx){0};
}

/* ---- Progress -----------------------------------------------------------
 * The hook hears of the events each pass has examined, every PROGRESS_STEP
 * of them and at the pass's end, weighted by what the pass costs per event.
 * Measured with bench/analysis_stages on gen_trace traces of 2M events
 * (2 CPUs): the survey takes about 15 ns an event, the codeptr sums twice
 * that, the main lane's scan 3 times, the allocations after the scan
 * (counted at their end) twice, the content lane's scan 11 times. */
enum pass_cost {
  COST_SURVEY = 1,
  COST_SUMS = 2,
  COST_MAIN_LANE = 3,
  COST_ALLOCATIONS = 2,
  COST_CONTENT_LANE = 11,
  COST_ALL = COST_SURVEY + COST_SUMS + COST_MAIN_LANE + COST_ALLOCATIONS + COST_CONTENT_LANE,
};
#define PROGRESS_STEP ((uint32_t)1 << 16)

static void progress_add(omplens_detect__ctx *c, uint64_t work) {
  omplens_detect__progress *p = c->progress;
  if (!p || !p->total)
    return;
  uint64_t done = atomic_fetch_add_explicit(&p->done, work, memory_order_relaxed) + work;
  p->fn(p->ctx, done < p->total ? done : p->total, p->total);
}

/* In a pass's loop, at event i. */
static inline void progress_step(omplens_detect__ctx *c, uint32_t i, unsigned cost) {
  if (c->progress && ((i + 1) & (PROGRESS_STEP - 1)) == 0)
    progress_add(c, (uint64_t)PROGRESS_STEP * cost);
}

/* At a pass's end: the events its steps did not tell. */
static void progress_pass_end(omplens_detect__ctx *c, unsigned cost) {
  progress_add(c, (uint64_t)(c->n & (PROGRESS_STEP - 1)) * cost);
}

/* ---- Survey -------------------------------------------------------------
 * One pass before the detectors: every pass relies on time order (kernel
 * searches, "earlier" transfers); without a measured run time the events'
 * span stands in; allocations are counted to size their tables, kernels
 * listed to build their intervals, and the program's and every codeptr's
 * event sums taken (here rather than after the detectors, so that the
 * scan's maps reuse the memory of the survey's). */

static void add_program_event(omplens_program_total *p,
                              const omplens_event *e) {
  uint64_t ns = omplens_detect__dur(e);
  if (omplens_detect__is_transfer(e)) {
    p->transfer_ns += ns;
    p->transfer_bytes += e->bytes;
    p->num_transfers++;
  } else if (e->kind == OMPLENS_EV_ALLOC) {
    p->alloc_ns += ns;
    p->num_allocs++;
  } else if (e->kind == OMPLENS_EV_DELETE) {
    p->alloc_ns += ns; /* what fixing an allocation saves includes it */
    p->free_ns += ns;
    p->num_frees++;
  } else if (e->kind == OMPLENS_EV_KERNEL) {
    p->kernel_ns += ns;
    p->num_kernels++;
  }
}

/* Lists [begin, end] on device among the blind stretches: a kernel whose
 * map arguments are unknown, or a copy of the device memory API, which
 * may reach any allocation through an address the trace does not tie to
 * it (omp_get_mapped_ptr). */
static int list_blind(omplens_detect__ctx *c, uint64_t begin, uint64_t end, int16_t device) {
  if (device < 0)
    return 0;
  int rc = omplens_detect__reserve(&c->blind_list, &c->cap_blind, c->num_blind + 1,
                                   sizeof *c->blind_list);
  if (rc == 0)
    c->blind_list[c->num_blind++] = (omplens_detect__kernel){begin, end, device};
  return rc;
}

/* Kernels on the host (device < 0) have no intervals. The blind ones
 * (their map arguments unknown) are listed apart too. */
static int list_kernel(omplens_detect__ctx *c, const omplens_event *e) {
  int16_t device = e->device;
  if (device < 0)
    return 0;
  int rc = omplens_detect__reserve(&c->kernel_list, &c->cap_kernels,
                                   c->num_kernels + 1, sizeof *c->kernel_list);
  if (rc < 0)
    return rc;
  omplens_detect__kernel k = {e->begin_ns, e->end_ns, device};
  c->kernel_list[c->num_kernels++] = k;
  if ((size_t)device + 1 > c->num_devices)
    c->num_devices = (size_t)device + 1;
  return omplens_detect__kernel_blind(c, e) ? list_blind(c, k.begin, k.end, device) : 0;
}

/* Event sums per codeptr. */

static int sums_eq(const void *ctx, uint32_t stored, const void *key) {
  return ((const omplens_detect__ctx *)ctx)->sums[stored].codeptr ==
         *(const uint64_t *)key;
}

const omplens_detect__codeptr_sums *
omplens_detect__find_sums(const omplens_detect__ctx *c, uint64_t codeptr) {
  size_t at = omplens_detect__map_find(&c->sums_of,
                                       omplens_detect__mix(codeptr), sums_eq,
                                       c, &codeptr);
  if (at == OMPLENS_DETECT__MAP_NONE)
    return NULL;
  return &c->sums[omplens_detect__map_value(&c->sums_of, at)];
}

/* *index receives the index of codeptr's sums, created when new. */
static int sums_of(omplens_detect__ctx *c, uint64_t codeptr, uint32_t *index) {
  /* Room first, so that a stored index always names existing sums. */
  int rc = omplens_detect__reserve(&c->sums, &c->cap_sums, c->num_sums + 1,
                                   sizeof *c->sums);
  if (rc >= 0)
    rc = omplens_detect__reserve(&c->data_exits, &c->cap_data_exits, c->num_sums + 1,
                                 sizeof *c->data_exits);
  size_t at;
  if (rc < 0)
    return rc;
  rc = omplens_detect__map_insert(&c->sums_of, omplens_detect__mix(codeptr),
                                  (uint32_t)c->num_sums, sums_eq, c,
                                  &codeptr, &at);
  if (rc < 0)
    return rc;
  if (rc == 1) {
    c->data_exits[c->num_sums] = 0;
    c->sums[c->num_sums++] = (omplens_detect__codeptr_sums){.codeptr = codeptr};
  }
  *index = omplens_detect__map_value(&c->sums_of, at);
  return 0;
}

/* Executions: distinct (codeptr, region) pairs. Regions are numbered
 * densely and nearly always belong to one codeptr, so region_owner[region]
 * names the sums of the first codeptr seen with it (index + 1; 0: none);
 * only the pairs of other codeptrs, and regions numbered beyond the events'
 * count (no sane trace has those), need the map. */
static int execution_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__ctx *c = ctx;
  const omplens_event *a = &c->ev[stored];
  const omplens_event *k = key;
  return a->region == k->region &&
         omplens_detect__codeptr(c, a) == omplens_detect__codeptr(c, k);
}

/* Makes region_owner cover region (< n), growing it geometrically. */
static int cover_region(omplens_detect__ctx *c, uint32_t region) {
  if (region < c->num_owned)
    return 0;
  size_t size = c->num_owned > 512 ? 2 * c->num_owned : 1024;
  if (size <= region)
    size = (size_t)region + 1;
  if (size > c->n)
    size = c->n;
  uint32_t *grown =
      omplens_detect__rearray(c->region_owner, size, sizeof *grown);
  if (!grown)
    return OMPLENS_DETECT_ENOMEM;
  memset(grown + c->num_owned, 0, (size - c->num_owned) * sizeof *grown);
  c->region_owner = grown;
  c->num_owned = size;
  return 0;
}

/* Returns 1 when the pair of event i (whose codeptr's sums are at index
 * sums) is new, 0 when counted before, or OMPLENS_DETECT_ENOMEM. */
static int new_execution(omplens_detect__ctx *c, uint32_t sums, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  if (e->region < c->n) {
    int rc = cover_region(c, e->region);
    if (rc < 0)
      return rc;
    uint32_t *owner = &c->region_owner[e->region];
    if (*owner == 0) {
      *owner = sums + 1;
      return 1;
    }
    if (*owner == sums + 1)
      return 0;
  }
  uint64_t h = omplens_detect__hash_add(omplens_detect__mix(omplens_detect__codeptr(c, e)),
                                        e->region);
  size_t at;
  return omplens_detect__map_insert(&c->executions, h, i, execution_eq, c,
                                    e, &at);
}

/* An event outside any construct (no region) is its own execution. The
 * region of the thread's previous event is known to be counted already. */
static int add_execution(omplens_detect__ctx *c, omplens_detect__recent *r,
                         uint32_t i) {
  const omplens_event *e = &c->ev[i];
  if (e->region == OMPLENS_NO_REGION) {
    c->sums[r->sums].executions++;
    return 0;
  }
  if (r->region == e->region)
    return 0;
  r->region = e->region;
  int rc = new_execution(c, r->sums, i);
  if (rc < 0)
    return rc;
  if (e->region < c->num_regions && c->regions[e->region].kind == OMPLENS_CONSTRUCT_EXIT_DATA)
    c->data_exits[r->sums] += (uint32_t)rc;
  else
    c->sums[r->sums].executions += (uint32_t)rc;
  return 0;
}

/* A `target data` construct shows as an enter and an exit region at one
 * codeptr: one execution, not two. A codeptr's executions are those of
 * its other regions, or of its exits when there are more of those (a
 * `target exit data`, a `target data` whose entry moved nothing). */
static void count_data_exits(omplens_detect__ctx *c) {
  for (size_t i = 0; i < c->num_sums; i++)
    if (c->data_exits[i] > c->sums[i].executions)
      c->sums[i].executions = c->data_exits[i];
  omplens_detect__free(c->data_exits);
  c->data_exits = NULL;
  c->cap_data_exits = 0;
}

/* Associations move nothing and take no device time: not in a profile.
 * Only transfers count bytes (the others' are buffer sizes). */
static void add_profile_event(omplens_directive_profile *p, const omplens_event *e) {
  omplens_operation_sum *s = NULL;
  switch (e->kind) {
  case OMPLENS_EV_KERNEL: s = &p->kernels; break;
  case OMPLENS_EV_H2D: s = &p->h2d; break;
  case OMPLENS_EV_D2H: s = &p->d2h; break;
  case OMPLENS_EV_D2D: s = &p->d2d; break;
  case OMPLENS_EV_ALLOC: s = &p->allocs; break;
  case OMPLENS_EV_DELETE: s = &p->frees; break;
  default: return;
  }
  uint64_t ns = omplens_detect__dur(e);
  s->count++;
  s->ns += ns;
  s->bytes += omplens_detect__is_transfer(e) ? e->bytes : 0;
  p->total_ns += ns;
}

/* A thread's events mostly come construct by construct: its previous
 * codeptr's sums are found without a lookup. */
static int add_codeptr_event(omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  omplens_detect__recent *r =
      &c->recent[e->thread % OMPLENS_DETECT__RECENT];
  uint64_t codeptr = omplens_detect__codeptr(c, e);
  if (r->sums == OMPLENS_DETECT__NONE || r->codeptr != codeptr) {
    int rc = sums_of(c, codeptr, &r->sums);
    if (rc < 0)
      return rc;
    r->codeptr = codeptr;
    r->region = OMPLENS_NO_REGION;
  }
  add_profile_event(&c->sums[r->sums], e);
  return add_execution(c, r, i);
}

/* A host thread waiting at a taskwait, taskgroup or barrier until a nowait
 * region ended (omplens_trace_waits) waited for that region's directive,
 * from its begin to the region's end. */
static int add_deferred_waits(omplens_detect__ctx *c) {
  for (size_t i = 0; i < c->num_waits; i++) {
    const omplens_trace_wait *w = &c->waits[i];
    if (w->region >= c->num_regions || w->begin_ns < c->wait_begin || w->begin_ns >= c->wait_end)
      continue;
    uint32_t at;
    int rc = sums_of(c, c->regions[w->region].codeptr, &at);
    if (rc < 0)
      return rc;
    uint64_t ns = w->end_ns > w->begin_ns ? w->end_ns - w->begin_ns : 0;
    c->sums[at].waits.count++;
    c->sums[at].waits.ns += ns;
    c->sums[at].deferred_waits.count++;
    c->sums[at].deferred_waits.ns += ns;
  }
  return 0;
}

/* Host waits (docs/detectors.md, "Host waits"): a synchronous construct
 * blocks the thread that met it from its begin to its end; a nowait one
 * runs as a task and blocks nobody. A region whose end was never recorded
 * (end == begin) waited for nothing the trace shows. */
static int add_region_waits(omplens_detect__ctx *c) {
  for (size_t i = 0; i < c->num_regions; i++) {
    const omplens_region *r = &c->regions[i];
    if (r->nowait || r->begin_ns < c->wait_begin || r->begin_ns >= c->wait_end)
      continue;
    uint32_t at;
    int rc = sums_of(c, r->codeptr, &at);
    if (rc < 0)
      return rc;
    c->sums[at].waits.count++;
    c->sums[at].waits.ns += r->end_ns > r->begin_ns ? r->end_ns - r->begin_ns : 0;
  }
  return add_deferred_waits(c);
}

/* The event sums of every codeptr (directive totals), a pass of their own:
 * only omplens_detect__finish() reads them, so on a large input the
 * content lane's thread makes them while the main lane scans. They are
 * the only fields of c it writes: sums, sums_of, recent, region_owner,
 * executions and data_exits. */
static int count_codeptr_events(omplens_detect__ctx *c) {
  int rc = 0;
  for (unsigned t = 0; t < OMPLENS_DETECT__RECENT; t++)
    c->recent[t].sums = OMPLENS_DETECT__NONE;
  for (uint32_t i = 0; i < c->n && rc == 0; i++) {
    rc = add_codeptr_event(c, i);
    progress_step(c, i, COST_SUMS);
  }
  progress_pass_end(c, COST_SUMS);
  if (rc == 0)
    rc = add_region_waits(c); /* may add sums (and their data_exits) */
  if (rc == 0)
    count_data_exits(c);
  omplens_detect__free(c->region_owner);
  c->region_owner = NULL;
  c->num_owned = 0;
  omplens_detect__map_free(&c->executions);
  return rc;
}

static int survey_event(omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  add_program_event(&c->events_total, e);
  c->max_allocs += e->kind == OMPLENS_EV_ALLOC;
  if (e->kind == OMPLENS_EV_KERNEL)
    return list_kernel(c, e);
  int rc = 0;
  if (omplens_detect__is_transfer(e) &&
      ((e->flags & OMPLENS_EVF_OWN_CODEPTR) || e->kind == OMPLENS_EV_D2D)) {
    rc = list_blind(c, e->begin_ns, e->end_ns, e->device);
    if (rc == 0 && e->kind == OMPLENS_EV_D2D && e->peer_device != e->device)
      rc = list_blind(c, e->begin_ns, e->end_ns, e->peer_device);
  }
  return rc;
}

/* What the scan needs first: the order checked, the program's totals, the
 * allocations counted and the kernels listed. Returns 0,
 * OMPLENS_DETECT_EINVAL when the events are not sorted, or
 * OMPLENS_DETECT_ENOMEM. */
static int survey(omplens_detect__ctx *c,
                  const omplens_detect_params *params) {
  uint64_t end = 0;
  int rc = 0;
  for (uint32_t i = 0; i < c->n && rc == 0; i++) {
    if (i > 0 && c->ev[i].begin_ns < c->ev[i - 1].begin_ns)
      return OMPLENS_DETECT_EINVAL;
    if (c->ev[i].end_ns > end)
      end = c->ev[i].end_ns;
    rc = survey_event(c, i);
    progress_step(c, i, COST_SURVEY);
  }
  progress_pass_end(c, COST_SURVEY);
  c->run_ns = params && params->run_ns ? params->run_ns : end;
  return rc;
}

/* ---- Scan ---------------------------------------------------------------
 * One pass in time order that hands each event to the detectors of its
 * kind. */

static int prepare_scan(omplens_detect__ctx *c) {
  int rc = omplens_detect__kernels_build(&c->kernels, c->kernel_list,
                                         c->num_kernels, c->num_devices);
  size_t kept = 0; /* the devices that ran kernels */
  for (size_t i = 0; i < c->num_blind; i++)
    if ((size_t)c->blind_list[i].device < c->num_devices)
      c->blind_list[kept++] = c->blind_list[i];
  if (rc == 0)
    rc = omplens_detect__kernels_build(&c->blind, c->blind_list, kept, c->num_devices);
  omplens_detect__free(c->kernel_list);
  omplens_detect__free(c->blind_list);
  c->kernel_list = c->blind_list = NULL;
  if (rc == 0)
    rc = omplens_detect__uses_prepare(c);
  if (rc < 0)
    return rc;
  c->alloc_event = omplens_detect__array(c->max_allocs, sizeof *c->alloc_event);
  c->alloc_delete =
      omplens_detect__array(c->max_allocs, sizeof *c->alloc_delete);
  c->alloc_first = omplens_detect__array(c->max_allocs, sizeof *c->alloc_first);
  c->unused_allocs = omplens_detect__bitmap(c->max_allocs);
  c->passed_over = omplens_detect__bitmap(c->max_allocs);
  c->unused = omplens_detect__bitmap(c->n);
  c->removed = omplens_detect__bitmap(c->n);
  if (!c->alloc_event || !c->alloc_delete || !c->alloc_first ||
      !c->unused_allocs || !c->passed_over || !c->unused || !c->removed)
    return OMPLENS_DETECT_ENOMEM;
  return 0;
}

/* ---- Lanes ----------------------------------------------------------------
 * The scan's detectors fall into two lanes that share nothing but the
 * events: the content lane (duplicates and round trips: on_content) and
 * the main lane (allocations, and the H2D copies kernels should read:
 * on_target). Large inputs run the content lane on a second thread, in a
 * context of its own with its own maps, groups and removals; its findings
 * are merged before unused transfers are emitted, which must see the
 * content lane's removals. Every result is the same either way: groups
 * come out in a total order of their keys, and within a category the
 * instances keep time order (docs/detectors.md). */

size_t omplens_detect__split_min_events = (size_t)1 << 16;

typedef enum lane_mask {
  LANE_MAIN = 1,
  LANE_CONTENT = 2,
} lane_mask;

/* Zero-byte copies move nothing; D2D copies carry no hash. */
static int scan_event(omplens_detect__ctx *c, uint32_t i, unsigned lanes) {
  const omplens_event *e = &c->ev[i];
  int rc = 0;
  switch (e->kind) {
  case OMPLENS_EV_ALLOC:
    return (lanes & LANE_MAIN) ? omplens_detect__on_alloc(c, i) : 0;
  case OMPLENS_EV_DELETE:
    return (lanes & LANE_MAIN) ? omplens_detect__on_delete(c, i) : 0;
  case OMPLENS_EV_KERNEL:
    return (lanes & LANE_MAIN) ? omplens_detect__on_kernel(c, i) : 0;
  case OMPLENS_EV_H2D:
  case OMPLENS_EV_D2H:
    if (!e->bytes)
      return 0;
    if (lanes & LANE_CONTENT)
      rc = omplens_detect__on_content(c, i);
    if (rc == 0 && (lanes & LANE_MAIN))
      rc = omplens_detect__on_target(c, i);
    return rc;
  default:
    return 0;
  }
}

/* One pass in time order over the detectors of lanes; their maps live in
 * c->scan and go when it ends. */
static int scan(omplens_detect__ctx *c, unsigned lanes) {
  int rc = 0;
  unsigned cost = ((lanes & LANE_MAIN) ? COST_MAIN_LANE : 0) +
                  ((lanes & LANE_CONTENT) ? COST_CONTENT_LANE : 0);
  c->scan.free_content = OMPLENS_DETECT__NONE;
  size_t pause = 0; /* the next pause to cross */
  for (uint32_t i = 0; i < c->n && rc == 0; i++) {
    if (pause < c->num_pauses && c->pauses[pause].begin_ns <= c->ev[i].begin_ns) {
      while (pause < c->num_pauses && c->pauses[pause].begin_ns <= c->ev[i].begin_ns)
        pause++;
      if (i && (lanes & LANE_CONTENT)) /* docs/detectors.md, "Unseen stretches" */
        omplens_detect__forget_contents(&c->scan);
    }
    if ((lanes & LANE_CONTENT) && c->n - i > OMPLENS_DETECT__LOOK_AHEAD)
      omplens_detect__look_ahead(c, i + OMPLENS_DETECT__LOOK_AHEAD);
    rc = scan_event(c, i, lanes);
    progress_step(c, i, cost);
  }
  progress_pass_end(c, cost);
  omplens_detect__scan_free(&c->scan);
  return rc;
}

/* The content lane on its thread: the codeptr sums of the main context
 * first (count_codeptr_events), then the scan, then its last emissions
 * grouped. */
typedef struct content_lane {
  omplens_detect__ctx c;
  omplens_detect__ctx *main;
  int rc;
} content_lane;

static void *run_content_lane(void *arg) {
  content_lane *l = arg;
  l->rc = scan(&l->c, LANE_CONTENT);
  if (l->rc == 0)
    l->rc = omplens_detect__flush(&l->c);
  return NULL;
}

static int split_wanted(const omplens_detect__ctx *c) {
  return c->n >= omplens_detect__split_min_events &&
         (omplens_detect__split_min_events == 0 ||
          sysconf(_SC_NPROCESSORS_ONLN) >= 2);
}

/* Starts the content lane on a second thread; returns 1 when it runs. It
 * reads the events and the sites, and owns the rest of its context. */
static int start_content_lane(omplens_detect__ctx *c, content_lane *l,
                              pthread_t *thread) {
  *l = (content_lane){.c = {.ev = c->ev, .n = c->n, .sites = c->sites,
                            .num_sites = c->num_sites, .regions = c->regions,
                            .num_regions = c->num_regions, .args = c->args,
                            .num_args = c->num_args, .arg_lists = c->arg_lists,
                            .pauses = c->pauses,
                            .num_pauses = c->num_pauses, .incomplete = c->incomplete,
                            .unseen_from = c->unseen_from,
                            .progress = c->progress},
                      .main = c};
  l->c.removed = omplens_detect__bitmap(c->n);
  if (!l->c.removed)
    return 0;
  if (pthread_create(thread, NULL, run_content_lane, l)) {
    omplens_detect__free(l->c.removed);
    return 0;
  }
  return 1;
}

/* The scan's and the allocation detector's tables (kernels by device, the
 * allocations' events): done with once the allocations are emitted, and
 * freed before the content lane's findings are merged, which is the
 * detectors' peak on a trace of many findings. */
static void drop_scan_state(omplens_detect__ctx *c) {
  omplens_detect__kernels_free(&c->kernels);
  omplens_detect__kernels_free(&c->blind);
  omplens_detect__uses_free(&c->uses);
  omplens_detect__free(c->passed_over);
  c->passed_over = NULL;
  omplens_detect__free(c->alloc_event);
  omplens_detect__free(c->alloc_delete);
  omplens_detect__free(c->alloc_first);
  omplens_detect__free(c->unused_allocs);
  c->alloc_event = c->alloc_delete = c->alloc_first = NULL;
  c->unused_allocs = NULL;
}

/* The detectors: the scan, then the instances that needed later events. */
static int detect(omplens_detect__ctx *c) {
  content_lane lane;
  pthread_t thread;
  int split = split_wanted(c) && start_content_lane(c, &lane, &thread);
  int rc = count_codeptr_events(c);
  if (rc == 0)
    rc = prepare_scan(c);
  if (rc == 0)
    rc = scan(c, split ? LANE_MAIN : LANE_MAIN | LANE_CONTENT);
  if (rc == 0)
    rc = omplens_detect__allocations(c);
  drop_scan_state(c);
  progress_add(c, (uint64_t)c->n * COST_ALLOCATIONS);
  if (split) {
    pthread_join(thread, NULL);
    if (rc == 0)
      rc = lane.rc;
    if (rc == 0)
      rc = omplens_detect__flush(c);
    if (rc == 0)
      rc = omplens_detect__merge_lane(c, &lane.c);
    omplens_detect__ctx_free(&lane.c);
  }
  if (rc == 0)
    rc = omplens_detect__flush(c); /* removals known before unused ones */
  if (rc == 0)
    rc = omplens_detect__unused_transfers(c);
  if (rc == 0)
    rc = omplens_detect__flush(c);
  return rc;
}

/* What only the detectors need goes before grouping, which needs room. */
static void drop_detector_state(omplens_detect__ctx *c) {
  drop_scan_state(c); /* when detect() stopped before */
  omplens_detect__free(c->unused);
  omplens_detect__free(c->removed);
  c->unused = c->removed = NULL;
}

static int run_passes(omplens_detect__ctx *c, omplens_analysis *a) {
  int rc = detect(c);
  drop_detector_state(c);
  if (rc == 0)
    rc = omplens_detect__finish(c, a);
  return rc;
}

static void context_params(omplens_detect__ctx *c,
                           const omplens_detect_params *p) {
  c->sites = p->sites;
  c->num_sites = p->num_sites;
  c->regions = p->regions;
  c->num_regions = p->regions ? p->num_regions : 0;
  c->args = p->args;
  c->num_args = p->args ? p->num_args : 0;
  c->pauses = p->pauses;
  c->num_pauses = p->pauses ? p->num_pauses : 0;
  c->incomplete = p->incomplete;
  if (p->incomplete) {
    for (uint32_t i = 0; i < c->n; i++)
      if (c->ev[i].end_ns > c->unseen_from)
        c->unseen_from = c->ev[i].end_ns;
  }
  c->waits = p->waits;
  c->num_waits = p->waits ? p->num_waits : 0;
  if (p->window_begin_ns || p->window_end_ns) {
    c->wait_begin = p->window_begin_ns;
    c->wait_end = p->window_end_ns;
  }
}

int omplens_detect__run(const omplens_event *events, size_t num_events,
                        const omplens_detect_params *params,
                        omplens_detect__progress *progress, omplens_analysis **out) {
  if (!out)
    return OMPLENS_DETECT_EINVAL;
  *out = NULL;
  /* Event indices are 32-bit and UINT32_MAX means "none". */
  if ((!events && num_events) || num_events >= UINT32_MAX)
    return OMPLENS_DETECT_EINVAL;
  omplens_detect__ctx c = {.ev = events, .n = (uint32_t)num_events, .progress = progress,
                           .wait_end = UINT64_MAX};
  if (params)
    context_params(&c, params);
  if (progress)
    progress->total = (uint64_t)num_events * COST_ALL;
  omplens_map_lists arg_lists = {0};
  omplens_detect__sort_arg_lists(&c, &arg_lists);
  c.arg_lists = &arg_lists;
  omplens_analysis *a = NULL;
  int rc = survey(&c, params);
  if (rc == 0) {
    a = omplens_detect__zarray(1, sizeof *a);
    rc = a ? run_passes(&c, a) : OMPLENS_DETECT_ENOMEM;
  }
  omplens_map_lists_free(&arg_lists);
  /* Success ends at the whole, whatever the passes told. */
  uint64_t done = progress ? atomic_load(&progress->done) : 0;
  if (rc == 0 && progress && done < progress->total)
    progress_add(&c, progress->total - done);
  omplens_detect__ctx_free(&c);
  if (rc < 0) {
    omplens_analysis_free(a);
    return rc;
  }
  *out = a;
  return 0;
}

int omplens_detect_run(const omplens_event *events, size_t num_events,
                       const omplens_detect_params *params,
                       omplens_analysis **out) {
  return omplens_detect__run(events, num_events, params, NULL, out);
}

int omplens_detect_trace(const omplens_trace *t, omplens_analysis **out) {
  return omplens_detect_trace_with(t, NULL, out);
}

int omplens_detect_trace_with(const omplens_trace *t, const omplens_detect_options *opts,
                              omplens_analysis **out) {
  if (!t) {
    if (out)
      *out = NULL;
    return OMPLENS_DETECT_EINVAL;
  }
  size_t n;
  const omplens_event *ev = omplens_trace_events(t, &n);
  omplens_detect_params params = {.run_ns = omplens_trace_get_info(t)->duration_ns};
  uint64_t begin, end; /* a window: its part of the run is the run time */
  if (omplens_trace_window(t, &begin, &end)) {
    end = end < params.run_ns ? end : params.run_ns;
    params.run_ns = end > begin ? end - begin : 0;
  }
  omplens_trace_window(t, &params.window_begin_ns, &params.window_end_ns);
  params.pauses = omplens_trace_pauses(t, &params.num_pauses);
  params.incomplete = !omplens_trace_get_info(t)->complete;
  params.waits = omplens_trace_waits(t, &params.num_waits);
  params.sites = omplens_trace_sites(t, &params.num_sites);
  params.regions = omplens_trace_regions(t, &params.num_regions);
  params.args = omplens_trace_args(t, &params.num_args);
  omplens_detect__progress progress = {0};
  atomic_init(&progress.done, 0);
  if (opts && opts->progress) {
    progress.fn = opts->progress;
    progress.ctx = opts->progress_ctx;
  }
  return omplens_detect__run(ev, n, &params, progress.fn ? &progress : NULL, out);
}

void omplens_analysis_free(omplens_analysis *a) {
  if (!a)
    return;
  omplens_detect__free(a->findings);
  omplens_detect__free(a->instances);
  omplens_detect__free(a->directives);
  omplens_detect__free(a->profiles);
  omplens_detect__free(a->leftovers);
  omplens_detect__free(a);
}

const omplens_finding *omplens_analysis_findings(const omplens_analysis *a,
                                                 size_t *count) {
  if (count)
    *count = a ? a->num_findings : 0;
  return a ? a->findings : NULL;
}

const omplens_directive_total *
omplens_analysis_directives(const omplens_analysis *a, size_t *count) {
  if (count)
    *count = a ? a->num_directives : 0;
  return a ? a->directives : NULL;
}

const omplens_directive_profile *
omplens_analysis_profiles(const omplens_analysis *a, size_t *count) {
  if (count)
    *count = a ? a->num_profiles : 0;
  return a ? a->profiles : NULL;
}

const omplens_program_total *omplens_analysis_total(const omplens_analysis *a) {
  return a ? &a->total : NULL;
}

const omplens_leftover *omplens_analysis_leftovers(const omplens_analysis *a,
                                                   size_t *count) {
  if (count)
    *count = a ? a->num_leftovers : 0;
  return a ? a->leftovers : NULL;
}
