/* Unit tests of what the fast path of the timeline.json renderer
 * (report/render_timeline.c) must keep exact: the args of each kind of
 * operation, hand-formatted numbers at their limits, directive labels past
 * the label cache, regions out of time order (merged runs and the sort
 * behind them), texts larger than the output buffer, and the file written
 * in two steps (begun before the findings' texts exist). The layout,
 * findings and escaping are tested in test_render_sarif.c. Design:
 * docs/sarif-and-timeline.md. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omplens_render.h"
#include "trace_writer.h"

#define T0 1000000u /* monotonic start of the trace */
#define MODULE_BASE 0x555555554000u
#define HOST_A 0x7f0000001000u
#define DEV_A 0x7e0000001000u
#define END_NS 20000000000000u /* the trace's end: after every event below */

/* ---- Harness ----------------------------------------------------------- */

typedef struct fixture {
  char dir[256];
  char path[320];
  omplens_trace *trace;
} fixture;

static int one_module(void *ctx,
                      void (*emit)(void *emit_ctx, uint64_t base, uint64_t low, uint64_t high,
                                   const uint8_t *id, uint8_t idlen, const char *path),
                      void *emit_ctx) {
  emit(emit_ctx, MODULE_BASE, MODULE_BASE, MODULE_BASE + 0x1000000u, NULL, 0, "/bin/prog");
  return 0;
}

/* A trace written by write(stream) with the real writer; NULL on failure. */
static fixture *make_trace(void (*write)(omplens_tw_stream *s)) {
  fixture *fx = calloc(1, sizeof *fx);
  const char *tmp = getenv("TMPDIR");
  snprintf(fx->dir, sizeof fx->dir, "%s/omplens-timeline-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(fx->dir));
  snprintf(fx->path, sizeof fx->path, "%s/prog.trace", fx->dir);
  omplens_tw w;
  omplens_tw_header h = {.pid = 7, .exe = "/bin/prog", .start_realtime_ns = 1700000000000000000u,
                         .start_monotonic_ns = T0, .each_module = one_module};
  assert_int_equal(omplens_tw_open(&w, fx->path, &h, 0), 0);
  omplens_tw_stream s;
  memset(&s, 0, sizeof s);
  omplens_tw_stream_init(&s, &w, 100);
  write(&s);
  omplens_tw_stream_finish(&s);
  assert_int_equal(omplens_tw_close(&w, T0 + END_NS, 0), 0);
  assert_int_equal(omplens_trace_open(fx->path, &fx->trace), 0);
  return fx;
}

static void free_trace(fixture *fx) {
  omplens_trace_close(fx->trace);
  unlink(fx->path);
  rmdir(fx->dir);
  free(fx);
}

/* The text through a real file, as omplens writes it; caller frees. */
static char *timeline_text(const json_t *doc, const fixture *fx) {
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(omplens_render_timeline(doc, (const omplens_trace *const *)&fx->trace, 1, f),
                   0);
  long n = ftell(f);
  assert_true(n > 0);
  char *text = malloc((size_t)n + 1);
  rewind(f);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = 0;
  fclose(f);
  return text;
}

static json_t *parse(const char *text) {
  json_error_t err;
  json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &err);
  if (!j)
    fail_msg("output is not JSON: %s (line %d column %d)", err.text, err.line, err.column);
  return j;
}

static const char *str(const json_t *o, const char *key) {
  return json_string_value(json_object_get(o, key));
}

/* The slice of the operation with that event index. */
static const json_t *slice_of_event(const json_t *tl, json_int_t event) {
  size_t i;
  const json_t *e;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e) {
    const json_t *args = json_object_get(e, "args");
    if (!strcmp(str(e, "ph"), "X") && strcmp(str(e, "cat"), "region") &&
        json_integer_value(json_object_get(args, "event")) == event)
      return e;
  }
  fail_msg("no slice for event %" JSON_INTEGER_FORMAT, event);
  return NULL;
}

