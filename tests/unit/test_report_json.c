/* Unit tests of findings.json as it is written (report/report_json.c,
 * report/json_stream.c): the streamed file parses back to exactly the
 * document omplens_report_document() builds, the document the pages use is
 * limited as asked and says what it left out, findings.json written beside
 * that document takes its parts and is the same, and a failed write is
 * reported. The trace is written with the real writer and analysed by the
 * real detectors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_stream.h"
#include "omplens_render.h"
#include "report_internal.h"
#include "trace_writer.h"

#define T0 1000000u
#define BUFFERS 5
#define SENDS 4
#define CODEPTR 0x555555554100u

typedef struct fixture {
  char dir[256];
  char path[320];
  omplens_trace *trace;
  omplens_analysis *analysis;
  omplens_report_process proc;
  omplens_report_input in;
} fixture;

static char *const ARGV[] = {"prog", "\"quoted\" </script>", "bad\xff", "caf\xc3\xa9", NULL};

/* Buffer b is sent SENDS times unchanged by one `target update to`, at
 * growing sizes so the findings' savings differ: a duplicate finding per
 * buffer (and, as no kernel reads them, unused transfers). */
static void write_sends(omplens_tw *w) {
  omplens_tw_stream s;
  memset(&s, 0, sizeof s);
  omplens_tw_stream_init(&s, w, 7);
  uint64_t t = 100;
  for (int k = 0; k < SENDS; k++)
    for (uint64_t b = 0; b < BUFFERS; b++) {
      uint64_t id = omplens_tw_region_begin(&s, T0 + t, OMPLENS_CONSTRUCT_UPDATE, 0, 0, CODEPTR);
      uint64_t bytes = 4096 * (b + 1);
      omplens_tw_op op = {.begin_ns = T0 + t + 1, .end_ns = T0 + t + 10 + b * 10,
                          .host_addr = 0x10000 * (b + 1), .dev_addr = 0x90000 * (b + 1),
                          .bytes = bytes, .hash = 0xabc0 + b, .region = id, .device = 0,
                          .peer = -1, .kind = OMPLENS_EV_H2D, .hashed = 1};
      omplens_tw_op_write(&s, &op);
      omplens_tw_region_end(&s, T0 + t + 100);
      t += 200;
    }
  omplens_tw_stream_finish(&s);
}

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  const char *tmp = getenv("TMPDIR");
  snprintf(fx->dir, sizeof fx->dir, "%s/omplens-json-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!fx || !mkdtemp(fx->dir))
    return -1;
  snprintf(fx->path, sizeof fx->path, "%s/prog.trace", fx->dir);
  omplens_tw w;
  omplens_tw_header h = {.pid = 42, .exe = "/bin/prog \"<b>\xff", .argv = ARGV,
                         .start_realtime_ns = 1700000000000000000u, .start_monotonic_ns = T0};
  if (omplens_tw_open(&w, fx->path, &h, 0))
    return -1;
  write_sends(&w);
  if (omplens_tw_close(&w, T0 + 100000, 0) || omplens_trace_open(fx->path, &fx->trace))
    return -1;
  size_t nev;
  const omplens_event *ev = omplens_trace_events(fx->trace, &nev);
  if (omplens_detect_run(ev, nev, NULL, &fx->analysis))
    return -1;
  fx->proc = (omplens_report_process){fx->trace, fx->analysis, NULL, NULL, NULL};
  fx->in = (omplens_report_input){&fx->proc, 1, 0};
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  omplens_analysis_free(fx->analysis);
  omplens_trace_close(fx->trace);
  unlink(fx->path);
  rmdir(fx->dir);
  free(fx);
  return 0;
}

static json_t *streamed(const omplens_report_input *in) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(omplens_report_stream_json(in, f), 0);
  assert_int_equal(fclose(f), 0);
  json_error_t err;
  json_t *j = json_loads(buf, JSON_REJECT_DUPLICATES, &err);
  if (!j)
    fail_msg("findings.json is not JSON: %s (line %d column %d)", err.text, err.line, err.column);
  free(buf);
  return j;
}

static json_t *findings_of(json_t *doc) {
  return json_object_get(json_array_get(json_object_get(doc, "processes"), 0), "findings");
}

/* Instance i of columns: each column one value, {"first", "step"} or an
 * array (null: the instance has no such member). */
