/* libFuzzer target: the trace reader on arbitrary bytes, as `omplens report`
 * meets them. Everything the reader returns is walked, so that ASan sees
 * every byte of it, and every promise of omplens_trace.h is checked: a
 * broken one aborts, which the fuzzer reports as a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keeps the reads of the walk from being optimized away. */
static volatile uint64_t sink;

static void broken(const char *promise) {
  fprintf(stderr, "fuzz_trace_reader: broken promise: %s\n", promise);
  abort();
}

static void walk_string(const char *s, const char *what) {
  if (!s)
    broken(what);
  sink += strlen(s);
}

static void walk_info(const omplens_trace_info *info) {
  if (!info)
    broken("an open trace has info");
  walk_string(info->exe, "info.exe is a string");
  walk_string(info->cmdline, "info.cmdline is a string");
  if (info->complete != 0 && info->complete != 1)
    broken("info.complete is 0 or 1");
  if (info->num_devices < 0)
    broken("info.num_devices >= 0");
  if (info->num_modules && !info->modules)
    broken("info.modules holds num_modules");
  for (size_t i = 0; i < info->num_modules; i++) {
    const omplens_module *m = &info->modules[i];
    walk_string(m->path, "module.path is a string");
    if (m->build_id_len > sizeof m->build_id)
      broken("module.build_id_len <= 20");
    for (size_t k = 0; k < m->build_id_len; k++)
      sink += m->build_id[k];
    sink += m->base ^ m->low ^ m->high;
  }
}

static void walk_regions(const omplens_trace *t, size_t *nregions) {
  size_t n, nargs;
  const omplens_region *r = omplens_trace_regions(t, &n);
  const omplens_map_arg *a = omplens_trace_args(t, &nargs);
  if ((n && !r) || (nargs && !a))
    broken("arrays hold their counts");
  for (size_t i = 0; i < n; i++) {
    sink += r[i].begin_ns ^ r[i].end_ns ^ r[i].codeptr ^ r[i].thread ^ (uint64_t)r[i].device ^
            r[i].kind ^ r[i].nowait;
    if (r[i].source)
      sink += strlen(r[i].source);
    if (r[i].first_arg > nargs || r[i].num_args > nargs - r[i].first_arg)
      broken("a region's map arguments are within omplens_trace_args()");
  }
  for (size_t i = 0; i < nargs; i++) {
    sink += a[i].base ^ a[i].begin ^ a[i].size ^ a[i].type;
    if (a[i].name)
      sink += strlen(a[i].name);
  }
  *nregions = n;
}

static void walk_events(const omplens_trace *t, size_t nregions) {
  size_t n;
  const omplens_event *e = omplens_trace_events(t, &n);
  if (n && !e)
    broken("events holds its count");
  size_t nsites;
  const uint64_t *sites = omplens_trace_sites(t, &nsites);
  if (!sites || nsites < 1 || sites[0] != 0)
    broken("sites start with the unknown site 0");
  for (size_t i = 0; i < n; i++) {
    if (e[i].site >= nsites)
      broken("event.site indexes omplens_trace_sites()");
    if (e[i].kind < OMPLENS_EV_ALLOC || e[i].kind > OMPLENS_EV_KERNEL)
      broken("event.kind is an omplens_event_kind");
    if (e[i].region != OMPLENS_NO_REGION && e[i].region >= nregions)
      broken("event.region indexes regions or is OMPLENS_NO_REGION");
    if (e[i].device < 0)
      broken("event.device >= 0");
    if (i && e[i - 1].begin_ns > e[i].begin_ns)
      broken("events are sorted by begin time");
    if (e[i].end_ns < e[i].begin_ns)
      broken("an event ends at or after its begin (both in 48 bits)");
    sink += e[i].end_ns ^ e[i].host_addr ^ e[i].dev_addr ^ e[i].bytes ^ e[i].hash ^
            sites[e[i].site] ^ e[i].thread ^ (uint64_t)e[i].peer_device ^ e[i].flags;
    sink += strlen(omplens_event_kind_name(e[i].kind));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  omplens_trace *t = (omplens_trace *)&sink; /* must come back NULL on failure */
  int rc = omplens_trace_open_memory(data, size, &t);
  walk_string(omplens_trace_strerror(rc), "strerror gives a string");
  if (rc) {
    if (t)
      broken("a failed open leaves *out NULL");
    if (rc == OMPLENS_TRACE_EIO)
      broken("reading memory never fails with EIO");
    return 0;
  }
  if (!t)
    broken("a successful open gives a trace");
  walk_info(omplens_trace_get_info(t));
  size_t nregions;
  walk_regions(t, &nregions);
  walk_events(t, nregions);
  const char *damage = omplens_trace_damage(t);
  if (damage && (!*damage || damage[strlen(damage) - 1] != '\n'))
    broken("damage is NULL or lines ending in a newline");
  if (!omplens_trace_get_info(t)->complete && !damage)
    broken("an incomplete trace says so in its damage list");
  walk_string(omplens_trace_path(t), "path is a string");
  omplens_trace_close(t);
  return 0;
}
