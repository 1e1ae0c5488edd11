/* Unit tests of the symbolizer (annotate/omplens_symbolize.h).
 *
 * The golden data comes from real programs. The fixture in
 * tests/unit/symbolize_fixture/ prints return addresses taken on lines that
 * carry a "@NAME" marker in its source, plus its own load map. Each build of
 * it is run once; the tests symbolize what it printed and compare file,
 * line, column and function with the marked lines.
 *
 * Fixture builds (tests/unit/symbolize_fixture/CMakeLists.txt), all clang 19
 * with OpenMP offloading to the host, PIE:
 *   fixture_O0, _O1, _O2     -g (O2 from relative source names)
 *   fixture_nodebug          no -g
 *   fixture_dwarf4           -g -gdwarf-4 (no MD5 in the line table)
 *   fixture_variant          -g, other content, hence another build-id
 * SYMBOLIZE_FIXTURE_DIR and SYMBOLIZE_FIXTURE_SOURCE locate them; argv[1]
 * and argv[2] override both. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omplens_symbolize.h"

#define MAX_RECORDS 64

static const char *fixture_dir = SYMBOLIZE_FIXTURE_DIR;
static const char *fixture_source = SYMBOLIZE_FIXTURE_SOURCE;

/* "probe NAME 0x..", "target KIND 0x.." or "symbol NAME 0x.." */
typedef struct record {
  char kind[16];
  char name[32];
  uint64_t addr;
} record;

typedef struct fixture_run {
  const char *binary;
  omplens_module modules[MAX_RECORDS];
  size_t num_modules;
  record records[MAX_RECORDS];
  size_t num_records;
} fixture_run;

static fixture_run run_O0 = {.binary = "fixture_O0"};
static fixture_run run_O1 = {.binary = "fixture_O1"};
static fixture_run run_O2 = {.binary = "fixture_O2"};
static fixture_run run_nodebug = {.binary = "fixture_nodebug"};
static fixture_run run_dwarf4 = {.binary = "fixture_dwarf4"};

/* ---- reading the fixture and its source ---- */

static const char *fixture_path(const char *binary)
{
  static char path[4096];
  snprintf(path, sizeof(path), "%s/%s", fixture_dir, binary);
  return path;
}

static void parse_build_id(const char *hex, omplens_module *m)
{
  unsigned byte;
  while (hex[0] != '\0' && hex[1] != '\0' && m->build_id_len < sizeof(m->build_id) &&
         sscanf(hex, "%2x", &byte) == 1) {
    m->build_id[m->build_id_len++] = (uint8_t)byte;
    hex += 2;
  }
}

static void parse_line(const char *line, fixture_run *run)
{
  unsigned long long base, low, high, addr;
  char build_id[64], path[4096];
  record r = {0};
  if (sscanf(line, "module %llx %llx %llx %63s %4095s", &base, &low, &high,
             build_id, path) == 5 && run->num_modules < MAX_RECORDS) {
    omplens_module *m = &run->modules[run->num_modules++];
    m->path = strdup(path);
    m->base = base;
    m->low = low;
    m->high = high;
    parse_build_id(build_id, m);
  } else if (sscanf(line, "%15s %31s %llx", r.kind, r.name, &addr) == 3 &&
             run->num_records < MAX_RECORDS) {
    r.addr = addr;
    run->records[run->num_records++] = r;
  }
}

/* libomptarget 19 copies each device image it loads to /tmp/tmpfile_XXXXXX
 * and leaves it there; remove the one our run made, which also makes a
 * module that is really gone. */
static void remove_offload_images(const fixture_run *run)
{
  for (size_t i = 0; i < run->num_modules; i++) {
    if (strncmp(run->modules[i].path, "/tmp/tmpfile_", 13) == 0)
      unlink(run->modules[i].path);
  }
}

static int run_fixture(void **state)
{
  fixture_run *run = *state;
  FILE *out = popen(fixture_path(run->binary), "r");
  if (out == NULL)
    return -1;
  char line[8192];
  while (fgets(line, sizeof(line), out) != NULL)
    parse_line(line, run);
  int status = pclose(out);
  remove_offload_images(run);
  if (status != 0 || run->num_modules == 0) {
    fprintf(stderr, "%s: exit status %d, %zu modules\n", run->binary, status,
            run->num_modules);
    return -1;
  }
  return 0;
}