static json_t *instance_row(const json_t *columns, size_t i) {
  json_t *row = json_object();
  const char *key;
  const json_t *col;
  json_object_foreach((json_t *)columns, key, col) {
    if (!strcmp(key, "count"))
      continue;
    if (json_is_array(col)) {
      if (!json_is_null(json_array_get(col, i)))
        json_object_set(row, key, json_array_get(col, i));
    } else if (json_is_object(col)) {
      json_int_t first = json_integer_value(json_object_get(col, "first"));
      json_int_t step = json_integer_value(json_object_get(col, "step"));
      json_object_set_new(row, key, json_integer(first + (json_int_t)i * step));
    } else {
      json_object_set(row, key, (json_t *)col);
    }
  }
  return row;
}

/* findings.json's instance columns turned back into the document's
 * objects, one per instance; checks that every column has count values. */
static void instances_as_rows(json_t *doc) {
  size_t p, k;
  json_t *proc, *f;
  json_array_foreach(json_object_get(doc, "processes"), p, proc) {
    json_array_foreach(json_object_get(proc, "findings"), k, f) {
      json_t *columns = json_object_get(f, "instances");
      assert_true(json_is_object(columns));
      size_t count = (size_t)json_integer_value(json_object_get(columns, "count"));
      const char *key;
      json_t *col;
      json_object_foreach(columns, key, col)
        if (json_is_array(col))
          assert_int_equal(json_array_size(col), count);
      json_t *rows = json_array();
      for (size_t i = 0; i < count; i++)
        json_array_append_new(rows, instance_row(columns, i));
      json_object_set_new(f, "instances", rows);
    }
  }
}

/* A loop's instances: a regular event column is written as a progression,
 * a field every instance shares as one value. */
static void instance_columns(void **state) {
  fixture *fx = *state;
  json_t *text = streamed(&fx->in);
  size_t k, stepped = 0, shared = 0;
  json_t *f;
  json_array_foreach(findings_of(text), k, f) {
    json_t *columns = json_object_get(f, "instances");
    stepped += json_is_object(json_object_get(columns, "event"));
    shared += json_is_string(json_object_get(columns, "kind"));
  }
  assert_true(stepped > 0);
  assert_true(shared > 0);
  json_decref(text);
}

/* findings.json's references (schema 6) put back as the document has
 * them: each finding's fix, a place in its process's list of fixes, by
 * that fix's object, and its location's directive from the process's
 * directive of the same code address; the list dropped. */
static void references_resolved(json_t *doc) {
  size_t p, k;
  json_t *proc, *f;
  json_array_foreach(json_object_get(doc, "processes"), p, proc) {
    json_t *fixes = json_object_get(proc, "fixes");
    assert_true(json_is_array(fixes));
    json_t *directive_at = json_object();
    json_t *d;
    json_array_foreach(json_object_get(proc, "directives"), k, d) {
      json_t *loc = json_object_get(d, "location");
      if (json_object_get(loc, "directive"))
        json_object_set(directive_at, json_string_value(json_object_get(loc, "codeptr")),
                        json_object_get(loc, "directive"));
    }
    json_array_foreach(json_object_get(proc, "findings"), k, f) {
      json_t *fix = json_object_get(f, "fix"), *loc = json_object_get(f, "location");
      if (fix) {
        assert_true(json_is_integer(fix));
        assert_true((size_t)json_integer_value(fix) < json_array_size(fixes));
        json_object_set(f, "fix", json_array_get(fixes, (size_t)json_integer_value(fix)));
      }
      assert_null(json_object_get(loc, "directive"));
      json_t *known = json_object_get(directive_at, json_string_value(json_object_get(loc, "codeptr")));
      if (known)
        json_object_set(loc, "directive", known);
    }
    json_decref(directive_at);
    json_object_del(proc, "fixes");
  }
}

static void streamed_equals_document(void **state) {
  fixture *fx = *state;
  json_t *doc = omplens_report_document(&fx->in), *text = streamed(&fx->in);
  assert_true(json_array_size(findings_of(doc)) >= BUFFERS);
  instances_as_rows(text);
  references_resolved(text);
  assert_true(json_equal(doc, text));
  json_decref(doc);
  json_decref(text);
}

/* Without attribution a location still names the construct the runtime
 * reported, from its regions' kind; report.md shows it as the kind. */
