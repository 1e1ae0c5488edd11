/* Unit tests of parts (report/report_parts.c): a report put together from
 * one part per process is, byte for byte, the report made of all the
 * processes at once (findings.json, the summary, report.html, report.md,
 * findings.sarif, timeline.json); a part reads back what was written; and
 * the reader refuses cut and damaged parts without reading outside them.
 * Four rank traces (rank 3 sends twice as often) and one without a rank,
 * written with the real writer and analysed by the real detectors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omplens_parts.h"
#include "omplens_render.h"
#include "report_internal.h"
#include "trace_writer.h"

#define T0 1000000u
#define PROCS 5
#define RANKS 4
#define CODEPTR 0x555555554100u
#define BYTES 4096u

typedef struct fixture {
  char dir[256];
  char path[PROCS][320];
  omplens_trace *trace[PROCS];
  omplens_analysis *analysis[PROCS];
  omplens_report_process proc[PROCS];
  omplens_report_figures figures[PROCS];
} fixture;

/* One buffer sent `sends` times unchanged, and no kernel reads it. */
static void write_sends(omplens_tw *w, int sends) {
  omplens_tw_stream s;
  memset(&s, 0, sizeof s);
  omplens_tw_stream_init(&s, w, 7);
  uint64_t t = 100;
  for (int k = 0; k < sends; k++) {
    uint64_t id = omplens_tw_region_begin(&s, T0 + t, OMPLENS_CONSTRUCT_UPDATE, 0, 0, CODEPTR);
    omplens_tw_op op = {.begin_ns = T0 + t + 1, .end_ns = T0 + t + 11, .host_addr = 0x10000,
                        .dev_addr = 0x90000, .bytes = BYTES, .hash = 0xabc0, .region = id,
                        .device = 0, .peer = -1, .kind = OMPLENS_EV_H2D, .hashed = 1};
    omplens_tw_op_write(&s, &op);
    omplens_tw_region_end(&s, T0 + t + 100);
    t += 200;
  }
  omplens_tw_stream_finish(&s);
}

static int write_trace(fixture *fx, int i) {
  snprintf(fx->path[i], sizeof fx->path[i], "%s/p%d.trace", fx->dir, i);
  omplens_tw w;
  omplens_tw_header h = {.pid = 100 + i, .exe = "/bin/prog", .in_job = i < RANKS, .rank = i,
                         .job_size = RANKS, .job = "job-7", .start_realtime_ns = 5000 + 10u * i,
                         .start_monotonic_ns = T0};
  if (omplens_tw_open(&w, fx->path[i], &h, 0))
    return -1;
  write_sends(&w, i == RANKS - 1 ? 8 : 4);
  if (omplens_tw_close(&w, T0 + 100000, 0) || omplens_trace_open(fx->path[i], &fx->trace[i]))
    return -1;
  if (omplens_detect_trace(fx->trace[i], &fx->analysis[i]))
    return -1;
  fx->proc[i] = (omplens_report_process){fx->trace[i], fx->analysis[i], NULL, NULL,
                                         &fx->figures[i]};
  return 0;
}

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  const char *tmp = getenv("TMPDIR");
  if (!fx)
    return -1;
  snprintf(fx->dir, sizeof fx->dir, "%s/omplens-parts-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(fx->dir))
    return -1;
  for (int i = 0; i < PROCS; i++)
    if (write_trace(fx, i))
      return -1;
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  for (int i = 0; i < PROCS; i++) {
    omplens_analysis_free(fx->analysis[i]);
    omplens_trace_close(fx->trace[i]);
    unlink(fx->path[i]);
  }
  rmdir(fx->dir);
  free(fx);
  return 0;
}

/* What a writer wrote into memory. */
typedef struct text {
  char *data;
  size_t len;
} text;

#define CAPTURE(t, call)                                                                         \
  do {                                                                                           \
    FILE *f_ = open_memstream(&(t)->data, &(t)->len);                                            \
    assert_non_null(f_);                                                                         \
    assert_int_equal((call), 0);                                                                 \
    assert_int_equal(fclose(f_), 0);                                                             \
  } while (0)
#define OUT f_

