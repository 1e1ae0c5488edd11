/* Unit tests of the progress line's arithmetic (cli/progress.c): the share
 * of the whole analysis done across steps and traces, the time left, and
 * the line fitted to the terminal's width. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "progress.h"

/* The report's cost with every output, as the CLI expects them. */
static unsigned all_outputs(void) {
  static const char *names[] = {"json", "summary", "sarif", "timeline",
                                "markdown", "html", "patch", "document"};
  unsigned cost = 0;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    cost += omplens_progress__cost(names[i]);
  return cost;
}

static void assert_share(const omplens_progress__figures *f, double want) {
  double got = omplens_progress__share(f);
  if (got < want - 1e-9 || got > want + 1e-9)
    fail_msg("share %.6f, expected %.6f", got, want);
}

/* One trace: half read, then half searched, then the report half written. */
static void test_share_one_trace(void **state) {
  (void)state;
  double read = omplens_progress__cost("read"), detect = omplens_progress__cost("detect");
  double trace = read + detect + omplens_progress__cost("attribute");
  unsigned report = all_outputs();
  double whole = trace + report;
  omplens_progress__figures f = {.all_bytes = 1000, .trace_bytes = 1000, .report_cost = report,
                                 .step = OMPLENS_PROGRESS_READ, .done = 50, .total = 100};
  assert_share(&f, read * 0.5 / whole);
  f.step = OMPLENS_PROGRESS_DETECT;
  assert_share(&f, (read + detect * 0.5) / whole);
  f.step = OMPLENS_PROGRESS_ATTRIBUTE;
  f.done = f.total = 0; /* no count: the step counts at its end */
  assert_share(&f, (read + detect) / whole);
  f.step = OMPLENS_PROGRESS_REPORT;
  f.done_bytes = 1000;
  f.trace_bytes = 0;
  f.report_done = report / 2;
  assert_share(&f, (trace + report / 2) / whole);
  /* timeline.json counts its events while it is written */
  f.done = 25;
  f.total = 100;
  assert_share(&f, (trace + report / 2 + omplens_progress__cost("timeline") * 0.25) / whole);
  f.done = f.total = 0;
  f.report_done = report;
  assert_share(&f, 1.0);
}

/* Traces weigh by their bytes; a count past its total and outputs done
 * beyond those expected do not take the share past its step. */
static void test_share_several_traces(void **state) {
  (void)state;
  double read = omplens_progress__cost("read"), detect = omplens_progress__cost("detect");
  double trace = read + detect + omplens_progress__cost("attribute");
  unsigned report = omplens_progress__cost("json");
  double whole = 400 * (trace + report);
  omplens_progress__figures f = {.all_bytes = 400, .done_bytes = 100, .trace_bytes = 300,
                                 .report_cost = report, .step = OMPLENS_PROGRESS_READ,
                                 .done = 300, .total = 100};
  assert_share(&f, (100 * trace + 300 * read) / whole);
  f.step = OMPLENS_PROGRESS_REPORT;
  f.done_bytes = 400;
  f.trace_bytes = 0;
  f.report_done = 10 * report;
  assert_share(&f, 1.0);
}

/* Stepping through two traces and the outputs, the share never goes back. */
static void test_share_grows(void **state) {
  (void)state;
  omplens_progress__figures f = {.all_bytes = 3000, .report_cost = all_outputs(), .step = -1};
  double last = omplens_progress__share(&f);
  assert_true(last == 0.0);
  uint64_t sizes[] = {1000, 2000};
  for (size_t t = 0; t < 2; t++) {
    f.done_bytes += f.trace_bytes;
    f.trace_bytes = sizes[t];
    for (int step = OMPLENS_PROGRESS_READ; step <= OMPLENS_PROGRESS_ATTRIBUTE; step++) {
      f.step = step;
      for (uint64_t done = 0; done <= 10; done++) {
        f.done = done;
        f.total = step == OMPLENS_PROGRESS_ATTRIBUTE ? 0 : 10;
        double share = omplens_progress__share(&f);
        if (share < last)
          fail_msg("trace %zu step %d done %llu: share %.6f after %.6f", t, step,
                   (unsigned long long)done, share, last);
        last = share;
      }
    }
  }
  f.done_bytes += f.trace_bytes;
  f.trace_bytes = 0;
  f.step = OMPLENS_PROGRESS_REPORT;
  f.done = f.total = 0;
  const char *outputs[] = {"document", "json", "summary", "patch", "html", "sarif",
                           "markdown", "timeline"};
  for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) {
    f.report_done += omplens_progress__cost(outputs[i]);
    double share = omplens_progress__share(&f);
    if (share < last)
      fail_msg("after %s: share %.6f after %.6f", outputs[i], share, last);
    last = share;
  }
  assert_true(last == 1.0);
}

static void test_share_nothing_expected(void **state) {
  (void)state;
  omplens_progress__figures f = {.step = OMPLENS_PROGRESS_READ, .done = 5, .total = 10};
  assert_share(&f, 0.0);
}

