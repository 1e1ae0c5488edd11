/* Synchronization points of the what-if model: where host lanes start,
 * create nowait tasks and wait for them. The trace records no fork, no
 * taskwait and no barrier, so each point is an approximation (listed in
 * docs/whatif.md, "Synchronization points"). */
#include <stdlib.h>

#include "whatif_internal.h"

/* A nowait task and the facts its synchronization points need. */
typedef struct task_info {
  uint64_t start;  /* taken as the time its lane created it */
  uint32_t region;
  uint32_t lane;   /* the encountering lane */
} task_info;

/* A construct of a lane, by device: a synchronous one on the lane, or a
 * nowait one it created. A lane's next construct on a device is where it
 * is taken to wait for its tasks on that device. */
typedef struct construct_key {
  uint64_t begin;
  uint32_t lane;
  int32_t device;
} construct_key;

/* Something a lane did itself: until its end the lane was not waiting. */
typedef struct activity {
  uint64_t begin, end; /* end: the latest end of the lane's activities so far */
  uint32_t lane;
  uint32_t reserved;
} activity;

/* Everything build_syncs works with; freed at its end. */
typedef struct sync_builder {
  task_info *tasks;
  size_t num_tasks;
  construct_key *constructs;
  size_t num_constructs;
  activity *activities;
  size_t num_activities;
} sync_builder;

#define CMP_NUM(a, b)                                                                     \
  do {                                                                                     \
    if ((a) != (b))                                                                        \
      return (a) < (b) ? -1 : 1;                                                           \
  } while (0)

static void add_sync(omplens_whatif *m, int kind, uint64_t time, uint32_t chain, uint32_t from,
                     uint64_t span) {
  m->syncs[m->num_syncs++] = (omplens_whatif__sync){time, span, chain, from, (uint32_t)kind, 0};
}

static int cmp_sync(const void *pa, const void *pb) {
  const omplens_whatif__sync *a = pa, *b = pb;
  CMP_NUM(a->time, b->time);
  CMP_NUM(a->kind, b->kind);
  CMP_NUM(a->chain, b->chain);
  CMP_NUM(a->from, b->from);
  return 0;
}

/* ---- tasks ------------------------------------------------------------- */

static int cmp_task(const void *pa, const void *pb) {
  const task_info *a = pa, *b = pb;
  CMP_NUM(a->start, b->start);
  CMP_NUM(a->region, b->region);
  return 0;
}

/* The nowait tasks by start. A task's lane is its own thread when that is
 * a host thread, else (a hidden helper thread) the main lane. */
static int collect_tasks(const omplens_whatif *m, sync_builder *b) {
  size_t k = 0;
  for (uint32_t r = 0; r < m->num_regions; r++)
    k += m->regions[r].nowait != 0;
  b->tasks = omplens_whatif__calloc(k, sizeof *b->tasks);
  if (!b->tasks)
    return OMPLENS_WHATIF_ENOMEM;
  for (uint32_t r = 0; r < m->num_regions; r++) {
    if (!m->regions[r].nowait)
      continue;
    uint32_t lane = m->thread_chain[m->regions[r].thread];
    b->tasks[b->num_tasks++] = (task_info){m->chain_start[m->region_chain[r]], r,
                                           lane == OMPLENS_WHATIF__NONE ? OMPLENS_WHATIF__MAIN
                                                                        : lane};
  }
  if (b->num_tasks) /* qsort wants a non-NULL base even for 0 items */
    qsort(b->tasks, b->num_tasks, sizeof *b->tasks, cmp_task);
  return 0;
}

/* ---- constructs, by lane and device ------------------------------------ */

static int cmp_construct(const void *pa, const void *pb) {
  const construct_key *a = pa, *b = pb;
  CMP_NUM(a->lane, b->lane);
  CMP_NUM(a->device, b->device);
  CMP_NUM(a->begin, b->begin);
  return 0;
}

static int collect_constructs(const omplens_whatif *m, sync_builder *b) {
  b->constructs = omplens_whatif__calloc(m->num_regions, sizeof *b->constructs);
  if (!b->constructs)
    return OMPLENS_WHATIF_ENOMEM;
  size_t k = 0;
  for (uint32_t r = 0; r < m->num_regions; r++)
    if (!m->regions[r].nowait)
      b->constructs[k++] = (construct_key){m->regions[r].begin_ns, m->region_chain[r],
                                           m->regions[r].device};
  for (size_t i = 0; i < b->num_tasks; i++) {
    const task_info *t = &b->tasks[i];
    b->constructs[k++] = (construct_key){t->start, t->lane, m->regions[t->region].device};
  }
  if (k) /* qsort wants a non-NULL base even for 0 items */
    qsort(b->constructs, k, sizeof *b->constructs, cmp_construct);
  b->num_constructs = k;
  return 0;
}

/* Begin of the lane's first construct on device at or after t, or
 * UINT64_MAX. */
