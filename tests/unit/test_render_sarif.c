/* Unit tests of the findings.sarif and timeline.json renderers
 * (report/render_sarif.c, report/render_timeline.c). Every output is parsed
 * back with jansson and checked field by field: the SARIF 2.1.0 properties
 * the schema requires, stable rule ids and fingerprints, relative URIs; the
 * timeline's processes, lanes, time order and finding marks, on a trace
 * written with the real writer. Design: docs/sarif-and-timeline.md. */
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

/* A source tree with spaces in its name; nothing here touches the disk. */
#define BASE "/work space/omp lens"
#define PROG BASE "/build/prog"
#define SRC BASE "/src/prog.c"

/* ---- Harness ----------------------------------------------------------- */

static json_t *parse(const char *text) {
  json_error_t err;
  json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &err);
  if (!j)
    fail_msg("output is not JSON: %s (line %d column %d)", err.text, err.line, err.column);
  return j;
}

/* Output text of a renderer; caller frees. */
static char *sarif_text(const json_t *doc, const char *base) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  omplens_render_options opt = {.base_dir = base};
  assert_int_equal(omplens_render_sarif(doc, &opt, f), 0);
  assert_int_equal(fclose(f), 0);
  return buf;
}

static json_t *sarif(const json_t *doc, const char *base) {
  char *text = sarif_text(doc, base);
  json_t *log = parse(text);
  free(text);
  return log;
}

static char *timeline_text(const json_t *doc, omplens_trace **traces, size_t n) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(omplens_render_timeline(doc, (const omplens_trace *const *)traces, n, f), 0);
  assert_int_equal(fclose(f), 0);
  return buf;
}

static json_t *timeline(const json_t *doc, omplens_trace **traces, size_t n) {
  char *text = timeline_text(doc, traces, n);
  json_t *t = parse(text);
  free(text);
  return t;
}

static const char *str(const json_t *o, const char *key) {
  return json_string_value(json_object_get(o, key));
}

static json_int_t num(const json_t *o, const char *key) {
  return json_integer_value(json_object_get(o, key));
}

static void assert_has_text(const json_t *o, const char *key) {
  const char *text = str(json_object_get(o, key), "text");
  if (!text || !*text)
    fail_msg("%s.text is missing or empty", key);
}

/* ---- Documents --------------------------------------------------------- */

static json_t *document(json_t *findings) {
  return json_pack("{s:s, s:i, s:s, s:i, s:[{s:s, s:i, s:s, s:s, s:I, s:b, s:i, s:i, s:[],"
                   " s:[], s:o, s:[]}]}",
                   "schema", "omplens-findings", "schema_version", OMPLENS_FINDINGS_SCHEMA_VERSION,
                   "omplens_version", "0.1.0", "program_exit_status", 0, "processes", "trace",
                   "/tmp/t/prog-123.trace", "pid", 123, "executable", PROG, "command_line",
                   "./prog 10", "start_unix_ns", (json_int_t)1763719000000000000, "complete", 1,
                   "devices", 1, "dropped_events", 0, "damage", "directives", "findings",
                   findings, "mappings_at_exit");
}

static json_t *first_process(json_t *doc) {
  return json_array_get(json_object_get(doc, "processes"), 0);
}

/* What findings.json holds today: module and offset only. */
static json_t *module_location(const char *codeptr, const char *offset) {
  return json_pack("{s:s, s:s, s:s}", "codeptr", codeptr, "module", PROG, "offset", offset);
}

/* With source attribution: the line table's line and the directive. */
static json_t *attributed_location(int line, const char *text) {
  return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:{s:s, s:s, s:s, s:i, s:i, s:s,"
                   " s:b, s:b}}",
                   "codeptr", "0x5555555553e5", "module", PROG, "offset", "0x13e5", "file", SRC,
                   "line", line + 1, "column", 5, "function", "main", "directive", "kind",
                   "target update", "text", text, "file", SRC, "line", line, "end_line", line,
                   "confidence", "exact", "partial_parse", 0, "stale", 0);
}

static json_t *finding(const char *category, json_t *location) {
  return json_pack("{s:s, s:i, s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:[]}", "category", category,
                   "device", 0, "location", location, "host_addr", "0x7f0000001000", "bytes",
                   (json_int_t)8388608, "count", (json_int_t)9, "total_bytes",
                   (json_int_t)75497472, "total_ns", (json_int_t)5400000, "savings_ns",
                   (json_int_t)5400000, "instances");
}

static void set_variable(json_t *f, const char *item, int certain) {
  json_object_set_new(f, "variable", json_pack("{s:s, s:s, s:b}", "item", item, "name", "a",
                                               "certain", certain));
}

/* ---- SARIF: checks by hand of what the 2.1.0 schema requires ----------- */

static const struct {
  const char *id, *category;
} expected_rules[] = {
  {"OMPL001", "duplicate-transfer"}, {"OMPL002", "duplicate-content"},
  {"OMPL003", "round-trip"},         {"OMPL004", "repeated-alloc"},
  {"OMPL005", "unused-alloc"},       {"OMPL006", "unused-transfer"},
  {"OMPL007", "mapped-but-unreferenced"}, {"OMPL008", "round-trip-other-buffer"},
  {"OMPL009", "reinitialization"},
};

static void check_rule(const json_t *rule) {
  assert_non_null(str(rule, "id"));
  assert_non_null(str(rule, "name"));
  assert_has_text(rule, "shortDescription");
  assert_has_text(rule, "fullDescription");
  assert_has_text(rule, "help");
  assert_string_equal(str(json_object_get(rule, "defaultConfiguration"), "level"), "warning");
}

/* A relative reference under %SRCROOT%, or an absolute file URI; either way
 * percent-encoded, with forward slashes. */
static void check_artifact(const json_t *artifact) {
  const char *uri = str(artifact, "uri");
  assert_non_null(uri);
  for (const char *c = uri; *c; c++)
    if (*c == ' ' || *c == '\\' || *c == '#' || *c == '?' || (unsigned char)*c >= 0x80)
      fail_msg("URI '%s' is not percent-encoded", uri);
  if (str(artifact, "uriBaseId")) {
    assert_string_equal(str(artifact, "uriBaseId"), "%SRCROOT%");
    if (uri[0] == '/' || strstr(uri, "://") || !strncmp(uri, "../", 3))
      fail_msg("URI '%s' is not relative", uri);
  } else if (strncmp(uri, "file:///", 8)) {
    fail_msg("URI '%s' has no base and is not an absolute file URI", uri);
  }
}

static void check_location(const json_t *loc) {
  const json_t *phys = json_object_get(loc, "physicalLocation");
  if (!phys && !json_array_size(json_object_get(loc, "logicalLocations")))
    fail_msg("a location without physical or logical location");
  if (phys) {
    check_artifact(json_object_get(phys, "artifactLocation"));
    const json_t *region = json_object_get(phys, "region");
    if (region)
      assert_true(num(region, "startLine") >= 1);
  }
}

static void check_fingerprint(const json_t *result) {
  const char *fp = str(json_object_get(result, "partialFingerprints"), "omplensFinding/v1");
  assert_non_null(fp);
  assert_true(strlen(fp) >= 18);
  for (int i = 0; i < 16; i++)
    assert_non_null(strchr("0123456789abcdef", fp[i]));
  assert_int_equal(fp[16], ':');
  assert_true(atoi(fp + 17) >= 1);
}

