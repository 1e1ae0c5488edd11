/* Unit tests of the report.html and report.md renderers (report/render_*.c):
 * escaping of everything that comes from the program, the trace or the
 * sources, empty and large documents, paths with spaces, hostile source
 * files, the Markdown structure (parsed back with libcmark) and the timeline
 * aggregation of a million events. Documents are hand-built with the planned
 * attribution fields (directive, variable, explanation, fix.diff). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cmark.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omplens_render.h"
#include "render_html_internal.h"

/* ---- Helpers ------------------------------------------------------------- */

static char tmpdir[256];

static int setup_tmpdir(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof tmpdir, "/tmp/omplens-test-render-XXXXXX");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state) {
  (void)state;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static size_t count_of(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

/* Renders into a string with open_memstream; caller frees. */
static char *render(int html, const json_t *doc, const omplens_render_options *opt) {
  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&out, &size);
  assert_non_null(f);
  int rc = html ? omplens_render_html(doc, NULL, 0, opt, f) : omplens_render_markdown(doc, opt, f);
  fclose(f);
  assert_int_equal(rc, 0);
  return out;
}

static json_t *counts_object(const char *category, json_int_t n) {
  json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "duplicate-transfer", (json_int_t)0,
                        "duplicate-content", (json_int_t)0, "round-trip", (json_int_t)0,
                        "round-trip-other-buffer", (json_int_t)0, "reinitialization",
                        (json_int_t)0, "repeated-alloc", (json_int_t)0, "unused-alloc",
                        (json_int_t)0, "unused-transfer", (json_int_t)0);
  if (category)
    json_object_set_new(o, category, json_integer(n));
  return o;
}

static json_t *location(const char *file, int line, const char *directive_text) {
  json_t *l = json_pack("{s:s,s:s,s:s}", "codeptr", "0x401234", "module", "/bin/prog", "offset", "0x1234");
  if (file) {
    json_object_set_new(l, "file", json_string(file));
    json_object_set_new(l, "line", json_integer(line));
  }
  if (directive_text)
    json_object_set_new(l, "directive",
                        json_pack("{s:s,s:s,s:s?,s:i,s:s}", "kind", "target teams distribute parallel for",
                                  "text", directive_text, "file", file, "line", line, "confidence",
                                  "exact"));
  return l;
}

static json_t *instance(json_int_t event, const char *hash) {
  return json_pack("{s:I,s:s,s:I,s:I,s:I,s:s,s:s,s:s,s:I,s:I}", "event", event, "kind", "h2d", "time_ns",
                   (json_int_t)1000 * (event + 1), "duration_ns", (json_int_t)600000, "bytes",
                   (json_int_t)8388608, "host_addr", "0x7f00", "device_addr", "0xd000", "hash", hash,
                   "related_event", (json_int_t)0, "related_time_ns", (json_int_t)10);
}

/* A document with one process; `finding` (stolen) may be NULL. */
static json_t *document(const char *command, json_t *directive, json_t *finding) {
  json_t *totals = json_pack("{s:I,s:I,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "run_ns", (json_int_t)89600000,
                             "savings_ns", (json_int_t)(finding ? 6300000 : 0), "predicted_speedup",
                             finding ? 1.07 : 1.0, "transfers", (json_int_t)22, "transfer_bytes",
                             (json_int_t)184549376, "transfer_ns", (json_int_t)18900000, "allocations",
                             (json_int_t)2, "alloc_ns", (json_int_t)27800, "kernels", (json_int_t)10,
                             "kernel_ns", (json_int_t)12500000);
  json_object_set_new(totals, "counts", counts_object(finding ? "round-trip" : NULL, 9));
  json_object_set_new(totals, "bytes", counts_object(finding ? "round-trip" : NULL, 75497472));
  json_t *proc = json_pack("{s:s,s:i,s:s,s:s,s:b,s:i,s:i,s:[]}", "trace", "/tmp/x.trace", "pid", 123,
                           "executable", "/bin/prog", "command_line", command, "complete", 1, "devices", 1,
                           "dropped_events", 0, "damage");
  json_object_set_new(proc, "totals", totals);
  json_object_set_new(proc, "directives", directive ? json_pack("[o]", directive) : json_array());
  json_object_set_new(proc, "findings", finding ? json_pack("[o]", finding) : json_array());
  json_object_set_new(proc, "mappings_at_exit", json_array());
  return json_pack("{s:s,s:i,s:s,s:[o]}", "schema", "omplens-findings", "schema_version",
                   OMPLENS_FINDINGS_SCHEMA_VERSION,
                   "omplens_version", "0.1.0", "processes", proc);
}

static json_t *directive(json_t *loc) {
  json_t *d = json_pack("{s:o,s:I,s:I,s:I,s:I}", "location", loc, "executions", (json_int_t)10,
                        "savings_ns", (json_int_t)5400000, "transfer_ns", (json_int_t)9000000,
                        "transfer_bytes", (json_int_t)83886080);
  json_object_set_new(d, "counts", counts_object("round-trip", 9));
  json_object_set_new(d, "bytes", counts_object("round-trip", 75497472));
  return d;
}

static json_t *finding(json_t *loc, size_t instances) {
  json_t *f = json_pack("{s:s,s:i,s:o,s:s,s:I,s:I,s:I,s:I,s:I}", "category", "round-trip", "device", 0,
                        "location", loc, "host_addr", "0x7f00", "bytes", (json_int_t)8388608, "count",
                        (json_int_t)instances, "total_bytes", (json_int_t)75497472, "total_ns",
                        (json_int_t)5400000, "savings_ns", (json_int_t)5400000);
  json_t *arr = json_array();
  for (size_t i = 0; i < instances; i++)
    json_array_append_new(arr, instance((json_int_t)i, "0xabc"));
  json_object_set_new(f, "instances", arr);
  return f;
}

/* ---- Escaping ---------------------------------------------------------------- */

static void test_escape_html(void **state) {
  (void)state;
  omplens_strbuf b = {0};
  const char *s = "<img src=x onerror=alert(1)> & \"q\" 'a'";
  omplens_html__escape(&b, s, strlen(s));
  assert_string_equal(omplens_strbuf_str(&b),
                      "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot; &#39;a&#39;");
  omplens_strbuf_free(&b);
}

static void test_json_string_in_script(void **state) {
  (void)state;
  omplens_strbuf b = {0};
  omplens_html__json_string(&b, "</script><!-- \"x\"\\ \n\x01 \xff end \xc3\xa9");
  const char *s = omplens_strbuf_str(&b);
  assert_null(strchr(s, '<'));
  assert_null(strchr(s, '>'));
  assert_string_equal(s, "\"\\u003c/script\\u003e\\u003c!-- \\\"x\\\"\\\\ \\u000a\\u0001 \\ufffd end \xc3\xa9\"");
  /* It parses back to the original text (less the invalid byte). */
  json_t *j = json_loads(s, JSON_DECODE_ANY, NULL);
  assert_non_null(j);
  assert_string_equal(json_string_value(j), "</script><!-- \"x\"\\ \n\x01 \xef\xbf\xbd end \xc3\xa9");
  json_decref(j);
  omplens_strbuf_free(&b);
}

