/* Unit tests of the bulk arrays (trace/bulk.c): small and mapped arrays,
 * zeroing, growth across the mapping threshold keeping the contents, and
 * the overflow checks. In a sanitizer build every array comes from malloc,
 * and the same tests then check that path under AddressSanitizer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "omplens_bulk.h"

static void fill(uint32_t *a, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++)
    a[i] = seed + (uint32_t)i * 2654435761u;
}

static void check(const uint32_t *a, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != seed + (uint32_t)i * 2654435761u)
      fail_msg("element %zu is %u, expected %u", i, a[i], seed + (uint32_t)i * 2654435761u);
}

static void test_zeroed_small_and_mapped(void **state) {
  (void)state;
  size_t sizes[] = {1, 100, OMPLENS_BULK_MAPPED / 8, OMPLENS_BULK_MAPPED, 3 * OMPLENS_BULK_MAPPED + 12};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    unsigned char *p = omplens_bulk_zalloc(sizes[k], 1);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 16, 0);
    for (size_t i = 0; i < sizes[k]; i++)
      if (p[i])
        fail_msg("byte %zu of %zu is %d", i, sizes[k], p[i]);
    memset(p, 0xab, sizes[k]); /* all of it is writable */
    omplens_bulk_free(p);
  }
}

static void test_zero_count_is_unique(void **state) {
  (void)state;
  void *a = omplens_bulk_alloc(0, 8), *b = omplens_bulk_alloc(0, 8);
  assert_non_null(a);
  assert_non_null(b);
  assert_ptr_not_equal(a, b);
  omplens_bulk_free(a);
  omplens_bulk_free(b);
  omplens_bulk_free(NULL);
}

/* Doubling from one element to 64 MiB crosses the threshold once and then
 * grows a mapping; every step keeps what was written before it. */
static void test_growth_keeps_contents(void **state) {
  (void)state;
  uint32_t *a = NULL;
  size_t n = 0;
  for (size_t cap = 1; cap <= ((size_t)64 << 20) / sizeof *a; cap *= 2) {
    uint32_t *g = omplens_bulk_realloc(a, cap, sizeof *a);
    assert_non_null(g);
    a = g;
    check(a, n, 7);
    fill(a, cap, 7);
    n = cap;
  }
  /* Shrinking keeps the head: to 4 MiB (still mapped), then to 4 KB (back
   * to the heap). */
  uint32_t *m = omplens_bulk_realloc(a, (size_t)1 << 20, sizeof *a);
  assert_non_null(m);
  check(m, (size_t)1 << 20, 7);
  uint32_t *s = omplens_bulk_realloc(m, 1000, sizeof *a);
  assert_non_null(s);
  check(s, 1000, 7);
  omplens_bulk_free(s);
}

static void test_overflow_is_refused(void **state) {
  (void)state;
  assert_null(omplens_bulk_alloc(SIZE_MAX / 2, 4));
  assert_null(omplens_bulk_zalloc(SIZE_MAX, 2));
  assert_null(omplens_bulk_alloc(4, 0));
  /* Sizes that pass the product check must not wrap when the mapping adds
   * its header and rounds up to huge pages: no system maps them. */
  for (size_t slack = 0; slack < ((size_t)8 << 20); slack += (size_t)1 << 18) {
    assert_null(omplens_bulk_alloc(1, SIZE_MAX - slack));
    assert_null(omplens_bulk_zalloc(SIZE_MAX / 4096 - slack / 4096, 4096));
  }
  uint32_t *a = omplens_bulk_alloc(10, sizeof *a);
  assert_non_null(a);
  fill(a, 10, 3);
  assert_null(omplens_bulk_realloc(a, SIZE_MAX / 2, sizeof *a));
  check(a, 10, 3); /* a failed resize leaves the array as it was */
  omplens_bulk_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_zeroed_small_and_mapped),
      cmocka_unit_test(test_zero_count_is_unique),
      cmocka_unit_test(test_growth_keeps_contents),
      cmocka_unit_test(test_overflow_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