static void check_result(const json_t *result, const json_t *rules) {
  const json_t *rule = json_array_get(rules, (size_t)num(result, "ruleIndex"));
  assert_non_null(rule);
  assert_string_equal(str(result, "ruleId"), str(rule, "id"));
  /* a set-up finding is a note, every other one a warning */
  int setup = json_is_true(json_object_get(json_object_get(result, "properties"), "setup"));
  assert_string_equal(str(result, "level"), setup ? "note" : "warning");
  assert_has_text(result, "message");
  const json_t *locs = json_object_get(result, "locations");
  assert_true(json_array_size(locs) >= 1);
  size_t i;
  const json_t *loc;
  json_array_foreach(locs, i, loc)
    check_location(loc);
  check_fingerprint(result);
}

/* Walks the log; returns runs[0]. */
static const json_t *check_log(const json_t *log) {
  assert_string_equal(str(log, "$schema"), "https://json.schemastore.org/sarif-2.1.0.json");
  assert_string_equal(str(log, "version"), "2.1.0");
  const json_t *runs = json_object_get(log, "runs");
  assert_int_equal(json_array_size(runs), 1);
  const json_t *run = json_array_get(runs, 0);
  const json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
  assert_string_equal(str(driver, "name"), "omplens");
  assert_non_null(str(driver, "version"));
  const json_t *rules = json_object_get(driver, "rules");
  size_t i;
  const json_t *v;
  json_array_foreach(rules, i, v)
    check_rule(v);
  assert_true(json_is_array(json_object_get(run, "results")));
  json_array_foreach(json_object_get(run, "results"), i, v)
    check_result(v, rules);
  json_array_foreach(json_object_get(run, "invocations"), i, v) {
    assert_true(json_is_boolean(json_object_get(v, "executionSuccessful")));
    size_t j;
    const json_t *n;
    json_array_foreach(json_object_get(v, "toolExecutionNotifications"), j, n)
      assert_has_text(n, "message");
  }
  return run;
}

static const json_t *result_at(const json_t *run, size_t i) {
  return json_array_get(json_object_get(run, "results"), i);
}

static const json_t *artifact_of(const json_t *result) {
  return json_object_get(json_object_get(json_array_get(json_object_get(result, "locations"), 0),
                                         "physicalLocation"),
                         "artifactLocation");
}

static const char *fingerprint_of(const json_t *result) {
  return str(json_object_get(result, "partialFingerprints"), "omplensFinding/v1");
}

/* ---- SARIF tests ------------------------------------------------------- */

static void sarif_rules_are_stable(void **state) {
  json_t *doc = document(json_array());
  json_t *log = sarif(doc, BASE);
  const json_t *run = check_log(log);
  const json_t *rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"),
                                        "rules");
  size_t n = sizeof expected_rules / sizeof expected_rules[0];
  assert_int_equal(json_array_size(rules), n);
  for (size_t i = 0; i < n; i++) {
    const json_t *rule = json_array_get(rules, i);
    assert_string_equal(str(rule, "id"), expected_rules[i].id);
    assert_string_equal(str(json_object_get(rule, "properties"), "category"),
                        expected_rules[i].category);
  }
  assert_int_equal(json_array_size(json_object_get(run, "results")), 0);
  json_decref(log);
  json_decref(doc);
}

static void sarif_empty_documents(void **state) {
  json_t *doc = json_pack("{s:s, s:i, s:[]}", "schema", "omplens-findings", "schema_version", 1,
                          "processes");
  json_t *log = sarif(doc, NULL);
  const json_t *run = check_log(log);
  assert_int_equal(json_array_size(json_object_get(run, "results")), 0);
  json_decref(log);
  json_decref(doc);
  doc = json_pack("{s:s}", "schema", "omplens-findings"); /* not even processes */
  log = sarif(doc, NULL);
  check_log(log);
  json_decref(log);
  json_decref(doc);
}

/* Today's documents: no source file, so the module binary is the artifact
 * (code scanning rejects results without a physical location) and the
 * offset a logical location. */
static void sarif_without_attribution(void **state) {
  json_t *fs = json_array();
  json_array_append_new(fs, finding("round-trip", module_location("0x5555555553e5", "0x13e5")));
  json_array_append_new(fs, finding("unused-alloc", json_pack("{s:s}", "codeptr", "0x1234")));
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  const json_t *run = check_log(log);
  assert_int_equal(json_array_size(json_object_get(run, "results")), 2);

  const json_t *r = result_at(run, 0);
  assert_string_equal(str(r, "ruleId"), "OMPL003");
  assert_string_equal(str(artifact_of(r), "uri"), "build/prog");
  assert_string_equal(str(artifact_of(r), "uriBaseId"), "%SRCROOT%");
  const json_t *loc = json_array_get(json_object_get(r, "locations"), 0);
  assert_null(json_object_get(json_object_get(loc, "physicalLocation"), "region"));
  const json_t *logical = json_array_get(json_object_get(loc, "logicalLocations"), 0);
  assert_string_equal(str(logical, "name"), "prog+0x13e5");
  const char *text = str(json_object_get(r, "message"), "text");
  assert_non_null(strstr(text, "9 wasted operations of 8.0 MiB"));
  assert_non_null(strstr(text, "0x7f0000001000"));
  assert_non_null(strstr(text, "prog+0x13e5"));
  const json_t *props = json_object_get(r, "properties");
  assert_int_equal(num(props, "bytes"), 8388608);
  assert_int_equal(num(props, "count"), 9);
  assert_int_equal(num(props, "savings_ns"), 5400000);
  assert_int_equal(num(props, "device"), 0);
  assert_int_equal(num(props, "pid"), 123);

  r = result_at(run, 1); /* an address in no module: nothing physical */
  assert_string_equal(str(r, "ruleId"), "OMPL005");
  loc = json_array_get(json_object_get(r, "locations"), 0);
  assert_null(json_object_get(loc, "physicalLocation"));
  logical = json_array_get(json_object_get(loc, "logicalLocations"), 0);
  assert_string_equal(str(logical, "name"), "0x1234");
  json_decref(log);
  json_decref(doc);
}

/* A set-up finding is a note that says why; the others stay warnings. */
static void sarif_setup_findings(void **state) {
  (void)state;
  json_t *fs = json_array();
  json_t *loop = finding("round-trip", module_location("0x5555555553e5", "0x13e5"));
  json_object_set_new(loop, "setup", json_false());
  json_t *init = finding("duplicate-transfer", module_location("0x5555555553f0", "0x13f0"));
  json_object_set_new(init, "setup", json_true());
  json_array_append_new(fs, loop);
  json_array_append_new(fs, init);
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  const json_t *run = check_log(log);
  const json_t *r = result_at(run, 0);
  assert_string_equal(str(r, "level"), "warning");
  assert_true(json_is_false(json_object_get(json_object_get(r, "properties"), "setup")));
  assert_null(strstr(str(json_object_get(r, "message"), "text"), "set-up"));
  r = result_at(run, 1);
  assert_string_equal(str(r, "level"), "note");
  assert_true(json_is_true(json_object_get(json_object_get(r, "properties"), "setup")));
  assert_non_null(strstr(str(json_object_get(r, "message"), "text"), "one-time set-up"));
  json_decref(log);
  json_decref(doc);
}

static const json_t *rule_of(const json_t *run, const json_t *result) {
  const json_t *rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"),
                                        "rules");
  return json_array_get(rules, (size_t)num(result, "ruleIndex"));
}

static void assert_lacks(const char *text, const char *word) {
  if (strstr(text, word))
    fail_msg("'%s' should not say '%s'", text, word);
}

/* The categories of findings.json version 2: their own rules, and a reset is
 * never worded as a duplicate nor fixed by keeping the data resident. */