static void test_template_fill(void **state) {
  (void)state;
  omplens_strbuf b = {0};
  omplens_tpl_var vars[] = {{"a", "<b>"}, {"raw", "<i>ok</i>"}, {"none", NULL}};
  assert_int_equal(omplens_html__fill(&b, "x{{a}}y{{{raw}}}z{{none}}.", vars, 3), 0);
  assert_string_equal(omplens_strbuf_str(&b), "x&lt;b&gt;y<i>ok</i>z.");
  omplens_strbuf_free(&b);
  assert_int_equal(omplens_html__fill(&b, "{{missing}}", vars, 3), OMPLENS_REPORT_EINVAL);
  assert_int_equal(omplens_html__fill(&b, "{{a", vars, 3), OMPLENS_REPORT_EINVAL);
  omplens_strbuf_free(&b);
}

static void test_markdown_drops_raw_html(void **state) {
  (void)state;
  omplens_strbuf b = {0};
  omplens_html__markdown(&b, "<script>alert(1)</script>\n\ntext <img src=x onerror=alert(1)> "
                             "[link](javascript:alert(1))\n");
  const char *s = omplens_strbuf_str(&b);
  assert_null(strstr(s, "<script"));
  assert_null(strstr(s, "<img"));
  assert_null(strstr(s, "javascript:"));
  omplens_strbuf_free(&b);
}

static void test_markdown_diff_lines(void **state) {
  (void)state;
  omplens_strbuf b = {0};
  omplens_html__markdown(&b, "```diff\n--- a/p.c\n+++ b/p.c\n@@ -1 +1 @@\n-old <x>\n+new\n same\n```\n");
  const char *s = omplens_strbuf_str(&b);
  assert_non_null(strstr(s, "<span class=\"d-file\">--- a/p.c\n</span><span class=\"d-file\">+++ b/p.c\n</span>"));
  assert_non_null(strstr(s, "<span class=\"d-hunk\">@@ -1 +1 @@\n</span>"));
  assert_non_null(strstr(s, "<span class=\"d-del\">-old &lt;x&gt;\n</span>"));
  assert_non_null(strstr(s, "<span class=\"d-add\">+new\n</span><span class=\"d-ctx\"> same\n</span></code>"));
  omplens_strbuf_free(&b);
}

/* ---- C lexer -------------------------------------------------------------------- */

static char *highlight(const char *text, omplens_c_lexer *lx) {
  omplens_strbuf b = {0};
  omplens_html__highlight_line(&b, text, strlen(text), lx);
  char *s = strdup(omplens_strbuf_str(&b));
  omplens_strbuf_free(&b);
  return s;
}

static void test_highlight_c(void **state) {
  (void)state;
  omplens_c_lexer lx = {0};
  char *s = highlight("static int x = 0x1f; // </script>", &lx);
  assert_string_equal(s, "<span class=\"k\">static</span> <span class=\"t\">int</span> x = "
                         "<span class=\"n\">0x1f</span>; <span class=\"c\">// &lt;/script&gt;</span>");
  free(s);
  s = highlight("  #pragma omp target map(to: a[0:n]) \\", &lx);
  assert_string_equal(s, "  <span class=\"omp\">#pragma omp target map(to: a[0:n]) \\</span>");
  free(s);
  s = highlight("    map(from: b)", &lx); /* continuation of the pragma */
  assert_string_equal(s, "<span class=\"omp\">    map(from: b)</span>");
  free(s);
  s = highlight("a = \"<img src=x onerror=alert(1)>\"; /* open", &lx);
  assert_string_equal(s, "a = <span class=\"s\">&quot;&lt;img src=x onerror=alert(1)&gt;&quot;</span>; "
                         "<span class=\"c\">/* open</span>");
  free(s);
  assert_true(lx.in_comment);
  s = highlight("still */ return;", &lx);
  assert_string_equal(s, "<span class=\"c\">still */</span> <span class=\"k\">return</span>;");
  free(s);
  s = highlight("#include <stdio.h>", &lx);
  assert_string_equal(s, "<span class=\"p\">#include &lt;stdio.h&gt;</span>");
  free(s);
}

/* Random bytes, NULs included: the output holds no markup but the lexer's. */
static void test_highlight_random_bytes(void **state) {
  (void)state;
  omplens_c_lexer lx = {0};
  unsigned seed = 12345;
  char line[200];
  for (int round = 0; round < 5000; round++) {
    size_t n = (size_t)(rand_r(&seed) % sizeof line);
    for (size_t i = 0; i < n; i++) {
      static const char interesting[] = "<>&\"'/*#\\\n pragmaomp0x1e+";
      int r = rand_r(&seed);
      line[i] = r & 1 ? interesting[(r >> 1) % (sizeof interesting - 1)] : (char)(r >> 8);
    }
    omplens_strbuf b = {0};
    omplens_html__highlight_line(&b, line, n, &lx);
    const char *p = omplens_strbuf_str(&b);
    while ((p = strchr(p, '<'))) {
      if (strncmp(p, "<span class=\"", 13) && strncmp(p, "</span>", 7))
        fail_msg("markup from the input: %.20s", p);
      p++;
    }
    omplens_strbuf_free(&b);
  }
}

/* ---- report.html ------------------------------------------------------------------ */

/* Every in-page link and row target names an element of the page. */
static void assert_targets_exist(const char *html) {
  const char *attrs[] = {"data-target=\"", "href=\"#"};
  for (size_t a = 0; a < 2; a++)
    for (const char *p = html; (p = strstr(p, attrs[a]));) {
      p += strlen(attrs[a]);
      char id[256], needle[300];
      size_t n = strcspn(p, "\"");
      assert_true(n < sizeof id);
      memcpy(id, p, n);
      id[n] = 0;
      snprintf(needle, sizeof needle, "id=\"%s\"", id);
      if (!strstr(html, needle))
        fail_msg("link to #%s, which is not on the page", id);
    }
}

