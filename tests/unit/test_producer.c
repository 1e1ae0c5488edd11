/* Unit tests of the compile commands DWARF records (clang
 * -grecord-command-line, annotate/directives_producer.c): reading
 * DW_AT_producer, and their place among the compile arguments
 * (compile_commands.json first, then the recorded command, then none).
 * PRODUCER_FIXTURE_DIR holds recorded.c; PRODUCER_FIXTURE_BIN is it built
 * with -grecord-command-line -DRECORDED_OFFLOAD -Iinc in that directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "directives_internal.h"

static const char *word(const omplens_directives__args *a, size_t i)
{
  return OMPLENS_DIRECTIVES__AT(a->argv, char *, i);
}

/* Index of s in a, or -1; printed with the whole vector when missing. */
static long find_word(const omplens_directives__args *a, const char *s)
{
  for (size_t i = 0; i < a->argv.len; i++)
    if (strcmp(word(a, i), s) == 0)
      return (long)i;
  return -1;
}

static void assert_has(const omplens_directives__args *a, const char *s)
{
  if (find_word(a, s) >= 0)
    return;
  for (size_t i = 0; i < a->argv.len; i++)
    print_message("  argv[%zu] = \"%s\"\n", i, word(a, i));
  fail_msg("\"%s\" is not among the %zu arguments", s, a->argv.len);
}

static void assert_lacks(const omplens_directives__args *a, const char *s)
{
  long at = find_word(a, s);
  if (at >= 0)
    fail_msg("\"%s\" is argument %ld, expected none", s, at);
}

/* ---- DW_AT_producer ---- */

/* What clang 19 wrote for -grecord-command-line '-DSTR="a b"' -DBS='x\y'. */
static void test_clang_command(void **state)
{
  (void)state;
  const char *producer =
      "Debian clang version 19.1.7 (3~deb12u1) /usr/lib/llvm-19/bin/clang -fopenmp "
      "-g -grecord-command-line -D STR=\"a\\ b\" -D BS=x\\\\y -I inc -std=gnu11 t.c -o t";
  omplens_directives__args a = {0};
  assert_int_equal(omplens_directives__producer_command(producer, &a), 0);
  assert_string_equal(word(&a, 0), "/usr/lib/llvm-19/bin/clang");
  assert_string_equal(word(&a, 1), "-fopenmp");
  assert_int_equal(find_word(&a, "-D") + 1, find_word(&a, "STR=\"a b\""));
  assert_has(&a, "BS=x\\y");
  assert_has(&a, "-std=gnu11");
  assert_string_equal(word(&a, a.argv.len - 1), "t");
  omplens_directives__args_free(&a);
}

/* A vendor's version in parentheses, clang++ and a path with a space. */
static void test_vendor_version(void **state)
{
  (void)state;
  const char *producer = "clang version 19.1.0 (https://github.com/llvm/llvm-project.git "
                         "a4bf6cd) /opt/my\\ llvm/bin/clang++ -std=c++17 -c main.cpp";
  omplens_directives__args a = {0};
  assert_int_equal(omplens_directives__producer_command(producer, &a), 0);
  assert_int_equal(a.argv.len, 4);
  assert_string_equal(word(&a, 0), "/opt/my llvm/bin/clang++");
  assert_string_equal(word(&a, 1), "-std=c++17");
  omplens_directives__args_free(&a);
}

/* No command: clang's version alone, gcc's switches (they leave out -D and
 * -I), no version, nothing. */
static void test_no_command(void **state)
{
  (void)state;
  static const char *const producers[] = {
      "Debian clang version 19.1.7 (3~deb12u1)",
      "GNU C11 12.2.0 -mtune=generic -march=x86-64 -g -std=c11 -fopenmp",
      "/usr/bin/clang -DX -c t.c",
      "-DX",
      "clang version 19 /cc",
      "",
      "   ",
      NULL,
  };
  for (size_t i = 0; i < sizeof(producers) / sizeof(producers[0]); i++) {
    omplens_directives__args a = {0};
    int rc = omplens_directives__producer_command(producers[i], &a);
    if (rc != 1 || a.argv.len != 0)
      fail_msg("producer %zu (%s): %d with %zu words, expected 1 with none", i,
               producers[i] ? producers[i] : "NULL", rc, a.argv.len);
    omplens_directives__args_free(&a);
  }
}

/* A backslash at the very end stays itself; runs of spaces are one. */
static void test_odd_spacing(void **state)
{
  (void)state;
  omplens_directives__args a = {0};
  assert_int_equal(omplens_directives__producer_command("clang version 1  /cc   -DX\\", &a), 0);
  assert_int_equal(a.argv.len, 2);
  assert_string_equal(word(&a, 1), "-DX\\");
  omplens_directives__args_free(&a);
}

/* ---- compile arguments ---- */

static char fixture_source[PATH_MAX];
static char fixture_inc[PATH_MAX];

