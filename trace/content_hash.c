/* The content hash recorded for every transfer (docs/trace-format.md). A
 * buffer of OMPLENS_HASH_SPLIT bytes or more is hashed as its two halves, so
 * that the collector can compute the halves on two threads and still record
 * the same value as anyone who recomputes it later. */
#include "omplens_trace.h"

#include <xxhash.h>

uint64_t omplens_hash_part(const void *p, size_t n) { return XXH3_64bits(p, n); }

uint64_t omplens_hash_combine(uint64_t first_half, uint64_t second_half) {
  uint64_t h[2] = {first_half, second_half};
  return XXH3_64bits(h, sizeof h);
}

uint64_t omplens_content_hash(const void *p, size_t n) {
  if (n < OMPLENS_HASH_SPLIT)
    return XXH3_64bits(p, n);
  size_t half = n / 2;
  return omplens_hash_combine(XXH3_64bits(p, half), XXH3_64bits((const char *)p + half, n - half));
}

/* XXH3-64 of n zero bytes, streamed from a small block (analysis side only:
 * the state is allocated). Returns 0 when out of memory. */
static uint64_t zeros_part(uint64_t n) {
  static const unsigned char zeros[65536];
  XXH3_state_t *st = XXH3_createState();
  if (!st)
    return 0;
  XXH3_64bits_reset(st);
  for (uint64_t done = 0; done < n;) {
    size_t k = n - done < sizeof zeros ? (size_t)(n - done) : sizeof zeros;
    XXH3_64bits_update(st, zeros, k);
    done += k;
  }
  uint64_t h = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  return h;
}

uint64_t omplens_content_hash_of_zeros(uint64_t n) {
  if (n < OMPLENS_HASH_SPLIT)
    return zeros_part(n);
  uint64_t half = n / 2;
  return omplens_hash_combine(zeros_part(half), zeros_part(n - half));
}