static void sarif_version_2_categories(void **state) {
  json_t *fs = json_array();
  json_t *reinit = finding("reinitialization", module_location("0x5555555553e5", "0x13e5"));
  set_variable(reinit, "sum", 1);
  json_array_append_new(fs, reinit);
  json_array_append_new(fs, finding("round-trip-other-buffer", module_location("0x55", "0x1400")));
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  const json_t *run = check_log(log);

  const json_t *r = result_at(run, 0);
  assert_string_equal(str(r, "ruleId"), "OMPL009");
  const json_t *rule = rule_of(run, r);
  assert_string_equal(str(rule, "name"), "Reinitialization");
  const char *text = str(json_object_get(r, "message"), "text");
  assert_non_null(
      strstr(text, "'sum' is sent to device 0 again to set back data that changed there"));
  assert_non_null(strstr(text, "not a duplicate"));
  const char *help = str(json_object_get(rule, "help"), "text");
  assert_non_null(strstr(help, "#pragma omp target"));
  const char *texts[] = {text, help, str(json_object_get(rule, "shortDescription"), "text"),
                         str(json_object_get(rule, "fullDescription"), "text")};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    assert_lacks(texts[i], "resident");
    assert_lacks(texts[i], "already");
    assert_lacks(texts[i], "still holds");
  }

  r = result_at(run, 1);
  assert_string_equal(str(r, "ruleId"), "OMPL008");
  rule = rule_of(run, r);
  assert_string_equal(str(rule, "name"), "RoundTripOtherBuffer");
  assert_non_null(
      strstr(str(json_object_get(r, "message"), "text"), "through another host buffer"));
  assert_non_null(strstr(str(json_object_get(rule, "help"), "text"), "swap the device pointers"));
  json_decref(log);
  json_decref(doc);
}

/* A duplicate may follow the end of the mapping that held the content
 * (an exit data, a data region's end): told as content received before,
 * never as content the receiver still holds. */
static void sarif_duplicate_wording(void **state) {
  (void)state;
  json_t *fs = json_array();
  json_t *f = finding("duplicate-transfer", module_location("0x5555555553e5", "0x13e5"));
  set_variable(f, "a[0:n]", 1);
  json_array_append_new(fs, f);
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  const json_t *run = check_log(log);
  const json_t *r = result_at(run, 0);
  const json_t *rule = rule_of(run, r);
  const char *text = str(json_object_get(r, "message"), "text");
  assert_non_null(strstr(text, "received before"));
  const char *texts[] = {text, str(json_object_get(rule, "shortDescription"), "text"),
                         str(json_object_get(rule, "fullDescription"), "text")};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    assert_lacks(texts[i], "still holds");
  json_decref(log);
  json_decref(doc);
}

static void sarif_with_attribution(void **state) {
  json_t *f = finding("duplicate-transfer",
                      attributed_location(36, "#pragma omp target update to(a[0:n])"));
  set_variable(f, "a[0:n]", 1);
  json_object_set_new(f, "explanation", json_string("a[0:n] is sent to device 0 again."));
  json_object_set_new(f, "fix", json_pack("{s:s, s:s, s:I}", "summary",
                                          "keep a[0:n] resident with target data", "diff",
                                          "--- a/src/prog.c\n+++ b/src/prog.c\n@@ -1 +1 @@\n",
                                          "predicted_savings_ns", (json_int_t)5400000));
  json_t *fs = json_array();
  json_array_append_new(fs, f);
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  const json_t *r = result_at(check_log(log), 0);
  assert_string_equal(str(r, "ruleId"), "OMPL001");
  assert_string_equal(str(artifact_of(r), "uri"), "src/prog.c");
  const json_t *phys = json_object_get(json_array_get(json_object_get(r, "locations"), 0),
                                       "physicalLocation");
  const json_t *region = json_object_get(phys, "region");
  assert_int_equal(num(region, "startLine"), 36); /* the directive, not the call (37) */
  assert_string_equal(str(json_object_get(region, "snippet"), "text"),
                      "#pragma omp target update to(a[0:n])");
  assert_string_equal(str(json_object_get(r, "message"), "text"),
                      "a[0:n] is sent to device 0 again. Suggested fix: keep a[0:n] resident "
                      "with target data");
  const json_t *props = json_object_get(r, "properties");
  assert_string_equal(str(props, "suggestedDiff"),
                      "--- a/src/prog.c\n+++ b/src/prog.c\n@@ -1 +1 @@\n");
  assert_string_equal(str(props, "variable"), "a[0:n]");
  assert_string_equal(str(props, "attributionConfidence"), "exact");
  json_decref(log);
  json_decref(doc);
}

/* Without a directive, the line table's line and column place the result. */
static void sarif_line_table_only(void **state) {
  json_t *loc = json_pack("{s:s, s:s, s:i, s:i}", "codeptr", "0x10", "file", SRC, "line", 12,
                          "column", 7);
  json_t *fs = json_array();
  json_array_append_new(fs, finding("repeated-alloc", loc));
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  const json_t *r = result_at(check_log(log), 0);
  const json_t *region = json_object_get(json_object_get(json_array_get(
      json_object_get(r, "locations"), 0), "physicalLocation"), "region");
  assert_int_equal(num(region, "startLine"), 12);
  assert_int_equal(num(region, "startColumn"), 7);
  assert_non_null(strstr(str(json_object_get(r, "message"), "text"), "prog.c:12"));
  json_decref(log);
  json_decref(doc);
}

static char *fingerprint_for(json_t *f) {
  json_t *fs = json_array();
  json_array_append_new(fs, f);
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  char *fp = strdup(fingerprint_of(result_at(check_log(log), 0)));
  json_decref(log);
  json_decref(doc);
  return fp;
}

static json_t *attributed(int line, const char *text, const char *item, int certain) {
  json_t *f = finding("round-trip", attributed_location(line, text));
  if (item)
    set_variable(f, item, certain);
  return f;
}

/* Re-runs match: moving or re-indenting the directive keeps the
 * fingerprint; another variable, category or file does not. */
static void sarif_fingerprints(void **state) {
  char *base = fingerprint_for(attributed(36, "#pragma omp target map(tofrom: a[0:n])", "a[0:n]", 1));
  char *again = fingerprint_for(attributed(36, "#pragma omp target map(tofrom: a[0:n])", "a[0:n]", 1));
  char *moved = fingerprint_for(attributed(50, "#pragma omp target map(tofrom: a[0:n])", "a[0:n]", 1));
  char *spaced = fingerprint_for(attributed(36, "#pragma  omp target \\\n   map(tofrom: a[0:n])",
                                            "a[0:n]", 1));
  char *other = fingerprint_for(attributed(36, "#pragma omp target map(tofrom: a[0:n])", "b[0:n]", 1));
  char *guess = fingerprint_for(attributed(36, "#pragma omp target map(tofrom: a[0:n])", "b[0:n]", 0));
  char *none = fingerprint_for(attributed(36, "#pragma omp target map(tofrom: a[0:n])", NULL, 0));
  assert_string_equal(base, again);
  assert_string_equal(base, moved);
  assert_string_equal(base, spaced);
  assert_string_not_equal(base, other);
  assert_string_equal(guess, none); /* a guessed variable is left out */
  assert_string_not_equal(base, none);
  assert_string_equal(base + 16, ":1");
  free(base), free(again), free(moved), free(spaced), free(other), free(guess), free(none);
}

/* Two findings that nothing tells apart are numbered, so that GitHub keeps
 * both alerts. */
static void sarif_fingerprint_occurrences(void **state) {
  json_t *fs = json_array();
  json_array_append_new(fs, finding("round-trip", module_location("0x55", "0x13e5")));
  json_array_append_new(fs, finding("round-trip", module_location("0x55", "0x13e5")));
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  const json_t *run = check_log(log);
  const char *a = fingerprint_of(result_at(run, 0)), *b = fingerprint_of(result_at(run, 1));
  assert_memory_equal(a, b, 16);
  assert_string_equal(a + 16, ":1");
  assert_string_equal(b + 16, ":2");
  json_decref(log);
  json_decref(doc);
}