static void test_html_hostile_source(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/evil.c", tmpdir);
  write_text(path, "/* </script><script>alert(1)</script> */\n"
                   "const char *s = \"<img src=x onerror=alert(1)>\";\n"
                   "#pragma omp target map(to: a[0:n])\n"
                   "</script>\n");
  json_t *f = finding(location(path, 3, "#pragma omp target map(to: a[0:n]) </script>"), 3);
  json_object_set_new(f, "explanation", json_string("<script>alert(2)</script> a[0:n] came back"));
  json_object_set_new(f, "variable", json_pack("{s:s,s:s,s:b}", "item", "a[0:n]<b>", "name", "a", "certain", 1));
  json_object_set_new(f, "fix", json_pack("{s:s,s:s}", "summary", "keep <a[0:n]> resident",
                                          "diff", "--- a/evil.c\n+++ b/evil.c\n@@ -3 +3 @@\n-</script>\n+<img src=y>\n"));
  json_t *doc = document("./prog '<script>alert(3)</script>'", directive(location(path, 3, NULL)), f);
  char *html = render(1, doc, NULL);
  /* The page's own blocks only: one JSON-less page has one <script>. */
  assert_int_equal(count_of(html, "<script"), 1);
  assert_int_equal(count_of(html, "</script>"), 1);
  assert_null(strstr(html, "<img"));
  assert_null(strstr(html, "a[0:n]<b>"));
  assert_non_null(strstr(html, "&lt;img src=x onerror=alert(1)&gt;"));
  assert_non_null(strstr(html, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
  assert_non_null(strstr(html, "a[0:n]&lt;b&gt;"));
  assert_non_null(strstr(html, "<span class=\"d-add\">+&lt;img src=y&gt;\n</span>"));
  assert_null(strstr(html, "{{"));
  assert_targets_exist(html);
  free(html);
  json_decref(doc);
}

/* A directive without findings (schema 3): in "Where the time goes" with
 * its profile, but in no findings section of either page. */
static void test_profile_without_findings(void **state) {
  (void)state;
  json_t *d = directive(location("/src/jacobi.c", 23, "#pragma omp target"));
  json_object_set_new(d, "savings_ns", json_integer(0));
  json_object_set_new(d, "counts", counts_object(NULL, 0));
  json_object_set_new(d, "bytes", counts_object(NULL, 0));
  json_object_set_new(d, "profile",
                      json_pack("{s:I,s:{s:I,s:I},s:{s:I,s:I,s:I},s:{s:I,s:I,s:I},s:{s:I,s:I,s:I},"
                                "s:{s:I,s:I},s:{s:I,s:I},s:I,s:f,s:b}",
                                "executions", (json_int_t)200, "kernels", "count", (json_int_t)200,
                                "ns", (json_int_t)44800000, "h2d", "count", (json_int_t)1, "bytes",
                                (json_int_t)2097152, "ns", (json_int_t)600000, "d2h", "count",
                                (json_int_t)1, "bytes", (json_int_t)2097152, "ns", (json_int_t)400000,
                                "d2d", "count", (json_int_t)0, "bytes", (json_int_t)0, "ns", (json_int_t)0,
                                "allocs", "count", (json_int_t)2, "ns", (json_int_t)20000, "frees",
                                "count", (json_int_t)2, "ns", (json_int_t)7000, "total_ns",
                                (json_int_t)45827000, "share_of_run", 0.5115, "has_findings", 0));
  json_t *doc = document("./clean", d, NULL);
  char *md = render(0, doc, NULL);
  assert_non_null(strstr(md, "**No wasted data movement found.**"));
  assert_non_null(strstr(md, "## Where the time goes"));
  assert_non_null(strstr(md, "| 1 | `/src/jacobi.c:23` | target teams distribute parallel for | 200 | "
                             "44.8 ms | 1.0 ms | 4.0 MiB | 27.0 us | \xe2\x80\x94 | 51.1 % |"));
  assert_null(strstr(md, "## Top directives"));
  free(md);
  char *html = render(1, doc, NULL);
  assert_null(strstr(html, "class=\"key seg-wait\"")); /* no host waits before schema 4 */
  free(html);
  /* schema 4: the run's time bar splits off waiting and host compute */
  json_t *tot = json_object_get(json_array_get(json_object_get(doc, "processes"), 0), "totals");
  json_object_set_new(tot, "host_wait_ns", json_integer(60000000));
  html = render(1, doc, NULL);
  assert_non_null(strstr(html, "<span class=\"key seg-wait\"></span>waiting "));
  assert_non_null(strstr(html, "<span class=\"key seg-host\"></span>host compute 29.6 ms"));
  assert_non_null(strstr(html, "No wasted data movement found"));
  assert_null(strstr(html, "class=\"directive-row\""));
  assert_non_null(strstr(html, "<tr class=\"profile-row\" data-findings=\"0\">"));
  assert_non_null(strstr(html, "input type=\"checkbox\" class=\"only-findings\""));
  assert_targets_exist(html);
  free(html);
  json_decref(doc);
}

static void test_html_no_findings(void **state) {
  (void)state;
  json_t *doc = document("./clean", NULL, NULL);
  char *html = render(1, doc, NULL);
  assert_non_null(strstr(html, "No wasted data movement found"));
  assert_null(strstr(html, "class=\"directive-row\""));
  assert_null(strstr(html, "{{"));
  assert_targets_exist(html);
  free(html);
  char *md = render(0, doc, NULL);
  assert_non_null(strstr(md, "**No wasted data movement found.**"));
  assert_null(strstr(md, "## Top directives"));
  free(md);
  json_decref(doc);
  /* No process at all. */
  doc = json_pack("{s:s,s:i,s:[]}", "schema", "omplens-findings", "schema_version", 1, "processes");
  html = render(1, doc, NULL);
  assert_non_null(strstr(html, "No traced process"));
  free(html);
  json_decref(doc);
}

static void test_html_large_numbers(void **state) {
  (void)state;
  json_t *doc = document("./big", directive(location(NULL, 0, NULL)), finding(location(NULL, 0, NULL), 120));
  json_t *tot = json_object_get(json_array_get(json_object_get(doc, "processes"), 0), "totals");
  json_object_set_new(tot, "run_ns", json_integer(7200000000000));      /* 2 hours */
  json_object_set_new(tot, "savings_ns", json_integer(7100000000000));
  json_object_set_new(tot, "predicted_speedup", json_real(72.0));
  json_object_set_new(tot, "transfers", json_integer(1234567890));
  json_object_set_new(tot, "transfer_bytes", json_integer(5497558138880)); /* 5 TiB */
  json_object_set_new(json_object_get(tot, "counts"), "round-trip", json_integer(9876543));
  char *html = render(1, doc, &(omplens_render_options){.max_instances = 10});
  assert_non_null(strstr(html, "1,234,567,890"));
  assert_non_null(strstr(html, "5.0 TiB"));
  assert_non_null(strstr(html, "9,876,543"));
  assert_non_null(strstr(html, "7200.00 s"));
  assert_non_null(strstr(html, "72.00\xc3\x97"));
  assert_non_null(strstr(html, "and 110 more instances"));
  assert_int_equal(count_of(html, "<td><span class=\"op op-"), 10); /* instance rows */
  assert_int_equal(count_of(html, "<tr><td class=\"num\">"), 20);    /* ... and their identifiers */
  /* No source: module+offset, and the row leads to the finding. */
  assert_non_null(strstr(html, "prog+0x1234"));
  assert_non_null(strstr(html, "data-target=\"p0-f0\""));
  assert_targets_exist(html);
  free(html);
  /* Overlapping work: no speedup. */
  json_object_set_new(tot, "predicted_speedup", json_real(0.0));
  html = render(1, doc, NULL);
  assert_non_null(strstr(html, "operations overlapped in time"));
  free(html);
  json_decref(doc);
}

static void test_html_path_with_spaces(void **state) {
  (void)state;
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/my sources", tmpdir);
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/jacobi & co.c", dir);
  write_text(path, "int main(void)\n{\n#pragma omp target map(to: a[0:n])\n  ;\n}\n");
  json_t *doc = document("./prog", directive(location(path, 3, NULL)), finding(location(path, 3, NULL), 2));
  char *html = render(1, doc, &(omplens_render_options){.base_dir = tmpdir});
  assert_non_null(strstr(html, "my sources/jacobi &amp; co.c:3"));
  assert_non_null(strstr(html, "data-target=\"p0-s0-L3\""));
  assert_non_null(strstr(html, "id=\"p0-s0-L3\""));
  /* The directive's text comes from the source line when the document has none. */
  assert_non_null(strstr(html, "<code>#pragma omp target map(to: a[0:n])</code>"));
  /* Generic explanation, and no fix box without a fix. */
  assert_non_null(strstr(html, "round trip"));
  assert_null(strstr(html, "Suggested fix"));
  assert_targets_exist(html);
  free(html);
  json_decref(doc);
}

static void test_html_missing_source(void **state) {
  (void)state;
  json_t *doc = document("./prog", directive(location("/nonexistent/dir/gone.c", 3, NULL)),
                         finding(location("/nonexistent/dir/gone.c", 3, NULL), 1));
  char *html = render(1, doc, NULL);
  assert_non_null(strstr(html, "Source file not found"));
  assert_non_null(strstr(html, "data-target=\"p0-f0\"")); /* no source line to go to */
  assert_targets_exist(html);
  free(html);
  json_decref(doc);
}

static void test_html_big_source_and_two_processes(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/big.c", tmpdir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = 1; i <= 5000; i++)
    fprintf(f, i == 2500 ? "#pragma omp target update to(a[0:n])\n" : "x = %d; /* line */\n", i);
  fclose(f);
  json_t *doc = document("./a", directive(location(path, 2500, NULL)), finding(location(path, 2500, NULL), 1));
  json_t *second = json_deep_copy(json_array_get(json_object_get(doc, "processes"), 0));
  json_object_set_new(second, "pid", json_integer(124));
  json_array_append_new(json_object_get(doc, "processes"), second);
  char *html = render(1, doc, NULL);
  /* A big file shows the lines around its directive only. */
  assert_non_null(strstr(html, "id=\"p0-s0-L2500\""));
  assert_non_null(strstr(html, "id=\"p0-s0-L2490\""));
  assert_null(strstr(html, "id=\"p0-s0-L100\""));
  assert_non_null(strstr(html, "class=\"ln gap\""));
  /* Each process has its own sections and ids. */
  assert_non_null(strstr(html, "Process 2 of 2"));
  assert_non_null(strstr(html, "id=\"p1-s0-L2500\""));
  assert_non_null(strstr(html, "data-target=\"p1-s0-L2500\""));
  assert_targets_exist(html);
  free(html);
  char *md = render(0, doc, NULL);
  assert_non_null(strstr(md, "## Process 2: pid 124"));
  free(md);
  json_decref(doc);
}

/* A long file with marks near one another and far apart: each mark's 12
 * lines either side are shown, once, and a gap stands between runs. */
static void test_html_big_source_context(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/context.c", tmpdir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  static const int marked[] = {1000, 1020, 3500};
  for (int i = 1; i <= 4000; i++)
    fprintf(f, i == 1000 || i == 1020 || i == 3500 ? "#pragma omp target map(tofrom: a[0:n])\n"
                                                   : "x = %d;\n", i);
  fclose(f);
  json_t *doc = document("./a", directive(location(path, 1000, NULL)), finding(location(path, 1000, NULL), 1));
  json_t *proc = json_array_get(json_object_get(doc, "processes"), 0);
  for (int k = 1; k < 3; k++) {
    json_t *loc = location(path, marked[k], NULL);
    json_object_set_new(loc, "codeptr", json_string(k == 1 ? "0x401300" : "0x401400"));
    json_array_append_new(json_object_get(proc, "directives"), directive(json_deep_copy(loc)));
    json_array_append_new(json_object_get(proc, "findings"), finding(loc, 1));
  }
  char *html = render(1, doc, NULL);
  char id[64];
  for (int line = 1; line <= 4000; line++) {
    int near = 0;
    for (int k = 0; k < 3; k++)
      near |= line + 12 >= marked[k] && line <= marked[k] + 12;
    snprintf(id, sizeof id, "id=\"p0-s0-L%d\"", line);
    const char *at = strstr(html, id);
    if (near != (at != NULL))
      fail_msg("line %d: %s", line, near ? "not shown" : "shown");
    if (at)
      assert_null(strstr(at + 1, id));
  }
  /* before 988, between 1032 and 3488, after 3512 */
  assert_int_equal(count_of(html, "class=\"ln gap\""), 3);
  free(html);
  json_decref(doc);
}

static void test_render_rejects_bad_input(void **state) {
  (void)state;
  json_t *doc = document("./prog", NULL, NULL);
  assert_int_equal(omplens_render_html(NULL, NULL, 0, NULL, stdout), OMPLENS_REPORT_EINVAL);
  assert_int_equal(omplens_render_html(doc, NULL, 0, NULL, NULL), OMPLENS_REPORT_EINVAL);
  assert_int_equal(omplens_render_markdown(NULL, NULL, stdout), OMPLENS_REPORT_EINVAL);
  /* The page is written as it is made: a full disk is a write error. */
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    assert_int_equal(omplens_render_html(doc, NULL, 0, NULL, full), OMPLENS_REPORT_EIO);
    fclose(full);
  }
  json_decref(doc);
}

/* ---- report.md ----------------------------------------------------------------------- */

/* Cells of a Markdown table row: pipes not escaped by a backslash. */
static int table_columns(const char *line, size_t len) {
  int pipes = 0;
  for (size_t i = 0; i < len; i++)
    pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
  return pipes - 1;
}

/* The table whose header line starts with `header`: every row has as many
 * cells as the header, and the delimiter row follows it. Returns the rows. */
static int assert_table(const char *md, const char *header) {
  const char *p = strstr(md, header);
  assert_non_null(p);
  size_t len = strcspn(p, "\n");
  int columns = table_columns(p, len), rows = 0;
  p += len + 1;
  assert_true(p[0] == '|' && (p[1] == '-' || p[1] == ':'));
  while (*p == '|') {
    len = strcspn(p, "\n");
    if (table_columns(p, len) != columns)
      fail_msg("table row \"%.*s\" has %d cells, header %d", (int)len, p, table_columns(p, len), columns);
    rows++;
    p += len + (p[len] == '\n');
  }
  return rows - 1; /* less the delimiter row */
}

/* Finds the first node of a type (and info string) in document order. */
static cmark_node *find_node(cmark_node *root, cmark_node_type type, const char *info) {
  cmark_iter *it = cmark_iter_new(root);
  cmark_node *found = NULL;
  for (cmark_event_type ev; !found && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
    cmark_node *n = cmark_iter_get_node(it);
    if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(n) == type &&
        (!info || !strcmp(cmark_node_get_fence_info(n), info)))
      found = n;
  }
  cmark_iter_free(it);
  return found;
}