static omplens_tw_op op(uint8_t kind, uint64_t begin, uint64_t end, uint64_t bytes,
                        uint64_t hash, uint64_t codeptr) {
  return (omplens_tw_op){.begin_ns = T0 + begin, .end_ns = T0 + end, .host_addr = HOST_A,
                         .dev_addr = DEV_A, .bytes = bytes, .hash = hash,
                         .own_codeptr = codeptr, .device = 0, .peer = -1, .kind = kind,
                         .hashed = kind == OMPLENS_EV_H2D || kind == OMPLENS_EV_D2H};
}

/* ---- Args of each kind of operation ------------------------------------ */

/* Events 0..5: alloc, H2D, D2H, D2D from device 1, delete of unknown size,
 * kernel. */
static void write_kinds(omplens_tw_stream *s) {
  omplens_tw_op ops[] = {
    op(OMPLENS_EV_ALLOC, 100, 200, 4096, 0, MODULE_BASE + 0x10),
    op(OMPLENS_EV_H2D, 300, 400, 4096, 0xabc, MODULE_BASE + 0x10),
    op(OMPLENS_EV_D2H, 500, 600, 4096, 0xdef, MODULE_BASE + 0x10),
    op(OMPLENS_EV_D2D, 700, 800, 4096, 0, MODULE_BASE + 0x10),
    op(OMPLENS_EV_DELETE, 900, 1000, 0, 0, MODULE_BASE + 0x10),
  };
  ops[3].peer = 1;
  ops[4].host_addr = 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    omplens_tw_op_write(s, &ops[i]);
  omplens_tw_kernel(s, T0 + 1100, T0 + 1200, 0, 8, 0);
}

static void timeline_args_by_kind(void **state) {
  fixture *fx = make_trace(write_kinds);
  char *text = timeline_text(NULL, fx);
  json_t *tl = parse(text);
  const json_t *alloc = json_object_get(slice_of_event(tl, 0), "args");
  assert_string_equal(str(alloc, "host_addr"), "0x7f0000001000");
  assert_string_equal(str(alloc, "device_addr"), "0x7e0000001000");
  assert_int_equal(json_integer_value(json_object_get(alloc, "bytes")), 4096);
  assert_string_equal(str(alloc, "directive"), "prog+0x10");
  for (json_int_t copy = 1; copy <= 2; copy++) { /* H2D, D2H: the host side only */
    const json_t *args = json_object_get(slice_of_event(tl, copy), "args");
    assert_string_equal(str(args, "host_addr"), "0x7f0000001000");
    assert_null(json_object_get(args, "device_addr"));
    assert_string_equal(str(args, "hash"), copy == 1 ? "0xabc" : "0xdef");
  }
  const json_t *d2d = json_object_get(slice_of_event(tl, 3), "args");
  assert_string_equal(str(d2d, "device_addr"), "0x7e0000001000");
  assert_int_equal(json_integer_value(json_object_get(d2d, "source_device")), 1);
  const json_t *del = json_object_get(slice_of_event(tl, 4), "args");
  assert_null(json_object_get(del, "bytes"));
  assert_null(json_object_get(del, "host_addr"));
  assert_string_equal(str(del, "device_addr"), "0x7e0000001000");
  const json_t *kernel = json_object_get(slice_of_event(tl, 5), "args");
  assert_int_equal(json_integer_value(json_object_get(kernel, "teams")), 8);
  assert_null(json_object_get(kernel, "bytes"));
  assert_non_null(strstr(text, "\"ts\":0.300,\"dur\":0.100,"));
  json_decref(tl);
  free(text);
  free_trace(fx);
}

/* ---- Numbers at their limits ------------------------------------------- */

/* Events 0..3: hash 0 and all ones, 2^63 bytes, times of 1 ns and of
 * 12345.678901 s. */