static const char *uri_for(const char *file, const char *base, char *buf, size_t size,
                           int *has_base) {
  json_t *loc = json_pack("{s:s, s:s, s:i}", "codeptr", "0x10", "file", file, "line", 3);
  json_t *fs = json_array();
  json_array_append_new(fs, finding("round-trip", loc));
  json_t *doc = document(fs);
  json_t *log = sarif(doc, base);
  const json_t *artifact = artifact_of(result_at(check_log(log), 0));
  snprintf(buf, size, "%s", str(artifact, "uri"));
  *has_base = str(artifact, "uriBaseId") != NULL;
  json_decref(log);
  json_decref(doc);
  return buf;
}

static void sarif_paths(void **state) {
  char buf[512];
  int based;
  assert_string_equal(uri_for(BASE "/src/my file#1%.c", BASE, buf, sizeof buf, &based),
                      "src/my%20file%231%25.c");
  assert_true(based);
  assert_string_equal(uri_for(BASE "/src/../src/./sub//a.c", BASE "/", buf, sizeof buf, &based),
                      "src/sub/a.c");
  assert_string_equal(uri_for(BASE "/src/caf\xc3\xa9.c", BASE, buf, sizeof buf, &based),
                      "src/caf%C3%A9.c");
  assert_string_equal(uri_for("/other/x y.c", BASE, buf, sizeof buf, &based),
                      "file:///other/x%20y.c");
  assert_false(based);
  /* A sibling whose name starts like the base is not inside it. */
  assert_string_equal(uri_for(BASE "2/a.c", BASE, buf, sizeof buf, &based),
                      "file:///work%20space/omp%20lens2/a.c");
  assert_false(based);
  /* A relative base and a relative file are taken from the working directory. */
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_string_equal(uri_for("src/a.c", ".", buf, sizeof buf, &based), "src/a.c");
  assert_true(based);
  assert_string_equal(uri_for("a.c", NULL, buf, sizeof buf, &based), "a.c");

  json_t *doc = document(json_array());
  json_t *log = sarif(doc, BASE);
  const json_t *root = json_object_get(json_object_get(check_log(log), "originalUriBaseIds"),
                                       "%SRCROOT%");
  assert_string_equal(str(root, "uri"), "file:///work%20space/omp%20lens/");
  json_decref(log);
  json_decref(doc);
}

#define HOSTILE "quote \" backslash \\ tab \t nl \n bell \x07 </script><b>&amp; \xc3\xa9 \xe2\x80\xa8"

static void sarif_hostile_strings(void **state) {
  json_t *f = finding("round-trip\"</script>", module_location("0x10", "0x10"));
  json_object_set_new(f, "explanation", json_string(HOSTILE));
  set_variable(f, HOSTILE, 1);
  json_t *fs = json_array();
  json_array_append_new(fs, f);
  json_t *doc = document(fs);
  json_object_set_new(first_process(doc), "executable", json_string(HOSTILE));
  char *text = sarif_text(doc, BASE);
  for (const char *c = text; *c; c++)
    if ((unsigned char)*c >= 0x80 || ((unsigned char)*c < 0x20 && *c != '\n'))
      fail_msg("raw byte 0x%02x in the output", (unsigned char)*c);
  json_t *log = parse(text);
  const json_t *run = check_log(log);
  const json_t *r = result_at(run, 0);
  assert_string_equal(str(json_object_get(r, "message"), "text"), HOSTILE);
  assert_string_equal(str(json_object_get(r, "properties"), "variable"), HOSTILE);
  /* An unknown category gets a rule of its own, with a safe id. */
  const json_t *rule = json_array_get(json_object_get(json_object_get(json_object_get(run, "tool"),
                                                                      "driver"), "rules"),
                                      (size_t)num(r, "ruleIndex"));
  assert_string_equal(str(rule, "id"), "OMPLX-round-trip___script_");
  assert_string_equal(str(r, "ruleId"), "OMPLX-round-trip___script_");
  json_decref(log);
  free(text);
  json_decref(doc);
}

/* Long non-ASCII text is never cut inside a character: generated
 * messages have no length limit, cut notes lose the partial character. */
static void sarif_long_utf8(void **state) {
  char item[2 * 700 + 1] = "", path[2 * 700 + 2] = "/";
  for (int i = 0; i < 700; i++)
    strcat(item, "\xc3\xa9"), strcat(path, "\xc3\xa9");
  json_t *f = finding("round-trip", module_location("0x10", "0x10"));
  set_variable(f, item, 1);
  json_t *fs = json_array();
  json_array_append_new(fs, f);
  json_t *doc = document(fs);
  json_object_set_new(first_process(doc), "sources",
                      json_pack("[{s:s, s:s}]", "path", path, "status", "stale"));
  json_t *log = sarif(doc, BASE);
  const json_t *run = check_log(log);
  assert_non_null(strstr(str(json_object_get(result_at(run, 0), "message"), "text"), item));
  const json_t *inv = json_array_get(json_object_get(run, "invocations"), 0);
  const json_t *note = json_array_get(json_object_get(inv, "toolExecutionNotifications"), 0);
  assert_true(strlen(str(json_object_get(note, "message"), "text")) > 1000);
  json_decref(log);
  json_decref(doc);
}

static void sarif_large_numbers(void **state) {
  json_t *f = finding("unused-transfer", module_location("0xffffffffffffffff", "0xfffffffffff"));
  json_object_set_new(f, "bytes", json_integer(INT64_MAX));
  json_object_set_new(f, "total_bytes", json_integer(INT64_MAX));
  json_object_set_new(f, "count", json_integer(INT64_MAX));
  json_object_set_new(f, "savings_ns", json_integer(INT64_MAX));
  json_t *fs = json_array();
  json_array_append_new(fs, f);
  json_t *doc = document(fs);
  json_t *log = sarif(doc, BASE);
  const json_t *r = result_at(check_log(log), 0);
  const json_t *props = json_object_get(r, "properties");
  assert_true(num(props, "bytes") == INT64_MAX);
  assert_true(num(props, "savings_ns") == INT64_MAX);
  assert_non_null(strstr(str(json_object_get(r, "message"), "text"), "9223372036854775807"));
  json_decref(log);
  json_decref(doc);
}

/* Trouble with the trace shows on the tool's status, not as results. */
static void sarif_notifications(void **state) {
  json_t *doc = document(json_array());
  json_t *proc = first_process(doc);
  json_object_set_new(proc, "complete", json_false());
  json_object_set_new(proc, "dropped_events", json_integer(7));
  json_array_append_new(json_object_get(proc, "damage"), json_string("thread 1 chunk 2: unreadable"));
  json_object_set_new(proc, "sources", json_pack("[{s:s, s:s}, {s:s, s:s}]", "path", SRC, "status",
                                                 "ok", "path", BASE "/gone.c", "status", "missing"));
  json_t *log = sarif(doc, BASE);
  const json_t *inv = json_array_get(json_object_get(check_log(log), "invocations"), 0);
  const json_t *notes = json_object_get(inv, "toolExecutionNotifications");
  assert_int_equal(json_array_size(notes), 4);
  assert_non_null(strstr(str(json_object_get(json_array_get(notes, 0), "message"), "text"),
                         "incomplete"));
  assert_non_null(strstr(str(json_object_get(json_array_get(notes, 3), "message"), "text"),
                         "gone.c: missing"));
  assert_int_equal(num(inv, "exitCode"), 0);
  json_decref(log);
  json_decref(doc);
}

