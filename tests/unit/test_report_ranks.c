/* Unit tests of an MPI job's merged view (report/report_ranks.c) and of
 * the trace's RANK item: four rank traces written with the real writer
 * (rank 3 sends twice as often) and a fifth without a rank, analysed by
 * the real detectors. Exact per-rank counts, the spread, the outlier rule
 * at its edges, and findings.json streamed equal to the document. */
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

#include "omplens_render.h"
#include "report_internal.h"
#include "trace_writer.h"

#define T0 1000000u
#define RANKS 4
#define CODEPTR 0x555555554100u
#define BYTES 4096u

typedef struct fixture {
  char dir[256];
  char path[RANKS + 1][320];
  omplens_trace *trace[RANKS + 1];
  omplens_analysis *analysis[RANKS + 1];
  omplens_report_process proc[RANKS + 1];
} fixture;

/* One buffer sent `sends` times unchanged, and no kernel reads it:
 * sends - 1 duplicates and one unused transfer, `sends` findings. */
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

/* Trace i: rank i of RANKS (the last sends twice as often), or, for
 * i == RANKS, a process outside any job. */
static int write_trace(fixture *fx, int i) {
  snprintf(fx->path[i], sizeof fx->path[i], "%s/r%d.trace", fx->dir, i);
  omplens_tw w;
  omplens_tw_header h = {.pid = 100 + i, .exe = "/bin/prog", .in_job = i < RANKS, .rank = i,
                         .job_size = RANKS, .start_monotonic_ns = T0};
  if (omplens_tw_open(&w, fx->path[i], &h, 0))
    return -1;
  write_sends(&w, i == RANKS - 1 ? 8 : 4);
  if (omplens_tw_close(&w, T0 + 100000, 0) || omplens_trace_open(fx->path[i], &fx->trace[i]))
    return -1;
  if (omplens_detect_trace(fx->trace[i], &fx->analysis[i]))
    return -1;
  fx->proc[i] = (omplens_report_process){fx->trace[i], fx->analysis[i], NULL, NULL, NULL};
  return 0;
}

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  const char *tmp = getenv("TMPDIR");
  if (!fx)
    return -1;
  snprintf(fx->dir, sizeof fx->dir, "%s/omplens-ranks-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(fx->dir))
    return -1;
  /* Written in reverse: the merged view orders by rank, not input. */
  for (int i = RANKS; i >= 0; i--)
    if (write_trace(fx, i))
      return -1;
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  for (int i = 0; i <= RANKS; i++) {
    omplens_analysis_free(fx->analysis[i]);
    omplens_trace_close(fx->trace[i]);
    unlink(fx->path[i]);
  }
  rmdir(fx->dir);
  free(fx);
  return 0;
}

static json_int_t at(const json_t *o, const char *key) {
  const json_t *v = json_object_get(o, key);
  if (!json_is_integer(v))
    fail_msg("no integer \"%s\"", key);
  return json_integer_value(v);
}

static void rank_item_read_back(void **state) {
  fixture *fx = *state;
  for (int i = 0; i < RANKS; i++) {
    assert_int_equal(omplens_trace_get_info(fx->trace[i])->rank, i);
    assert_int_equal(omplens_trace_get_info(fx->trace[i])->job_size, RANKS);
  }
  assert_int_equal(omplens_trace_get_info(fx->trace[RANKS])->rank, -1);
  assert_int_equal(omplens_trace_get_info(fx->trace[RANKS])->job_size, 0);
}