static void write_numbers(omplens_tw_stream *s) {
  omplens_tw_op zero = op(OMPLENS_EV_H2D, 1, 6, 1, 0, 0);
  zero.hashed = 1;
  omplens_tw_op_write(s, &zero);
  omplens_tw_op ones = op(OMPLENS_EV_H2D, 10, 20, 10, UINT64_MAX, 0);
  omplens_tw_op_write(s, &ones);
  omplens_tw_op huge = op(OMPLENS_EV_ALLOC, 30, 40, OMPLENS_EVENT_MAX_BYTES, 0, 0);
  huge.host_addr = UINT64_MAX;
  omplens_tw_op_write(s, &huge);
  omplens_tw_op late = op(OMPLENS_EV_D2H, 12345678901000u, 12345678901999u, 99, 0x10, 0);
  omplens_tw_op_write(s, &late);
}

static void timeline_number_limits(void **state) {
  fixture *fx = make_trace(write_numbers);
  char *text = timeline_text(NULL, fx);
  json_t *tl = parse(text);
  assert_string_equal(str(json_object_get(slice_of_event(tl, 0), "args"), "hash"), "0x0");
  assert_string_equal(str(json_object_get(slice_of_event(tl, 1), "args"), "hash"),
                      "0xffffffffffffffff");
  const json_t *huge = json_object_get(slice_of_event(tl, 2), "args");
  assert_int_equal(json_integer_value(json_object_get(huge, "bytes")), OMPLENS_EVENT_MAX_BYTES);
  assert_string_equal(str(huge, "host_addr"), "0xffffffffffffffff");
  assert_non_null(strstr(text, "\"ts\":0.001,\"dur\":0.005,"));
  assert_non_null(strstr(text, "\"ts\":12345678901.000,\"dur\":0.999,"));
  assert_non_null(strstr(text, "\"bytes\":10,"));
  json_decref(tl);
  free(text);
  free_trace(fx);
}

/* ---- Labels past the cache --------------------------------------------- */

#define DIRECTIVES 3000

/* Twice through DIRECTIVES code addresses: more than the label cache holds. */
static void write_directives(omplens_tw_stream *s) {
  for (uint64_t i = 0; i < 2 * DIRECTIVES; i++) {
    omplens_tw_op o = op(OMPLENS_EV_ALLOC, 100 * i, 100 * i + 50, 64, 0,
                         MODULE_BASE + 0x100 + 16 * (i % DIRECTIVES));
    omplens_tw_op_write(s, &o);
  }
}

static void timeline_many_directives(void **state) {
  fixture *fx = make_trace(write_directives);
  char *text = timeline_text(NULL, fx);
  json_t *tl = parse(text);
  size_t i, checked = 0;
  const json_t *e;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e) {
    const json_t *args = json_object_get(e, "args");
    if (strcmp(str(e, "ph"), "X"))
      continue;
    json_int_t event = json_integer_value(json_object_get(args, "event"));
    char want[64];
    snprintf(want, sizeof want, "prog+0x%" PRIx64,
             (uint64_t)(0x100 + 16 * ((uint64_t)event % DIRECTIVES)));
    assert_string_equal(str(args, "directive"), want);
    checked++;
  }
  assert_int_equal(checked, 2 * DIRECTIVES);
  json_decref(tl);
  free(text);
  free_trace(fx);
}

/* ---- Regions out of time order ----------------------------------------- */

static unsigned backward_regions; /* how many regions write_backward writes */

/* Each region begins before the one written before it: every region is a
 * run of its own, so the renderer must order them itself. */
static void write_backward(omplens_tw_stream *s) {
  for (uint64_t i = 0; i < backward_regions; i++) {
    uint64_t begin = T0 + 1000000 - 1000 * i;
    omplens_tw_region_begin(s, begin, OMPLENS_CONSTRUCT_TARGET, 0, 0, MODULE_BASE + 0x40);
    omplens_tw_region_end(s, begin + 500);
  }
}

/* Region slices come out by begin time, whether the renderer merges the
 * regions' runs (a few) or sorts them (many). */