static void sarif_errors(void **state) {
  json_t *doc = document(json_array());
  assert_int_equal(omplens_render_sarif(NULL, NULL, stdout), OMPLENS_REPORT_EINVAL);
  assert_int_equal(omplens_render_sarif(doc, NULL, NULL), OMPLENS_REPORT_EINVAL);
  json_object_set_new(doc, "schema_version", json_integer(OMPLENS_FINDINGS_SCHEMA_VERSION + 1));
  assert_int_equal(omplens_render_sarif(doc, NULL, stdout), OMPLENS_REPORT_EINVAL);
  json_object_set_new(doc, "schema_version", json_integer(1)); /* written before version 2 */
  json_decref(sarif(doc, NULL));
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    assert_int_equal(omplens_render_sarif(doc, NULL, full), OMPLENS_REPORT_EIO);
    fclose(full);
  }
  json_decref(doc);
}

/* ---- A small trace, written with the real writer ----------------------- */

#define T0 1000000u /* monotonic start of the trace */
#define PID 4242
#define HOST_X 0x7f0000001000u
#define DEV_X 0x7e0000001000u
#define HOST_Y 0x7f0000100000u
#define CP_ENTER 0x555555554100u
#define CP_TARGET 0x555555554200u
#define CP_FROM 0x555555554300u
#define CP_TO 0x555555554400u
#define CP_OTHER 0x555555554500u
#define LOC_PTR 0x9000u
#define NAME_PTR 0x9100u

typedef struct fixture {
  char dir[256];
  char path[320];
  omplens_trace *trace;
} fixture;

static omplens_tw_op op(uint8_t kind, uint64_t begin, uint64_t end, int device, uint64_t host,
                        uint64_t bytes, uint64_t hash, uint64_t region) {
  return (omplens_tw_op){.begin_ns = T0 + begin, .end_ns = T0 + end, .host_addr = host,
                         .dev_addr = host ? DEV_X : 0, .bytes = bytes, .hash = hash,
                         .region = region, .device = device, .peer = -1, .kind = kind,
                         .hashed = hash != 0};
}

static void region(omplens_tw_stream *s, uint64_t begin, uint64_t end, int kind, int device,
                   uint64_t codeptr, const omplens_tw_op *o) {
  uint64_t id = omplens_tw_region_begin(s, T0 + begin, kind, 0, device, codeptr);
  if (o) {
    omplens_tw_op copy = *o;
    copy.region = id;
    if (kind == OMPLENS_CONSTRUCT_TARGET)
      omplens_tw_kernel(s, copy.begin_ns, copy.end_ns, device, 4, id);
    else
      omplens_tw_op_write(s, &copy);
  }
  omplens_tw_region_end(s, T0 + end);
}

/* Thread 0: enter data (alloc + H2D of x, with the runtime's source and
 * map names), a kernel, update from, update to of unchanged x (a round
 * trip). Thread 1: an H2D on device 0 overlapping thread 0's, and a kernel
 * on device 1. */
static void write_threads(omplens_tw *w) {
  omplens_tw_stream s0, s1;
  memset(&s0, 0, sizeof s0);
  memset(&s1, 0, sizeof s1);
  omplens_tw_stream_init(&s0, w, 100);
  omplens_tw_stream_init(&s1, w, 101);
  omplens_tw_string(&s0, LOC_PTR, ";/src/dir/prog.c;main;36;1;;");
  omplens_tw_string(&s0, NAME_PTR, ";x[0:n];/src/dir/prog.c;36;1;;");
  omplens_tw_call(&s0, LOC_PTR, CP_ENTER, 1);
  omplens_tw_arg(&s0, HOST_X, HOST_X, 4096, OMPLENS_MAPBIT_TO | OMPLENS_MAPBIT_FROM, NAME_PTR);
  uint64_t id = omplens_tw_region_begin(&s0, T0 + 100, OMPLENS_CONSTRUCT_ENTER_DATA, 0, 0, CP_ENTER);
  omplens_tw_op a = op(OMPLENS_EV_ALLOC, 110, 120, 0, HOST_X, 4096, 0, id);
  omplens_tw_op_write(&s0, &a);
  omplens_tw_op h = op(OMPLENS_EV_H2D, 130, 230, 0, HOST_X, 4096, 0xabc, id);
  omplens_tw_op_write(&s0, &h);
  omplens_tw_region_end(&s0, T0 + 240);
  omplens_tw_op k = op(OMPLENS_EV_KERNEL, 310, 1310, 0, 0, 0, 0, 0);
  region(&s0, 300, 1320, OMPLENS_CONSTRUCT_TARGET, 0, CP_TARGET, &k);
  omplens_tw_op d = op(OMPLENS_EV_D2H, 1410, 1610, 0, HOST_X, 4096, 0xdef, 0);
  region(&s0, 1400, 1620, OMPLENS_CONSTRUCT_UPDATE, 0, CP_FROM, &d);
  omplens_tw_op back = op(OMPLENS_EV_H2D, 1710, 1810, 0, HOST_X, 4096, 0xdef, 0);
  region(&s0, 1700, 1820, OMPLENS_CONSTRUCT_UPDATE, 0, CP_TO, &back);

  omplens_tw_op y = op(OMPLENS_EV_H2D, 160, 260, 0, HOST_Y, 64, 0x123, 0);
  region(&s1, 150, 270, OMPLENS_CONSTRUCT_UPDATE, 0, CP_OTHER, &y);
  omplens_tw_op k1 = op(OMPLENS_EV_KERNEL, 2010, 2500, 1, 0, 0, 0, 0);
  region(&s1, 2000, 2510, OMPLENS_CONSTRUCT_TARGET, 1, CP_TARGET, &k1);
  omplens_tw_stream_finish(&s0);
  omplens_tw_stream_finish(&s1);
}

static int one_module(void *ctx,
                      void (*emit)(void *emit_ctx, uint64_t base, uint64_t low, uint64_t high,
                                   const uint8_t *id, uint8_t idlen, const char *path),
                      void *emit_ctx) {
  emit(emit_ctx, 0x555555554000u, 0x555555554000u, 0x555555560000u, NULL, 0, "/src/dir/my prog");
  return 0;
}

/* Program name and arguments full of what JSON and HTML must escape,
 * including bytes that are not UTF-8. */
static char *const HOSTILE_ARGV[] = {"my prog", "</script>", "\"q\"", "back\\slash",
                                     "ctl\x01\x1f", "bad\xff\xfe", "surrogate\xed\xa0\x80",
                                     "caf\xc3\xa9", NULL};