static uint64_t next_construct(const sync_builder *b, uint32_t lane, int32_t device, uint64_t t) {
  construct_key want = {t, lane, device};
  size_t lo = 0, hi = b->num_constructs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_construct(&b->constructs[mid], &want) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  const construct_key *k = &b->constructs[lo];
  return lo < b->num_constructs && k->lane == lane && k->device == device ? k->begin : UINT64_MAX;
}

/* ---- what lanes did themselves ------------------------------------------ */

static int cmp_activity(const void *pa, const void *pb) {
  const activity *a = pa, *b = pb;
  CMP_NUM(a->lane, b->lane);
  CMP_NUM(a->begin, b->begin);
  return 0;
}

/* The lanes' synchronous constructs and operations outside constructs, by
 * lane and begin, with the running maximum of their ends. */
static int collect_activities(const omplens_whatif *m, sync_builder *b) {
  size_t n = 0;
  for (uint32_t r = 0; r < m->num_regions; r++)
    n += !m->regions[r].nowait;
  for (uint32_t i = 0; i < m->num_events; i++)
    n += m->events[i].region >= m->num_regions;
  activity *a = b->activities = omplens_whatif__calloc(n, sizeof *a);
  if (!a)
    return OMPLENS_WHATIF_ENOMEM;
  size_t k = 0;
  for (uint32_t r = 0; r < m->num_regions; r++) {
    const omplens_region *reg = &m->regions[r];
    if (!reg->nowait)
      a[k++] = (activity){reg->begin_ns, reg->end_ns > reg->begin_ns ? reg->end_ns : reg->begin_ns,
                          m->region_chain[r], 0};
  }
  for (uint32_t i = 0; i < m->num_events; i++) {
    const omplens_event *e = &m->events[i];
    if (e->region >= m->num_regions)
      a[k++] = (activity){e->begin_ns, omplens_whatif__end(e), m->thread_chain[e->thread], 0};
  }
  if (k) /* qsort wants a non-NULL base even for 0 items */
    qsort(a, k, sizeof *a, cmp_activity);
  for (size_t i = 1; i < k; i++)
    if (a[i].lane == a[i - 1].lane && a[i - 1].end > a[i].end)
      a[i].end = a[i - 1].end;
  b->num_activities = k;
  return 0;
}

/* The latest end of the lane's activities that began before t, or 0. */
static uint64_t busy_until(const sync_builder *b, uint32_t lane, uint64_t t) {
  activity want = {t, 0, lane, 0};
  size_t lo = 0, hi = b->num_activities;
  while (lo < hi) { /* first activity not before (lane, t) */
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_activity(&b->activities[mid], &want) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo && b->activities[lo - 1].lane == lane ? b->activities[lo - 1].end : 0;
}

/* ---- the points ---------------------------------------------------------- */

/* A task is created by its lane when it starts, and is waited for by the
 * lane's next construct on its device. If the host waits for its tasks,
 * it waited from when it last did something itself (or created the task)
 * until the task ended. */
static void add_task_syncs(omplens_whatif *m, const sync_builder *b, const task_info *t) {
  uint32_t c = m->region_chain[t->region];
  uint64_t end = m->chain_end[c];
  add_sync(m, OMPLENS_WHATIF__FORK, t->start, c, t->lane, 0);
  uint64_t join = next_construct(b, t->lane, m->regions[t->region].device, end);
  if (end == t->start || join == UINT64_MAX)
    return;
  add_sync(m, OMPLENS_WHATIF__JOIN, join, t->lane, c, 0);
  uint64_t busy = busy_until(b, t->lane, end);
  uint64_t from = busy > t->start ? busy : t->start;
  if (from < end) {
    add_sync(m, OMPLENS_WHATIF__WAIT, end, t->lane, c, end - from);
    m->has_waits = 1;
  }
}

static void builder_free(sync_builder *b) {
  free(b->tasks);
  free(b->constructs);
  free(b->activities);
}

int omplens_whatif__build_syncs(omplens_whatif *m) {
  sync_builder b = {0};
  int rc = collect_tasks(m, &b);
  if (!rc && b.num_tasks)
    rc = collect_constructs(m, &b);
  if (!rc && b.num_tasks)
    rc = collect_activities(m, &b);
  if (!rc) {
    m->syncs = omplens_whatif__calloc((size_t)m->num_lanes + 3 * b.num_tasks, sizeof *m->syncs);
    rc = m->syncs ? 0 : OMPLENS_WHATIF_ENOMEM;
  }
  if (!rc) {
    for (uint32_t c = 1; c < m->num_lanes; c++)
      add_sync(m, OMPLENS_WHATIF__FORK, m->chain_start[c], c, OMPLENS_WHATIF__MAIN, 0);
    for (size_t i = 0; i < b.num_tasks; i++)
      add_task_syncs(m, &b, &b.tasks[i]);
    if (m->num_syncs) /* qsort wants a non-NULL base even for 0 items */
      qsort(m->syncs, m->num_syncs, sizeof *m->syncs, cmp_sync);
  }
  builder_free(&b);
  return rc;
}
