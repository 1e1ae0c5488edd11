/* Predictions of the what-if model: sweeps over operations and
 * synchronization points in time order; and the operations that fixing
 * findings removes. Design note: docs/whatif.md. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "whatif_internal.h"

/* ---- prediction -------------------------------------------------------- */

/* Removed operations are a bitmap over the events: 1 bit per event. */
static uint64_t *new_bitmap(const omplens_whatif *m) {
  return omplens_whatif__calloc(m->num_events / 64 + 1, sizeof(uint64_t));
}

static int bit(const uint64_t *bits, uint32_t i) {
  return (int)((bits[i / 64] >> (i % 64)) & 1);
}

static void set_bit(uint64_t *bits, uint32_t i) {
  bits[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Progress of one chain during the sweep. `advance` is how much earlier
 * than measured the chain is at the sweep's time; the ends are the latest
 * ends of all and of the kept operations so far. */
typedef struct chain_state {
  uint64_t advance;
  uint64_t all_end, kept_end;
} chain_state;

/* Times come from untrusted traces: sums saturate instead of wrapping. */
static uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Time in [b, e] not yet covered by operations ending at `*covered`. */
static uint64_t newly_covered(uint64_t *covered, uint64_t b, uint64_t e) {
  uint64_t from = b > *covered ? b : *covered;
  if (e <= from)
    return 0;
  *covered = e;
  return e - from;
}

/* A chain shrinks by the time during which only removed operations ran:
 * back-to-back operations give their whole durations, an operation that
 * overlapped a kept one on the same chain only its uncovered part. */
static void apply_event(chain_state *s, const omplens_event *e, int removed) {
  uint64_t end = omplens_whatif__end(e);
  uint64_t all = newly_covered(&s->all_end, e->begin_ns, end);
  uint64_t kept = removed ? 0 : newly_covered(&s->kept_end, e->begin_ns, end);
  uint64_t ahead = add_sat(s->advance, all);
  s->advance = ahead > kept ? ahead - kept : 0;
}

/* A chain's advance at time t, when operations running across t have
 * already been counted in full: their removed time after t is not yet won. */
static uint64_t advance_at(const chain_state *s, uint64_t t) {
  uint64_t from = t > s->kept_end ? t : s->kept_end;
  uint64_t ahead = s->all_end > from ? s->all_end - from : 0;
  return s->advance > ahead ? s->advance - ahead : 0;
}

/* A chain created by `from` at `time` starts with the advance `from` has
 * there. Needing `from`, which ended some slack before `time`, bounds a
 * chain's advance by the advance of `from` plus the slack. A lane that
 * waited for a task gains at most the time it waited, and no more than the
 * task. */
static void apply_sync(chain_state *st, const omplens_whatif *m, const omplens_whatif__sync *y,
                       uint64_t from, int host_waits) {
  chain_state *to = &st[y->chain];
  uint64_t bound;
  switch (y->kind) {
  case OMPLENS_WHATIF__FORK:
    to->advance = from;
    return;
  case OMPLENS_WHATIF__WAIT:
    if (!host_waits)
      return;
    bound = add_sat(to->advance, y->span);
    to->advance = bound < from ? bound : from;
    return;
  default: /* JOIN: the task ended by `time` */
    bound = add_sat(from, y->time - m->chain_end[y->from]);
    if (bound < to->advance)
      to->advance = bound;
  }
}

/* The savings of a sweep's advances: the latest measured end over the
 * chains minus the latest predicted end. The run's end waits for every
 * chain; what the main thread did after the last chain ended is host work
 * and stays. */
static uint64_t saved_by(const omplens_whatif *m, const chain_state *st) {
  uint64_t measured = 0, predicted = 0;
  for (uint32_t c = 0; c < m->num_chains; c++) {
    uint64_t end = m->chain_end[c] > st[c].advance ? m->chain_end[c] - st[c].advance : 0;
    if (end > predicted)
      predicted = end;
    if (m->chain_end[c] > measured)
      measured = m->chain_end[c];
  }
  return measured - predicted;
}

/* The first synchronization point after time t: those up to t apply
 * before an operation that begins at t. */
static size_t first_sync_after(const omplens_whatif *m, uint64_t t) {
  size_t lo = 0, hi = m->num_syncs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->syncs[mid].time <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Before its first removed operation a sweep sees the run as measured:
 * every advance 0, the kept operations all of them, and the
 * synchronization points change nothing. So it starts there, each chain
 * covered up to the end of its operations so far (from the checkpoint
 * before, or from the start). */
static void start_at(const omplens_whatif *m, chain_state *st, uint32_t first, size_t *sync) {
  uint32_t from = 0;
  if (m->checkpoint_end) {
    from = first / OMPLENS_WHATIF__CHECKPOINT * OMPLENS_WHATIF__CHECKPOINT;
    const uint64_t *cp = m->checkpoint_end + (size_t)(first / OMPLENS_WHATIF__CHECKPOINT) * m->num_chains;
    for (uint32_t c = 0; c < m->num_chains; c++)
      st[c].all_end = cp[c];
  }
  for (uint32_t i = from; i < first; i++) {
    const omplens_event *e = &m->events[i];
    newly_covered(&st[omplens_whatif__event_chain(m, e)].all_end, e->begin_ns,
                  omplens_whatif__end(e));
  }
  for (uint32_t c = 0; c < m->num_chains; c++)
    st[c].kept_end = st[c].all_end;
  *sync = first_sync_after(m, m->events[first].begin_ns);
}

/* After the last removed operation: whether every chain created so far has
 * caught up (its kept operations cover what all did) and all have one
 * advance. Then nothing changes any more: a kept operation adds as much to
 * both ends, a fork gives a chain that advance, a join or a wait bounds
 * it by it plus a slack. The chains still to be created get it, as their
 * forks would give them. */
static bool settled(const omplens_whatif *m, chain_state *st, size_t sync) {
  uint64_t a = UINT64_MAX;
  for (uint32_t c = 0; c < m->num_chains; c++) {
    if (m->fork_sync[c] != OMPLENS_WHATIF__NONE && m->fork_sync[c] >= sync)
      continue; /* created later */
    if (st[c].kept_end != st[c].all_end || (a != UINT64_MAX && st[c].advance != a))
      return false;
    a = st[c].advance;
  }
  for (uint32_t c = 0; c < m->num_chains; c++)
    st[c].advance = a == UINT64_MAX ? 0 : a;
  return true;
}

/* One sweep in time order over operations and synchronization points,
 * from the first removed operation to where the chains settle after the
 * last (first and last: their events); counts the removed operations into
 * r. Returns the savings (saved_by). */
static uint64_t sweep(const omplens_whatif *m, chain_state *st, const uint64_t *removed,
                      uint32_t first, uint32_t last, int host_waits,
                      omplens_whatif_result *r) {
  const omplens_event *ev = m->events;
  size_t j;
  start_at(m, st, first, &j);
  uint32_t every = m->num_chains > 64 ? m->num_chains : 64; /* settled() reads every chain */
  bool done = false;
  for (uint32_t i = first; i < m->num_events && !done; i++) {
    while (j < m->num_syncs && m->syncs[j].time <= ev[i].begin_ns)
      apply_sync(st, m, &m->syncs[j], advance_at(&st[m->syncs[j].from], m->syncs[j].time),
                 host_waits), j++;
    int gone = bit(removed, i);
    r->num_removed += (size_t)gone;
    r->removed_ns = add_sat(r->removed_ns, gone ? omplens_whatif__end(&ev[i]) - ev[i].begin_ns : 0);
    apply_event(&st[omplens_whatif__event_chain(m, &ev[i])], &ev[i], gone);
    done = i >= last && (i - last) % every == 0 && settled(m, st, j);
  }
  for (; !done && j < m->num_syncs; j++)
    apply_sync(st, m, &m->syncs[j], advance_at(&st[m->syncs[j].from], m->syncs[j].time),
               host_waits);
  return saved_by(m, st);
}

/* The first and last removed events; false when none is. */
static bool removed_span(const omplens_whatif *m, const uint64_t *removed, uint32_t *first,
                         uint32_t *last) {
  size_t words = m->num_events / 64 + 1, a = 0, b = words;
  while (a < words && !removed[a])
    a++;
  if (a == words)
    return false;
  while (!removed[b - 1])
    b--;
  *first = (uint32_t)(a * 64 + (size_t)__builtin_ctzll(removed[a]));
  *last = (uint32_t)((b - 1) * 64 + 63 - (size_t)__builtin_clzll(removed[b - 1]));
  return true;
}

/* Whether every chain's operations run back to back (m->back_to_back);
 * end: per chain, zeroed scratch. */
static int chains_back_to_back(const omplens_whatif *m, uint64_t *end) {
  for (uint32_t i = 0; i < m->num_events; i++) {
    const omplens_event *e = &m->events[i];
    uint64_t *covered = &end[omplens_whatif__event_chain(m, e)];
    if (e->begin_ns < *covered)
      return 0;
    *covered = omplens_whatif__end(e);
  }
  return 1;
}

/* m->sync_last: a sync applies before the operations that begin at or
 * after its time, as the sweep applies it. */
static int sync_lasts(omplens_whatif *m) {
  if (!m->num_syncs)
    return 0;
  m->sync_last = omplens_whatif__calloc(m->num_syncs, sizeof *m->sync_last);
  uint32_t *last = omplens_whatif__calloc(m->num_chains, sizeof *last); /* per chain */
  if (!m->sync_last || !last) {
    free(last);
    return OMPLENS_WHATIF_ENOMEM;
  }
  for (uint32_t c = 0; c < m->num_chains; c++)
    last[c] = OMPLENS_WHATIF__NONE;
  size_t j = 0;
  for (uint32_t i = 0; i <= m->num_events; i++) {
    for (; j < m->num_syncs && (i == m->num_events || m->syncs[j].time <= m->events[i].begin_ns); j++)
      m->sync_last[j] = last[m->syncs[j].from];
    if (i < m->num_events)
      last[omplens_whatif__event_chain(m, &m->events[i])] = i;
  }
  free(last);
  return 0;
}

int omplens_whatif__checkpoints(omplens_whatif *m) {
  m->fork_sync = omplens_whatif__calloc(m->num_chains, sizeof *m->fork_sync);
  if (!m->fork_sync)
    return OMPLENS_WHATIF_ENOMEM;
  for (uint32_t c = 0; c < m->num_chains; c++)
    m->fork_sync[c] = OMPLENS_WHATIF__NONE;
  for (size_t k = 0; k < m->num_syncs; k++)
    if (m->syncs[k].kind == OMPLENS_WHATIF__FORK && m->fork_sync[m->syncs[k].chain] == OMPLENS_WHATIF__NONE)
      m->fork_sync[m->syncs[k].chain] = (uint32_t)k;
  uint64_t *end = omplens_whatif__calloc(m->num_chains, sizeof *end);
  if (!end)
    return OMPLENS_WHATIF_ENOMEM;
  m->back_to_back = chains_back_to_back(m, end);
  if (m->back_to_back) { /* sweeps that skip the kept operations */
    free(end);
    return sync_lasts(m);
  }
  if (m->num_chains > OMPLENS_WHATIF__CHECKPOINT_CHAINS) {
    free(end); /* sweeps cover their prefix from the start */
    return 0;
  }
  memset(end, 0, m->num_chains * sizeof *end);
  size_t n = m->num_events / OMPLENS_WHATIF__CHECKPOINT + 1;
  uint64_t *cp = omplens_whatif__calloc(n * m->num_chains, sizeof *cp);
  if (cp) {
    for (uint32_t i = 0; i < m->num_events; i++) {
      if (i % OMPLENS_WHATIF__CHECKPOINT == 0)
        memcpy(cp + (size_t)(i / OMPLENS_WHATIF__CHECKPOINT) * m->num_chains, end,
               m->num_chains * sizeof *end);
      const omplens_event *e = &m->events[i];
      newly_covered(&end[omplens_whatif__event_chain(m, e)], e->begin_ns, omplens_whatif__end(e));
    }
    m->checkpoint_end = cp;
  } else {
    free(cp); /* sweeps start at 0 */
  }
  free(end);
  return 0;
}

static double speedup(uint64_t run_ns, uint64_t predicted_ns) {
  if (run_ns == predicted_ns)
    return 1.0;
  return predicted_ns ? (double)run_ns / (double)predicted_ns : 0.0;
}

/* The run time without `saved` of it, as predicted_ns and savings_ns. */
static void settle(uint64_t run_ns, uint64_t saved, uint64_t *predicted, uint64_t *savings) {
  *savings = saved < run_ns ? saved : run_ns;
  *predicted = run_ns - *savings;
}

/* Point j of a sweep on back-to-back chains. */
static void sync_removed(const omplens_whatif *m, chain_state *st, const uint64_t *removed,
                         size_t j, int host_waits) {
  const omplens_whatif__sync *y = &m->syncs[j];
  uint32_t k = m->sync_last[j];
  uint64_t from = st[y->from].advance, after = 0;
  if (k != OMPLENS_WHATIF__NONE && bit(removed, k) && omplens_whatif__end(&m->events[k]) > y->time)
    after = omplens_whatif__end(&m->events[k]) - y->time; /* not yet won */
  apply_sync(st, m, y, from > after ? from - after : 0, host_waits);
}

/* The sweep on back-to-back chains, where a kept operation changes
 * nothing: it visits the removed operations, each adding its duration to
 * its chain's advance, and the synchronization points after the first of
 * them (before it every advance is 0, and they change nothing). At a
 * point, the chain it reads has the advance advance_at() gives: less the
 * part after the point's time of a removed operation running across it. */
static uint64_t sweep_removed(const omplens_whatif *m, chain_state *st, const uint64_t *removed,
                              uint32_t first, uint32_t last, int host_waits,
                              omplens_whatif_result *r) {
  const omplens_event *ev = m->events;
  size_t j = first_sync_after(m, ev[first].begin_ns);
  for (size_t w = first / 64; w <= last / 64; w++)
    for (uint64_t bits = removed[w]; bits; bits &= bits - 1) {
      const omplens_event *e = &ev[w * 64 + (size_t)__builtin_ctzll(bits)];
      for (; j < m->num_syncs && m->syncs[j].time <= e->begin_ns; j++)
        sync_removed(m, st, removed, j, host_waits);
      uint64_t ns = omplens_whatif__end(e) - e->begin_ns;
      chain_state *s = &st[omplens_whatif__event_chain(m, e)];
      s->advance = add_sat(s->advance, ns);
      r->removed_ns = add_sat(r->removed_ns, ns);
      r->num_removed++;
    }
  for (; j < m->num_syncs; j++)
    sync_removed(m, st, removed, j, host_waits);
  return saved_by(m, st);
}

/* Predicts the run without the operations marked in `removed`: once with
 * the host's time outside constructs as work, once with the host waiting
 * for its nowait tasks (the same sweep when there are none). */
static int predict_marked(const omplens_whatif *m, const uint64_t *removed,
                          omplens_whatif_result *out) {
  chain_state *st = omplens_whatif__calloc(m->num_chains, sizeof *st);
  if (!st)
    return OMPLENS_WHATIF_ENOMEM;
  omplens_whatif_result r = {.run_ns = m->run_ns};
  uint32_t first, last;
  uint64_t saved = 0, saved_waiting = 0;
  if (removed_span(m, removed, &first, &last)) {
    uint64_t (*run)(const omplens_whatif *, chain_state *, const uint64_t *, uint32_t, uint32_t,
                    int, omplens_whatif_result *) = m->back_to_back ? sweep_removed : sweep;
    saved = saved_waiting = run(m, st, removed, first, last, 0, &r);
    if (m->has_waits) {
      omplens_whatif_result again = r;
      memset(st, 0, m->num_chains * sizeof *st);
      saved_waiting = run(m, st, removed, first, last, 1, &again);
    }
  }
  free(st);
  if (!r.num_removed)
    saved = saved_waiting = 0;
  settle(m->run_ns, saved, &r.predicted_ns, &r.savings_ns);
  settle(m->run_ns, saved_waiting, &r.waiting_predicted_ns, &r.waiting_savings_ns);
  r.speedup = speedup(m->run_ns, r.predicted_ns);
  r.waiting_speedup = speedup(m->run_ns, r.waiting_predicted_ns);
  r.hidden_ns = r.removed_ns > r.savings_ns ? r.removed_ns - r.savings_ns : 0;
  *out = r;
  return 0;
}

int omplens_whatif_predict(const omplens_whatif *m, const uint32_t *removed, size_t k,
                           omplens_whatif_result *out) {
  if (!m || !out || (k && !removed))
    return OMPLENS_WHATIF_EINVAL;
  for (size_t i = 0; i < k; i++)
    if (removed[i] >= m->num_events)
      return OMPLENS_WHATIF_EINVAL;
  uint64_t *bits = new_bitmap(m);
  if (!bits)
    return OMPLENS_WHATIF_ENOMEM;
  for (size_t i = 0; i < k; i++)
    set_bit(bits, removed[i]);
  int rc = predict_marked(m, bits, out);
  free(bits);
  return rc;
}

/* ---- operations of findings -------------------------------------------- */

/* Marks the DELETE of every marked allocation: a DELETE ends the
 * allocation live at its (device, dev_addr), the latest ALLOC there not yet
 * ended (docs/detectors.md, "Allocation lifetimes"; omplens_lifetimes). */
static int mark_deletes(const omplens_whatif *m, uint64_t *bits) {
  omplens_lifetimes l;
  if (omplens_lifetimes_build(&l, m->events, m->num_events))
    return OMPLENS_WHATIF_ENOMEM;
  for (size_t k = 0; k < l.count; k++)
    if (l.deletes[k] != OMPLENS_WHATIF__NONE && bit(bits, l.allocs[k]))
      set_bit(bits, l.deletes[k]);
  omplens_lifetimes_free(&l);
  return 0;
}

/* Marks what fixing the findings removes: each instance's event and, for
 * an allocation, its DELETE. */
static int mark_findings(const omplens_whatif *m, const omplens_finding *const *findings,
                         size_t nf, uint64_t *bits) {
  int allocs = 0;
  for (size_t f = 0; f < nf; f++) {
    for (size_t i = 0; findings[f] && i < findings[f]->num_instances; i++) {
      uint32_t e = findings[f]->instances[i].event;
      if (e >= m->num_events)
        return OMPLENS_WHATIF_EINVAL;
      set_bit(bits, e);
      allocs |= m->events[e].kind == OMPLENS_EV_ALLOC;
    }
  }
  return allocs ? mark_deletes(m, bits) : 0;
}

/* The marked event indices, in order. */
static int list_marked(const omplens_whatif *m, const uint64_t *bits, uint32_t **ops, size_t *k) {
  size_t n = 0;
  for (size_t w = 0; w <= m->num_events / 64; w++)
    n += (size_t)__builtin_popcountll(bits[w]);
  if (!n)
    return 0;
  uint32_t *list = omplens_whatif__calloc(n, sizeof *list);
  if (!list)
    return OMPLENS_WHATIF_ENOMEM;
  n = 0;
  for (uint32_t i = 0; i < m->num_events; i++)
    if (bit(bits, i))
      list[n++] = i;
  *ops = list;
  *k = n;
  return 0;
}

int omplens_whatif_finding_ops(const omplens_whatif *m, const omplens_finding *const *findings,
                               size_t num_findings, uint32_t **ops, size_t *k) {
  if (!ops || !k)
    return OMPLENS_WHATIF_EINVAL;
  *ops = NULL;
  *k = 0;
  if (!m || (num_findings && !findings))
    return OMPLENS_WHATIF_EINVAL;
  uint64_t *bits = new_bitmap(m);
  if (!bits)
    return OMPLENS_WHATIF_ENOMEM;
  int rc = mark_findings(m, findings, num_findings, bits);
  if (!rc)
    rc = list_marked(m, bits, ops, k);
  free(bits);
  return rc;
}

int omplens_whatif_predict_findings(const omplens_whatif *m,
                                    const omplens_finding *const *findings,
                                    size_t num_findings, omplens_whatif_result *out) {
  if (!m || !out || (num_findings && !findings))
    return OMPLENS_WHATIF_EINVAL;
  uint64_t *bits = new_bitmap(m);
  if (!bits)
    return OMPLENS_WHATIF_ENOMEM;
  int rc = mark_findings(m, findings, num_findings, bits);
  if (!rc)
    rc = predict_marked(m, bits, out);
  free(bits);
  return rc;
}