static void test_markdown_structure(void **state) {
  (void)state;
  const char *diff = "--- a/p.c\n+++ b/p.c\n@@ -35,3 +35,4 @@\n+#pragma omp target data map(to: a[0:n])\n"
                     " for (it = 0; it < 10; it++)\n```not a fence end\n";
  json_t *f = finding(location("/src/p.c", 36, "#pragma omp target map(to: a[0:n]) // `x`"), 3);
  json_object_set_new(f, "variable", json_pack("{s:s,s:s,s:b}", "item", "a[0:n]|b", "name", "a", "certain", 0));
  json_object_set_new(f, "explanation", json_string("a[0:n] is sent to *device 0* again\n# not a heading"));
  json_object_set_new(f, "fix", json_pack("{s:s,s:s,s:I,s:f}", "summary", "wrap the loop in `target data`",
                                          "diff", diff, "predicted_savings_ns", (json_int_t)5400000,
                                          "predicted_speedup", 1.07));
  json_t *doc = document("./prog a|b `c`", directive(location("/src/p.c", 36, "#pragma omp target map(to: a[0:n]) // `x`")), f);
  char *md = render(0, doc, &(omplens_render_options){.base_dir = "/src"});
  /* Tables: summary, categories, directives, instances. */
  assert_true(assert_table(md, "| Measure | Value |") >= 8);
  assert_int_equal(assert_table(md, "| Category | Instances | Bytes |"), 9);
  assert_int_equal(assert_table(md, "| # | Directive | Kind | Savings | Findings |"), 1);
  assert_int_equal(assert_table(md, "| # | Operation | Time | Duration | Bytes |"), 3);
  assert_int_equal(assert_table(md, "| # | Event | Content hash |"), 3); /* folded away */
  assert_non_null(strstr(md, "| Program | `` ./prog a\\|b `c` `` (pid 123) |"));
  assert_non_null(strstr(md, "`p.c:36`"));
  /* Parsed back: the heading, the directive and the diff as code blocks. */
  cmark_node *root = cmark_parse_document(md, strlen(md), CMARK_OPT_DEFAULT);
  assert_non_null(root);
  cmark_node *h = find_node(root, CMARK_NODE_HEADING, NULL);
  assert_non_null(h);
  assert_int_equal(cmark_node_get_heading_level(h), 1);
  cmark_node *code = find_node(root, CMARK_NODE_CODE_BLOCK, "c");
  assert_non_null(code);
  assert_string_equal(cmark_node_get_literal(code), "#pragma omp target map(to: a[0:n]) // `x`\n");
  cmark_node *d = find_node(root, CMARK_NODE_CODE_BLOCK, "diff");
  assert_non_null(d);
  assert_string_equal(cmark_node_get_literal(d), diff); /* the ``` inside did not end it */
  /* The explanation's markup characters stay text. */
  assert_non_null(strstr(md, "\\*device 0\\*"));
  assert_non_null(strstr(md, "\n\\# not a heading"));
  cmark_node_free(root);
  /* The HTML shows the same narrative through libcmark. */
  char *html = render(1, doc, &(omplens_render_options){.base_dir = "/src"});
  /* The fixer's backticks quote code: a code span (test_fix_text_code_spans). */
  assert_non_null(
      strstr(html, "<strong>Suggested fix:</strong> wrap the loop in <code>target data</code>"));
  assert_non_null(strstr(html, "<code class=\"language-diff\">"));
  assert_non_null(strstr(html, "a[0:n]|b (probably)"));
  free(html);
  free(md);
  json_decref(doc);
}