static int free_run(void **state)
{
  fixture_run *run = *state;
  for (size_t i = 0; i < run->num_modules; i++)
    free((char *)run->modules[i].path);
  run->num_modules = run->num_records = 0;
  return 0;
}

static uint64_t find_record(const fixture_run *run, const char *kind,
                            const char *name, int nth)
{
  int seen = 0;
  for (size_t i = 0; i < run->num_records; i++) {
    const record *r = &run->records[i];
    if (strcmp(r->kind, kind) == 0 && strcmp(r->name, name) == 0 && seen++ == nth)
      return r->addr;
  }
  fail_msg("%s: no record %s %s #%d", run->binary, kind, name, nth);
  return 0;
}

/* Line number of the "@name" marker in the fixture's source, and in
 * *text (if not NULL) that line. */
static uint32_t marker_line(const char *name, char *text, size_t size)
{
  char tag[64], line[1024];
  snprintf(tag, sizeof(tag), "@%s */", name);
  FILE *src = fopen(fixture_source, "r");
  assert_non_null(src);
  uint32_t number = 0, found = 0;
  while (found == 0 && fgets(line, sizeof(line), src) != NULL) {
    number++;
    if (strstr(line, tag) != NULL)
      found = number;
  }
  fclose(src);
  if (found == 0)
    fail_msg("no marker %s in %s", tag, fixture_source);
  if (text != NULL)
    snprintf(text, size, "%s", line);
  return found;
}

/* 1-based column of needle on the "@name" line, as DWARF counts them. */
static uint32_t marker_column(const char *name, const char *needle)
{
  char line[1024];
  marker_line(name, line, sizeof(line));
  const char *at = strstr(line, needle);
  assert_non_null(at);
  return (uint32_t)(at - line) + 1;
}

/* ---- assertions ---- */

static omplens_symbolizer *new_symbolizer(const fixture_run *run)
{
  omplens_symbolizer *s = NULL;
  assert_int_equal(omplens_symbolizer_create(run->modules, run->num_modules, &s), 0);
  assert_non_null(s);
  return s;
}

static void symbolize_ok(omplens_symbolizer *s, uint64_t codeptr,
                         omplens_source_loc *loc)
{
  assert_int_equal(omplens_symbolize(s, codeptr, loc), 0);
  if (loc->status != OMPLENS_SYM_OK) {
    char text[1024];
    omplens_symbolize_format(loc, text, sizeof(text));
    fail_msg("0x%llx: %s", (unsigned long long)codeptr, text);
  }
  assert_true(loc->flags & OMPLENS_SYMF_VERIFIED);
}

static void assert_str(const char *actual, const char *expected)
{
  if (actual == NULL)
    fail_msg("got NULL, expected \"%s\"", expected);
  assert_string_equal(actual, expected);
}

/* An absolute path to the fixture's source. fixture_O2 is compiled from a
 * relative name, and its comp_dir is the compiler's getcwd(), which has
 * symlinks resolved: compare real paths. */
static void assert_source_file(const char *file)
{
  if (file == NULL || file[0] != '/')
    fail_msg("source file \"%s\" is not an absolute path", file != NULL ? file : "(null)");
  char *real = realpath(file, NULL), *expected = realpath(fixture_source, NULL);
  assert_non_null(real);
  assert_non_null(expected);
  assert_string_equal(real, expected);
  free(real);
  free(expected);
}

/* file:line:column of loc is the "@marker" line at the needle's column. */
static void assert_at(const omplens_source_loc *loc, const char *marker,
                      const char *needle)
{
  assert_source_file(loc->file);
  assert_int_equal(loc->line, marker_line(marker, NULL, 0));
  assert_int_equal(loc->column, marker_column(marker, needle));
}

/* ---- tests on the -g builds (state: fixture_run) ---- */

static void test_direct_call(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  omplens_source_loc loc;
  uint64_t codeptr = find_record(run, "probe", "direct", 0);
  symbolize_ok(s, codeptr, &loc);
  assert_at(&loc, "direct-call", "probe(");
  assert_str(loc.function, "main");
  assert_str(loc.symbol, "main");
  assert_int_equal(loc.num_inline, 0);
  assert_str(loc.module, fixture_path(run->binary));
  assert_int_equal(loc.module_offset, codeptr - run->modules[0].base);
  assert_false(loc.flags & OMPLENS_SYMF_KERNEL_LAUNCH);
  omplens_symbolizer_destroy(s);
}