static int setup_trace(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  const char *tmp = getenv("TMPDIR");
  snprintf(fx->dir, sizeof fx->dir, "%s/omplens-render-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(fx->dir))
    return -1;
  snprintf(fx->path, sizeof fx->path, "%s/prog.trace", fx->dir);
  omplens_tw w;
  omplens_tw_header h = {.pid = PID, .exe = "/src/dir/my prog\"<b>\xff", .argv = HOSTILE_ARGV,
                         .start_realtime_ns = 1700000000000000000u, .start_monotonic_ns = T0,
                         .each_module = one_module};
  if (omplens_tw_open(&w, fx->path, &h, 0))
    return -1;
  write_threads(&w);
  if (omplens_tw_close(&w, T0 + 3000, 0) || omplens_trace_open(fx->path, &fx->trace))
    return -1;
  *state = fx;
  return 0;
}

static int teardown_trace(void **state) {
  fixture *fx = *state;
  omplens_trace_close(fx->trace);
  unlink(fx->path);
  rmdir(fx->dir);
  free(fx);
  return 0;
}

/* Index of the event of that kind beginning at t (ns after the start). */
static size_t event_at(const omplens_trace *t, int kind, uint64_t begin) {
  size_t n;
  const omplens_event *ev = omplens_trace_events(t, &n);
  for (size_t i = 0; i < n; i++)
    if (ev[i].kind == kind && ev[i].begin_ns == begin)
      return i;
  fail_msg("no %s event at %" PRIu64, omplens_event_kind_name(kind), begin);
  return 0;
}

/* The round trip of x, as the detectors would report it. */
static json_t *trace_document(const fixture *fx, uint64_t instance_time) {
  size_t h2d = event_at(fx->trace, OMPLENS_EV_H2D, 1710);
  size_t d2h = event_at(fx->trace, OMPLENS_EV_D2H, 1410);
  json_t *loc = json_pack("{s:s, s:s, s:s, s:{s:s, s:i, s:s}}", "codeptr", "0x555555554400",
                          "module", "/src/dir/my prog", "offset", "0x400", "directive", "file",
                          "/src/dir/prog.c", "line", 40, "text", "#pragma omp target update to(x)");
  json_t *f = finding("round-trip", loc);
  set_variable(f, "x[0:n]", 1);
  json_array_append_new(json_object_get(f, "instances"),
                        json_pack("{s:I, s:s, s:I, s:I, s:I}", "event", (json_int_t)h2d, "kind",
                                  "h2d", "time_ns", (json_int_t)instance_time, "bytes",
                                  (json_int_t)4096, "related_event", (json_int_t)d2h));
  json_t *fs = json_array();
  json_array_append_new(fs, f);
  json_t *doc = document(fs);
  json_t *proc = first_process(doc);
  json_object_set_new(proc, "trace", json_string(fx->path));
  json_object_set_new(proc, "pid", json_integer(PID));
  return doc;
}

/* ---- Timeline checks --------------------------------------------------- */

#define HOST_PID 100000
#define DEV0_PID 100002 /* host pid + 1 + slot; slot 0 is the host as a device */
#define DEV1_PID 100003
#define TID(group, lane) ((group) * 16 + (lane) + 1)
enum { KERNELS, TRANSFERS, ALLOCS, FINDINGS };

static size_t count_events(const json_t *tl, const char *ph, json_int_t pid, json_int_t tid) {
  size_t i, n = 0;
  const json_t *e;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e)
    if (!strcmp(str(e, "ph"), ph) && num(e, "pid") == pid && (tid < 0 || num(e, "tid") == tid))
      n++;
  return n;
}

static const char *meta_name(const json_t *tl, const char *what, json_int_t pid, json_int_t tid) {
  size_t i;
  const json_t *e;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e)
    if (!strcmp(str(e, "ph"), "M") && !strcmp(str(e, "name"), what) && num(e, "pid") == pid &&
        num(e, "tid") == tid)
      return str(json_object_get(e, "args"), "name");
  return NULL;
}

static const json_t *slice_of_event(const json_t *tl, size_t event) {
  size_t i;
  const json_t *e;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e)
    if (!strcmp(str(e, "ph"), "X") && str(e, "cat") && strcmp(str(e, "cat"), "region") &&
        num(json_object_get(e, "args"), "event") == (json_int_t)event)
      return e;
  return NULL;
}

/* Within every lane: slices in time order, nested or disjoint, and each
 * lane named. */
static void check_lanes(const json_t *tl) {
  const json_t *events = json_object_get(tl, "traceEvents");
  for (size_t i = 0; i < json_array_size(events); i++) {
    const json_t *e = json_array_get(events, i);
    const char *ph = str(e, "ph");
    assert_non_null(ph);
    if (!strcmp(ph, "M"))
      continue;
    assert_true(json_is_number(json_object_get(e, "ts")));
    if (strcmp(ph, "X"))
      continue;
    assert_non_null(meta_name(tl, "thread_name", num(e, "pid"), num(e, "tid")));
    assert_non_null(meta_name(tl, "process_name", num(e, "pid"), 0));
    double b = json_number_value(json_object_get(e, "ts"));
    double end = b + json_number_value(json_object_get(e, "dur"));
    double open[16];
    int depth = 0;
    for (size_t j = 0; j < i; j++) { /* replay the lane up to e */
      const json_t *p = json_array_get(events, j);
      if (strcmp(str(p, "ph"), "X") || num(p, "pid") != num(e, "pid") ||
          num(p, "tid") != num(e, "tid"))
        continue;
      double pb = json_number_value(json_object_get(p, "ts"));
      assert_true(pb <= b);
      while (depth && open[depth - 1] <= pb)
        depth--;
      if (depth < 16)
        open[depth++] = pb + json_number_value(json_object_get(p, "dur"));
    }
    while (depth && open[depth - 1] <= b)
      depth--;
    if (depth && end > open[depth - 1])
      fail_msg("slice %zu overlaps its lane without nesting", i);
  }
}

/* ---- Timeline tests ---------------------------------------------------- */

static void timeline_lanes_and_metadata(void **state) {
  fixture *fx = *state;
  json_t *doc = trace_document(fx, 1710);
  json_t *tl = timeline(doc, &fx->trace, 1);
  assert_string_equal(str(tl, "displayTimeUnit"), "ns");
  assert_string_equal(str(json_object_get(tl, "otherData"), "tool"), "omplens");
  check_lanes(tl);

  assert_string_equal(meta_name(tl, "process_name", HOST_PID, 0),
                      "my prog\"<b>\xef\xbf\xbd (pid 4242) host");
  assert_non_null(strstr(meta_name(tl, "process_name", DEV0_PID, 0), "(pid 4242) device 0"));
  assert_non_null(strstr(meta_name(tl, "process_name", DEV1_PID, 0), "(pid 4242) device 1"));
  assert_null(meta_name(tl, "process_name", HOST_PID + 1, 0)); /* no host-device work */
  assert_string_equal(meta_name(tl, "thread_name", HOST_PID, 1), "thread 0");
  assert_string_equal(meta_name(tl, "thread_name", HOST_PID, 17), "thread 1");
  assert_string_equal(meta_name(tl, "thread_name", DEV0_PID, TID(TRANSFERS, 1)), "transfers #2");
  assert_string_equal(meta_name(tl, "thread_name", DEV0_PID, TID(FINDINGS, 0)), "findings");

  assert_int_equal(count_events(tl, "X", HOST_PID, 1), 4);  /* thread 0's regions */
  assert_int_equal(count_events(tl, "X", HOST_PID, 17), 2); /* thread 1's */
  assert_int_equal(count_events(tl, "X", DEV0_PID, TID(KERNELS, 0)), 1);
  assert_int_equal(count_events(tl, "X", DEV0_PID, TID(TRANSFERS, 0)), 3);
  assert_int_equal(count_events(tl, "X", DEV0_PID, TID(TRANSFERS, 1)), 1); /* the overlap */
  assert_int_equal(count_events(tl, "X", DEV0_PID, TID(ALLOCS, 0)), 1);
  assert_int_equal(count_events(tl, "i", DEV0_PID, TID(FINDINGS, 0)), 1);
  assert_int_equal(count_events(tl, "X", DEV1_PID, TID(KERNELS, 0)), 1);
  assert_int_equal(count_events(tl, "X", DEV1_PID, -1), 1);
  json_decref(tl);
  json_decref(doc);
}