/* Two findings removed by one change: its text and diff appear once, and
 * the second finding points at the first, in report.md and report.html. */
static void test_shared_fix_shown_once(void **state) {
  (void)state;
  json_t *loc = location("/src/p.c", 36, "#pragma omp target map(tofrom: a[0:n])");
  json_t *fix = json_pack("{s:s,s:s,s:I,s:I,s:f}", "summary", "wrap the loop in target data",
                          "diff", "--- a/p.c\n+++ b/p.c\n@@ -1 +1 @@\n-x\n+UNIQUE_DIFF_LINE\n",
                          "id", (json_int_t)0, "predicted_savings_ns", (json_int_t)5400000,
                          "predicted_speedup", 1.07);
  json_t *f1 = finding(json_deep_copy(loc), 2), *f2 = finding(json_deep_copy(loc), 2);
  json_object_set_new(f2, "category", json_string("repeated-alloc"));
  json_object_set(f1, "fix", fix);
  json_object_set_new(f2, "fix", fix);
  json_t *doc = document("./prog", directive(loc), f1);
  json_array_append_new(json_object_get(json_array_get(json_object_get(doc, "processes"), 0),
                                        "findings"), f2);
  for (int html = 0; html < 2; html++) {
    char *out = render(html, doc, &(omplens_render_options){.base_dir = "/src"});
    const char *first = strstr(out, "UNIQUE_DIFF_LINE");
    assert_non_null(first);
    assert_null(strstr(first + 1, "UNIQUE_DIFF_LINE"));
    assert_non_null(strstr(out, "the same change as for"));
    free(out);
  }
  /* An id no fix list has (a foreign document): shown under each finding. */
  json_object_set_new(fix, "id", json_integer((json_int_t)1 << 40));
  char *md = render(0, doc, &(omplens_render_options){.base_dir = "/src"});
  const char *first = strstr(md, "UNIQUE_DIFF_LINE");
  assert_non_null(first);
  assert_non_null(strstr(first + 1, "UNIQUE_DIFF_LINE"));
  free(md);
  json_decref(doc);
}

/* The same, in the sources section: the notes are made in the page's
 * order, so the change is shown at the first directive down the file,
 * and the later one says "above", whatever the order of the findings
 * (by savings: the lower directive's first here). */
static void test_shared_fix_shown_first_down_the_file(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/two.c", tmpdir);
  FILE *src = fopen(path, "w");
  assert_non_null(src);
  for (int i = 1; i <= 40; i++)
    fprintf(src, i == 10 || i == 30 ? "#pragma omp target map(tofrom: a[0:n])\n" : "x = %d;\n", i);
  fclose(src);
  json_t *fix = json_pack("{s:s,s:s,s:I,s:I,s:f}", "summary", "wrap the loop in target data",
                          "diff", "--- a/two.c\n+++ b/two.c\n@@ -1 +1 @@\n-x\n+UNIQUE_DIFF_LINE\n",
                          "id", (json_int_t)0, "predicted_savings_ns", (json_int_t)5400000,
                          "predicted_speedup", 1.07);
  json_t *low = location(path, 30, "#pragma omp target map(tofrom: a[0:n])");
  json_t *high = location(path, 10, "#pragma omp target map(tofrom: a[0:n])");
  json_object_set_new(high, "codeptr", json_string("0x401300"));
  json_t *f1 = finding(json_deep_copy(low), 2), *f2 = finding(json_deep_copy(high), 2);
  json_object_set(f1, "fix", fix);
  json_object_set_new(f2, "fix", fix);
  json_object_set_new(f2, "savings_ns", json_integer(1000));
  json_t *doc = document("./prog", directive(low), f1);
  json_t *proc = json_array_get(json_object_get(doc, "processes"), 0);
  json_array_append_new(json_object_get(proc, "directives"), directive(high));
  json_array_append_new(json_object_get(proc, "findings"), f2);
  char *html = render(1, doc, &(omplens_render_options){.base_dir = tmpdir});
  const char *sources = strstr(html, "id=\"p0-sources\"");
  assert_non_null(sources);
  const char *l10 = strstr(sources, "id=\"p0-s0-L10\""), *l30 = strstr(sources, "id=\"p0-s0-L30\"");
  const char *shown = strstr(sources, "UNIQUE_DIFF_LINE"), *same = strstr(sources, "the same change as for");
  assert_non_null(l10);
  assert_non_null(l30);
  assert_non_null(shown);
  assert_non_null(same);
  assert_true(l10 < shown && shown < l30); /* the change at line 10's note */
  assert_true(l30 < same);                 /* line 30's points up at it */
  assert_null(strstr(shown + 1, "UNIQUE_DIFF_LINE"));
  free(html);
  json_decref(doc);
}

/* A note of the annotator on directives (sources parsed without the
 * build's flags) is said once in the summary, however many findings carry
 * it. */