/* clang 19 gives kernel launches no line of their own (docs/symbolize.md):
 * the line table says the statement before; the symbolizer must still
 * answer the `#pragma omp target` line. */
static void check_kernel(omplens_symbolizer *s, const fixture_run *run, int nth,
                         const char *marker, const char *function)
{
  omplens_source_loc loc;
  symbolize_ok(s, find_record(run, "target", "kernel", nth), &loc);
  assert_at(&loc, marker, "#pragma");
  assert_str(loc.function, function);
  if (loc.flags & OMPLENS_SYMF_KERNEL_LAUNCH)
    assert_int_not_equal(loc.table_line, loc.line);
}

static void test_kernel_launches(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  check_kernel(s, run, 0, "target", "main");
  check_kernel(s, run, 1, "teams", "main");
  check_kernel(s, run, 2, "target-nowait", ".omp_outlined.");
  check_kernel(s, run, 3, "inlined-target", "helper");
  /* The region right after a statement is the case the fix-up exists for. */
  omplens_source_loc loc;
  symbolize_ok(s, find_record(run, "target", "kernel", 0), &loc);
  assert_true(loc.flags & OMPLENS_SYMF_KERNEL_LAUNCH);
  assert_int_equal(loc.table_line, marker_line("direct-call", NULL, 0));
  omplens_symbolizer_destroy(s);
}

static void check_data_op(omplens_symbolizer *s, const fixture_run *run,
                          const char *entry, int nth, const char *marker,
                          const char *needle)
{
  omplens_source_loc loc;
  symbolize_ok(s, find_record(run, "target", entry, nth), &loc);
  assert_at(&loc, marker, needle);
  assert_str(loc.function, "main");
  assert_false(loc.flags & OMPLENS_SYMF_KERNEL_LAUNCH);
}

static void test_data_directives(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  check_data_op(s, run, "begin", 0, "enter-data", "#pragma");
  check_data_op(s, run, "update", 0, "update", "#pragma");
  check_data_op(s, run, "end", 0, "exit-data", "#pragma");
  /* clang 19 gives `target data` no location at all, and DWARF has no row
   * on its line: its begin shows as the statement before, its end as the
   * last statement of its body. This pins that limitation down
   * (docs/symbolize.md); it is not what a user would want. */
  check_data_op(s, run, "begin", 1, "before-data", "+=");
  check_data_op(s, run, "end", 1, "last-in-data", "+=");
  omplens_symbolizer_destroy(s);
}

static void assert_inlined_helper(const omplens_source_loc *loc)
{
  assert_str(loc->function, "helper");
  assert_str(loc->symbol, "main");
  assert_int_equal(loc->num_inline, 1);
  assert_false(loc->flags & OMPLENS_SYMF_INLINE_TRUNCATED);
  const omplens_inline_frame *f = &loc->inlined[0];
  assert_str(f->function, "helper");
  assert_str(f->caller, "main");
  assert_source_file(f->call_file);
  assert_int_equal(f->call_line, marker_line("inline-site", NULL, 0));
  assert_int_equal(f->call_column, marker_column("inline-site", "helper("));
}

static void test_inline_chain(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  omplens_source_loc loc;
  symbolize_ok(s, find_record(run, "probe", "inlined", 0), &loc);
  assert_at(&loc, "inlined-call", "probe(");
  assert_inlined_helper(&loc);
  symbolize_ok(s, find_record(run, "target", "kernel", 3), &loc);
  assert_inlined_helper(&loc);
  omplens_symbolizer_destroy(s);
}

/* Where a function was inlined near a call: helper's instance in main,
 * whether the call is in it (the inlined region's launch) or beside it
 * (main's own first region); nothing for a function never inlined there,
 * and then the plain symbolization. */