static void timeline_slices(void **state) {
  fixture *fx = *state;
  json_t *doc = trace_document(fx, 1710);
  json_t *tl = timeline(doc, &fx->trace, 1);
  const json_t *h2d = slice_of_event(tl, event_at(fx->trace, OMPLENS_EV_H2D, 130));
  assert_non_null(h2d);
  assert_string_equal(str(h2d, "name"), "H2D");
  assert_string_equal(str(h2d, "cat"), "transfer");
  assert_true(json_number_value(json_object_get(h2d, "ts")) == 0.13); /* microseconds */
  assert_true(json_number_value(json_object_get(h2d, "dur")) == 0.1);
  const json_t *args = json_object_get(h2d, "args");
  assert_int_equal(num(args, "bytes"), 4096);
  assert_string_equal(str(args, "hash"), "0xabc");
  assert_string_equal(str(args, "host_addr"), "0x7f0000001000");
  assert_string_equal(str(args, "directive"), "prog.c:36"); /* the runtime's source */
  assert_null(json_object_get(args, "finding"));

  /* The region of the enter data, with its map names. */
  size_t i;
  const json_t *e, *enter = NULL;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e)
    if (!strcmp(str(e, "ph"), "X") && !strcmp(str(e, "name"), "target enter data"))
      enter = e;
  assert_non_null(enter);
  assert_string_equal(str(enter, "cat"), "region");
  assert_string_equal(str(json_object_get(enter, "args"), "maps"), "tofrom x[0:n]");

  /* A kernel on device 1, located by the module map. */
  const json_t *k1 = slice_of_event(tl, event_at(fx->trace, OMPLENS_EV_KERNEL, 2010));
  assert_int_equal(num(k1, "pid"), DEV1_PID);
  assert_int_equal(num(json_object_get(k1, "args"), "teams"), 4);
  assert_string_equal(str(json_object_get(k1, "args"), "directive"), "my prog+0x200");
  json_decref(tl);
  json_decref(doc);
}

static void timeline_findings(void **state) {
  fixture *fx = *state;
  json_t *doc = trace_document(fx, 1710);
  json_t *tl = timeline(doc, &fx->trace, 1);
  size_t back = event_at(fx->trace, OMPLENS_EV_H2D, 1710);
  size_t d2h = event_at(fx->trace, OMPLENS_EV_D2H, 1410);
  const json_t *s = slice_of_event(tl, back);
  assert_string_equal(str(s, "name"), "H2D (round-trip)");
  assert_string_equal(str(s, "cat"), "transfer,finding,round-trip");
  const json_t *args = json_object_get(s, "args");
  assert_string_equal(str(args, "finding"), "round-trip");
  assert_int_equal(num(args, "related_event"), (json_int_t)d2h);
  assert_string_equal(str(args, "directive"), "prog.c:40"); /* the document's directive */

  size_t i;
  const json_t *e, *instant = NULL;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e)
    if (!strcmp(str(e, "ph"), "i"))
      instant = e;
  assert_non_null(instant);
  assert_string_equal(str(instant, "s"), "t");
  assert_string_equal(str(instant, "cat"), "finding,round-trip");
  assert_true(json_number_value(json_object_get(instant, "ts")) ==
              json_number_value(json_object_get(s, "ts")));
  args = json_object_get(instant, "args");
  assert_string_equal(str(args, "variable"), "x[0:n]");
  assert_int_equal(num(args, "event"), (json_int_t)back);
  assert_true(json_number_value(json_object_get(args, "related_ts")) == 1.41);
  assert_null(json_object_get(json_object_get(tl, "otherData"), "unmatched_finding_instances"));
  json_decref(tl);
  json_decref(doc);
}

/* An instance whose time disagrees with its event comes from another
 * trace: it is counted, not drawn on the wrong operation. */
static void timeline_mismatched_instance(void **state) {
  fixture *fx = *state;
  json_t *doc = trace_document(fx, 999);
  json_t *tl = timeline(doc, &fx->trace, 1);
  assert_string_equal(str(json_object_get(tl, "otherData"), "unmatched_finding_instances"), "1");
  const json_t *s = slice_of_event(tl, event_at(fx->trace, OMPLENS_EV_H2D, 1710));
  assert_string_equal(str(s, "cat"), "transfer");
  assert_int_equal(count_events(tl, "i", DEV0_PID, -1), 0);
  json_decref(tl);
  json_decref(doc);
}

/* A process of the document without its trace keeps its findings, as
 * instants at the document's times. */
static void timeline_document_without_trace(void **state) {
  fixture *fx = *state;
  json_t *doc = trace_document(fx, 1710);
  json_t *proc = first_process(doc);
  json_object_set_new(proc, "trace", json_string("/elsewhere.trace"));
  json_object_set_new(proc, "pid", json_integer(7));
  json_t *tl = timeline(doc, NULL, 0);
  assert_non_null(strstr(meta_name(tl, "process_name", HOST_PID, 0), "findings, no trace"));
  assert_string_equal(meta_name(tl, "thread_name", HOST_PID, 2), "findings on device 0");
  assert_int_equal(count_events(tl, "i", HOST_PID, 2), 1);
  json_decref(tl);
  /* Both: the trace without findings, then the document's process. */
  tl = timeline(doc, &fx->trace, 1);
  assert_int_equal(count_events(tl, "i", DEV0_PID, -1), 0);
  assert_int_equal(count_events(tl, "i", 2 * HOST_PID, 2), 1);
  json_decref(tl);
  json_decref(doc);
}

/* Strings from the trace: escaped, invalid UTF-8 replaced, nothing that
 * could close a <script> element. */
static void timeline_hostile_strings(void **state) {
  fixture *fx = *state;
  char *text = timeline_text(NULL, &fx->trace, 1);
  assert_null(strstr(text, "</script>"));
  assert_null(strstr(text, "<"));
  for (const char *c = text; *c; c++)
    if ((unsigned char)*c < 0x20 && *c != '\n')
      fail_msg("raw control byte 0x%02x in the output", (unsigned char)*c);
  json_t *tl = parse(text);
  const char *cmd = str(json_object_get(tl, "otherData"), "process_1");
  assert_non_null(cmd);
  assert_non_null(strstr(cmd, "</script>"));
  assert_non_null(strstr(cmd, "\xef\xbf\xbd")); /* U+FFFD for the bad bytes */
  assert_non_null(strstr(cmd, "caf\xc3\xa9"));
  json_decref(tl);
  /* The same input gives the same bytes. */
  char *again = timeline_text(NULL, &fx->trace, 1);
  assert_string_equal(text, again);
  free(again);
  free(text);
}

static void timeline_empty(void **state) {
  json_t *tl = timeline(NULL, NULL, 0);
  assert_int_equal(json_array_size(json_object_get(tl, "traceEvents")), 0);
  json_decref(tl);
  json_t *doc = document(json_array());
  tl = timeline(doc, NULL, 0);
  assert_int_equal(json_array_size(json_object_get(tl, "traceEvents")), 2); /* process name */
  json_decref(tl);
  json_decref(doc);
}

static void timeline_errors(void **state) {
  fixture *fx = *state;
  assert_int_equal(omplens_render_timeline(NULL, NULL, 0, NULL), OMPLENS_REPORT_EINVAL);
  assert_int_equal(omplens_render_timeline(NULL, NULL, 1, stdout), OMPLENS_REPORT_EINVAL);
  json_t *doc = document(json_array());
  json_object_set_new(doc, "schema_version", json_integer(9));
  assert_int_equal(omplens_render_timeline(doc, NULL, 0, stdout), OMPLENS_REPORT_EINVAL);
  json_decref(doc);
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    assert_int_equal(omplens_render_timeline(NULL, (const omplens_trace *const *)&fx->trace, 1,
                                             full),
                     OMPLENS_REPORT_EIO);
    fclose(full);
  }
}

/* Host waits on each thread's waits lane: a synchronous construct's whole
 * slice, and a taskwait up to the end of the nowait region (of another
 * thread) that ended last in it. */