static void assert_same(const text *a, const text *b, const char *what) {
  if (a->len != b->len || memcmp(a->data, b->data, a->len)) {
    size_t i = 0;
    while (i < a->len && i < b->len && a->data[i] == b->data[i])
      i++;
    fail_msg("%s differs at byte %zu (%zu and %zu bytes): ...%.60s... against ...%.60s...", what,
             i, a->len, b->len, a->data + (i > 20 ? i - 20 : 0), b->data + (i > 20 ? i - 20 : 0));
  }
}

/* The parts of every process, written into one file, read back. */
typedef struct parts_file {
  FILE *f;
  omplens_part_source src;
  omplens_part part[PROCS];
  omplens_parts ps;
} parts_file;

/* With prepare: some parts folded first (as `omplens report` folds each
 * part as it reads it), the rest by omplens_parts_prepare(). */
static void make_parts(fixture *fx, parts_file *pf, unsigned pieces, uint64_t origin,
                       int prepare) {
  pf->f = tmpfile();
  assert_non_null(pf->f);
  uint64_t at[PROCS + 1];
  for (size_t i = 0; i < PROCS; i++) {
    at[i] = (uint64_t)ftello(pf->f);
    omplens_report_input one = {&fx->proc[i], 1, -1};
    omplens_part_options o = {pieces, i, PROCS, 10, origin, NULL, NULL, NULL};
    assert_int_equal(omplens_part_write(&one, 0, &o, pf->f), 0);
  }
  at[PROCS] = (uint64_t)ftello(pf->f);
  assert_int_equal(fflush(pf->f), 0);
  pf->src = (omplens_part_source){fileno(pf->f), NULL, at[PROCS]};
  for (size_t i = 0; i < PROCS; i++) {
    uint64_t length;
    assert_int_equal(omplens_part_read(&pf->src, at[i], &pf->part[i], &length), 0);
    assert_int_equal(length, at[i + 1] - at[i]);
    assert_int_equal(pf->part[i].index, i);
  }
  pf->ps = (omplens_parts){.parts = pf->part, .n = PROCS, .program_exit_status = 3,
                           .origin_ns = origin};
  if (!prepare)
    return;
  assert_int_equal(omplens_parts_fold(&pf->ps, 3), 0);
  assert_int_equal(omplens_parts_fold(&pf->ps, 0), 0);
  assert_int_equal(omplens_parts_fold(&pf->ps, 0), OMPLENS_REPORT_EINVAL); /* once */
  assert_int_equal(pf->part[3].record.num_findings, 0); /* its lists are in the merge */
  assert_int_equal(omplens_parts_prepare(&pf->ps), 0);
}

static void free_parts(parts_file *pf) {
  for (size_t i = 0; i < PROCS; i++)
    omplens_part_free(&pf->part[i]);
  omplens_parts_release(&pf->ps);
  fclose(pf->f);
}

enum { PIECES = OMPLENS_PART_JSON | OMPLENS_PART_SUMMARY | OMPLENS_PART_DOC | OMPLENS_PART_HTML |
                OMPLENS_PART_TIMELINE | OMPLENS_PART_PATCH };

static void outputs_equal_whole_report(void **state) {
  fixture *fx = *state;
  omplens_report_input in = {fx->proc, PROCS, 3};
  omplens_report_prepare(&in);
  uint64_t starts[PROCS];
  for (size_t i = 0; i < PROCS; i++)
    starts[i] = omplens_trace_get_info(fx->trace[i])->start_realtime_ns;
  parts_file pf = {0};
  make_parts(fx, &pf, PIECES, omplens_render__timeline_origin(starts, PROCS), 1);
  assert_non_null(pf.ps.ranks);
  assert_non_null(pf.ps.doc);

  text a = {0}, b = {0};
  CAPTURE(&a, omplens_report_stream_json(&in, OUT));
  CAPTURE(&b, omplens_parts_write_json(&pf.ps, OUT));
  assert_same(&a, &b, "findings.json");
  free(a.data), free(b.data);

  CAPTURE(&a, omplens_report_print_text(&in, OUT, 10));
  CAPTURE(&b, omplens_parts_write_summary(&pf.ps, 10, OUT));
  assert_same(&a, &b, "summary");
  free(a.data), free(b.data);

  json_t *doc = omplens_report_document_limited(&in, OMPLENS_RENDER_MAX_FINDINGS,
                                                OMPLENS_RENDER_MAX_INSTANCES);
  assert_true(json_equal(doc, pf.ps.doc));
  omplens_render_options ro = {.input = &in}, none = {0};
  CAPTURE(&a, omplens_render_html(doc, (const omplens_trace *const *)fx->trace, PROCS, &ro, OUT));
  CAPTURE(&b, omplens_parts_write_html(&pf.ps, OUT));
  assert_same(&a, &b, "report.html");
  free(a.data), free(b.data);

  CAPTURE(&a, omplens_render_timeline(doc, (const omplens_trace *const *)fx->trace, PROCS, OUT));
  CAPTURE(&b, omplens_parts_write_timeline(&pf.ps, OUT));
  assert_same(&a, &b, "timeline.json");
  free(a.data), free(b.data);

  CAPTURE(&a, omplens_render_markdown(doc, &none, OUT));
  CAPTURE(&b, omplens_render_markdown(pf.ps.doc, &none, OUT));
  assert_same(&a, &b, "report.md");
  free(a.data), free(b.data);

  CAPTURE(&a, omplens_render_sarif(doc, &none, OUT));
  CAPTURE(&b, omplens_render_sarif(pf.ps.doc, &none, OUT));
  assert_same(&a, &b, "findings.sarif");
  free(a.data), free(b.data);
  json_decref(doc);

  /* The merged view names the job of its ranks. */
  assert_string_equal(json_string_value(json_object_get(pf.ps.ranks, "job")), "job-7");
  assert_int_equal(omplens_parts_jobs(&pf.ps), 1);
  free_parts(&pf);
}

