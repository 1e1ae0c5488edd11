/* Public entry points of the detectors; the passes live in allocs.c,
 * transfers.c and findings.c. Design note: docs/detectors.md. */
#include "detect_internal.h"

/* Names are part of findings.json (docs/findings-schema.md). */
static const char *const category_names[OMPLENS_CAT_COUNT] = {
    [OMPLENS_CAT_DUPLICATE_SAME_BUFFER] = "duplicate-transfer",
    [OMPLENS_CAT_DUPLICATE_OTHER_BUFFER] = "duplicate-content",
    [OMPLENS_CAT_ROUND_TRIP] = "round-trip",
    [OMPLENS_CAT_REPEATED_ALLOC] = "repeated-alloc",
    [OMPLENS_CAT_UNUSED_ALLOC] = "unused-alloc",
    [OMPLENS_CAT_UNUSED_TRANSFER] = "unused-transfer",
};

static const char *const category_titles[OMPLENS_CAT_COUNT] = {
    [OMPLENS_CAT_DUPLICATE_SAME_BUFFER] = "Duplicate transfer",
    [OMPLENS_CAT_DUPLICATE_OTHER_BUFFER] = "Duplicate content",
    [OMPLENS_CAT_ROUND_TRIP] = "Round trip",
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

void omplens_detect__ctx_free(omplens_detect__ctx *c) {
  omplens_detect__kernels_free(&c->kernels);
  omplens_detect__free(c->alloc_event);
  omplens_detect__free(c->alloc_delete);
  omplens_detect__free(c->raw);
  omplens_detect__free(c->findings);
  omplens_detect__map_free(&c->groups);
  omplens_detect__free(c->leftovers);
  *c = (omplens_detect__ctx){0};
}

/* One pass over the input before the detectors: every pass relies on time
 * order (kernel searches, "earlier" transfers); without a measured run time
 * the events' span stands in; allocations are counted to size their table.
 * Returns 0, or OMPLENS_DETECT_EINVAL when the events are not sorted. */
static int survey(omplens_detect__ctx *c,
                  const omplens_detect_params *params) {
  uint64_t end = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    const omplens_event *e = &c->ev[i];
    if (i > 0 && e->begin_ns < e[-1].begin_ns)
      return OMPLENS_DETECT_EINVAL;
    if (e->end_ns > end)
      end = e->end_ns;
    c->max_allocs += e->kind == OMPLENS_EV_ALLOC;
  }
  c->run_ns = params && params->run_ns ? params->run_ns : end;
  return 0;
}

static int run_passes(omplens_detect__ctx *c, omplens_analysis *a) {
  int rc = omplens_detect__kernels_build(&c->kernels, c->ev, c->n);
  if (rc == 0)
    rc = omplens_detect__allocations(c);
  if (rc == 0)
    rc = omplens_detect__duplicates(c);
  if (rc == 0)
    rc = omplens_detect__round_trips(c);
  if (rc == 0)
    rc = omplens_detect__unused_transfers(c);
  if (rc == 0)
    rc = omplens_detect__finish(c, a);
  return rc;
}

int omplens_detect_run(const omplens_event *events, size_t num_events,
                       const omplens_detect_params *params,
                       omplens_analysis **out) {
  if (!out)
    return OMPLENS_DETECT_EINVAL;
  *out = NULL;
  /* Event indices are 32-bit and UINT32_MAX means "none". */
  if ((!events && num_events) || num_events >= UINT32_MAX)
    return OMPLENS_DETECT_EINVAL;
  omplens_detect__ctx c = {.ev = events, .n = (uint32_t)num_events};
  int rc = survey(&c, params);
  if (rc < 0)
    return rc;
  omplens_analysis *a = omplens_detect__zarray(1, sizeof *a);
  if (!a)
    return OMPLENS_DETECT_ENOMEM;
  rc = run_passes(&c, a);
  omplens_detect__ctx_free(&c);
  if (rc < 0) {
    omplens_analysis_free(a);
    return rc;
  }
  *out = a;
  return 0;
}

void omplens_analysis_free(omplens_analysis *a) {
  if (!a)
    return;
  omplens_detect__free(a->findings);
  omplens_detect__free(a->instances);
  omplens_detect__free(a->directives);
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

const omplens_program_total *omplens_analysis_total(const omplens_analysis *a) {
  return a ? &a->total : NULL;
}

const omplens_leftover *omplens_analysis_leftovers(const omplens_analysis *a,
                                                   size_t *count) {
  if (count)
    *count = a ? a->num_leftovers : 0;
  return a ? a->leftovers : NULL;
}