static void timeline_regions_in_time_order(void **state) {
  const unsigned counts[] = {10, 40};
  for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
    backward_regions = counts[k];
    fixture *fx = make_trace(write_backward);
    char *text = timeline_text(NULL, fx);
    json_t *tl = parse(text);
    size_t i, seen = 0;
    double last = -1;
    const json_t *e;
    json_array_foreach(json_object_get(tl, "traceEvents"), i, e) {
      if (strcmp(str(e, "ph"), "X") || strcmp(str(e, "cat"), "region"))
        continue;
      double ts = json_number_value(json_object_get(e, "ts"));
      if (ts < last)
        fail_msg("%u regions: slice %zu at %f after one at %f", counts[k], seen, ts, last);
      last = ts;
      seen++;
    }
    assert_int_equal(seen, counts[k]);
    json_decref(tl);
    free(text);
    free_trace(fx);
  }
}

/* ---- Texts larger than the output buffer ------------------------------- */

static void write_two_copies(omplens_tw_stream *s) {
  omplens_tw_op a = op(OMPLENS_EV_H2D, 100, 200, 64, 0x1, MODULE_BASE + 0x10);
  omplens_tw_op b = op(OMPLENS_EV_H2D, 300, 400, 64, 0x1, MODULE_BASE + 0x10);
  omplens_tw_op_write(s, &a);
  omplens_tw_op_write(s, &b);
}

/* A finding whose explanation and fix are far larger than the renderer's
 * buffer, with '<' to escape; both instances carry them whole. */
static void timeline_long_texts(void **state) {
  enum { LONG = 700000 };
  fixture *fx = make_trace(write_two_copies);
  char *explanation = malloc(LONG + 1), *fix = malloc(LONG + 1);
  for (size_t i = 0; i < LONG; i++) {
    explanation[i] = (char)('a' + i % 26);
    fix[i] = i % 1000 == 999 ? '<' : 'f';
  }
  explanation[LONG] = fix[LONG] = 0;
  json_t *f = json_pack("{s:s, s:i, s:s, s:{s:s}, s:I, s:I, s:[{s:i, s:i}, {s:i, s:i, s:i}]}",
                        "category", "duplicate-transfer", "device", 0, "explanation",
                        explanation, "fix", "summary", fix, "count", (json_int_t)2, "savings_ns",
                        (json_int_t)100, "instances", "event", 0, "time_ns", 100, "event", 1,
                        "time_ns", 300, "related_event", 0);
  json_t *doc = json_pack("{s:i, s:[{s:s, s:i, s:[o]}]}", "schema_version", 1, "processes",
                          "trace", fx->path, "pid", 7, "findings", f);
  char *text = timeline_text(doc, fx);
  json_t *tl = parse(text);
  size_t i, instants = 0;
  const json_t *e;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e) {
    if (strcmp(str(e, "ph"), "i"))
      continue;
    const json_t *args = json_object_get(e, "args");
    assert_string_equal(str(args, "message"), explanation);
    assert_string_equal(str(args, "fix"), fix);
    instants++;
  }
  assert_int_equal(instants, 2);
  assert_string_equal(str(slice_of_event(tl, 1), "name"), "H2D (duplicate-transfer)");
  assert_null(strstr(text, "<"));
  json_decref(tl);
  json_decref(doc);
  free(text);
  free(explanation);
  free(fix);
  free_trace(fx);
}

/* A limited document: what it left out is counted, what it lists is marked. */
static void timeline_limited_document(void **state) {
  fixture *fx = make_trace(write_two_copies);
  json_t *doc = json_pack("{s:i, s:[{s:s, s:i, s:I, s:[{s:s, s:i, s:I, s:[{s:i, s:i}]}]}]}",
                          "schema_version", 1, "processes", "trace", fx->path, "pid", 7,
                          "findings_omitted", (json_int_t)5, "findings", "category",
                          "duplicate-transfer", "device", 0, "instances_omitted",
                          (json_int_t)3, "instances", "event", 1, "time_ns", 300);
  char *text = timeline_text(doc, fx);
  json_t *tl = parse(text);
  const json_t *other = json_object_get(tl, "otherData");
  assert_string_equal(str(other, "findings_omitted"), "5");
  assert_string_equal(str(other, "instances_omitted"), "3");
  assert_string_equal(str(slice_of_event(tl, 0), "cat"), "transfer");
  assert_string_equal(str(slice_of_event(tl, 1), "cat"), "transfer,finding,duplicate-transfer");
  json_decref(tl);
  free(text);
  /* A complete document says nothing of it. */
  json_t *proc = json_array_get(json_object_get(doc, "processes"), 0);
  json_object_del(proc, "findings_omitted");
  json_object_del(json_array_get(json_object_get(proc, "findings"), 0), "instances_omitted");
  text = timeline_text(doc, fx);
  tl = parse(text);
  assert_null(json_object_get(json_object_get(tl, "otherData"), "findings_omitted"));
  assert_null(json_object_get(json_object_get(tl, "otherData"), "instances_omitted"));
  json_decref(tl);
  json_decref(doc);
  free(text);
  free_trace(fx);
}

