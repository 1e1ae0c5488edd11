/* The content hash recorded for every transfer (docs/trace-format.md). A
 * buffer of OMPLENS_HASH_SPLIT bytes or more is hashed as its two halves, so
 * that the collector can compute the halves on two threads and still record
 * the same value as anyone who recomputes it later.
 *
 * XXH3 is compiled here from the header rather than called in libxxhash:
 * Debian builds the library for baseline x86-64 (SSE2), and on x86-64 the
 * long-input loop is also compiled for AVX2, chosen at run time. Both give
 * XXH3-64's values (tests/unit/test_content_hash.c checks them against
 * libxxhash). Everything from the header is static: nothing is exported and
 * nothing is needed at run time. */
#include "omplens_trace.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CONTENT_HASH__AVX2 1
#include <immintrin.h>
#include <stdatomic.h>
#define XXH_X86DISPATCH /* 64-byte accumulators, fit for any vector width */
#define XXH_DISPATCH_AVX2 1
#define XXH_TARGET_AVX2 __attribute__((__target__("avx2")))
#endif
#define XXH_INLINE_ALL
#include <xxhash.h>

#if CONTENT_HASH__AVX2
/* XXH3-64 of more than XXH3_MIDSIZE_MAX bytes with AVX2, as in libxxhash's
 * xxh_x86dispatch.c. It ends with an explicit vzeroupper, so the SSE code
 * that runs next (the profiled program's) does not slow down: gcc 12 at -O2
 * emits none for a target("avx2") function (bench/hash_throughput's last
 * line measures it). */
__attribute__((__target__("avx2"), __noinline__)) static uint64_t hash_long_avx2(const void *p,
                                                                                 size_t n) {
  uint64_t h = XXH3_hashLong_64b_internal(p, n, XXH3_kSecret, sizeof XXH3_kSecret,
                                          XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
  _mm256_zeroupper();
  return h;
}

/* 1 with AVX2, 0 without, -1 not known yet. Threads that race to fill it in
 * store the same value. */
static _Atomic int has_avx2 = -1;

static int cpu_has_avx2(void) {
  int known = atomic_load_explicit(&has_avx2, memory_order_relaxed);
  if (known < 0) {
    __builtin_cpu_init(); /* we may run before the constructors that do it */
    known = __builtin_cpu_supports("avx2") != 0;
    atomic_store_explicit(&has_avx2, known, memory_order_relaxed);
  }
  return known;
}
#endif

/* XXH3-64 of one buffer, with AVX2 when the CPU has it. */
static uint64_t xxh3(const void *p, size_t n) {
#if CONTENT_HASH__AVX2
  if (n > XXH3_MIDSIZE_MAX && cpu_has_avx2())
    return hash_long_avx2(p, n);
#endif
  return XXH3_64bits(p, n);
}

uint64_t omplens_hash_part(const void *p, size_t n) { return xxh3(p, n); }

uint64_t omplens_hash_combine(uint64_t first_half, uint64_t second_half) {
  uint64_t h[2] = {first_half, second_half};
  return XXH3_64bits(h, sizeof h);
}

/* Kept out of omplens_content_hash, which then saves no registers on the
 * path of small buffers. */
__attribute__((__noinline__)) static uint64_t hash_halves(const void *p, size_t n) {
  size_t half = n / 2;
  return omplens_hash_combine(xxh3(p, half), xxh3((const char *)p + half, n - half));
}

uint64_t omplens_content_hash(const void *p, size_t n) {
  if (n < OMPLENS_HASH_SPLIT)
    return xxh3(p, n);
  return hash_halves(p, n);
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