static void test_inlined_near(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  omplens_source_loc loc;
  uint64_t inlined = find_record(run, "target", "kernel", 3);
  assert_int_equal(omplens_symbolize_inlined_near(s, inlined, "helper", &loc), 1);
  assert_inlined_helper(&loc);
  assert_int_equal(
      omplens_symbolize_inlined_near(s, find_record(run, "target", "kernel", 0), "helper", &loc),
      1);
  assert_inlined_helper(&loc);
  assert_int_equal(omplens_symbolize_inlined_near(s, inlined, "no_such", &loc), 0);
  assert_str(loc.function, "helper");
  assert_int_equal(omplens_symbolize_inlined_near(s, inlined, NULL, &loc), 0);
  omplens_symbolizer_destroy(s);
}

/* An address that is not a return address still gets its symbol; the
 * offset counts from the address given, as backtraces print it. */
static void test_symbol_offset(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  omplens_source_loc loc;
  symbolize_ok(s, find_record(run, "symbol", "main", 0) + 1, &loc);
  assert_str(loc.function, "main");
  assert_str(loc.symbol, "main");
  assert_int_equal(loc.symbol_offset, 1);
  omplens_symbolizer_destroy(s);
}

static void test_cache(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  omplens_source_loc first, again;
  uint64_t codeptr = find_record(run, "probe", "inlined", 0);
  symbolize_ok(s, codeptr, &first);
  for (size_t i = 0; i < run->num_records; i++)
    assert_int_equal(omplens_symbolize(s, run->records[i].addr, &again), 0);
  symbolize_ok(s, codeptr, &again);
  assert_memory_equal(&first, &again, sizeof(first));
  omplens_symbolizer_destroy(s);
}

/* A shared library at a non-zero base. Debian ships libc without DWARF
 * unless libc6-dbg is installed, so either status is right; the symbol is
 * what must come out. */
static void test_shared_library(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  omplens_source_loc loc;
  assert_int_equal(omplens_symbolize(s, find_record(run, "symbol", "printf", 0) + 1, &loc), 0);
  assert_true(loc.status == OMPLENS_SYM_OK || loc.status == OMPLENS_SYM_NO_DEBUG_INFO);
  assert_non_null(loc.module);
  assert_non_null(strstr(loc.module, "libc.so"));
  assert_non_null(loc.symbol);
  assert_non_null(strstr(loc.symbol, "printf"));
  assert_int_equal(loc.symbol_offset, 1);
  omplens_symbolizer_destroy(s);
}

/* The symbolizer keeps no pointer into the caller's array or strings. */
static void test_copies_modules(void **state)
{
  fixture_run *run = *state;
  omplens_module *copy = calloc(run->num_modules, sizeof(*copy));
  char **paths = calloc(run->num_modules, sizeof(*paths));
  assert_non_null(copy);
  assert_non_null(paths);
  for (size_t i = 0; i < run->num_modules; i++) {
    copy[i] = run->modules[i];
    copy[i].path = paths[i] = strdup(run->modules[i].path);
  }
  omplens_symbolizer *s = NULL;
  assert_int_equal(omplens_symbolizer_create(copy, run->num_modules, &s), 0);
  for (size_t i = 0; i < run->num_modules; i++)
    free(paths[i]);
  memset(copy, 0xa5, run->num_modules * sizeof(*copy));
  free(copy);
  free(paths);
  omplens_source_loc loc;
  symbolize_ok(s, find_record(run, "probe", "direct", 0), &loc);
  assert_at(&loc, "direct-call", "probe(");
  omplens_symbolizer_destroy(s);
}

/* ---- statuses ---- */

static void test_no_debug_info(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  omplens_source_loc loc;
  uint64_t codeptr = find_record(run, "probe", "direct", 0);
  assert_int_equal(omplens_symbolize(s, codeptr, &loc), 0);
  assert_int_equal(loc.status, OMPLENS_SYM_NO_DEBUG_INFO);
  assert_true(loc.flags & OMPLENS_SYMF_VERIFIED);
  assert_null(loc.file);
  assert_int_equal(loc.line, 0);
  assert_str(loc.function, "main");
  assert_str(loc.symbol, "main");
  assert_int_equal(loc.symbol_offset, codeptr - find_record(run, "symbol", "main", 0));
  char text[4352], expected[4352];
  omplens_symbolize_format(&loc, text, sizeof(text));
  snprintf(expected, sizeof(expected), "main+0x%llx (%s)",
           (unsigned long long)loc.symbol_offset, fixture_path(run->binary));
  assert_string_equal(text, expected);
  omplens_symbolizer_destroy(s);
}

