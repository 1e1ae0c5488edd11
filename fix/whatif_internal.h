/* Internals of the what-if model: the chains and synchronization points
 * built by omplens_whatif_create. Design note: docs/whatif.md. */
#ifndef OMPLENS_WHATIF_INTERNAL_H
#define OMPLENS_WHATIF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "omplens_whatif.h"

/* "No chain" / "no event". */
#define OMPLENS_WHATIF__NONE UINT32_MAX
/* Chain of the main host thread (a virtual one when every thread is a
 * helper thread): it ends at the end of the run. */
#define OMPLENS_WHATIF__MAIN 0u

/* A point where one chain's progress depends on another's. Kinds in the
 * order they apply at equal times: a lane stops waiting for a task before
 * it creates the next one. A task of zero length waits for nothing, so no
 * wait ever meets the creation of the task it waits for. */
enum omplens_whatif__sync_kind {
  OMPLENS_WHATIF__WAIT = 0, /* lane `chain` waited `span` for task `from`,
                               which ended at `time` (only when the host is
                               taken to wait for its tasks)               */
  OMPLENS_WHATIF__JOIN = 1, /* lane `chain` needs task `from` at `time`   */
  OMPLENS_WHATIF__FORK = 2, /* `chain` is created by `from` at `time`      */
};

typedef struct omplens_whatif__sync {
  uint64_t time;
  uint64_t span;  /* WAIT: how long the lane waited */
  uint32_t chain;
  uint32_t from;
  uint32_t kind;  /* enum omplens_whatif__sync_kind */
  uint32_t reserved;
} omplens_whatif__sync;

/* Chains: 0 is the main lane, then the other host threads' lanes in thread
 * order, then one chain per nowait region in region order. */
struct omplens_whatif {
  const omplens_event *events;
  uint32_t num_events;
  const omplens_region *regions;
  uint32_t num_regions;
  uint64_t run_ns;
  uint32_t num_threads;
  uint32_t num_lanes;         /* host-thread chains, main included          */
  uint32_t num_chains;
  uint32_t *thread_chain;     /* per thread: its lane, or NONE (helper)     */
  uint32_t *region_chain;     /* per region: the chain its operations run on */
  uint64_t *chain_start;      /* measured start (main: 0)                   */
  uint64_t *chain_end;        /* measured end                               */
  omplens_whatif__sync *syncs; /* sorted by (time, kind, chain, from)        */
  size_t num_syncs;
  int has_waits;              /* some sync is a WAIT: predict sweeps twice   */
  /* Where a sweep may start: before the first removed operation every
   * chain is as measured, its covered end that of its operations so far.
   * Every OMPLENS_WHATIF__CHECKPOINT events, each chain's (num_chains per
   * checkpoint), when the chains are few enough; else NULL. */
  uint64_t *checkpoint_end;
  uint32_t *fork_sync; /* per chain: the index of the FORK creating it, or NONE */
  /* On every chain each operation begins where the ones before it ended,
   * or later: a kept operation then never changes its chain's advance,
   * so a sweep visits only the removed operations and the
   * synchronization points (whatif_predict.c). Then sync_last[k] is the
   * last operation of chain syncs[k].from that began before syncs[k].time
   * (NONE: none), the one that may still run across it; NULL without
   * synchronization points. */
  int back_to_back;
  uint32_t *sync_last;
};

#define OMPLENS_WHATIF__CHECKPOINT 4096u
#define OMPLENS_WHATIF__CHECKPOINT_CHAINS 64u

/* calloc of n * size bytes, NULL on overflow; never asks for 0 bytes. */
void *omplens_whatif__calloc(size_t n, size_t size);

/* Builds m->syncs from the chains (whatif_sync.c). */
int omplens_whatif__build_syncs(omplens_whatif *m);

/* Builds what sweeps start from (whatif_predict.c): m->fork_sync and
 * m->back_to_back; then m->sync_last when the chains are back to back,
 * else m->checkpoint_end when they are few. ENOMEM without memory. */
int omplens_whatif__checkpoints(omplens_whatif *m);

/* The chain an event's operation runs on: its region's, else its thread's. */
static inline uint32_t omplens_whatif__event_chain(const omplens_whatif *m,
                                                   const omplens_event *e) {
  if (e->region < m->num_regions)
    return m->region_chain[e->region];
  return e->thread < m->num_threads ? m->thread_chain[e->thread] : OMPLENS_WHATIF__MAIN;
}

static inline uint64_t omplens_whatif__end(const omplens_event *e) {
  return e->end_ns > e->begin_ns ? e->end_ns : e->begin_ns;
}

#endif
