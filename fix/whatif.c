/* The what-if model: chains of operations per host thread and per nowait
 * task (this file), the synchronization points between them
 * (whatif_sync.c), and predictions: sweeps in time order (whatif_predict.c).
 * Design note: docs/whatif.md. */
#include <stdlib.h>
#include <string.h>

#include "whatif_internal.h"

const char *omplens_whatif_strerror(int err) {
  switch (err) {
  case OMPLENS_WHATIF_OK:
    return "success";
  case OMPLENS_WHATIF_EINVAL:
    return "invalid input (events not sorted by time, bad index or too many events)";
  case OMPLENS_WHATIF_ENOMEM:
    return "out of memory";
  default:
    return "unknown what-if error";
  }
}

void *omplens_whatif__calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size)
    return NULL;
  return calloc(n ? n : 1, size);
}

void omplens_whatif_destroy(omplens_whatif *m) {
  if (!m)
    return;
  free(m->thread_chain);
  free(m->region_chain);
  free(m->chain_start);
  free(m->chain_end);
  free(m->syncs);
  free(m->checkpoint_end);
  free(m->fork_sync);
  free(m->sync_last);
  free(m);
}

/* ---- threads and chains ------------------------------------------------ */

/* Checks the input and counts the threads. Thread indices are dense, so
 * the largest is bounded by the number of records that name a thread; a
 * larger one is garbage that would cost memory. */
static int check_input(omplens_whatif *m) {
  const omplens_event *ev = m->events;
  uint64_t max_thread = 0;
  for (uint32_t i = 0; i < m->num_events; i++) {
    if (i && ev[i].begin_ns < ev[i - 1].begin_ns)
      return OMPLENS_WHATIF_EINVAL;
    if (ev[i].thread > max_thread)
      max_thread = ev[i].thread;
  }
  for (uint32_t r = 0; r < m->num_regions; r++)
    if (m->regions[r].thread > max_thread)
      max_thread = m->regions[r].thread;
  if (max_thread >= (uint64_t)m->num_events + m->num_regions + 64)
    return OMPLENS_WHATIF_EINVAL;
  m->num_threads = (m->num_events || m->num_regions) ? (uint32_t)max_thread + 1 : 0;
  return 0;
}

/* A host thread runs synchronous constructs or operations outside any
 * construct; a thread that only runs nowait regions is a helper thread.
 * The first host thread is the main lane. */
static int assign_lanes(omplens_whatif *m) {
  m->thread_chain = omplens_whatif__calloc(m->num_threads, sizeof *m->thread_chain);
  if (!m->thread_chain)
    return OMPLENS_WHATIF_ENOMEM;
  uint32_t *host = m->thread_chain; /* first a flag per thread */
  for (uint32_t r = 0; r < m->num_regions; r++)
    if (!m->regions[r].nowait)
      host[m->regions[r].thread] = 1;
  for (uint32_t i = 0; i < m->num_events; i++)
    if (m->events[i].region >= m->num_regions)
      host[m->events[i].thread] = 1;
  uint32_t lanes = 0;
  for (uint32_t t = 0; t < m->num_threads; t++)
    host[t] = host[t] ? lanes++ : OMPLENS_WHATIF__NONE;
  m->num_lanes = lanes ? lanes : 1; /* no host thread: a virtual main lane */
  return 0;
}

/* Synchronous regions run on their thread's lane; each nowait region is a
 * chain of its own. */
static int assign_regions(omplens_whatif *m) {
  m->region_chain = omplens_whatif__calloc(m->num_regions, sizeof *m->region_chain);
  if (!m->region_chain)
    return OMPLENS_WHATIF_ENOMEM;
  uint64_t chains = m->num_lanes;
  for (uint32_t r = 0; r < m->num_regions; r++) {
    const omplens_region *reg = &m->regions[r];
    m->region_chain[r] = reg->nowait ? (uint32_t)chains++ : m->thread_chain[reg->thread];
  }
  if (chains >= OMPLENS_WHATIF__NONE)
    return OMPLENS_WHATIF_EINVAL;
  m->num_chains = (uint32_t)chains;
  return 0;
}

static void widen(uint64_t *start, uint64_t *end, uint64_t b, uint64_t e) {
  if (b < *start)
    *start = b;
  if (e > *end)
    *end = e;
}

/* Measured span of every chain: its regions and its operations. The main
 * lane starts with the run. */
static int measure_chains(omplens_whatif *m) {
  uint64_t *start = m->chain_start = omplens_whatif__calloc(m->num_chains, sizeof *start);
  m->chain_end = omplens_whatif__calloc(m->num_chains, sizeof *m->chain_end);
  if (!start || !m->chain_end)
    return OMPLENS_WHATIF_ENOMEM;
  for (uint32_t c = 0; c < m->num_chains; c++)
    start[c] = UINT64_MAX;
  for (uint32_t r = 0; r < m->num_regions; r++) {
    const omplens_region *reg = &m->regions[r];
    uint64_t e = reg->end_ns > reg->begin_ns ? reg->end_ns : reg->begin_ns;
    widen(&start[m->region_chain[r]], &m->chain_end[m->region_chain[r]], reg->begin_ns, e);
  }
  for (uint32_t i = 0; i < m->num_events; i++) {
    const omplens_event *e = &m->events[i];
    uint32_t c = omplens_whatif__event_chain(m, e);
    widen(&start[c], &m->chain_end[c], e->begin_ns, omplens_whatif__end(e));
  }
  if (!m->run_ns)
    for (uint32_t c = 0; c < m->num_chains; c++)
      if (m->chain_end[c] > m->run_ns)
        m->run_ns = m->chain_end[c];
  start[OMPLENS_WHATIF__MAIN] = 0;
  return 0;
}

int omplens_whatif_create(const omplens_event *events, size_t num_events,
                          const omplens_region *regions, size_t num_regions,
                          uint64_t run_ns, omplens_whatif **out) {
  if (!out)
    return OMPLENS_WHATIF_EINVAL;
  *out = NULL;
  if ((num_events && !events) || (num_regions && !regions) || num_events >= UINT32_MAX ||
      num_regions >= UINT32_MAX)
    return OMPLENS_WHATIF_EINVAL;
  omplens_whatif *m = calloc(1, sizeof *m);
  if (!m)
    return OMPLENS_WHATIF_ENOMEM;
  *m = (omplens_whatif){.events = events, .num_events = (uint32_t)num_events,
                        .regions = regions, .num_regions = (uint32_t)num_regions,
                        .run_ns = run_ns};
  int rc = check_input(m);
  if (!rc)
    rc = assign_lanes(m);
  if (!rc)
    rc = assign_regions(m);
  if (!rc)
    rc = measure_chains(m);
  if (!rc)
    rc = omplens_whatif__build_syncs(m);
  if (!rc)
    rc = omplens_whatif__checkpoints(m);
  if (rc) {
    omplens_whatif_destroy(m);
    return rc;
  }
  *out = m;
  return 0;
}