/* What a part says of its process reads back as written. */
static void part_reads_back(void **state) {
  fixture *fx = *state;
  parts_file pf = {0};
  make_parts(fx, &pf, OMPLENS_PART_SUMMARY, 0, 0);
  for (size_t i = 0; i < PROCS; i++) {
    const omplens_part *p = &pf.part[i];
    assert_int_equal(p->pieces, OMPLENS_PART_SUMMARY);
    assert_string_equal(p->trace, fx->path[i]);
    assert_string_equal(p->exe, "/bin/prog");
    assert_int_equal(p->pid, 100 + (int)i);
    assert_int_equal(p->start_ns, 5000 + 10 * i);
    assert_int_equal(p->record.rank, i < RANKS ? (int)i : -1);
    if (i < RANKS) {
      assert_int_equal(p->record.process, i);
      assert_int_equal(p->record.findings, i == RANKS - 1 ? 8 : 4);
      assert_string_equal(p->record.job, "job-7");
      assert_int_equal(p->record.num_directives, 1);
    }
  }
  assert_int_equal(omplens_parts_prepare(&pf.ps), 0);
  assert_int_equal(json_integer_value(json_object_get(pf.ps.ranks, "ranks")), RANKS);
  assert_null(pf.ps.doc); /* no DOC pieces */
  /* Without JSON pieces, findings.json cannot be made from them. */
  FILE *f = tmpfile();
  assert_int_equal(omplens_parts_write_json(&pf.ps, f), OMPLENS_REPORT_EINVAL);
  fclose(f);
  free_parts(&pf);
}

/* An error part: the trace, the exit code and the line. */
static void error_part(void **state) {
  (void)state;
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(omplens_part_write_error(7, "/x/a.trace", 65, "cannot read trace", f), 0);
  omplens_part_source src = {fileno(f), NULL, (uint64_t)ftello(f)};
  omplens_part p;
  uint64_t length;
  assert_int_equal(omplens_part_read(&src, 0, &p, &length), 0);
  assert_int_equal(length, src.size);
  assert_int_equal(p.index, 7);
  assert_int_equal(p.error, 65);
  assert_string_equal(p.trace, "/x/a.trace");
  assert_string_equal(p.message, "cannot read trace");
  omplens_part_free(&p);
  fclose(f);
}

/* Every cut of a part is refused, and so is every damaged byte of its
 * frame (magic, section heads, strings and counts); a damaged byte of a
 * piece's text may read, never outside the part (run under ASan in CI). */