static void assert_left(double share, double seconds, double want) {
  double got = omplens_progress__left(share, seconds);
  if (got < want - 1e-9 || got > want + 1e-9)
    fail_msg("%.3f done after %.3f s: %.6f s left, expected %.6f", share, seconds, got, want);
}

static void test_left(void **state) {
  (void)state;
  assert_left(0.04, 10.0, -1);  /* under 5 %: too early */
  assert_left(0.50, 0.9, -1);   /* under a second */
  assert_left(0.05, 1.0, 19.0); /* from then on */
  assert_left(0.50, 3.0, 3.0);
  assert_left(0.75, 3.0, 1.0);
  assert_left(1.00, 3.0, 0.0);
  assert_left(1.50, 3.0, 0.0); /* never negative */
}

static void assert_line(const char *stage, double share, double seconds, unsigned columns,
                        const char *want) {
  char line[512];
  size_t n = omplens_progress__line(line, sizeof line, stage, share, seconds, columns);
  if (strcmp(line, want))
    fail_msg("line\n  \"%s\"\nexpected\n  \"%s\"", line, want);
  assert_int_equal(n, strlen(want));
}

static void test_line_figures(void **state) {
  (void)state;
  assert_line("reading app.trace", 0.0, 0.0, 80, "omplens: reading app.trace  0%  (0.0 s)");
  assert_line("reading app.trace", 0.5, 0.8, 80, "omplens: reading app.trace  50%  (0.8 s)");
  assert_line("finding wasted data movement in app.trace", 0.47, 3.1, 100,
              "omplens: finding wasted data movement in app.trace  47%  (3.1 s, about 3 s left)");
  assert_line("writing timeline.json", 0.10, 20.0, 80,
              "omplens: writing timeline.json  10%  (20.0 s, about 3 min left)");
  assert_line("writing timeline.json", 0.18, 20.0, 80, /* 91 s */
              "omplens: writing timeline.json  18%  (20.0 s, about 2 min left)");
  assert_line("writing timeline.json", 0.19, 20.0, 80, /* 85 s */
              "omplens: writing timeline.json  19%  (20.0 s, about 85 s left)");
  assert_line("writing report.md", 0.8, 5.0, 80,
              "omplens: writing report.md  80%  (5.0 s, about 1 s left)");
  assert_line("writing report.md", 0.999, 5.0, 80,
              "omplens: writing report.md  99%  (5.0 s, almost done)");
  assert_line("writing the last output", 1.0, 5.0, 80,
              "omplens: writing the last output  100%  (5.0 s, almost done)");
}

static void test_line_width(void **state) {
  (void)state;
  const char *stage = "finding wasted data movement in app.trace (2000000 events)";
  /* 45 columns: 44 characters, the stage cut and marked, the figures whole. */
  assert_line(stage, 0.47, 3.1, 45, "omplens: fi...  47%  (3.1 s, about 3 s left)");
  assert_line(stage, 0.47, 3.1, 50, "omplens: finding...  47%  (3.1 s, about 3 s left)");
  /* No room for a stage: the figures alone. */
  assert_line(stage, 0.47, 3.1, 40, "omplens: 47%  (3.1 s, about 3 s left)");
  /* 0 columns (not told): 80. */
  char line[512];
  size_t n = omplens_progress__line(line, sizeof line, stage, 0.47, 3.1, 0);
  assert_int_equal(n, 79);
  assert_non_null(strstr(line, "  47%  (3.1 s, about 3 s left)"));
  /* Narrower than the figures: cut at the width all the same. */
  n = omplens_progress__line(line, sizeof line, stage, 0.47, 3.1, 20);
  assert_int_equal(n, 19);
  assert_string_equal(line, "omplens: 47%  (3.1 ");
  /* A wide terminal shows it all. */
  n = omplens_progress__line(line, sizeof line, stage, 0.47, 3.1, 200);
  assert_int_equal(n, strlen("omplens: ") + strlen(stage) + strlen("  47%  (3.1 s, about 3 s left)"));
}

/* A cut never splits a UTF-8 character. */
static void test_line_utf8(void **state) {
  (void)state;
  /* "reading " then é (2 bytes) repeated. */
  char stage[64] = "reading ";
  for (int i = 0; i < 20; i++)
    strcat(stage, "\xc3\xa9");
  for (unsigned columns = 30; columns < 70; columns++) {
    char line[512];
    size_t n = omplens_progress__line(line, sizeof line, stage, 0.5, 2.0, columns);
    if (n > columns - 1)
      fail_msg("%u columns: %zu bytes", columns, n);
    for (size_t i = 0; i + 1 < n; i++)
      if ((unsigned char)line[i] == 0xc3 && (unsigned char)line[i + 1] != 0xa9)
        fail_msg("%u columns: a character cut in \"%s\"", columns, line);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_share_one_trace),   cmocka_unit_test(test_share_several_traces),
      cmocka_unit_test(test_share_grows),       cmocka_unit_test(test_share_nothing_expected),
      cmocka_unit_test(test_left),              cmocka_unit_test(test_line_figures),
      cmocka_unit_test(test_line_width),        cmocka_unit_test(test_line_utf8),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