/* The main module's record with its path changed; build-id kept. */
static omplens_symbolizer *with_main_path(const fixture_run *run,
                                          const char *path, bool keep_id)
{
  omplens_module modules[MAX_RECORDS];
  memcpy(modules, run->modules, run->num_modules * sizeof(modules[0]));
  modules[0].path = path;
  if (!keep_id)
    modules[0].build_id_len = 0;
  omplens_symbolizer *s = NULL;
  assert_int_equal(omplens_symbolizer_create(modules, run->num_modules, &s), 0);
  return s;
}

static void assert_status(omplens_symbolizer *s, uint64_t codeptr, int status)
{
  omplens_source_loc loc;
  assert_int_equal(omplens_symbolize(s, codeptr, &loc), 0);
  assert_string_equal(omplens_symbolize_status_name(loc.status),
                      omplens_symbolize_status_name(status));
  if (status != OMPLENS_SYM_OK && status != OMPLENS_SYM_NO_DEBUG_INFO) {
    assert_null(loc.file);
    assert_null(loc.function);
    assert_null(loc.symbol);
    assert_int_equal(loc.line, 0);
  }
}

static void test_build_id_mismatch(void **state)
{
  fixture_run *run = *state;
  char variant[4096];
  snprintf(variant, sizeof(variant), "%s", fixture_path("fixture_variant"));
  uint64_t codeptr = find_record(run, "probe", "direct", 0);
  omplens_symbolizer *s = with_main_path(run, variant, true);
  assert_status(s, codeptr, OMPLENS_SYM_BUILD_ID_MISMATCH);
  omplens_source_loc loc;
  omplens_symbolize(s, codeptr, &loc);
  assert_str(loc.module, variant);
  assert_int_equal(loc.module_offset, codeptr - run->modules[0].base);
  omplens_symbolizer_destroy(s);
  /* Without a recorded build-id the path is trusted, and says so. */
  s = with_main_path(run, fixture_path(run->binary), false);
  assert_int_equal(omplens_symbolize(s, codeptr, &loc), 0);
  assert_int_equal(loc.status, OMPLENS_SYM_OK);
  assert_false(loc.flags & OMPLENS_SYMF_VERIFIED);
  omplens_symbolizer_destroy(s);
}

static void test_module_missing(void **state)
{
  fixture_run *run = *state;
  uint64_t codeptr = find_record(run, "probe", "direct", 0);
  omplens_symbolizer *s = with_main_path(run, "/nonexistent/omplens/fixture", true);
  assert_status(s, codeptr, OMPLENS_SYM_MODULE_MISSING);
  omplens_symbolizer_destroy(s);
  /* The device image libomptarget loaded, removed after the run. */
  s = new_symbolizer(run);
  for (size_t i = 0; i < run->num_modules; i++) {
    if (strncmp(run->modules[i].path, "/tmp/tmpfile_", 13) == 0)
      assert_status(s, run->modules[i].low + 16, OMPLENS_SYM_MODULE_MISSING);
  }
  omplens_symbolizer_destroy(s);
}

static void test_module_unreadable(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = with_main_path(run, fixture_source, true);
  assert_status(s, find_record(run, "probe", "direct", 0), OMPLENS_SYM_MODULE_UNREADABLE);
  omplens_symbolizer_destroy(s);
}

static void test_no_module(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  assert_status(s, 0, OMPLENS_SYM_NO_MODULE);
  assert_status(s, 16, OMPLENS_SYM_NO_MODULE);
  assert_status(s, UINT64_MAX, OMPLENS_SYM_NO_MODULE);
  omplens_source_loc loc;
  omplens_symbolize(s, 16, &loc);
  assert_null(loc.module);
  omplens_symbolizer_destroy(s);
  /* No modules at all is a valid, empty load map. */
  assert_int_equal(omplens_symbolizer_create(NULL, 0, &s), 0);
  assert_status(s, 0x401000, OMPLENS_SYM_NO_MODULE);
  omplens_symbolizer_destroy(s);
}

/* ---- the unit's source files ---- */