static void location_names_construct(void **state) {
  fixture *fx = *state;
  /* The trace's own analysis: its findings name the directives' code
   * addresses (the fixture's plain run numbers them by site). */
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_trace(fx->trace, &a), 0);
  omplens_report_process proc = {fx->trace, a, NULL, NULL, NULL};
  omplens_report_input in = {&proc, 1, 0};
  json_t *doc = omplens_report_document(&in);
  json_t *f = json_array_get(findings_of(doc), 0);
  assert_non_null(f);
  json_t *loc = json_object_get(f, "location");
  assert_null(json_object_get(loc, "directive"));
  assert_string_equal(json_string_value(json_object_get(loc, "construct")), "target update");
  char *md = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&md, &len);
  assert_non_null(out);
  assert_int_equal(omplens_render_markdown(doc, NULL, out), 0);
  assert_int_equal(fclose(out), 0);
  assert_non_null(strstr(md, "| target update |"));
  free(md);
  json_decref(doc);
  omplens_analysis_free(a);
}

static char *stream_text(const omplens_report_input *in, const json_t *doc) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(omplens_report_stream_json_beside(in, doc, f), 0);
  assert_int_equal(fclose(f), 0);
  return buf;
}

/* Beside the pages' document, findings.json is written from its
 * directives and locations, byte for byte as alone. */
static void streamed_beside_document(void **state) {
  fixture *fx = *state;
  json_t *doc = omplens_report_document_limited(&fx->in, 1, 1);
  json_t *dirs = json_object_get(json_array_get(json_object_get(doc, "processes"), 0), "directives");
  assert_int_equal(json_array_size(dirs), 1);
  char *alone = stream_text(&fx->in, NULL), *beside = stream_text(&fx->in, doc);
  assert_string_equal(alone, beside);
  free(beside);
  /* The document's objects are the ones written: marked, the mark shows
   * in the directive and in every finding's location. */
  json_t *loc = json_object_get(json_array_get(dirs, 0), "location");
  json_object_set_new(loc, "mark", json_string("from the document"));
  beside = stream_text(&fx->in, doc);
  json_t *text = json_loads(beside, 0, NULL);
  json_t *proc = json_array_get(json_object_get(text, "processes"), 0);
  const char *mark = json_string_value(json_object_get(
      json_object_get(json_array_get(json_object_get(proc, "directives"), 0), "location"), "mark"));
  assert_non_null(mark);
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(proc, "findings"), i, f)
    assert_non_null(json_object_get(json_object_get(f, "location"), "mark"));
  assert_true(json_array_size(json_object_get(proc, "findings")) >= BUFFERS);
  json_decref(text);
  free(alone);
  free(beside);
  json_decref(doc);
}

static void streamed_without_processes(void **state) {
  (void)state;
  omplens_report_input none = {NULL, 0, -1};
  json_t *text = streamed(&none);
  assert_int_equal(json_array_size(json_object_get(text, "processes")), 0);
  assert_null(json_object_get(text, "program_exit_status"));
  json_decref(text);
}

static void limited_document(void **state) {
  fixture *fx = *state;
  json_t *full = omplens_report_document(&fx->in);
  json_t *doc = omplens_report_document_limited(&fx->in, 2, 1);
  json_t *proc = json_array_get(json_object_get(doc, "processes"), 0);
  json_t *listed = findings_of(doc), *all = findings_of(full);
  size_t n = json_array_size(all);
  assert_true(n > 2);
  assert_int_equal(json_array_size(listed), 2);
  json_int_t saved = 0;
  for (size_t i = 2; i < json_array_size(all); i++)
    saved += json_integer_value(json_object_get(json_array_get(all, i), "savings_ns"));
  assert_int_equal(json_integer_value(json_object_get(proc, "findings_omitted")), n - 2);
  assert_int_equal(json_integer_value(json_object_get(proc, "findings_omitted_savings_ns")), saved);
  for (size_t i = 0; i < 2; i++) {
    json_t *f = json_array_get(listed, i);
    assert_true(json_equal(json_object_get(f, "location"),
                           json_object_get(json_array_get(all, i), "location")));
    json_int_t count = json_integer_value(json_object_get(f, "count"));
    assert_true(count >= SENDS - 1);
    assert_int_equal(json_array_size(json_object_get(f, "instances")), 1);
    assert_int_equal(json_integer_value(json_object_get(f, "instances_omitted")), count - 1);
  }
  /* Nothing left out: no omitted counts at all, and the same document but
   * for the pages' list of directives with findings. */
  json_t *roomy = omplens_report_document_limited(&fx->in, 100, 0);
  json_t *roomy_proc = json_array_get(json_object_get(roomy, "processes"), 0);
  assert_null(json_object_get(roomy_proc, "findings_omitted"));
  assert_non_null(json_object_get(roomy_proc, "page_directives"));
  json_object_del(roomy_proc, "page_directives");
  assert_true(json_equal(roomy, full));
  json_decref(roomy);
  json_decref(doc);
  json_decref(full);
}