static int setup(void **state)
{
  (void)state;
  if (realpath(PRODUCER_FIXTURE_DIR "/recorded.c", fixture_source) == NULL ||
      realpath(PRODUCER_FIXTURE_DIR "/inc", fixture_inc) == NULL)
    return -1;
  return 0;
}

static omplens_directive_index *index_of(const char *compdb, const char *const *binaries,
                                         size_t n)
{
  omplens_directive_options o = {.compile_commands = compdb, .binaries = binaries,
                                 .num_binaries = n};
  omplens_directive_index *ix = NULL;
  assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
  return ix;
}

static void args_of(omplens_directive_index *ix, omplens_directives__args *a)
{
  assert_int_equal(omplens_directives__build_args(ix, fixture_source, a), 0);
}

/* The binary's unit recorded -DRECORDED_OFFLOAD and -I inc, which is made
 * absolute against DW_AT_comp_dir: those are the build's flags. */
static void test_recorded_args(void **state)
{
  (void)state;
  const char *bins[] = {"/nonexistent/program", PRODUCER_FIXTURE_DIR, PRODUCER_FIXTURE_BIN};
  omplens_directive_index *ix = index_of(NULL, bins, 3);
  omplens_directives__args a = {0};
  args_of(ix, &a);
  assert_has(&a, "-DRECORDED_OFFLOAD");
  char inc[PATH_MAX + 3];
  snprintf(inc, sizeof(inc), "-I%s", fixture_inc);
  assert_has(&a, inc);
  assert_true(a.from_compdb);
  omplens_directives__args_free(&a);
  omplens_directive_index_destroy(ix);
}

/* Without binaries, or with ones that record nothing, the flags are
 * guessed. */
static void test_no_recorded_args(void **state)
{
  (void)state;
  const char *bins[] = {"/nonexistent/program", PRODUCER_FIXTURE_DIR "/recorded.c"};
  for (size_t n = 0; n <= 2; n += 2) {
    omplens_directive_index *ix = index_of(NULL, bins, n);
    omplens_directives__args a = {0};
    args_of(ix, &a);
    assert_lacks(&a, "-DRECORDED_OFFLOAD");
    assert_false(a.from_compdb);
    omplens_directives__args_free(&a);
    omplens_directive_index_destroy(ix);
  }
}

/* compile_commands.json comes first: its entry, not the recorded one. */
static void test_compdb_first(void **state)
{
  (void)state;
  char dir[] = "/tmp/omplens-producer-XXXXXX", path[PATH_MAX];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/compile_commands.json", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "[{\"directory\": \"%s\", \"file\": \"recorded.c\", "
             "\"command\": \"clang-19 -DFROM_COMPDB -c recorded.c\"}]\n", PRODUCER_FIXTURE_DIR);
  fclose(f);
  const char *bins[] = {PRODUCER_FIXTURE_BIN};
  omplens_directive_index *ix = index_of(path, bins, 1);
  omplens_directives__args a = {0};
  args_of(ix, &a);
  assert_has(&a, "-DFROM_COMPDB");
  assert_lacks(&a, "-DRECORDED_OFFLOAD");
  omplens_directives__args_free(&a);
  omplens_directive_index_destroy(ix);
  unlink(path);
  rmdir(dir);
}

/* Through the public lookup: with the recorded flags the directive under
 * #ifdef is active and the header is found (no partial parse, nothing
 * guessed); without them it is inactive, and the guess shows. */
static void test_directive_active(void **state)
{
  (void)state;
  const char *bins[] = {PRODUCER_FIXTURE_BIN};
  for (size_t n = 0; n <= 1; n++) {
    omplens_directive_index *ix = index_of(NULL, bins, n);
    omplens_directive_match m;
    /* line 10 of recorded.c: the pragma marked @recorded */
    assert_int_equal(omplens_directive_find(ix, fixture_source, 10, 0, "main",
                                            OMPLENS_RUNTIME_TARGET, &m), 0);
    assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
    unsigned inactive = m.directive->flags & OMPLENS_DIRF_INACTIVE;
    unsigned guessed = m.flags & (OMPLENS_MATCHF_GUESSED_FLAGS | OMPLENS_MATCHF_PARTIAL);
    if (n == 1 && (inactive || guessed))
      fail_msg("with the recorded flags: directive flags 0x%x, match flags 0x%x",
               m.directive->flags, m.flags);
    if (n == 0 && !(inactive && (m.flags & OMPLENS_MATCHF_GUESSED_FLAGS)))
      fail_msg("without them: directive flags 0x%x, match flags 0x%x", m.directive->flags,
               m.flags);
    omplens_directive_index_destroy(ix);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clang_command),
      cmocka_unit_test(test_vendor_version),
      cmocka_unit_test(test_no_command),
      cmocka_unit_test(test_odd_spacing),
      cmocka_unit_test(test_recorded_args),
      cmocka_unit_test(test_no_recorded_args),
      cmocka_unit_test(test_compdb_first),
      cmocka_unit_test(test_directive_active),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
