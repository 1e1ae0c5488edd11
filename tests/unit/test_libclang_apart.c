/* Jobs run in helper processes (annotate/libclang_apart.c): this test's
 * binary is its own helper (`test_libclang_apart helper CACHE_DIR`), with
 * jobs of its own instead of libclang's parses: their parts arrive intact,
 * a helper is kept for the next job, one that dies is reported as such and
 * replaced, several threads share at most four helpers, one started
 * ahead runs the first job, and without a cache nothing runs apart. .ci/run also runs it under ThreadSanitizer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libclang_dl.h"

#define LONG_PART 100000

/* ---- the helper's jobs ---- */

static int noop_job(const char *const *parts, size_t n)
{
  (void)parts;
  return (int)n;
}

/* Ends the helper when the parts are not "a", NULL, "", then LONG_PART
 * letters: the caller then sees it crash. */
static int check_job(const char *const *parts, size_t n)
{
  bool ok = n == 4 && parts[0] != NULL && !strcmp(parts[0], "a") && parts[1] == NULL &&
            parts[2] != NULL && parts[2][0] == '\0' && parts[3] != NULL &&
            strlen(parts[3]) == LONG_PART;
  for (size_t i = 0; ok && i < LONG_PART; i++)
    ok = parts[3][i] == (char)('a' + i % 26);
  if (!ok)
    abort();
  return 0;
}

static int abort_job(const char *const *parts, size_t n)
{
  (void)parts;
  (void)n;
  abort();
}

static int exit_job(const char *const *parts, size_t n)
{
  (void)parts;
  (void)n;
  _exit(3);
}

static const omplens_libclang_job jobs[] = {
    {"noop", noop_job}, {"check", check_job}, {"abort", abort_job}, {"exit", exit_job}};

/* ---- the caller's side ---- */

static char cache[64];

static int run(const char *job, int *sig)
{
  const char *parts[] = {"x"};
  return omplens_libclang_apart(job, parts, 1, sig);
}

/* Nothing runs apart before a program to start is given, nor without the
 * parse cache. */
static void test_off_without_program_or_cache(void **state)
{
  (void)state;
  int sig = -1;
  assert_int_equal(run("noop", &sig), OMPLENS_LIBCLANG_HERE);
  omplens_libclang_apart_with("/proc/self/exe", "helper");
  omplens_libclang_cache_at(NULL);
  assert_int_equal(run("noop", &sig), OMPLENS_LIBCLANG_HERE);
  assert_int_equal(sig, 0);
  assert_int_equal(omplens_libclang_helpers_started(), 0);
  omplens_libclang_cache_at(cache);
}

/* The parts arrive as sent (a NULL, an empty and a long one), and the
 * helper started for the first job runs the next. */
static void test_parts_arrive_and_helper_is_kept(void **state)
{
  (void)state;
  char *long_part = malloc(LONG_PART + 1);
  assert_non_null(long_part);
  for (size_t i = 0; i < LONG_PART; i++)
    long_part[i] = (char)('a' + i % 26);
  long_part[LONG_PART] = '\0';
  const char *parts[] = {"a", NULL, "", long_part};
  unsigned before = omplens_libclang_helpers_started();
  int sig = -1;
  assert_int_equal(omplens_libclang_apart("check", parts, 4, &sig), OMPLENS_LIBCLANG_APART);
  assert_int_equal(sig, 0);
  assert_int_equal(omplens_libclang_apart("check", parts, 4, &sig), OMPLENS_LIBCLANG_APART);
  assert_int_equal(omplens_libclang_helpers_started(), before + 1);
  parts[2] = "not empty"; /* the helper's check fails: it aborts */
  assert_int_equal(omplens_libclang_apart("check", parts, 4, &sig), OMPLENS_LIBCLANG_CRASHED);
  assert_int_equal(sig, SIGABRT);
  free(long_part);
}

/* A helper that dies is reported with its signal, or 0 when it exited,
 * and the next job starts a new one. So does an unknown job's. */