static void failed_writes(void **state) {
  fixture *fx = *state;
  FILE *f = fopen("/dev/full", "w");
  if (f) {
    assert_int_equal(omplens_report_stream_json(&fx->in, f), OMPLENS_REPORT_EIO);
    fclose(f);
  }
  char path[400];
  snprintf(path, sizeof path, "%s/missing/findings.json", fx->dir);
  assert_int_equal(omplens_report_write_json(&fx->in, path), OMPLENS_REPORT_EIO);
  snprintf(path, sizeof path, "%s/findings.json", fx->dir);
  assert_int_equal(omplens_report_write_json(&fx->in, path), 0);
  assert_int_equal(access(path, R_OK), 0);
  unlink(path);
  assert_int_equal(omplens_report_stream_json(NULL, stdout), OMPLENS_REPORT_EINVAL);
}

static void assert_formats(uint64_t v) {
  char got[32], want[32];
  *omplens_report__format_u64(got, v) = 0;
  snprintf(want, sizeof want, "%" PRIu64, v);
  assert_string_equal(got, want);
  *omplens_report__format_hex(got, v) = 0;
  snprintf(want, sizeof want, "\"0x%" PRIx64 "\"", v);
  assert_string_equal(got, want);
}

/* Against printf: where the digit counts change (every power of ten and of
 * two, and one either side), the limits, and pseudo-random values of every
 * length. */
static void number_formatting(void **state) {
  (void)state;
  const uint64_t values[] = {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 4294967295u,
                             1234567890123u, (uint64_t)INT64_MAX, UINT64_MAX - 1, UINT64_MAX};
  for (size_t i = 0; i < sizeof values / sizeof *values; i++)
    assert_formats(values[i]);
  for (uint64_t p = 1;; p *= 10) {
    assert_formats(p - 1);
    assert_formats(p);
    assert_formats(p + 1);
    if (p > UINT64_MAX / 10)
      break;
  }
  for (int b = 0; b < 64; b++) {
    assert_formats((1ull << b) - 1);
    assert_formats(1ull << b);
    assert_formats((1ull << b) + 1);
  }
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 100000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    assert_formats(x >> (x & 63));
  }
}

/* A streaming writer into a temporary file. */
static omplens_jout *jout_new(void) {
  FILE *f = tmpfile();
  omplens_jout *j = malloc(sizeof *j);
  assert_non_null(f);
  assert_non_null(j);
  omplens_jout_init(j, f);
  return j;
}

/* Finishes j and frees it; the text it wrote (caller frees). */
static char *jout_finished_text(omplens_jout *j) {
  assert_int_equal(omplens_jout_finish(j), 0);
  FILE *f = j->f;
  free(j);
  long n = ftell(f);
  char *text = calloc((size_t)n + 1, 1);
  rewind(f);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return text;
}

/* The text of doc, an array, written with the streaming writer; caller
 * frees. */
static char *jout_text(const json_t *doc) {
  omplens_jout *j = jout_new();
  omplens_jout_raw(j, "[", 1);
  for (size_t i = 0; i < json_array_size(doc); i++) {
    omplens_jout_raw(j, i ? "," : "", i ? 1 : 0);
    omplens_jout_newline(j, 1);
    omplens_jout_value(j, json_array_get(doc, i), 1, NULL, NULL, NULL);
  }
  omplens_jout_newline(j, 0);
  omplens_jout_raw(j, "]", 1);
  return jout_finished_text(j);
}

/* Objects written across the writer's buffer boundaries (3000 copies of
 * 300 bytes, at two nesting levels) give json_dumps's text. */
static void written_across_buffers(void **state) {
  (void)state;
  char text[256];
  memset(text, 'x', sizeof text - 1);
  text[sizeof text - 1] = 0;
  json_t *shared = json_pack("{s:s, s:i, s:[i, i]}", "summary", text, "line", 7, "lines", 1, 2);
  json_t *doc = json_array();
  for (int i = 0; i < 3000; i++)
    json_array_append_new(doc, i % 3 ? json_pack("{s:i, s:O}", "n", i, "fix", shared)
                                     : json_pack("{s:{s:O}}", "deeper", "fix", shared));
  char *written = jout_text(doc), *dumped = json_dumps(doc, JSON_INDENT(2) | JSON_ENSURE_ASCII);
  assert_string_equal(written, dumped);
  free(dumped);
  free(written);
  json_decref(doc);
  json_decref(shared);
}