static void test_directive_note_once(void **state) {
  (void)state;
  json_t *loc = location("/src/p.c", 36, "#pragma omp target map(tofrom: a[0:n])");
  json_object_set_new(json_object_get(loc, "directive"), "note",
                      json_string("sources were parsed without the build's flags UNIQUENOTE"));
  json_t *f1 = finding(json_deep_copy(loc), 1), *f2 = finding(json_deep_copy(loc), 1);
  json_t *doc = document("./prog", directive(loc), f1);
  json_array_append_new(json_object_get(json_array_get(json_object_get(doc, "processes"), 0),
                                        "findings"), f2);
  char *md = render(0, doc, &(omplens_render_options){.base_dir = "/src"});
  const char *first = strstr(md, "UNIQUENOTE");
  assert_non_null(first);
  assert_null(strstr(first + 1, "UNIQUENOTE"));
  free(md);
  json_decref(doc);
}

/* A re-initialization reads as data set back, never as a duplicate to
 * keep resident; every category of version 2 is counted. */
static void test_version_2_categories(void **state) {
  (void)state;
  const char *text = "#pragma omp target map(tofrom: sum)";
  json_t *f = finding(location("/src/p.c", 12, text), 3);
  json_object_set_new(f, "category", json_string("reinitialization"));
  json_object_set_new(f, "variable",
                      json_pack("{s:s,s:s,s:b}", "item", "sum", "name", "sum", "certain", 1));
  json_t *d = directive(location("/src/p.c", 12, text));
  json_object_set_new(d, "counts", counts_object("reinitialization", 3));
  json_object_set_new(d, "bytes", counts_object("reinitialization", 24));
  json_t *doc = document("./prog", d, f);
  json_t *tot = json_object_get(json_array_get(json_object_get(doc, "processes"), 0), "totals");
  json_object_set_new(tot, "counts", counts_object("reinitialization", 3));
  json_object_set_new(tot, "bytes", counts_object("reinitialization", 24));

  char *md = render(0, doc, &(omplens_render_options){.base_dir = "/src"});
  assert_int_equal(assert_table(md, "| Category | Instances | Bytes |"), 9);
  assert_non_null(strstr(md, "| Re-initialization | 3 | 24 B |"));
  assert_non_null(strstr(md, "| Round trip through another buffer | 0 |"));
  assert_non_null(strstr(md, "re-initializes data on device 0"));
  assert_non_null(strstr(md, "not a duplicate"));
  assert_null(strstr(md, "resident"));
  assert_null(strstr(md, "still holds"));
  assert_null(strstr(md, "already"));
  free(md);

  char *html = render(1, doc, &(omplens_render_options){.base_dir = "/src"});
  assert_non_null(
      strstr(html, "<span class=\"chip cat-reinitialization\">Re-initialization</span>"));
  assert_non_null(strstr(html, "category cat-reinitialization\""));
  assert_non_null(strstr(html, "category cat-round-trip-other-buffer zero\""));
  assert_non_null(strstr(html, "re-initializes data on device 0"));
  assert_null(strstr(html, "resident"));
  assert_targets_exist(html);
  free(html);
  json_decref(doc);
}

/* A directive's line counts its executions in words that fit the count. */
static void test_markdown_executions(void **state) {
  (void)state;
  json_t *d = directive(location("/src/p.c", 36, "#pragma omp target data map(to: a[0:n])"));
  json_t *doc = document("./prog", d, finding(location("/src/p.c", 36, NULL), 1));
  char *md = render(0, doc, NULL);
  assert_non_null(strstr(md, "\nExecuted 10 times; "));
  free(md);
  json_object_set_new(d, "executions", json_integer(1));
  md = render(0, doc, NULL);
  assert_non_null(strstr(md, "\nExecuted 1 time; "));
  free(md);
  json_decref(doc);
}

/* A duplicate of the same buffer may follow the end of the mapping that
 * held it: told as bytes the device received before, never "still holds". */
static void test_duplicate_transfer_wording(void **state) {
  (void)state;
  json_t *f = finding(location("/src/p.c", 36, NULL), 2);
  json_object_set_new(f, "category", json_string("duplicate-transfer"));
  json_t *doc = document("./prog", directive(location("/src/p.c", 36, NULL)), f);
  for (int html = 0; html < 2; html++) {
    char *out = render(html, doc, NULL);
    assert_non_null(strstr(out, "which device 0 received before"));
    assert_null(strstr(out, "still holds"));
    free(out);
  }
  json_decref(doc);
}

/* A duplicate of another buffer's content is told as content the device
 * received before: that copy may be freed, so never "still holds"; nor
 * does it guess the content was zeros (whether it was, the fix says). */
static void test_duplicate_content_wording(void **state) {
  (void)state;
  json_t *f = finding(location("/src/p.c", 36, NULL), 2);
  json_object_set_new(f, "category", json_string("duplicate-content"));
  json_t *doc = document("./prog", directive(location("/src/p.c", 36, NULL)), f);
  for (int html = 0; html < 2; html++) {
    char *out = render(html, doc, NULL);
    assert_non_null(strstr(out, "received them before, for that other buffer"));
    assert_non_null(strstr(out, "filling it or copying the other one"));
    assert_null(strstr(out, "still holds"));
    assert_null(strstr(out, "zero-filled"));
    free(out);
  }
  json_decref(doc);
}

/* Counts of one are singular, and the devices row says how many of the
 * devices the run used (host offload lists four). */
static void test_markdown_counts_of_one(void **state) {
  (void)state;
  json_t *doc = document("./prog", directive(location("/src/p.c", 36, NULL)),
                         finding(location("/src/p.c", 36, NULL), 1));
  json_t *proc = json_array_get(json_object_get(doc, "processes"), 0);
  json_t *tot = json_object_get(proc, "totals");
  json_object_set_new(tot, "counts", counts_object("round-trip", 1));
  json_object_set_new(proc, "devices", json_integer(4));
  json_object_set_new(proc, "devices_used", json_pack("[i]", 0));
  char *md = render(0, doc, NULL);
  assert_non_null(strstr(md, "omplens found **1 wasteful operation** in 1 finding at 1 directive. "
                             "Fixing it is predicted"));
  assert_non_null(strstr(md, "| Devices | 4, 1 used (device 0) |"));
  free(md);
  json_object_set_new(tot, "counts", counts_object(NULL, 0));
  json_object_set_new(proc, "findings", json_array());
  json_object_set_new(tot, "transfers", json_integer(1));
  json_object_set_new(tot, "allocations", json_integer(1));
  json_object_set_new(tot, "kernels", json_integer(1));
  md = render(0, doc, NULL);
  assert_non_null(strstr(md, " omplens checked 1 transfer (176.0 MiB), 1 allocation and 1 kernel."));
  free(md);
  json_decref(doc);
}

/* A repeated allocation saves its frees too (HeCBench stencil1d: 139 us
 * of allocations, 20 ms of frees): the finding says so beside its own
 * time, in report.md and on the page; a transfer has none. */
static void test_finding_frees(void **state) {
  (void)state;
  json_t *f = finding(location("/src/p.c", 36, NULL), 2);
  json_object_set_new(f, "category", json_string("repeated-alloc"));
  json_object_set_new(f, "total_ns", json_integer(138000));
  json_object_set_new(f, "savings_ns", json_integer(20538000));
  json_t *doc = document("./prog", directive(location("/src/p.c", 36, NULL)), f);
  char *md = render(0, doc, NULL);
  assert_non_null(strstr(md, "(72.0 MiB in total, 138.0 us, and 20.4 ms in their frees); "
                             "predicted savings 20.5 ms."));
  free(md);
  char *html = render(1, doc, NULL);
  assert_non_null(strstr(html, " \xc2\xb7 20.4 ms in their frees"));
  free(html);
  json_object_set_new(f, "category", json_string("round-trip"));
  md = render(0, doc, NULL);
  assert_null(strstr(md, "in their frees"));
  free(md);
  json_decref(doc);
}