/* In two steps (omplens_render_timeline_begin/_end), as `omplens report`
 * writes it beside the fixer: the operations are marked from a list that
 * has no texts yet, the instants come after them with the texts of the
 * document given at the end, and the file is the one-step file. */
static void timeline_in_two_steps(void **state) {
  fixture *fx = make_trace(write_two_copies);
  json_t *marks = json_pack("{s:i, s:[{s:s, s:i, s:[{s:s, s:[{s:i, s:i}, {s:i, s:i, s:i}]}]}]}",
                            "schema_version", 1, "processes", "trace", fx->path, "pid", 7,
                            "findings", "category", "duplicate-transfer", "instances", "event", 0,
                            "time_ns", 100, "event", 1, "time_ns", 300, "related_event", 0);
  json_t *doc = json_deep_copy(marks);
  json_t *f = json_array_get(json_object_get(json_array_get(json_object_get(doc, "processes"), 0),
                                             "findings"), 0);
  json_object_set_new(f, "explanation", json_string("sent twice"));
  json_object_set_new(f, "fix", json_pack("{s:s}", "summary", "map it once"));
  FILE *out = tmpfile();
  assert_non_null(out);
  omplens_timeline *tl;
  assert_int_equal(omplens_render_timeline_begin(marks, (const omplens_trace *const *)&fx->trace,
                                                 1, NULL, NULL, out, &tl),
                   0);
  assert_int_equal(omplens_render_timeline_end(tl, doc), 0);
  long n = ftell(out);
  char *text = calloc((size_t)n + 1, 1);
  rewind(out);
  assert_int_equal(fread(text, 1, (size_t)n, out), (size_t)n);
  fclose(out);
  json_t *two = parse(text);
  char *one_text = timeline_text(doc, fx);
  assert_string_equal(str(slice_of_event(two, 1), "cat"), "transfer,finding,duplicate-transfer");
  size_t i, instants = 0, last_slice = 0, first_instant = SIZE_MAX;
  const json_t *e;
  json_array_foreach(json_object_get(two, "traceEvents"), i, e) {
    if (!strcmp(str(e, "ph"), "X"))
      last_slice = i;
    if (strcmp(str(e, "ph"), "i"))
      continue;
    first_instant = first_instant < i ? first_instant : i;
    const json_t *args = json_object_get(e, "args");
    assert_string_equal(str(args, "message"), "sent twice");
    assert_string_equal(str(args, "fix"), "map it once");
    instants++;
  }
  assert_int_equal(instants, 2);
  assert_true(first_instant > last_slice);
  /* The file written in one step, where the texts were there from the start. */
  assert_string_equal(text, one_text);
  json_decref(two);
  json_decref(doc);
  json_decref(marks);
  free(one_text);
  free(text);
  free_trace(fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(timeline_args_by_kind),
    cmocka_unit_test(timeline_number_limits),
    cmocka_unit_test(timeline_many_directives),
    cmocka_unit_test(timeline_regions_in_time_order),
    cmocka_unit_test(timeline_long_texts),
    cmocka_unit_test(timeline_limited_document),
    cmocka_unit_test(timeline_in_two_steps),
  };
  return cmocka_run_group_tests_name("render_timeline_fast", tests, NULL, NULL);
}