static void damaged_parts(void **state) {
  fixture *fx = *state;
  FILE *f = tmpfile();
  omplens_report_input one = {&fx->proc[RANKS - 1], 1, -1};
  omplens_part_options o = {OMPLENS_PART_SUMMARY | OMPLENS_PART_PATCH | OMPLENS_PART_DOC, 3, PROCS,
                            10, 0, "a warning", NULL, NULL};
  assert_int_equal(omplens_part_write(&one, 0, &o, f), 0);
  size_t n = (size_t)ftello(f);
  uint8_t *good = malloc(n), *bad = malloc(n);
  rewind(f);
  assert_int_equal(fread(good, 1, n, f), n);
  fclose(f);
  omplens_part p;
  uint64_t length;
  for (size_t cut = 0; cut < n; cut++) {
    omplens_part_source src = {-1, good, cut};
    assert_int_not_equal(omplens_part_read(&src, 0, &p, &length), 0);
  }
  size_t read_ok = 0;
  for (size_t i = 0; i < n; i++) {
    for (int flip = 1; flip < 256; flip <<= 2) {
      memcpy(bad, good, n);
      bad[i] ^= (uint8_t)flip;
      omplens_part_source src = {-1, bad, n};
      if (!omplens_part_read(&src, 0, &p, &length)) {
        assert_true(length <= n);
        read_ok++;
        omplens_part_free(&p);
      }
    }
  }
  assert_true(read_ok < 4 * n); /* most damage is seen */
  /* The magic and the first section's head are checked. */
  for (size_t i = 0; i < 32; i++) {
    if (i >= 8 && i < 12)
      continue; /* the index: any value reads */
    memcpy(bad, good, n);
    bad[i] ^= 0x40;
    omplens_part_source src = {-1, bad, n};
    assert_int_not_equal(omplens_part_read(&src, 0, &p, &length), 0);
  }
  free(good);
  free(bad);
}

/* Ranks of two jobs in one report: the merged view is the job of the
 * first process with a rank, and the other job's ranks are not in it. */
static void two_jobs(void **state) {
  fixture *fx = *state;
  omplens_trace *t[2];
  omplens_analysis *a[2];
  char path[2][400];
  for (int i = 0; i < 2; i++) {
    snprintf(path[i], sizeof path[i], "%s/other%d.trace", fx->dir, i);
    omplens_tw w;
    omplens_tw_header h = {.pid = 300 + i, .exe = "/bin/prog", .in_job = 1, .rank = i,
                           .job_size = 2, .job = "job-8", .start_monotonic_ns = T0};
    assert_int_equal(omplens_tw_open(&w, path[i], &h, 0), 0);
    write_sends(&w, 4);
    assert_int_equal(omplens_tw_close(&w, T0 + 100000, 0), 0);
    assert_int_equal(omplens_trace_open(path[i], &t[i]), 0);
    assert_string_equal(omplens_trace_get_info(t[i])->job, "job-8");
    assert_int_equal(omplens_detect_trace(t[i], &a[i]), 0);
  }
  omplens_report_process procs[] = {{t[0], a[0], NULL, NULL, NULL}, fx->proc[0], fx->proc[1],
                                    fx->proc[2], fx->proc[3], {t[1], a[1], NULL, NULL, NULL}};
  omplens_report_input in = {procs, 6, -1};
  json_t *r = omplens_report__ranks(&in);
  assert_non_null(r);
  assert_string_equal(json_string_value(json_object_get(r, "job")), "job-8");
  assert_int_equal(json_integer_value(json_object_get(r, "ranks")), 2);
  const json_t *ps = json_object_get(r, "processes");
  assert_int_equal(json_integer_value(json_object_get(json_array_get(ps, 0), "process")), 0);
  assert_int_equal(json_integer_value(json_object_get(json_array_get(ps, 1), "process")), 5);
  json_decref(r);
  omplens_rank_record rec[6];
  for (size_t i = 0; i < 6; i++)
    assert_int_equal(omplens_report__rank_record(&in, i, &rec[i]), 0);
  assert_int_equal(omplens_report__ranks_jobs(rec, 6), 2);
  assert_int_equal(omplens_report__ranks_jobs(rec + 1, 4), 1);
  for (size_t i = 0; i < 6; i++)
    omplens_report__rank_record_free(&rec[i]);
  for (int i = 0; i < 2; i++) {
    omplens_analysis_free(a[i]);
    omplens_trace_close(t[i]);
    unlink(path[i]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(outputs_equal_whole_report, setup, teardown),
      cmocka_unit_test_setup_teardown(part_reads_back, setup, teardown),
      cmocka_unit_test(error_part),
      cmocka_unit_test_setup_teardown(damaged_parts, setup, teardown),
      cmocka_unit_test_setup_teardown(two_jobs, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