static void test_dead_helper_is_replaced(void **state)
{
  (void)state;
  int sig = -1;
  assert_int_equal(run("abort", &sig), OMPLENS_LIBCLANG_CRASHED);
  assert_int_equal(sig, SIGABRT);
  unsigned before = omplens_libclang_helpers_started();
  assert_int_equal(run("noop", &sig), OMPLENS_LIBCLANG_APART);
  assert_int_equal(omplens_libclang_helpers_started(), before + 1);
  assert_int_equal(run("exit", &sig), OMPLENS_LIBCLANG_CRASHED);
  assert_int_equal(sig, 0);
  assert_int_equal(run("no such job", &sig), OMPLENS_LIBCLANG_CRASHED);
  assert_int_equal(run("noop", &sig), OMPLENS_LIBCLANG_APART);
  assert_int_equal(omplens_libclang_helpers_started(), before + 3);
}

/* A helper started ahead runs the first job; none is started ahead while
 * another runs; one that got no job ends with the others. */
static void test_warm_helper(void **state)
{
  (void)state;
  omplens_libclang_apart_end();
  unsigned before = omplens_libclang_helpers_started();
  omplens_libclang_apart_warm();
  assert_int_equal(omplens_libclang_helpers_started(), before + 1);
  omplens_libclang_apart_warm(); /* one runs: none more */
  assert_int_equal(omplens_libclang_helpers_started(), before + 1);
  int sig = -1;
  assert_int_equal(run("noop", &sig), OMPLENS_LIBCLANG_APART);
  assert_int_equal(omplens_libclang_helpers_started(), before + 1);
  omplens_libclang_apart_end();
  omplens_libclang_apart_warm(); /* never used: ended all the same */
  omplens_libclang_apart_end();
  assert_int_equal(omplens_libclang_helpers_started(), before + 2);
  assert_int_equal(run("noop", &sig), OMPLENS_LIBCLANG_APART);
  assert_int_equal(omplens_libclang_helpers_started(), before + 3);
}

static void *many_jobs(void *arg)
{
  int *failed = arg;
  for (int i = 0; i < 25; i++) {
    int sig;
    if (run("noop", &sig) != OMPLENS_LIBCLANG_APART)
      (*failed)++;
  }
  return NULL;
}

/* Eight threads share at most four helpers; after the end, a job starts a
 * new one. */
static void test_threads_share_four(void **state)
{
  (void)state;
  omplens_libclang_apart_end();
  unsigned before = omplens_libclang_helpers_started();
  pthread_t tid[8];
  int failed[8] = {0};
  for (int i = 0; i < 8; i++)
    assert_int_equal(pthread_create(&tid[i], NULL, many_jobs, &failed[i]), 0);
  for (int i = 0; i < 8; i++) {
    pthread_join(tid[i], NULL);
    assert_int_equal(failed[i], 0);
  }
  unsigned used = omplens_libclang_helpers_started() - before;
  assert_in_range(used, 1, 4);
  omplens_libclang_apart_end();
  int sig;
  assert_int_equal(run("noop", &sig), OMPLENS_LIBCLANG_APART);
  assert_int_equal(omplens_libclang_helpers_started(), before + used + 1);
  omplens_libclang_apart_end();
}

int main(int argc, char **argv)
{
  if (argc == 3 && !strcmp(argv[1], "helper"))
    return omplens_libclang_serve(0, argv[2], jobs, sizeof jobs / sizeof *jobs) ? 65 : 0;
  /* The cache directory is only named: these jobs store nothing. */
  snprintf(cache, sizeof cache, "/nonexistent/omplens-apart-%ld", (long)getpid());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_off_without_program_or_cache),
      cmocka_unit_test(test_parts_arrive_and_helper_is_kept),
      cmocka_unit_test(test_dead_helper_is_replaced),
      cmocka_unit_test(test_threads_share_four),
      cmocka_unit_test(test_warm_helper),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