/* A call path shown among others says whether it came most often, or as
 * often as some or all of them (HeCBench extrema: eight calls of one
 * template, each as frequent). */
static void test_call_path_frequency(void **state) {
  (void)state;
  json_t *f = finding(location("/src/p.c", 36, NULL), 2);
  json_object_set_new(f, "call_path",
                      json_pack("[{s:s,s:i,s:s}]", "file", "/src/main.c", "line", 12, "function", "main"));
  json_object_set_new(f, "call_paths", json_integer(4));
  json_t *doc = document("./prog", directive(location("/src/p.c", 36, NULL)), f);
  static const struct {
    int as_frequent;
    const char *says;
  } cases[] = {{0, "(the most frequent of 4 call paths)"},
               {2, "(one of the 2 most frequent of 4 call paths)"},
               {4, "(one of 4 call paths, all as frequent)"}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    if (cases[k].as_frequent)
      json_object_set_new(f, "call_paths_as_frequent", json_integer(cases[k].as_frequent));
    char *md = render(0, doc, NULL);
    assert_non_null(strstr(md, cases[k].says));
    assert_int_equal(count_of(md, "call paths"), 1);
    free(md);
  }
  json_decref(doc);
}

/* The fixer quotes code in backticks: those become code spans in
 * report.md and <code> on the page, and what is outside them, or inside
 * them, still cannot make markup. */
static void test_fix_text_code_spans(void **state) {
  (void)state;
  json_t *f = finding(location("/src/p.c", 36, NULL), 2);
  json_object_set_new(f, "fix", json_pack("{s:s,s:s,s:s}", "kind", "manual", "summary",
                                           "Round trip of a_b at p.c:36: by hand", "manual",
                                           "Recipe: put `#pragma omp target data map(to: a[0:n])` "
                                           "around it, not `<b>x</b>`; *keep* it"));
  json_t *doc = document("./prog", directive(location("/src/p.c", 36, NULL)), f);
  char *md = render(0, doc, NULL);
  assert_non_null(strstr(md, "Recipe: put `#pragma omp target data map(to: a[0:n])` around it, "
                             "not `<b>x</b>`; \\*keep\\* it"));
  assert_non_null(strstr(md, "Round trip of a\\_b"));
  free(md);
  char *html = render(1, doc, NULL);
  assert_non_null(strstr(html, "<code>#pragma omp target data map(to: a[0:n])</code>"));
  assert_non_null(strstr(html, "<code>&lt;b&gt;x&lt;/b&gt;</code>"));
  assert_null(strstr(html, "<b>x</b>"));
  free(html);
  json_decref(doc);
}

static void test_markdown_code_fences(void **state) {
  (void)state;
  omplens_strbuf b = {0};
  omplens_md__code(&b, "a``b", 0);
  assert_string_equal(omplens_strbuf_str(&b), "```a``b```");
  omplens_strbuf_free(&b);
  omplens_md__code(&b, "`x`", 0);
  assert_string_equal(omplens_strbuf_str(&b), "`` `x` ``");
  omplens_strbuf_free(&b);
  omplens_md__code_block(&b, "diff", "````\nx\n");
  assert_string_equal(omplens_strbuf_str(&b), "`````diff\n````\nx\n`````\n");
  omplens_strbuf_free(&b);
  /* A fix's text: no backtick, an empty pair, an unpaired one. */
  omplens_md__prose(&b, "a_b", 0);
  assert_string_equal(omplens_strbuf_str(&b), "a\\_b");
  omplens_strbuf_free(&b);
  omplens_md__prose(&b, "x `` y `z` w`", 0);
  assert_string_equal(omplens_strbuf_str(&b), "x \\`\\` y \\`z\\` w\\`");
  omplens_strbuf_free(&b);
  omplens_md__prose(&b, "`a` and `b*`", 0);
  assert_string_equal(omplens_strbuf_str(&b), "`a` and `b*`");
  omplens_strbuf_free(&b);
  omplens_md__text(&b, "1. a | b <c> [d](e) _f_", 1);
  assert_string_equal(omplens_strbuf_str(&b), "1. a \\| b \\<c\\> \\[d\\](e) \\_f\\_");
  omplens_strbuf_free(&b);
  omplens_md__text(&b, "1. first\n- second", 0);
  assert_string_equal(omplens_strbuf_str(&b), "1\\. first\n\\- second");
  omplens_strbuf_free(&b);
}

/* ---- Timeline ------------------------------------------------------------------------- */

/* Durations of 0, 1, 4, 5 and 10^13 ns fall in the bins of the 1-2-5 series
 * they begin; a timeline without merged tracks has no busy or cells. */
static void test_timeline_histogram(void **state) {
  (void)state;
  static const uint64_t dur[] = {0, 1, 4, 5, 10000000000000ull, 4};
  omplens_event ev[6];
  for (size_t i = 0; i < 6; i++)
    ev[i] = (omplens_event){.begin_ns = 100 * i, .end_ns = 100 * i + dur[i], .bytes = 8, .site = 1,
                            .device = 0, .kind = OMPLENS_EV_H2D};
  json_t *doc = document("./h", directive(location(NULL, 0, NULL)), finding(location(NULL, 0, NULL), 1));
  const json_t *proc = json_array_get(json_object_get(doc, "processes"), 0);
  const char *ids[] = {"p0-f0"}, *labels[] = {"Round trip"}, *sites[] = {"p.c:3"};
  omplens_timeline_labels l = {1, ids, labels, sites, json_object_get(proc, "directives")};
  static const uint64_t codeptrs[] = {0, 0x401234};
  omplens_timeline_input in = {ev, 6, NULL, 0, 1000, codeptrs, 2, NULL, NULL, 0};
  omplens_strbuf b = {0};
  assert_int_equal(omplens_html__timeline_json(&b, &in, proc, &l), 0);
  json_t *j = json_loads(omplens_strbuf_str(&b), 0, NULL);
  assert_non_null(j);
  json_t *hist = json_object_get(j, "hist"), *edges = json_object_get(hist, "edges");
  assert_int_equal(json_array_size(edges), 40);
  assert_int_equal(json_integer_value(json_array_get(edges, 2)), 5);
  assert_int_equal(json_integer_value(json_array_get(edges, 39)), 10000000000000ll);
  json_t *sets = json_object_get(hist, "sets"), *set = json_array_get(sets, 0);
  assert_int_equal(json_array_size(sets), 1);
  assert_int_equal(json_integer_value(json_object_get(set, "site")), 0);
  assert_int_equal(json_integer_value(json_object_get(set, "kind")), 1); /* h2d */
  assert_int_equal(json_integer_value(json_object_get(set, "first")), 0);
  /* [0,1): 1, [1,2): 1, [2,5): 2, [5,10): 1, then nothing until the last, open bin */
  json_t *counts = json_object_get(set, "counts");
  assert_int_equal(json_array_size(counts), 41);
  static const int want[] = {1, 1, 2, 1};
  for (size_t i = 0; i < 4; i++)
    assert_int_equal(json_integer_value(json_array_get(counts, i)), want[i]);
  assert_int_equal(json_integer_value(json_array_get(counts, 40)), 1);
  json_t *track = json_array_get(json_object_get(json_array_get(json_object_get(j, "lanes"), 0), "tracks"), 1);
  assert_null(json_object_get(track, "busy"));
  assert_null(json_object_get(j, "directive_cells"));
  json_decref(j);
  omplens_strbuf_free(&b);
  json_decref(doc);
}