/* The file's MD5, as `md5sum` computes it. */
static void md5_of(const char *path, uint8_t out[16])
{
  char cmd[4200], hex[40] = {0};
  snprintf(cmd, sizeof(cmd), "md5sum '%s'", path);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  assert_non_null(fgets(hex, sizeof(hex), p));
  pclose(p);
  for (int i = 0; i < 16; i++) {
    unsigned byte;
    assert_int_equal(sscanf(hex + 2 * i, "%2x", &byte), 1);
    out[i] = (uint8_t)byte;
  }
}

/* fixture.h next to the fixture's source. */
static const char *fixture_header(void)
{
  static char path[4096];
  snprintf(path, sizeof(path), "%s", fixture_source);
  strcpy(strrchr(path, '/') + 1, "fixture.h");
  return path;
}

static void assert_same_file(const char *actual, const char *expected)
{
  char *a = actual != NULL ? realpath(actual, NULL) : NULL, *e = realpath(expected, NULL);
  if (a == NULL || e == NULL || strcmp(a, e) != 0)
    fail_msg("got %s, expected %s", actual != NULL ? actual : "(null)", expected);
  free(a);
  free(e);
}

/* Names as the runtime gives them, relative to the compiler's directory
 * (fixture_O2 was built from relative names there), and their MD5. */
static void test_source_file(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  uint64_t codeptr = find_record(run, "probe", "direct", 0);
  uint8_t want[16];
  static const char *const names[] = {"fixture.c", "./fixture.c", NULL};
  for (int i = 0; names[i] != NULL; i++) {
    omplens_source_file f;
    assert_int_equal(omplens_symbolize_source_file(s, codeptr, names[i], &f), 0);
    assert_same_file(f.path, fixture_source);
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", fixture_source);
    *strrchr(dir, '/') = '\0';
    assert_same_file(f.comp_dir, dir);
    assert_true(f.listed);
    assert_true(f.has_md5);
    md5_of(fixture_source, want);
    assert_memory_equal(f.md5, want, 16);
    assert_same_file(f.unit, fixture_source);
  }
  omplens_source_file f;
  assert_int_equal(omplens_symbolize_source_file(s, codeptr, "./fixture.h", &f), 0);
  assert_same_file(f.path, fixture_header());
  /* A header's unit is the source that was compiled: it is parsed through it. */
  assert_same_file(f.unit, fixture_source);
  assert_true(f.has_md5);
  md5_of(fixture_header(), want);
  assert_memory_equal(f.md5, want, 16);
  /* Absolute names too; a file the unit does not list has no MD5. */
  assert_int_equal(omplens_symbolize_source_file(s, codeptr, fixture_source, &f), 0);
  assert_true(f.has_md5);
  assert_int_equal(omplens_symbolize_source_file(s, codeptr, "elsewhere/none.c", &f), 0);
  assert_non_null(f.path);
  assert_false(f.listed);
  assert_false(f.has_md5);
  /* No unit: only an absolute name comes back. */
  assert_int_equal(omplens_symbolize_source_file(s, 16, "fixture.c", &f), 0);
  assert_null(f.path);
  assert_null(f.comp_dir);
  assert_null(f.unit);
  assert_int_equal(omplens_symbolize_source_file(s, 16, "/src/a.c", &f), 0);
  assert_str(f.path, "/src/a.c");
  assert_false(f.listed);
  omplens_symbolizer_destroy(s);
}

/* DWARF 4 line tables record no MD5: the file is listed, unstamped. */
static void test_source_file_dwarf4(void **state)
{
  fixture_run *run = *state;
  omplens_symbolizer *s = new_symbolizer(run);
  omplens_source_file f;
  assert_int_equal(omplens_symbolize_source_file(s, find_record(run, "probe", "direct", 0),
                                                 fixture_source, &f), 0);
  assert_true(f.listed);
  assert_false(f.has_md5);
  omplens_symbolizer_destroy(s);
}

/* ---- API edges ---- */

