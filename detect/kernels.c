/* Per-device kernel intervals: sorted begin times and a prefix maximum of
 * end times, so that both queries are one binary search. */
#include "detect_internal.h"

static int is_kernel(const omplens_event *e) {
  return e->kind == OMPLENS_EV_KERNEL && e->device >= 0;
}

/* Kernels per device; device numbers are int16_t, so at most 32768. */
static int count(omplens_detect__kernels *k, const omplens_event *ev,
                 uint32_t n, uint32_t **per_device, size_t *kernels) {
  *per_device = omplens_detect__zarray((size_t)INT16_MAX + 1, sizeof(uint32_t));
  if (!*per_device)
    return OMPLENS_DETECT_ENOMEM;
  for (uint32_t i = 0; i < n; i++) {
    if (!is_kernel(&ev[i]))
      continue;
    (*per_device)[ev[i].device]++;
    (*kernels)++;
    if ((size_t)ev[i].device + 1 > k->num_devices)
      k->num_devices = (size_t)ev[i].device + 1;
  }
  return 0;
}

/* Events are sorted by begin time, so each device's kernels come out in
 * begin order. */
static void fill(omplens_detect__kernels *k, const omplens_event *ev,
                 uint32_t n, uint32_t *cursor) {
  for (size_t d = 0; d < k->num_devices; d++) {
    k->offset[d + 1] = k->offset[d] + cursor[d];
    cursor[d] = k->offset[d];
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!is_kernel(&ev[i]))
      continue;
    uint32_t at = cursor[ev[i].device]++;
    k->begin[at] = ev[i].begin_ns;
    k->max_end[at] = ev[i].end_ns;
  }
  for (size_t d = 0; d < k->num_devices; d++)
    for (uint32_t j = k->offset[d] + 1; j < k->offset[d + 1]; j++)
      if (k->max_end[j] < k->max_end[j - 1])
        k->max_end[j] = k->max_end[j - 1];
}

int omplens_detect__kernels_build(omplens_detect__kernels *k,
                                  const omplens_event *ev, uint32_t n) {
  uint32_t *per_device;
  size_t kernels = 0;
  if (count(k, ev, n, &per_device, &kernels) < 0)
    return OMPLENS_DETECT_ENOMEM;
  k->offset = omplens_detect__zarray(k->num_devices + 1, sizeof *k->offset);
  k->begin = omplens_detect__array(kernels, sizeof *k->begin);
  k->max_end = omplens_detect__array(kernels, sizeof *k->max_end);
  if (!k->offset || !k->begin || !k->max_end) {
    omplens_detect__free(per_device);
    omplens_detect__kernels_free(k);
    return OMPLENS_DETECT_ENOMEM;
  }
  fill(k, ev, n, per_device);
  omplens_detect__free(per_device);
  return 0;
}

void omplens_detect__kernels_free(omplens_detect__kernels *k) {
  omplens_detect__free(k->offset);
  omplens_detect__free(k->begin);
  omplens_detect__free(k->max_end);
  *k = (omplens_detect__kernels){0};
}

/* First index in [lo, hi) whose begin is > t (strict) or >= t. */
static uint32_t search(const uint64_t *begin, uint32_t lo, uint32_t hi,
                       uint64_t t, int strict) {
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (begin[mid] < t || (strict && begin[mid] == t))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int has_device(const omplens_detect__kernels *k, int device) {
  return device >= 0 && (size_t)device < k->num_devices;
}

uint64_t omplens_detect__kernel_after(const omplens_detect__kernels *k,
                                      int device, uint64_t t) {
  if (!has_device(k, device))
    return UINT64_MAX;
  uint32_t lo = k->offset[device], hi = k->offset[device + 1];
  uint32_t at = search(k->begin, lo, hi, t, 0);
  return at < hi ? k->begin[at] : UINT64_MAX;
}

/* The kernels that begin by end are a prefix; one of them overlaps iff the
 * latest end among them reaches begin. */
int omplens_detect__kernel_overlaps(const omplens_detect__kernels *k,
                                    int device, uint64_t begin, uint64_t end) {
  if (!has_device(k, device))
    return 0;
  uint32_t lo = k->offset[device], hi = k->offset[device + 1];
  uint32_t at = search(k->begin, lo, hi, end, 1);
  return at > lo && k->max_end[at - 1] >= begin;
}