/* Strings with every ASCII byte (NUL, the control characters, quote,
 * backslash, DEL among them), and with non-ASCII text beside escapes,
 * written as json_dumps writes them; keys too. */
static void escaped_strings(void **state) {
  (void)state;
  json_t *doc = json_array();
  char all[129];
  for (int c = 0; c < 128; c++)
    all[c] = (char)c;
  all[128] = 0;
  json_array_append_new(doc, json_stringn(all, 128));
  for (int c = 0; c < 128; c++) {
    char one[3] = {'a', (char)c, 'z'};
    json_array_append_new(doc, json_stringn(one, 3));
  }
  json_array_append_new(doc, json_string("caf\xc3\xa9 \"quoted\"\n\xf0\x9f\x98\x80"));
  json_array_append_new(doc, json_pack("{s:s}", "key \"with\"\tescapes", "v"));
  char *text = jout_text(doc);
  char *dumped = json_dumps(doc, JSON_INDENT(2) | JSON_ENSURE_ASCII);
  assert_string_equal(text, dumped);
  free(dumped);
  free(text);
  json_decref(doc);
}

/* One set of members of every kind, added to m. */
static void some_members(omplens_jmembers *m) {
  omplens_jm_string(m, "plain", "text");
  omplens_jm_string(m, "escaped", "a \"quote\"\n\ttab");
  omplens_jm_string(m, "non_ascii", "caf\xc3\xa9");
  omplens_jm_string(m, "not_utf8", "bad \xff byte"); /* no member, as json_string gives none */
  omplens_jm_string(m, "null", NULL);                 /* no member */
  omplens_jm_int(m, "zero", 0);
  omplens_jm_int(m, "negative", -42);
  omplens_jm_int(m, "largest", INT64_MAX);
  omplens_jm_int(m, "smallest", INT64_MIN);
  omplens_jm_hex(m, "hex_zero", 0);
  omplens_jm_hex(m, "hex", 0x7f00dead0000ull);
  omplens_jm_hex(m, "hex_max", UINT64_MAX);
  omplens_jm_bool(m, "yes", 1);
  omplens_jm_bool(m, "no", 0);
  omplens_jm_value(m, "object", json_pack("{s:i, s:[i, s], s:{}}", "a", 1, "b", 2, "c", "d"));
  omplens_jm_value(m, "none", NULL); /* no member */
  omplens_jm_value(m, "real", json_real(1.5));
}

/* Members written at once (findings.json's findings) give the text that
 * the same members added to an object give through json_dumps, inside an
 * array as findings.json nests them. */
static void members_built_or_written(void **state) {
  (void)state;
  omplens_jmembers built = {.obj = json_object()};
  some_members(&built);
  assert_int_equal(json_object_size(built.obj), 14);
  json_t *doc = json_pack("[o]", built.obj);
  char *dumped = json_dumps(doc, JSON_INDENT(2) | JSON_ENSURE_ASCII);

  omplens_jout *j = jout_new();
  omplens_jout_raw(j, "[", 1);
  omplens_jout_newline(j, 1);
  omplens_jout_raw(j, "{", 1);
  omplens_jmembers written = {.j = j, .depth = 2, .first = 1};
  some_members(&written);
  omplens_jout_newline(j, 1);
  omplens_jout_raw(j, "}", 1);
  omplens_jout_newline(j, 0);
  omplens_jout_raw(j, "]", 1);
  char *text = jout_finished_text(j);
  assert_string_equal(text, dumped);
  free(text);
  free(dumped);
  json_decref(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(streamed_equals_document, setup, teardown),
      cmocka_unit_test_setup_teardown(location_names_construct, setup, teardown),
      cmocka_unit_test_setup_teardown(instance_columns, setup, teardown),
      cmocka_unit_test_setup_teardown(streamed_beside_document, setup, teardown),
      cmocka_unit_test(streamed_without_processes),
      cmocka_unit_test(number_formatting),
      cmocka_unit_test_setup_teardown(limited_document, setup, teardown),
      cmocka_unit_test_setup_teardown(failed_writes, setup, teardown),
      cmocka_unit_test(written_across_buffers),
      cmocka_unit_test(escaped_strings),
      cmocka_unit_test(members_built_or_written),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