static void test_errors_and_names(void **state)
{
  (void)state;
  omplens_symbolizer *s = (omplens_symbolizer *)1;
  omplens_module module = {0};
  assert_int_equal(omplens_symbolizer_create(NULL, 1, &s), OMPLENS_SYMBOLIZE_EINVAL);
  assert_null(s);
  assert_int_equal(omplens_symbolizer_create(&module, 1, NULL), OMPLENS_SYMBOLIZE_EINVAL);
  omplens_source_loc loc;
  assert_int_equal(omplens_symbolize(NULL, 0x1234, &loc), OMPLENS_SYMBOLIZE_EINVAL);
  assert_int_equal(loc.status, OMPLENS_SYM_UNRESOLVED);
  assert_int_equal(omplens_symbolize(NULL, 0x1234, NULL), OMPLENS_SYMBOLIZE_EINVAL);
  omplens_source_file f;
  assert_int_equal(omplens_symbolize_source_file(NULL, 0x1234, "a.c", &f),
                   OMPLENS_SYMBOLIZE_EINVAL);
  assert_null(f.path);
  omplens_symbolizer_destroy(NULL);
  assert_string_equal(omplens_symbolize_strerror(OMPLENS_SYMBOLIZE_ENOMEM), "out of memory");
  assert_string_equal(omplens_symbolize_strerror(-99), "unknown symbolizer error");
  assert_string_equal(omplens_symbolize_status_name(OMPLENS_SYM_BUILD_ID_MISMATCH),
                      "build-id-mismatch");
  assert_string_equal(omplens_symbolize_status_name(99), "unknown");
}

static void test_format(void **state)
{
  (void)state;
  char text[128];
  omplens_source_loc loc = {.status = OMPLENS_SYM_OK, .file = "/src/a.c",
                            .line = 12, .column = 3, .function = "f"};
  omplens_symbolize_format(&loc, text, sizeof(text));
  assert_string_equal(text, "/src/a.c:12:3 (f)");
  loc.column = 0;
  omplens_symbolize_format(&loc, text, sizeof(text));
  assert_string_equal(text, "/src/a.c:12 (f)");
  loc = (omplens_source_loc){.status = OMPLENS_SYM_BUILD_ID_MISMATCH,
                             .module = "/bin/x", .module_offset = 0x1a2b};
  omplens_symbolize_format(&loc, text, sizeof(text));
  assert_string_equal(text, "/bin/x+0x1a2b [build-id-mismatch]");
  loc = (omplens_source_loc){.status = OMPLENS_SYM_NO_MODULE};
  assert_int_equal(omplens_symbolize_format(&loc, text, 4), 11);
  assert_string_equal(text, "[no");
}

#define ON(run, test) cmocka_unit_test_prestate(test, &run)

int main(int argc, char **argv)
{
  if (argc > 2) {
    fixture_dir = argv[1];
    fixture_source = argv[2];
  }
  const struct CMUnitTest tests[] = {
      ON(run_O0, test_direct_call),       ON(run_O1, test_direct_call),
      ON(run_O2, test_direct_call),       ON(run_O0, test_kernel_launches),
      ON(run_O1, test_kernel_launches),   ON(run_O2, test_kernel_launches),
      ON(run_O0, test_data_directives),   ON(run_O1, test_data_directives),
      ON(run_O2, test_data_directives),   ON(run_O0, test_inline_chain),
      ON(run_O1, test_inline_chain),      ON(run_O2, test_inline_chain),      ON(run_O0, test_inlined_near),
      ON(run_O2, test_inlined_near),
      ON(run_O0, test_symbol_offset),     ON(run_O2, test_symbol_offset),
      ON(run_O0, test_cache),             ON(run_O2, test_shared_library),
      ON(run_O2, test_copies_modules),    ON(run_nodebug, test_no_debug_info),
      ON(run_O0, test_build_id_mismatch), ON(run_O0, test_module_missing),
      ON(run_O0, test_module_unreadable), ON(run_O0, test_no_module),
      ON(run_O2, test_source_file),       ON(run_dwarf4, test_source_file_dwarf4),
      cmocka_unit_test(test_errors_and_names), cmocka_unit_test(test_format),
  };
  int failed = 0;
  fixture_run *runs[] = {&run_O0, &run_O1, &run_O2, &run_nodebug, &run_dwarf4};
  for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
    void *state = runs[i];
    if (run_fixture(&state) != 0)
      failed++;
  }
  if (failed == 0)
    failed = cmocka_run_group_tests_name("symbolize", tests, NULL, NULL);
  for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
    void *state = runs[i];
    free_run(&state);
  }
  return failed != 0;
}