static void merged_view(void **state) {
  fixture *fx = *state;
  /* Input order: rank 2, the unranked process, rank 0, rank 3, rank 1. */
  omplens_report_process procs[] = {fx->proc[2], fx->proc[RANKS], fx->proc[0], fx->proc[3],
                                    fx->proc[1]};
  omplens_report_input in = {procs, 5, 0};
  json_t *r = omplens_report__ranks(&in);
  assert_non_null(r);
  assert_int_equal(at(r, "ranks"), RANKS);
  assert_int_equal(at(r, "job_size"), RANKS);
  const json_t *ps = json_object_get(r, "processes");
  static const json_int_t process_of_rank[RANKS] = {2, 4, 0, 3};
  for (size_t i = 0; i < RANKS; i++) {
    const json_t *p = json_array_get(ps, i);
    assert_int_equal(at(p, "rank"), (json_int_t)i);
    assert_int_equal(at(p, "process"), process_of_rank[i]);
    assert_int_equal(at(p, "transfer_bytes"), (i == RANKS - 1 ? 8 : 4) * BYTES);
    assert_int_equal(at(p, "findings"), i == RANKS - 1 ? 8 : 4);
    assert_int_equal(json_array_size(json_object_get(p, "devices_used")), 1);
  }
  const json_t *d = json_array_get(json_object_get(r, "directives"), 0);
  assert_int_equal(json_array_size(json_object_get(r, "directives")), 1);
  assert_int_equal(at(d, "ranks"), RANKS);
  assert_int_equal(at(d, "executions"), 4 + 4 + 4 + 8);
  assert_int_equal(at(d, "transfer_bytes"), 20 * BYTES);
  assert_int_equal(at(d, "total_ns"), 20 * 10);
  assert_int_equal(at(d, "min_ns"), 40);
  assert_int_equal(at(d, "median_ns"), 40);
  assert_int_equal(at(d, "max_ns"), 80);
  const json_t *f = json_array_get(json_object_get(r, "findings"), 0);
  assert_string_equal(json_string_value(json_object_get(f, "category")), "duplicate-transfer");
  assert_int_equal(at(f, "ranks"), RANKS);
  assert_int_equal(at(f, "count"), 3 + 3 + 3 + 7);
  json_t *want = json_pack("[iiii]", 3, 3, 3, 7);
  assert_true(json_equal(json_object_get(f, "per_rank_count"), want));
  json_decref(want);
  /* Rank 3 is twice the median in time, bytes and findings; nobody else
   * is named. */
  const json_t *outliers = json_object_get(r, "outliers");
  assert_int_equal(json_array_size(outliers), 3);
  for (size_t i = 0; i < 3; i++)
    assert_int_equal(at(json_array_get(outliers, i), "rank"), 3);
  json_decref(r);
}

/* Fewer than two ranked processes: no merged view. */
static void single_rank_has_no_view(void **state) {
  fixture *fx = *state;
  omplens_report_process procs[] = {fx->proc[0], fx->proc[RANKS]};
  omplens_report_input in = {procs, 2, 0};
  assert_null(omplens_report__ranks(&in));
  json_t *doc = omplens_report_document(&in);
  assert_null(json_object_get(doc, "ranks"));
  assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "processes"), 1),
                                           "rank")));
  json_decref(doc);
}

/* Ranks 0-2 send 4 times, rank 3 sends 5: 1.25 times the median in time,
 * bytes and findings stays below 1.5 and is not named; 8 sends are. */
static void far_is_one_and_a_half_times(void **state) {
  fixture *fx = *state;
  omplens_tw w;
  omplens_tw_header h = {.pid = 200, .exe = "/bin/prog", .in_job = 1, .rank = 3,
                         .job_size = RANKS, .start_monotonic_ns = T0};
  char path[400];
  snprintf(path, sizeof path, "%s/near.trace", fx->dir);
  assert_int_equal(omplens_tw_open(&w, path, &h, 0), 0);
  write_sends(&w, 5);
  assert_int_equal(omplens_tw_close(&w, T0 + 100000, 0), 0);
  omplens_trace *t;
  omplens_analysis *a;
  assert_int_equal(omplens_trace_open(path, &t), 0);
  assert_int_equal(omplens_detect_trace(t, &a), 0);
  omplens_report_process procs[] = {fx->proc[0], fx->proc[1], fx->proc[2],
                                    {t, a, NULL, NULL, NULL}};
  omplens_report_input in = {procs, 4, 0};
  json_t *r = omplens_report__ranks(&in);
  assert_int_equal(json_array_size(json_object_get(r, "outliers")), 0);
  json_decref(r);
  omplens_analysis_free(a);
  omplens_trace_close(t);
  unlink(path);
}

/* The streamed findings.json carries the same merged view as the document. */
static void streamed_equals_document(void **state) {
  fixture *fx = *state;
  omplens_report_input in = {fx->proc, RANKS + 1, 0};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(omplens_report_stream_json(&in, f), 0);
  assert_int_equal(fclose(f), 0);
  json_t *text = json_loads(buf, JSON_REJECT_DUPLICATES, NULL), *doc = omplens_report_document(&in);
  free(buf);
  assert_non_null(text);
  assert_non_null(json_object_get(doc, "ranks"));
  /* (findings.json lists instances as columns, the document as objects) */
  assert_true(json_equal(json_object_get(doc, "ranks"), json_object_get(text, "ranks")));
  assert_true(at(doc, "schema_version") >= 4);
  json_decref(text);
  json_decref(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(rank_item_read_back, setup, teardown),
      cmocka_unit_test_setup_teardown(merged_view, setup, teardown),
      cmocka_unit_test_setup_teardown(single_rank_has_no_view, setup, teardown),
      cmocka_unit_test_setup_teardown(far_is_one_and_a_half_times, setup, teardown),
      cmocka_unit_test_setup_teardown(streamed_equals_document, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
