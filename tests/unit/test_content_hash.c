/* Unit tests of the content hash (trace/content_hash.c): every path it can
 * take gives the values of XXH3_64bits in Debian's libxxhash, on random
 * content at every size up to 300 bytes, at vector block and stripe
 * boundaries, around OMPLENS_HASH_SPLIT, at random sizes, from misaligned
 * pointers and from buffers that end where their allocation ends (so that
 * AddressSanitizer sees any read past them). Definition: docs/trace-format.md.
 *
 * The source is included so that the test can turn the AVX2 path off and
 * check the baseline path on a machine that has AVX2. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "content_hash.c"

/* The library's XXH3-64, under its real symbol: the header that
 * content_hash.c includes makes every XXH3_* name its own static copy. */
extern uint64_t libxxhash_xxh3_64(const void *p, size_t n) __asm__("XXH3_64bits");

#define MAX_BYTES (3 * OMPLENS_HASH_SPLIT + 4096)
#define SLACK 64 /* room for misaligned starts */

static unsigned char *buf; /* MAX_BYTES + SLACK random bytes */
static size_t cap;
static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

/* What docs/trace-format.md defines, computed with libxxhash alone. */
static uint64_t reference(const void *p, size_t n) {
  if (n < OMPLENS_HASH_SPLIT)
    return libxxhash_xxh3_64(p, n);
  size_t half = n / 2;
  uint64_t h[2] = {libxxhash_xxh3_64(p, half), libxxhash_xxh3_64((const char *)p + half, n - half)};
  return libxxhash_xxh3_64(h, sizeof h);
}

static const char *path_name(void) {
#if CONTENT_HASH__AVX2
  return atomic_load(&has_avx2) == 1 ? "avx2" : "baseline";
#else
  return "baseline";
#endif
}

/* Checks the hash of n bytes starting `off` bytes into the buffer, and of n
 * bytes ending `off` bytes before its end. */
static void check_at(size_t n, size_t off) {
  const unsigned char *starts[2] = {buf + off, buf + cap - n - off};
  for (int i = 0; i < 2; i++) {
    const unsigned char *p = starts[i];
    uint64_t want = reference(p, n), got = omplens_content_hash(p, n);
    if (got != want)
      print_error("content hash of %zu bytes at %s offset %zu (%s path): got %#llx, want %#llx\n",
                  n, i ? "end" : "start", off, path_name(), (unsigned long long)got,
                  (unsigned long long)want);
    assert_int_equal(got, want);
    if (n <= OMPLENS_HASH_SPLIT) {
      want = libxxhash_xxh3_64(p, n), got = omplens_hash_part(p, n);
      if (got != want)
        print_error("hash part of %zu bytes at %s offset %zu (%s path): got %#llx, want %#llx\n",
                    n, i ? "end" : "start", off, path_name(), (unsigned long long)got,
                    (unsigned long long)want);
      assert_int_equal(got, want);
    }
  }
}

/* Every check below, on the path the CPU selects. */
static void check_all_sizes(void) {
  for (size_t n = 0; n <= 300; n++) /* the short-input paths and the first long ones */
    for (size_t off = 0; off < 8; off++)
      check_at(n, off == 7 ? 33 : off);
  for (size_t n = 301; n <= 4200; n++) /* stripes (64 bytes) and blocks (1 KiB) */
    check_at(n, n % 5);
  for (size_t k = 1; k <= 64; k++) /* around multiples of a block, up to 64 KiB */
    for (int d = -65; d <= 65; d += 13)
      check_at(k * 1024 + (size_t)d, k % 3 == 0 ? 0 : k % 37);
  for (int d = -70; d <= 70; d++) /* around the split */
    for (size_t off = 0; off < 2; off++)
      check_at((size_t)(OMPLENS_HASH_SPLIT + d), off * 5);
  check_at(2 * OMPLENS_HASH_SPLIT + 1, 3);
  check_at(3 * OMPLENS_HASH_SPLIT + 7, 1);
  check_at(MAX_BYTES, 0);
  for (int i = 0; i < 200; i++) { /* random sizes and offsets */
    size_t n = (size_t)(next_random() % (MAX_BYTES + 1));
    check_at(n, (size_t)(next_random() % SLACK));
  }
}

static int fill_buffer(void **state) {
  (void)state;
  cap = MAX_BYTES + SLACK;
  buf = malloc(cap);
  if (!buf)
    return -1;
  for (size_t i = 0; i < cap; i++)
    buf[i] = (unsigned char)(next_random() >> 56);
  return 0;
}

static int free_buffer(void **state) {
  (void)state;
  free(buf);
  return 0;
}

static void test_selected_path(void **state) {
  (void)state;
  check_all_sizes();
  print_message("content hash: checked the %s path\n", path_name());
}

/* The path for CPUs without AVX2. */
static void test_baseline_path(void **state) {
  (void)state;
#if CONTENT_HASH__AVX2
  atomic_store(&has_avx2, 0);
  check_all_sizes();
  atomic_store(&has_avx2, -1);
#else
  skip();
#endif
}

static void test_combine(void **state) {
  (void)state;
  for (int i = 0; i < 1000; i++) {
    uint64_t h[2] = {next_random(), i % 10 ? next_random() : 0};
    assert_int_equal(omplens_hash_combine(h[0], h[1]), libxxhash_xxh3_64(h, sizeof h));
  }
}

/* omplens_content_hash_of_zeros() streams: it must match hashing a buffer. */
static void test_zeros(void **state) {
  (void)state;
  static const size_t sizes[] = {0, 1, 16, 17, 128, 129, 240, 241, 1023, 1024, 1025, 65535,
                                 65536, 65537, 200000, OMPLENS_HASH_SPLIT - 1,
                                 OMPLENS_HASH_SPLIT, OMPLENS_HASH_SPLIT + 1,
                                 3 * OMPLENS_HASH_SPLIT + 7};
  unsigned char *zeros = calloc(1, 3 * OMPLENS_HASH_SPLIT + 7);
  assert_non_null(zeros);
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    uint64_t want = reference(zeros, sizes[i]), got = omplens_content_hash_of_zeros(sizes[i]);
    if (got != want)
      print_error("hash of %zu zeros: got %#llx, want %#llx\n", sizes[i],
                  (unsigned long long)got, (unsigned long long)want);
    assert_int_equal(got, want);
    assert_int_equal(omplens_content_hash(zeros, sizes[i]), want);
  }
  free(zeros);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_selected_path),
      cmocka_unit_test(test_baseline_path),
      cmocka_unit_test(test_combine),
      cmocka_unit_test(test_zeros),
  };
  return cmocka_run_group_tests(tests, fill_buffer, free_buffer);
}
