/* The units read ahead on threads (omplens_directives_prefetch), without
 * libclang: the threads' hand-over, the order the records are kept in and
 * the progress told, which .ci/run also runs under ThreadSanitizer (whose
 * view of libclang's own threads, uninstrumented, is not usable). Every
 * fixture is read from its text alone, as when libclang cannot be loaded.
 * DIRECTIVES_FIXTURE_DIR locates the fixtures. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_directives.h"

static const char *const NAMES[] = {"kinds.c",      "header_user.c", "macro_user.c",
                                    "plain_user.c", "caller_user.c", "device_api.c",
                                    "ifdef.c",      "partial.c"};
#define NUM (sizeof NAMES / sizeof *NAMES)

static char paths[NUM][4096];

static uint64_t told[NUM + 2], last_total;
static size_t num_told;

static void progress(void *ctx, uint64_t done, uint64_t total)
{
  (void)ctx;
  if (num_told < NUM + 2)
    told[num_told++] = done;
  last_total = total;
}

/* Every unit read ahead on threads, told as none done before the first
 * parse, then each once in order, and each file's directives the same as
 * an index that reads it when asked. */
static void test_threads(void **state)
{
  (void)state;
  const char *units[NUM];
  for (size_t i = 0; i < NUM; i++)
    units[i] = paths[i];
  omplens_directive_index *ahead = NULL, *lazy = NULL;
  assert_int_equal(omplens_directive_index_create(NULL, &ahead), 0);
  assert_int_equal(omplens_directive_index_create(NULL, &lazy), 0);
  assert_int_equal(omplens_directives_prefetch(ahead, units, NUM, progress, NULL), 0);
  assert_int_equal(num_told, NUM + 1);
  assert_int_equal(last_total, NUM);
  for (size_t i = 0; i <= NUM; i++)
    assert_int_equal(told[i], i);
  for (size_t i = 0; i < NUM; i++) {
    const omplens_directive *const *a, *const *b;
    size_t na, nb;
    assert_int_equal(omplens_directive_list(ahead, paths[i], &a, &na), 0);
    assert_int_equal(omplens_directive_list(lazy, paths[i], &b, &nb), 0);
    assert_int_equal(na, nb);
    for (size_t k = 0; k < na; k++) {
      assert_string_equal(a[k]->text, b[k]->text);
      assert_int_equal(a[k]->pragma.line, b[k]->pragma.line);
    }
  }
  omplens_directive_index_destroy(ahead);
  omplens_directive_index_destroy(lazy);
}

int main(int argc, char **argv)
{
  const char *dir = argc == 2 ? argv[1] : DIRECTIVES_FIXTURE_DIR;
  for (size_t i = 0; i < NUM; i++)
    snprintf(paths[i], sizeof paths[i], "%s/%s", dir, NAMES[i]);
  setenv("OMPLENS_LIBCLANG", "/nonexistent/libclang.so", 1); /* text alone */
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_threads)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
