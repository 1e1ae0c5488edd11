/* Per-device kernel intervals: sorted begin times and a prefix maximum of
 * end times, so that both queries are one search, which starts from the
 * previous answer. */
#include "detect_internal.h"

/* The survey listed the kernels in time order, so each device's kernels
 * come out in begin order. */
static void fill(omplens_detect__kernels *k, const omplens_detect__kernel *list,
                 size_t num_kernels) {
  uint32_t *cursor = k->near; /* free until the first search */
  for (size_t j = 0; j < num_kernels; j++)
    k->offset[list[j].device + 1]++;
  for (size_t d = 0; d < k->num_devices; d++) {
    k->offset[d + 1] += k->offset[d];
    cursor[d] = k->offset[d];
  }
  for (size_t j = 0; j < num_kernels; j++) {
    uint32_t at = cursor[list[j].device]++;
    k->begin[at] = list[j].begin;
    k->max_end[at] = list[j].end;
  }
  for (size_t d = 0; d < k->num_devices; d++) {
    for (uint32_t j = k->offset[d] + 1; j < k->offset[d + 1]; j++)
      if (k->max_end[j] < k->max_end[j - 1])
        k->max_end[j] = k->max_end[j - 1];
    k->near[d] = k->offset[d];
  }
}

int omplens_detect__kernels_build(omplens_detect__kernels *k,
                                  const omplens_detect__kernel *list,
                                  size_t num_kernels, size_t num_devices) {
  k->num_devices = num_devices;
  k->offset = omplens_detect__zarray(num_devices + 1, sizeof *k->offset);
  k->near = omplens_detect__array(num_devices, sizeof *k->near);
  k->begin = omplens_detect__array(num_kernels, sizeof *k->begin);
  k->max_end = omplens_detect__array(num_kernels, sizeof *k->max_end);
  if (!k->offset || !k->near || !k->begin || !k->max_end) {
    omplens_detect__kernels_free(k);
    return OMPLENS_DETECT_ENOMEM;
  }
  fill(k, list, num_kernels);
  return 0;
}

void omplens_detect__kernels_free(omplens_detect__kernels *k) {
  omplens_detect__free(k->offset);
  omplens_detect__free(k->near);
  omplens_detect__free(k->begin);
  omplens_detect__free(k->max_end);
  *k = (omplens_detect__kernels){0};
}

/* Does kernel j begin before t (strict: at or before t)? */
static int begins_before(const uint64_t *begin, uint64_t j, uint64_t t,
                         int strict) {
  return begin[j] < t || (strict && begin[j] == t);
}

/* First index in [lo, hi) whose kernel does not begin before t, or hi.
 * Successive queries ask about nearby times, so the search gallops from
 * near (in [lo, hi]) to bracket the answer, then bisects the bracket. */
static uint32_t search(const uint64_t *begin, uint32_t lo, uint32_t hi,
                       uint32_t near, uint64_t t, int strict) {
  uint64_t step = 1; /* wider than the indices: doubling cannot wrap */
  if (near < hi && begins_before(begin, near, t, strict)) {
    lo = near + 1; /* the answer is after near */
    while (hi - lo > step && begins_before(begin, lo + step - 1, t, strict)) {
      lo += (uint32_t)step;
      step *= 2;
    }
    if (hi - lo > step)
      hi = (uint32_t)(lo + step - 1);
  } else {
    hi = near; /* the answer is at or before near */
    while (hi - lo > step && !begins_before(begin, hi - step, t, strict)) {
      hi -= (uint32_t)step;
      step *= 2;
    }
    if (hi - lo > step)
      lo = (uint32_t)(hi - step + 1);
  }
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (begins_before(begin, mid, t, strict))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int has_device(const omplens_detect__kernels *k, int device) {
  return device >= 0 && (size_t)device < k->num_devices;
}

/* The kernels of device that begin before t (strict: at or before t) are a
 * prefix; returns its end. */
static uint32_t prefix_end(omplens_detect__kernels *k, int device, uint64_t t,
                           int strict) {
  uint32_t lo = k->offset[device], hi = k->offset[device + 1];
  uint32_t at = search(k->begin, lo, hi, k->near[device], t, strict);
  k->near[device] = at;
  return at;
}

uint64_t omplens_detect__kernel_after(omplens_detect__kernels *k, int device,
                                      uint64_t t) {
  if (!has_device(k, device))
    return UINT64_MAX;
  uint32_t at = prefix_end(k, device, t, 0);
  return at < k->offset[device + 1] ? k->begin[at] : UINT64_MAX;
}

/* The kernels that begin by end are a prefix; one of them overlaps iff the
 * latest end among them reaches begin. */
int omplens_detect__kernel_overlaps(omplens_detect__kernels *k, int device,
                                    uint64_t begin, uint64_t end) {
  if (!has_device(k, device))
    return 0;
  uint32_t at = prefix_end(k, device, end, 1);
  return at > k->offset[device] && k->max_end[at - 1] >= begin;
}