static void test_timeline_million_events(void **state) {
  (void)state;
  const size_t n = 1000000;
  omplens_event *ev = calloc(n, sizeof *ev);
  assert_non_null(ev);
  for (size_t i = 0; i < n; i++) {
    static const uint8_t kinds[] = {OMPLENS_EV_ALLOC, OMPLENS_EV_H2D, OMPLENS_EV_KERNEL, OMPLENS_EV_D2H,
                                    OMPLENS_EV_DELETE};
    ev[i] = (omplens_event){.begin_ns = 100 * i, .end_ns = 100 * i + 80, .bytes = 4096,
                            .site = 1, .device = (int16_t)(i % 2), .kind = kinds[i % 5]};
  }
  json_t *doc = document("./big", directive(location(NULL, 0, NULL)), finding(location(NULL, 0, NULL), 3));
  const json_t *proc = json_array_get(json_object_get(doc, "processes"), 0);
  const char *ids[] = {"p0-f0"}, *labels[] = {"Round trip \xc2\xb7 </script>"}, *sites[] = {"p.c:3"};
  omplens_timeline_labels l = {1, ids, labels, sites, json_object_get(proc, "directives")};
  static const uint64_t codeptrs[] = {0, 0x401234};
  omplens_timeline_input in = {ev, n, NULL, 0, 100 * n, codeptrs, 2, NULL, NULL, 0};
  omplens_strbuf b = {0};
  assert_int_equal(omplens_html__timeline_json(&b, &in, proc, &l), 0);
  assert_false(b.failed);
  /* A few thousand items per track at most: 4 tracks, <= 5 kinds each. */
  json_t *j = json_loads(omplens_strbuf_str(&b), 0, NULL);
  assert_non_null(j);
  assert_null(strchr(omplens_strbuf_str(&b), '<'));
  size_t lanes = json_array_size(json_object_get(j, "lanes")), items = 0;
  assert_int_equal(lanes, 2);
  uint64_t ops = 0, wasted = 0;
  for (size_t i = 0; i < lanes; i++) {
    json_t *tracks = json_object_get(json_array_get(json_object_get(j, "lanes"), i), "tracks");
    for (size_t t = 0; t < json_array_size(tracks); t++) {
      json_t *arr = json_object_get(json_array_get(tracks, t), "items");
      size_t k = json_array_size(arr) / 8;
      assert_true(k <= (size_t)OMPLENS_TIMELINE_BUCKETS * 5 + 5);
      items += k;
      for (size_t m = 0; m < k; m++) {
        ops += (uint64_t)json_integer_value(json_array_get(arr, 8 * m + 3));
        wasted += (uint64_t)json_integer_value(json_array_get(arr, 8 * m + 4));
        if (m)
          assert_true(json_integer_value(json_array_get(arr, 8 * m)) >=
                      json_integer_value(json_array_get(arr, 8 * (m - 1))));
      }
    }
  }
  assert_int_equal(ops, n);    /* every operation is in one item */
  assert_int_equal(wasted, 3); /* the finding's instances: events 0, 1, 2 */
  /* What the selection statistics add up: merged tracks give each item's
   * summed durations, the directive's cells every device operation. */
  uint64_t quantum = (uint64_t)json_integer_value(json_object_get(j, "quantum")), busy = 0, cells = 0;
  assert_int_equal(quantum, 100 * n / OMPLENS_TIMELINE_BUCKETS);
  for (size_t i = 0; i < lanes; i++) {
    json_t *tracks = json_object_get(json_array_get(json_object_get(j, "lanes"), i), "tracks");
    for (size_t t = 0; t < json_array_size(tracks); t++) {
      json_t *tr = json_array_get(tracks, t), *bz = json_object_get(tr, "busy");
      assert_int_equal(json_array_size(bz), json_array_size(json_object_get(tr, "items")) / 8);
      for (size_t m = 0; m < json_array_size(bz); m++)
        busy += (uint64_t)json_integer_value(json_array_get(bz, m));
    }
  }
  assert_int_equal(busy, 80 * n);
  json_t *cv = json_object_get(j, "directive_cells"); /* quantum, site, count, busy */
  assert_int_equal(json_array_size(cv) % 4, 0);
  for (size_t m = 0; m < json_array_size(cv); m += 4) {
    assert_int_equal(json_integer_value(json_array_get(cv, m + 1)), 0); /* the one directive */
    cells += (uint64_t)json_integer_value(json_array_get(cv, m + 2));
    busy -= (uint64_t)json_integer_value(json_array_get(cv, m + 3));
    if (m)
      assert_true(json_integer_value(json_array_get(cv, m)) > json_integer_value(json_array_get(cv, m - 4)));
  }
  assert_int_equal(cells, n);
  assert_int_equal(busy, 0);
  assert_true(items < 20000);
  assert_true(b.len < 2u << 20);
  json_decref(j);
  omplens_strbuf_free(&b);
  json_decref(doc);
  free(ev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_escape_html),
      cmocka_unit_test(test_json_string_in_script),
      cmocka_unit_test(test_template_fill),
      cmocka_unit_test(test_markdown_drops_raw_html),
      cmocka_unit_test(test_call_path_frequency),
      cmocka_unit_test(test_markdown_counts_of_one),
      cmocka_unit_test(test_finding_frees),
      cmocka_unit_test(test_markdown_diff_lines),
      cmocka_unit_test(test_highlight_c),
      cmocka_unit_test(test_highlight_random_bytes),
      cmocka_unit_test(test_html_hostile_source),
      cmocka_unit_test(test_html_no_findings),
      cmocka_unit_test(test_profile_without_findings),
      cmocka_unit_test(test_html_large_numbers),
      cmocka_unit_test(test_html_path_with_spaces),
      cmocka_unit_test(test_html_missing_source),
      cmocka_unit_test(test_html_big_source_and_two_processes),
      cmocka_unit_test(test_render_rejects_bad_input),
      cmocka_unit_test(test_markdown_structure),
      cmocka_unit_test(test_version_2_categories),
      cmocka_unit_test(test_html_big_source_context),
      cmocka_unit_test(test_shared_fix_shown_once),
      cmocka_unit_test(test_shared_fix_shown_first_down_the_file),
      cmocka_unit_test(test_directive_note_once),
      cmocka_unit_test(test_markdown_code_fences),
      cmocka_unit_test(test_markdown_executions),
      cmocka_unit_test(test_fix_text_code_spans),
      cmocka_unit_test(test_duplicate_content_wording),
      cmocka_unit_test(test_duplicate_transfer_wording),
      cmocka_unit_test(test_timeline_million_events),
      cmocka_unit_test(test_timeline_histogram),
  };
  return cmocka_run_group_tests(tests, setup_tmpdir, remove_tmpdir);
}
