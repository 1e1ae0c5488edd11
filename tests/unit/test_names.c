/* Unit tests of the names map (trace/names.c): values found by equal text
 * (not by pointer), growth past many rehashes keeping every entry, a value
 * replaced, and names that are absent, NULL or in an empty map. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_names.h"

#define MANY 5000

static void test_empty_and_absent(void **state) {
  (void)state;
  omplens_names m = {0};
  assert_true(omplens_names_get(&m, "/src/a.c") == OMPLENS_NAMES_NONE);
  assert_true(omplens_names_get(&m, NULL) == OMPLENS_NAMES_NONE);
  assert_int_equal(omplens_names_put(&m, NULL, 1), -1);
  assert_int_equal(omplens_names_put(&m, "/src/a.c", 7), 0);
  assert_true(omplens_names_get(&m, "/src/b.c") == OMPLENS_NAMES_NONE);
  assert_true(omplens_names_get(&m, "/src/a.") == OMPLENS_NAMES_NONE);
  assert_true(omplens_names_get(&m, "") == OMPLENS_NAMES_NONE);
  omplens_names_free(&m);
  assert_true(omplens_names_get(&m, "/src/a.c") == OMPLENS_NAMES_NONE);
}

/* Paths that share long prefixes, as a build's files do; looked up through
 * copies, so that only the text can match. */
static void test_many_paths(void **state) {
  (void)state;
  static char names[MANY][48], copy[48];
  omplens_names m = {0};
  for (size_t i = 0; i < MANY; i++) {
    snprintf(names[i], sizeof names[i], "/home/user/project/src/unit%zu.c", i);
    assert_int_equal(omplens_names_put(&m, names[i], i), 0);
  }
  assert_int_equal(m.count, MANY);
  for (size_t i = 0; i < MANY; i++) {
    snprintf(copy, sizeof copy, "/home/user/project/src/unit%zu.c", i);
    if (omplens_names_get(&m, copy) != i)
      fail_msg("%s gives %zu, expected %zu", copy, omplens_names_get(&m, copy), i);
  }
  snprintf(copy, sizeof copy, "/home/user/project/src/unit%d.c", MANY);
  assert_true(omplens_names_get(&m, copy) == OMPLENS_NAMES_NONE);
  omplens_names_free(&m);
}

static void test_value_replaced(void **state) {
  (void)state;
  omplens_names m = {0};
  char first[] = "/src/a.c", second[] = "/src/a.c";
  assert_int_equal(omplens_names_put(&m, first, 1), 0);
  assert_int_equal(omplens_names_put(&m, second, 2), 0);
  assert_int_equal(m.count, 1);
  assert_int_equal(omplens_names_get(&m, "/src/a.c"), 2);
  omplens_names_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_and_absent),
      cmocka_unit_test(test_many_paths),
      cmocka_unit_test(test_value_replaced),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
