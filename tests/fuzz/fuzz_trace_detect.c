/* libFuzzer target: the detectors on whatever events the trace reader makes
 * of arbitrary bytes, as `omplens report` runs them. The reader's promises
 * are checked by fuzz_trace_reader; this target checks the detectors'
 * (omplens_detect.h): every instance names an event of the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_detect.h"
#include "omplens_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void broken(const char *promise) {
  fprintf(stderr, "fuzz_trace_detect: broken promise: %s\n", promise);
  abort();
}

static void walk_findings(const omplens_analysis *a, size_t nevents) {
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  for (size_t i = 0; i < n; i++) {
    if (f[i].category < 0 || f[i].category >= OMPLENS_CAT_COUNT)
      broken("finding.category is an omplens_category");
    if (!omplens_category_name(f[i].category) || !omplens_category_title(f[i].category))
      broken("categories have names");
    if (!f[i].num_instances || !f[i].instances)
      broken("a finding has instances");
    for (size_t k = 0; k < f[i].num_instances; k++) {
      const omplens_instance *in = &f[i].instances[k];
      if (in->event >= nevents)
        broken("instance.event indexes the input");
      if (in->related != UINT32_MAX && in->related >= nevents)
        broken("instance.related indexes the input or is UINT32_MAX");
    }
    sink += f[i].codeptr ^ f[i].host_addr ^ f[i].bytes ^ f[i].total_bytes ^ f[i].total_ns ^
            f[i].savings_ns ^ (uint64_t)f[i].device;
  }
}

static void walk_rest(const omplens_analysis *a, size_t nevents) {
  size_t n;
  const omplens_directive_total *d = omplens_analysis_directives(a, &n);
  for (size_t i = 0; i < n; i++)
    sink += d[i].codeptr ^ d[i].savings_ns ^ d[i].transfer_ns ^ d[i].executions ^
            d[i].count[0] ^ d[i].bytes[OMPLENS_CAT_COUNT - 1];
  const omplens_leftover *l = omplens_analysis_leftovers(a, &n);
  for (size_t i = 0; i < n; i++) {
    if (l[i].alloc_event >= nevents)
      broken("leftover.alloc_event indexes the input");
    sink += l[i].host_addr ^ l[i].dev_addr ^ l[i].bytes ^ l[i].codeptr;
  }
  const omplens_program_total *p = omplens_analysis_total(a);
  if (!p)
    broken("an analysis has a program total");
  if (!(p->speedup == 0.0 || p->speedup >= 1.0))
    broken("speedup is 0 (n/a) or at least 1");
  sink += p->run_ns ^ p->savings_ns ^ p->num_transfers ^ p->num_allocs ^ p->num_kernels;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  omplens_trace *t;
  if (omplens_trace_open_memory(data, size, &t))
    return 0;
  size_t n;
  omplens_trace_events(t, &n);
  omplens_analysis *a = NULL;
  int rc = omplens_detect_trace(t, &a);
  if (rc == 0) {
    walk_findings(a, n);
    walk_rest(a, n);
  } else if (rc != OMPLENS_DETECT_ENOMEM) {
    broken("the reader's events are valid detector input");
  }
  omplens_analysis_free(a);
  omplens_trace_close(t);
  return 0;
}
