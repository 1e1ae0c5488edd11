/* omplens what-if model: how much shorter would the run be without some
 * operations? The run is modelled as chains of operations on host threads
 * and nowait tasks, joined where the trace lets us see (or guess) that one
 * waited for the other; the prediction is the longest path after removal,
 * not the sum of the removed durations. Model, approximations and limits:
 * docs/whatif.md.
 *
 * Functions return 0 or a negative OMPLENS_WHATIF_E* code;
 * omplens_whatif_strerror() explains a code. */
#ifndef OMPLENS_WHATIF_H
#define OMPLENS_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "omplens_detect.h"
#include "omplens_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum omplens_whatif_error {
  OMPLENS_WHATIF_OK = 0,
  OMPLENS_WHATIF_EINVAL = -1, /* unsorted events, bad index, too many events */
  OMPLENS_WHATIF_ENOMEM = -2,
};

/* A prediction. The host's time outside constructs is host work and stays;
 * the waiting_* figures instead take the host to have waited for each of
 * its nowait tasks (in a taskwait, say) from its last own activity until
 * the task ended, which the trace cannot tell from host work. Without
 * nowait tasks the two are equal. */
typedef struct omplens_whatif_result {
  uint64_t run_ns;       /* measured run time the model was built with      */
  uint64_t predicted_ns; /* predicted run time without the operations       */
  uint64_t savings_ns;   /* run_ns - predicted_ns (never negative)          */
  double speedup;        /* run_ns / predicted_ns; 1.0 when nothing is
                            saved, 0.0 when predicted_ns is 0 (undefined)   */
  uint64_t removed_ns;   /* plain sum of the removed operations' durations,
                            each counted once (what detect calls savings)   */
  uint64_t hidden_ns;    /* removed_ns - savings_ns when positive: removed
                            time that overlapped other work (other threads,
                            nowait tasks, host work) and so saves nothing   */
  size_t num_removed;    /* distinct operations removed                     */
  uint64_t waiting_predicted_ns; /* as predicted_ns, savings_ns and speedup, */
  uint64_t waiting_savings_ns;   /* with the host waiting for its nowait    */
  double waiting_speedup;        /* tasks                                   */
} omplens_whatif_result;

typedef struct omplens_whatif omplens_whatif;

const char *omplens_whatif_strerror(int err);

/* Builds the model of one trace in O(n + r log r) for n events and r
 * regions (O(n) without nowait regions). events must be sorted by begin_ns
 * (as omplens_trace_events gives them) and fewer than UINT32_MAX; events
 * and regions must stay valid for the model's lifetime. run_ns is the
 * measured run time; 0 means the latest event or region end. On success
 * *out is a new model (caller frees with omplens_whatif_destroy); on
 * failure *out is NULL. */
int omplens_whatif_create(const omplens_event *events, size_t num_events,
                          const omplens_region *regions, size_t num_regions,
                          uint64_t run_ns, omplens_whatif **out);
void omplens_whatif_destroy(omplens_whatif *m); /* NULL accepted */

/* Predicts the run without the operations removed[0..k) (event indices;
 * duplicates allowed, order free). O(n + k) time (two sweeps when the
 * trace has nowait tasks), 1 bit per event and 24 bytes per chain of
 * scratch memory, allocated per call: several threads may predict on one
 * model at once. An index >= the number of events gives
 * OMPLENS_WHATIF_EINVAL. NULL m gives EINVAL. */
int omplens_whatif_predict(const omplens_whatif *m, const uint32_t *removed, size_t k,
                           omplens_whatif_result *out);

/* The operations that fixing the given findings removes, by the rules of
 * docs/detectors.md ("Savings"): each instance's event and, for an
 * allocation, its matching DELETE. *ops is sorted and distinct (caller
 * frees with free(); NULL when *k is 0). findings[i] may be NULL (skipped). */
int omplens_whatif_finding_ops(const omplens_whatif *m, const omplens_finding *const *findings,
                               size_t num_findings, uint32_t **ops, size_t *k);

/* omplens_whatif_finding_ops then omplens_whatif_predict. */
int omplens_whatif_predict_findings(const omplens_whatif *m,
                                    const omplens_finding *const *findings,
                                    size_t num_findings, omplens_whatif_result *out);

#ifdef __cplusplus
}
#endif
#endif
