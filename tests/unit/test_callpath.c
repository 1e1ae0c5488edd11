/* The collector's call paths (collector/callpath.c): the frames above a
 * call site, and the per-thread cache of unwinds, which must never hand
 * out the frames of another caller. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "callpath.h"

static omplens_callpath__cache cache;

typedef struct captured {
  uint32_t n;
  uint64_t frames[OMPLENS_TF_MAX_PATH];
  uint64_t self; /* the return address into the caller of probe() */
} captured;

/* Captures the path above its own call site, as the collector's wrappers
 * do for the call that entered them. */
__attribute__((noinline)) static void probe(captured *c, int use_cache) {
  c->self = (uint64_t)(uintptr_t)__builtin_return_address(0);
  c->n = omplens_callpath__capture(c->self, 4, c->frames, OMPLENS_TF_MAX_PATH,
                                   use_cache ? &cache : NULL);
  __asm__ volatile("" ::: "memory"); /* no tail call: probe keeps its frame */
}

__attribute__((noinline)) static void via_a(captured *c, int use_cache) {
  probe(c, use_cache);
  __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void via_b(captured *c, int use_cache) {
  via_a(c, use_cache);
  __asm__ volatile("" ::: "memory");
}

static int same(const captured *x, const captured *y) {
  if (x->n != y->n)
    return 0;
  for (uint32_t i = 0; i < x->n; i++)
    if (x->frames[i] != y->frames[i])
      return 0;
  return 1;
}

/* The path is the site, then the frames above it: via_a's caller is this
 * test, or via_b. */
static void test_frames_above_the_site(void **state) {
  (void)state;
  captured direct, twice;
  via_a(&direct, 0);
  via_b(&twice, 0);
  assert_true(direct.n >= 2);
  assert_int_equal(twice.n, direct.n + 1 > OMPLENS_TF_MAX_PATH ? OMPLENS_TF_MAX_PATH : direct.n + 1);
  assert_int_equal(direct.self, twice.self); /* both from via_a's one call of probe */
  assert_int_equal(direct.frames[0], direct.self);
  assert_int_equal(twice.frames[0], twice.self);
  assert_true(direct.frames[1] != twice.frames[1]);
}

static volatile int calls_x, calls_y; /* keep the two callers apart */

__attribute__((noinline)) static void from_x(captured *c, int use_cache) {
  via_a(c, use_cache);
  calls_x += 1;
}

__attribute__((noinline)) static void from_y(captured *c, int use_cache) {
  via_a(c, use_cache);
  calls_y += 2;
}

/* One call site per caller, whether cached or not. */
__attribute__((noinline)) static void capture_from(captured *c, int which, int use_cache) {
  if (which)
    from_y(c, use_cache);
  else
    from_x(c, use_cache);
  __asm__ volatile("" ::: "memory");
}

/* The frames with the cache or without, from the same call site. */
__attribute__((noinline)) static void capture_at(captured *c, int which, int use_cache) {
  capture_from(c, which, use_cache);
  __asm__ volatile("" ::: "memory");
}

static volatile int two = 2; /* a loop the compiler cannot unroll into two calls */

/* One call site for both: what the loop passes comes from volatile
 * arrays (with `i == 0` in the arguments, clang peels the first iteration
 * into a call of its own), indexed by `i & 1` (with `i`, GCC bounds the
 * loop by the arrays' size and unrolls it into two calls). */
__attribute__((noinline)) static void capture_both(captured *cached, captured *plain, int which) {
  captured *volatile target[2] = {cached, plain};
  volatile int use_cache[2] = {1, 0};
  for (int i = 0; i < two; i++)
    capture_at(target[i & 1], which, use_cache[i & 1]);
  __asm__ volatile("" ::: "memory");
}

/* The same site (probe's call in via_a) with the same stack pointer,
 * reached by two callers in turn, more times than the cache has entries:
 * each call gets its own caller's frames, as an unwind without the cache
 * gives them. */
static void test_cache_tells_callers_apart(void **state) {
  (void)state;
  captured cached[2], plain[2];
  for (int round = 0; round < 3 * OMPLENS_CALLPATH_CACHED; round++) {
    int which = (round / 3) % 2; /* runs of three: hits, then a change */
    capture_both(&cached[which], &plain[which], which);
    assert_int_equal(cached[which].self, plain[which].self);
    assert_true(plain[which].n >= 2);
    assert_true(same(&cached[which], &plain[which]));
  }
  assert_true(plain[0].frames[1] != plain[1].frames[1]);
}

static void test_unknown_site(void **state) {
  (void)state;
  uint64_t frames[OMPLENS_TF_MAX_PATH];
  assert_int_equal(omplens_callpath__capture(0, 4, frames, OMPLENS_TF_MAX_PATH, &cache), 0);
  assert_int_equal(omplens_callpath__capture(1, 4, frames, OMPLENS_TF_MAX_PATH, &cache), 0);
  assert_true(omplens_tf__path_key(frames, 0) != 0);
}

int main(void) {
  omplens_callpath__prime();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frames_above_the_site),
      cmocka_unit_test(test_cache_tells_callers_apart),
      cmocka_unit_test(test_unknown_site),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