static void timeline_waits(void **state) {
  (void)state;
  char dir[256], path[320];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/omplens-render-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/waits.trace", dir);
  omplens_tw w;
  omplens_tw_header h = {.pid = 1, .exe = "/bin/waits", .start_monotonic_ns = T0};
  assert_int_equal(omplens_tw_open(&w, path, &h, 0), 0);
  omplens_tw_stream host, helper;
  memset(&host, 0, sizeof host);
  memset(&helper, 0, sizeof helper);
  omplens_tw_stream_init(&host, &w, 1);
  omplens_tw_stream_init(&helper, &w, 2);
  region(&host, 100, 300, OMPLENS_CONSTRUCT_TARGET, 0, CP_TARGET, NULL);
  uint64_t id = omplens_tw_region_begin(&helper, T0 + 310, OMPLENS_CONSTRUCT_TARGET, 1, 0, CP_OTHER);
  (void)id;
  omplens_tw_region_end(&helper, T0 + 400);
  omplens_tw_wait(&host, T0 + 320, T0 + 450, OMPLENS_WAIT_TASKWAIT, 0x5555555554a0);
  omplens_tw_stream_finish(&host);
  omplens_tw_stream_finish(&helper);
  assert_int_equal(omplens_tw_close(&w, T0 + 1000, 0), 0);
  omplens_trace *t;
  assert_int_equal(omplens_trace_open(path, &t), 0);
  json_t *tl = timeline(NULL, &t, 1);
  enum { WAITS0 = 1048577 }; /* thread 0's waits lane */
  assert_string_equal(meta_name(tl, "thread_name", HOST_PID, WAITS0), "thread 0 waits");
  assert_null(meta_name(tl, "thread_name", HOST_PID, WAITS0 + 16)); /* the helper never waits */
  assert_int_equal(count_events(tl, "X", HOST_PID, WAITS0), 2);
  size_t i;
  const json_t *e, *sync = NULL, *deferred = NULL;
  json_array_foreach(json_object_get(tl, "traceEvents"), i, e) {
    if (strcmp(str(e, "ph"), "X") || num(e, "tid") != WAITS0)
      continue;
    assert_string_equal(str(e, "name"), "host wait");
    if (!strcmp(str(e, "cat"), "wait"))
      sync = e;
    else if (!strcmp(str(e, "cat"), "wait,nowait"))
      deferred = e;
  }
  assert_non_null(sync);
  assert_non_null(deferred);
  assert_true(json_number_value(json_object_get(sync, "dur")) == 0.2);
  assert_int_equal(num(json_object_get(sync, "args"), "host_wait_ns"), 200);
  assert_string_equal(str(json_object_get(sync, "args"), "construct"), "target");
  const json_t *args = json_object_get(deferred, "args");
  assert_true(json_number_value(json_object_get(deferred, "ts")) == 0.32);
  assert_true(json_number_value(json_object_get(deferred, "dur")) == 0.08); /* to the region's end */
  assert_int_equal(num(args, "host_wait_ns"), 80);
  assert_string_equal(str(args, "at"), "taskwait");
  assert_true(json_number_value(json_object_get(args, "sync_end_ts")) == 0.45);
  json_decref(tl);
  omplens_trace_close(t);
  unlink(path);
  rmdir(dir);
}

/* Many events stream out as valid JSON, every one of them a slice, and
 * every synchronous construct once more as its thread's host wait. */
static void timeline_many_events(void **state) {
  enum { REGIONS = 20000 };
  char dir[256], path[320];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/omplens-render-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/many.trace", dir);
  omplens_tw w;
  omplens_tw_header h = {.pid = 1, .exe = "/bin/many", .start_monotonic_ns = T0};
  assert_int_equal(omplens_tw_open(&w, path, &h, 0), 0);
  omplens_tw_stream s;
  memset(&s, 0, sizeof s);
  omplens_tw_stream_init(&s, &w, 1);
  for (uint64_t r = 0; r < REGIONS; r++) {
    uint64_t t = r * 1000;
    uint64_t id = omplens_tw_region_begin(&s, T0 + t, OMPLENS_CONSTRUCT_TARGET, 0, (int)(r % 3), CP_TARGET);
    omplens_tw_op in = op(OMPLENS_EV_H2D, t + 10, t + 300, (int)(r % 3), HOST_X, 64, r + 1, id);
    omplens_tw_op_write(&s, &in);
    omplens_tw_kernel(&s, T0 + t + 310, T0 + t + 600, (int)(r % 3), 1, id);
    omplens_tw_op out = op(OMPLENS_EV_D2H, t + 610, t + 900, (int)(r % 3), HOST_X, 64, r + 2, id);
    omplens_tw_op_write(&s, &out);
    omplens_tw_region_end(&s, T0 + t + 950);
  }
  omplens_tw_stream_finish(&s);
  assert_int_equal(omplens_tw_close(&w, T0 + REGIONS * 1000, 0), 0);
  omplens_trace *t;
  assert_int_equal(omplens_trace_open(path, &t), 0);
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(omplens_render_timeline(NULL, (const omplens_trace *const *)&t, 1, f), 0);
  rewind(f);
  json_error_t err;
  json_t *tl = json_loadf(f, 0, &err);
  if (!tl)
    fail_msg("output is not JSON: %s (line %d)", err.text, err.line);
  size_t slices = 0;
  for (int pid = HOST_PID; pid <= HOST_PID + 4; pid++)
    slices += count_events(tl, "X", pid, -1);
  assert_int_equal(slices, 5 * REGIONS);
  assert_int_equal(count_events(tl, "X", HOST_PID, 1048577), REGIONS); /* thread 0 waits */
  assert_int_equal(count_events(tl, "X", DEV0_PID, TID(TRANSFERS, 0)), 2 * ((REGIONS + 2) / 3));
  json_decref(tl);
  fclose(f);
  omplens_trace_close(t);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest sarif_tests[] = {
    cmocka_unit_test(sarif_rules_are_stable),
    cmocka_unit_test(sarif_empty_documents),
    cmocka_unit_test(sarif_without_attribution),
    cmocka_unit_test(sarif_version_2_categories),
    cmocka_unit_test(sarif_with_attribution),
    cmocka_unit_test(sarif_duplicate_wording),
    cmocka_unit_test(sarif_line_table_only),
    cmocka_unit_test(sarif_fingerprints),
    cmocka_unit_test(sarif_fingerprint_occurrences),
    cmocka_unit_test(sarif_paths),
    cmocka_unit_test(sarif_hostile_strings),
    cmocka_unit_test(sarif_long_utf8),
    cmocka_unit_test(sarif_large_numbers),
    cmocka_unit_test(sarif_notifications),
    cmocka_unit_test(sarif_errors),
    cmocka_unit_test(sarif_setup_findings),
  };
  const struct CMUnitTest timeline_tests[] = {
    cmocka_unit_test(timeline_lanes_and_metadata),
    cmocka_unit_test(timeline_slices),
    cmocka_unit_test(timeline_findings),
    cmocka_unit_test(timeline_mismatched_instance),
    cmocka_unit_test(timeline_document_without_trace),
    cmocka_unit_test(timeline_hostile_strings),
    cmocka_unit_test(timeline_empty),
    cmocka_unit_test(timeline_errors),
    cmocka_unit_test(timeline_waits),
    cmocka_unit_test(timeline_many_events),
  };
  int failed = cmocka_run_group_tests_name("render_sarif", sarif_tests, NULL, NULL);
  failed += cmocka_run_group_tests_name("render_timeline", timeline_tests, setup_trace,
                                        teardown_trace);
  return failed ? 1 : 0;
}
