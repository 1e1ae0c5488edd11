/* Unit tests of the fixes' text editing (fix/fixes_internal.h): lines and
 * line endings, the pragma reader (clauses, items, continuations, comments),
 * clause edits (type change with clause splitting, item and clause removal,
 * pragma removal, added clauses), indentation, unified diffs (hunk headers,
 * merging, CRLF, no final newline) and their strict check, plus the
 * syntax-tree queries the rules use and the "macro directive -> manual"
 * decision, the parse with the compile database's flags (code under
 * `#ifdef`), reduction list items, and whether a re-sent buffer stayed
 * mapped and which kernels ran since its previous copy.
 * Fixtures: tests/unit/fixes_fixture/ (FIXES_FIXTURE_DIR). */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixes_internal.h"

static const char *fixture_dir = FIXES_FIXTURE_DIR;

/* ---- helpers ---- */

static omplens_fix__source load(const char *text) {
  omplens_fix__source s;
  assert_int_equal(omplens_fix__source_from("t.c", text, strlen(text), &s), 0);
  return s;
}

/* Sorts the edits and returns the new text (caller frees). */
static char *applied(const omplens_fix__source *s, omplens_fix__edits *e) {
  assert_false(e->failed);
  assert_true(omplens_fix__edits_sort(e));
  char *t = omplens_fix__apply(s, e);
  assert_non_null(t);
  return t;
}

static char *diff_of(const omplens_fix__source *s, omplens_fix__edits *e) {
  assert_true(omplens_fix__edits_sort(e));
  omplens_fix__buf b = {0};
  omplens_fix__buf_str(&b, "");
  omplens_fix__diff(s, e, "t.c", &b);
  char *d = omplens_fix__buf_take(&b);
  assert_non_null(d);
  char *t = omplens_fix__apply(s, e);
  assert_true(omplens_fix__diff_verify(s, d, t)); /* every diff made here must verify */
  free(t);
  return d;
}

/* Scans the first pragma of s. */
static void scan_first(const omplens_fix__source *s, omplens_fix__pragma *p) {
  const char *hash = strchr(s->text, '#');
  assert_non_null(hash);
  assert_int_equal(omplens_fix__pragma_scan(s, (size_t)(hash - s->text), p), 0);
}

/* One edit of the first pragma of text; the result (caller frees). */
typedef const char *(*pragma_edit)(const omplens_fix__source *, const omplens_fix__pragma *,
                                   omplens_fix__edits *, void *);

static char *edit_pragma(const char *text, pragma_edit fn, void *arg) {
  omplens_fix__source s = load(text);
  omplens_fix__pragma p;
  scan_first(&s, &p);
  omplens_fix__edits e = {0};
  const char *why = fn(&s, &p, &e, arg);
  if (why)
    fail_msg("edit refused: %s", why);
  char *out = applied(&s, &e);
  omplens_fix__edits_free(&e);
  omplens_fix__pragma_free(&p);
  omplens_fix__source_free(&s);
  return out;
}

typedef struct type_arg {
  size_t item;
  const char *type;
} type_arg;

static const char *do_set_type(const omplens_fix__source *s, const omplens_fix__pragma *p,
                               omplens_fix__edits *e, void *arg) {
  type_arg *a = arg;
  return omplens_fix__pragma_set_type(s, p, a->item, a->type, e);
}

static const char *do_remove_item(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                  omplens_fix__edits *e, void *arg) {
  return omplens_fix__pragma_remove_item(s, p, *(size_t *)arg, e);
}

static const char *do_remove(const omplens_fix__source *s, const omplens_fix__pragma *p,
                             omplens_fix__edits *e, void *arg) {
  (void)arg;
  return omplens_fix__pragma_remove(s, p, e);
}

static const char *do_add_clause(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                 omplens_fix__edits *e, void *arg) {
  return omplens_fix__pragma_add_clause(s, p, arg, e);
}

static void expect_type(const char *text, size_t item, const char *type, const char *want) {
  type_arg a = {item, type};
  char *got = edit_pragma(text, do_set_type, &a);
  assert_string_equal(got, want);
  free(got);
}

static void expect_removed(const char *text, size_t item, const char *want) {
  char *got = edit_pragma(text, do_remove_item, &item);
  assert_string_equal(got, want);
  free(got);
}

/* ---- lines ---- */

static void lines_and_line_endings(void **state) {
  (void)state;
  omplens_fix__source s = load("a\nbb\n");
  assert_int_equal(s.num_lines, 2);
  assert_string_equal(s.eol, "\n");
  assert_int_equal(omplens_fix__line_of(&s, 2), 2);
  assert_int_equal(omplens_fix__offset(&s, 2, 2), 3);
  omplens_fix__source_free(&s);

  s = load("a\r\nb\r\nc"); /* CRLF, no final newline */
  assert_int_equal(s.num_lines, 3);
  assert_string_equal(s.eol, "\r\n");
  assert_int_equal(omplens_fix__line_end(&s, 1), 1);
  omplens_fix__source_free(&s);

  s = load("a\r\nb;\r\r\nc\r\n"); /* a CR alone ends a line too, as clang counts */
  assert_int_equal(s.num_lines, 4);
  assert_string_equal(s.eol, "\r\n");
  assert_int_equal(omplens_fix__offset(&s, 4, 1), 8);
  assert_int_equal(omplens_fix__line_end(&s, 2), 5);
  assert_int_equal(omplens_fix__line_of(&s, 8), 4);
  omplens_fix__source_free(&s);

  omplens_fix__source bad;
  assert_int_equal(omplens_fix__source_from("t.c", "a\0b", 3, &bad), OMPLENS_FIX_EINVAL);
}

/* ---- the pragma reader ---- */

static void scan_clauses_and_items(void **state) {
  (void)state;
  omplens_fix__source s = load(
      "  #pragma omp target enter data map(to: a[0:n], b[0 : n]) map(always, tofrom: c) nowait\n");
  omplens_fix__pragma p;
  scan_first(&s, &p);
  assert_string_equal(p.name, "target enter data");
  assert_int_equal(p.num_clauses, 3);
  assert_string_equal(p.clauses[2].name, "nowait");
  assert_int_equal(p.num_items, 3);
  assert_string_equal(p.items[0].text, "a[0:n]");
  assert_string_equal(p.items[1].text, "b[0 : n]");
  assert_string_equal(p.items[2].text, "c");
  assert_string_equal(p.clauses[1].modifiers, "always");
  assert_true(p.clean_start);
  assert_int_equal(omplens_fix__pragma_data_clauses(&p), 2);
  omplens_fix__pragma_free(&p);
  omplens_fix__source_free(&s);

  s = load("#pragma omp target update to(x[0:n]) from(y)\n");
  scan_first(&s, &p);
  assert_string_equal(p.name, "target update");
  assert_int_equal(p.num_items, 2);
  assert_int_equal(p.clauses[0].type_begin, SIZE_MAX); /* a motion clause has no map type */
  omplens_fix__pragma_free(&p);
  omplens_fix__source_free(&s);

  s = load("#pragma once\n");
  assert_int_equal(omplens_fix__pragma_scan(&s, 0, &p), OMPLENS_FIX_EINVAL);
  omplens_fix__source_free(&s);
  s = load("#pragma omp target data map(to: a[0:n]\n"); /* unbalanced */
  assert_int_equal(omplens_fix__pragma_scan(&s, 0, &p), OMPLENS_FIX_EINVAL);
  omplens_fix__source_free(&s);
}

static void scan_continuations_and_comments(void **state) {
  (void)state;
  omplens_fix__source s = load("#pragma omp target data /* keep a */ map(to: a[0: \\\n"
                               "   n]) \\\n"
                               "    map(alloc: b[0:n]) // scratch\n"
                               "{\n");
  omplens_fix__pragma p;
  scan_first(&s, &p);
  assert_string_equal(p.name, "target data");
  assert_int_equal(p.first_line, 1);
  assert_int_equal(p.last_line, 3);
  assert_int_equal(p.num_items, 2);
  assert_string_equal(p.items[0].text, "a[0: n]");
  assert_string_equal(p.items[1].text, "b[0:n]");
  assert_true(p.clean_end); /* a trailing comment is fine */
  omplens_fix__pragma_free(&p);
  omplens_fix__source_free(&s);
}

/* ---- clause edits ---- */

static void set_type_splits_clauses(void **state) {
  (void)state;
  const char *t = "#pragma omp target enter data map(to: a[0:n], b[0:n], c[0:n])\n";
  expect_type(t, 2, "alloc",
              "#pragma omp target enter data map(to: a[0:n], b[0:n]) map(alloc: c[0:n])\n");
  expect_type(t, 1, "alloc",
              "#pragma omp target enter data map(to: a[0:n], c[0:n]) map(alloc: b[0:n])\n");
  expect_type(t, 0, "alloc",
              "#pragma omp target enter data map(to: b[0:n], c[0:n]) map(alloc: a[0:n])\n");
  /* the dup_content case */
  expect_type("#pragma omp target enter data map(to: a[0:N], sum[0:N], sumsq[0:N])\n", 2, "alloc",
              "#pragma omp target enter data map(to: a[0:N], sum[0:N]) map(alloc: sumsq[0:N])\n");
}

typedef struct types_arg {
  const size_t *items;
  size_t n;
} types_arg;

static const char *do_set_types(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                omplens_fix__edits *e, void *arg) {
  types_arg *a = arg;
  return omplens_fix__pragma_set_types(s, p, a->items, a->n, "alloc", e);
}

static void expect_types(const char *text, const size_t *items, size_t n, const char *want) {
  types_arg a = {items, n};
  char *got = edit_pragma(text, do_set_types, &a);
  assert_string_equal(got, want);
  free(got);
}

/* Several items of one directive at once, in one edit per clause: the
 * last two of a list (whose single edits would overlap on the comma
 * between them), a whole list, items of two clauses. */
static void set_types_of_several_items(void **state) {
  (void)state;
  const char *t = "#pragma omp target enter data map(to: a[0:n], b[0:n],c[0:n])\n";
  expect_types(t, (size_t[]){1, 2}, 2,
               "#pragma omp target enter data map(to: a[0:n]) map(alloc: b[0:n], c[0:n])\n");
  expect_types(t, (size_t[]){0, 2}, 2,
               "#pragma omp target enter data map(to: b[0:n]) map(alloc: a[0:n], c[0:n])\n");
  expect_types(t, (size_t[]){2, 0, 1}, 3,
               "#pragma omp target enter data map(alloc: a[0:n], b[0:n],c[0:n])\n");
  expect_types(t, (size_t[]){0}, 1,
               "#pragma omp target enter data map(to: b[0:n],c[0:n]) map(alloc: a[0:n])\n");
  expect_types("#pragma omp target enter data map(always, to: a[:n], b[:n]) map(to: c[:m])\n",
               (size_t[]){1, 2}, 2,
               "#pragma omp target enter data map(always, to: a[:n]) map(alloc: b[:n]) "
               "map(alloc: c[:m])\n");
}

typedef struct change_arg {
  const omplens_fix__item_edit *changes;
  size_t n;
} change_arg;

static const char *do_change(const omplens_fix__source *s, const omplens_fix__pragma *p,
                             omplens_fix__edits *e, void *arg) {
  change_arg *a = arg;
  return omplens_fix__pragma_change(s, p, a->changes, a->n, e);
}

static void expect_change(const char *text, const omplens_fix__item_edit *changes, size_t n,
                          const char *want) {
  change_arg a = {changes, n};
  char *got = edit_pragma(text, do_change, &a);
  assert_string_equal(got, want);
  free(got);
}

/* Two rules' changes of one directive in one edit per clause: items that
 * go and items given a type (minifmm's enter data: two arrays removed,
 * three mapped alloc), removals alone as remove_items makes them, a whole
 * clause retyped, two new types, and an item in a motion clause. */
static void change_removes_and_retypes(void **state) {
  (void)state;
  const char *t = "#pragma omp target enter data map(to: a[:n], b[:n], c[:n], d[:n], e[:n])\n";
  expect_change(t,
                (omplens_fix__item_edit[]){{1, "alloc"}, {3, NULL}, {4, NULL}, {2, "alloc"}}, 4,
                "#pragma omp target enter data map(to: a[:n]) map(alloc: b[:n], c[:n])\n");
  expect_change(t, (omplens_fix__item_edit[]){{0, NULL}, {4, NULL}}, 2,
                "#pragma omp target enter data map(to: b[:n], c[:n], d[:n])\n");
  expect_change(t, (omplens_fix__item_edit[]){{0, "alloc"}, {1, NULL}, {2, "from"}}, 3,
                "#pragma omp target enter data map(to: d[:n], e[:n]) map(alloc: a[:n]) "
                "map(from: c[:n])\n");
  expect_change("#pragma omp target data map(to: a[:n], b[:n]) map(tofrom: c[:n])\n",
                (omplens_fix__item_edit[]){{0, "alloc"}, {1, "alloc"}, {2, NULL}}, 3,
                "#pragma omp target data map(alloc: a[:n], b[:n])\n");
  omplens_fix__source s;
  omplens_fix__pragma p;
  omplens_fix__edits e = {0};
  const char *u = "#pragma omp target update to(a[:n], b[:n])\n";
  assert_int_equal(omplens_fix__source_from("u.c", u, strlen(u), &s), 0);
  assert_int_equal(omplens_fix__pragma_scan(&s, 0, &p), 0);
  assert_non_null(omplens_fix__pragma_change(&s, &p, (omplens_fix__item_edit[]){{0, "alloc"}},
                                             1, &e));
  omplens_fix__edits_free(&e);
  omplens_fix__pragma_free(&p);
  omplens_fix__source_free(&s);
}

static void set_type_single_items(void **state) {
  (void)state;
  expect_type("#pragma omp target exit data map(from: w[0:N]) map(delete: x[0:N])\n", 0, "release",
              "#pragma omp target exit data map(release: w[0:N]) map(delete: x[0:N])\n");
  expect_type("#pragma omp target map(tofrom:x)\n", 0, "to", "#pragma omp target map(to:x)\n");
  /* always goes with a type that copies nothing, stays with one that does */
  expect_type("#pragma omp target map(always, to: x)\n", 0, "alloc",
              "#pragma omp target map(alloc: x)\n");
  expect_type("#pragma omp target map(always, tofrom: x)\n", 0, "to",
              "#pragma omp target map(always, to: x)\n");
  expect_type("#pragma omp target map(always, close, tofrom: x, y)\n", 1, "alloc",
              "#pragma omp target map(always, close, tofrom: x) map(close, alloc: y)\n");
  /* no type written */
  expect_type("#pragma omp target data map(x[0:n])\n", 0, "alloc",
              "#pragma omp target data map(alloc: x[0:n])\n");
  /* a motion clause has no type to change */
  omplens_fix__source s = load("#pragma omp target update to(x)\n");
  omplens_fix__pragma p;
  scan_first(&s, &p);
  omplens_fix__edits e = {0};
  assert_non_null(omplens_fix__pragma_set_type(&s, &p, 0, "alloc", &e));
  assert_int_equal(e.n, 0);
  omplens_fix__pragma_free(&p);
  omplens_fix__source_free(&s);
}

static void remove_items_and_clauses(void **state) {
  (void)state;
  const char *t = "#pragma omp target data map(to: a, b, c) map(from: d)\n";
  expect_removed(t, 1, "#pragma omp target data map(to: a, c) map(from: d)\n");
  expect_removed(t, 2, "#pragma omp target data map(to: a, b) map(from: d)\n");
  expect_removed(t, 0, "#pragma omp target data map(to: b, c) map(from: d)\n");
  expect_removed(t, 3, "#pragma omp target data map(to: a, b, c)\n");
  /* clauses separated by commas */
  expect_removed("#pragma omp target data map(to: a), map(from: d)\n", 1,
                 "#pragma omp target data map(to: a)\n");
  expect_removed("#pragma omp target update to(x) from(y)\n", 0,
                 "#pragma omp target update from(y)\n");
  /* a clause on its own continuation line */
  expect_removed("#pragma omp target data \\\n    map(to: a[0:n]) \\\n    map(alloc: b[0:n])\n{\n",
                 1, "#pragma omp target data \\\n    map(to: a[0:n])\n{\n");
  expect_removed("#pragma omp target data \\\n    map(to: a[0:n]) \\\n    map(alloc: b[0:n])\n{\n",
                 0, "#pragma omp target data \\\n    map(alloc: b[0:n])\n{\n");
}

static void remove_whole_pragma(void **state) {
  (void)state;
  char *got =
      edit_pragma("x();\n#pragma omp target update to(x[0:N]) /* done */\ny();\n", do_remove, NULL);
  assert_string_equal(got, "x();\ny();\n");
  free(got);
  got = edit_pragma("{\n  #pragma omp target data \\\n     map(alloc: z[0:N])\n  {\n  }\n}\n",
                    do_remove, NULL);
  assert_string_equal(got, "{\n  {\n  }\n}\n");
  free(got);
}

static void add_clause_before_comment(void **state) {
  (void)state;
  char *got = edit_pragma("#pragma omp target update to(in[0:N]) // next input\n", do_add_clause,
                          "if(step + 1 < STEPS)");
  assert_string_equal(got,
                      "#pragma omp target update to(in[0:N]) if(step + 1 < STEPS) // next input\n");
  free(got);
  got = edit_pragma("#pragma omp target update \\\n  to(x)\n", do_add_clause, "if(i == 0)");
  assert_string_equal(got, "#pragma omp target update \\\n  to(x) if(i == 0)\n");
  free(got);
}

/* ---- indentation, line insertion ---- */

static void insert_with_tabs(void **state) {
  (void)state;
  omplens_fix__source s = load("void f(void)\n{\n\t\tfor (;;)\n\t\t\tg();\n}\n");
  size_t at;
  size_t n = omplens_fix__indent(&s, 3, &at);
  assert_int_equal(n, 2);
  omplens_fix__edits e = {0};
  omplens_fix__insert_lines(&e, &s, 3, s.text + at, n, "#pragma omp target data map(to: a[0:n])\n");
  omplens_fix__insert_lines(&e, &s, 5, s.text + at, n,
                            "#pragma omp target exit data map(delete: a[0:n])\n");
  char *got = applied(&s, &e);
  assert_string_equal(got,
                      "void f(void)\n{\n\t\t#pragma omp target data map(to: a[0:n])\n\t\tfor (;;)\n"
                      "\t\t\tg();\n\t\t#pragma omp target exit data map(delete: a[0:n])\n}\n");
  free(got);
  omplens_fix__edits_free(&e);
  omplens_fix__source_free(&s);
}

/* ---- diffs ---- */

/* A file of n lines "lineK". */
static char *numbered(int n, bool final_eol) {
  omplens_fix__buf b = {0};
  for (int i = 1; i <= n; i++)
    omplens_fix__buf_printf(&b, "line%d%s", i, i < n || final_eol ? "\n" : "");
  return omplens_fix__buf_take(&b);
}

static void replace_line(omplens_fix__edits *e, const omplens_fix__source *s, unsigned line,
                         const char *text) {
  omplens_fix__replace(e, s, s->line_start[line - 1], omplens_fix__line_end(s, line), text);
}

static void hunk_headers(void **state) {
  (void)state;
  char *text = numbered(30, true);
  omplens_fix__source s = load(text);
  omplens_fix__edits e = {0};
  replace_line(&e, &s, 5, "five");
  char *d = diff_of(&s, &e);
  assert_string_equal(
      d, "--- a/t.c\n+++ b/t.c\n@@ -2,7 +2,7 @@\n line2\n line3\n line4\n-line5\n+five\n"
         " line6\n line7\n line8\n");
  free(d);
  /* far apart: two hunks */
  replace_line(&e, &s, 20, "twenty");
  d = diff_of(&s, &e);
  assert_non_null(strstr(d, "@@ -2,7 +2,7 @@"));
  assert_non_null(strstr(d, "@@ -17,7 +17,7 @@"));
  free(d);
  omplens_fix__edits_free(&e);
  /* within twice the context: one hunk */
  replace_line(&e, &s, 5, "five");
  replace_line(&e, &s, 11, "eleven");
  d = diff_of(&s, &e);
  const char *h = strstr(d, "@@ -2,13 +2,13 @@");
  assert_non_null(h);
  assert_null(strstr(h + 1, "@@ -"));
  free(d);
  omplens_fix__edits_free(&e);
  /* an insertion and a removal change the counts */
  omplens_fix__insert_lines(&e, &s, 5, "  ", 2, "new\n");
  omplens_fix__remove_lines(&e, &s, 1, 1);
  d = diff_of(&s, &e);
  assert_string_equal(
      d, "--- a/t.c\n+++ b/t.c\n@@ -1,7 +1,7 @@\n-line1\n line2\n line3\n line4\n+  new\n"
         " line5\n line6\n line7\n");
  free(d);
  omplens_fix__edits_free(&e);
  omplens_fix__source_free(&s);
  free(text);
}

static void diff_absolute_path(void **state) {
  (void)state;
  omplens_fix__source s = load("a\n");
  omplens_fix__edits e = {0};
  replace_line(&e, &s, 1, "b");
  assert_true(omplens_fix__edits_sort(&e));
  omplens_fix__buf b = {0};
  omplens_fix__diff(&s, &e, "/src/prog.c", &b);
  assert_string_equal(b.data, "--- a/src/prog.c\n+++ b/src/prog.c\n@@ -1 +1 @@\n-a\n+b\n");
  omplens_fix__buf_free(&b);
  omplens_fix__edits_free(&e);
  omplens_fix__source_free(&s);
}

static void diff_without_final_newline(void **state) {
  (void)state;
  char *text = numbered(4, false);
  omplens_fix__source s = load(text);
  omplens_fix__edits e = {0};
  replace_line(&e, &s, 4, "four");
  char *d = diff_of(&s, &e);
  assert_string_equal(d, "--- a/t.c\n+++ b/t.c\n@@ -1,4 +1,4 @@\n line1\n line2\n line3\n-line4\n"
                         "\\ No newline at end of file\n+four\n\\ No newline at end of file\n");
  free(d);
  omplens_fix__edits_free(&e);
  /* appending after a last line without EOL ends that line first */
  omplens_fix__insert_lines(&e, &s, 5, "", 0, "line5\n");
  char *got = applied(&s, &e);
  assert_string_equal(got, "line1\nline2\nline3\nline4\nline5\n");
  free(got);
  d = diff_of(&s, &e);
  assert_non_null(strstr(d, "-line4\n\\ No newline at end of file\n+line4\n+line5\n"));
  free(d);
  omplens_fix__edits_free(&e);
  omplens_fix__source_free(&s);
  free(text);
}

static void crlf_file(void **state) {
  (void)state;
  const char *text = "int main(void)\r\n{\r\n#pragma omp target exit data map(from: w[0:N])\r\n"
                     "  return 0;\r\n}\r\n";
  omplens_fix__source s = load(text);
  omplens_fix__pragma p;
  scan_first(&s, &p);
  assert_int_equal(p.last_line, 3);
  omplens_fix__edits e = {0};
  assert_null(omplens_fix__pragma_set_type(&s, &p, 0, "release", &e));
  omplens_fix__insert_lines(&e, &s, 4, "  ", 2, "/* added */\n");
  char *got = applied(&s, &e);
  assert_string_equal(got,
                      "int main(void)\r\n{\r\n#pragma omp target exit data map(release: w[0:N])\r\n"
                      "  /* added */\r\n  return 0;\r\n}\r\n");
  free(got);
  char *d = diff_of(&s, &e);
  assert_non_null(
      strstr(d, "-#pragma omp target exit data map(from: w[0:N])\r\n"
                "+#pragma omp target exit data map(release: w[0:N])\r\n+  /* added */\r\n"));
  free(d);
  omplens_fix__edits_free(&e);
  omplens_fix__pragma_free(&p);
  omplens_fix__source_free(&s);
}

/* GNU patch accepts what the diff layer writes (CRLF, no final newline). */
static void patch_accepts_diffs(void **state) {
  (void)state;
  if (system("command -v patch >/dev/null 2>&1"))
    skip();
  char dir[] = "/tmp/test_fixes_XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *texts[] = {"a\r\nb\r\nc\r\nd\r\n", "one\ntwo\nthree"};
  for (size_t i = 0; i < 2; i++) {
    omplens_fix__source s = load(texts[i]);
    omplens_fix__edits e = {0};
    replace_line(&e, &s, 3, "C");
    omplens_fix__insert_lines(&e, &s, 1, "", 0, "zero\n");
    char *d = diff_of(&s, &e);
    char *want = omplens_fix__apply(&s, &e);
    char path[256], cmd[512];
    snprintf(path, sizeof path, "%s/t.c", dir);
    FILE *f = fopen(path, "wb");
    fputs(texts[i], f);
    fclose(f);
    snprintf(path, sizeof path, "%s/fix.patch", dir);
    f = fopen(path, "wb");
    fputs(d, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "patch -s -d %s -p1 --fuzz=0 < %s/fix.patch", dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/t.c", dir);
    f = fopen(path, "rb");
    char buf[256] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    assert_string_equal(buf, want);
    free(want);
    free(d);
    omplens_fix__edits_free(&e);
    omplens_fix__source_free(&s);
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

static void verify_rejects_a_wrong_diff(void **state) {
  (void)state;
  omplens_fix__source s = load("a\nb\nc\n");
  assert_true(
      omplens_fix__diff_verify(&s, "--- a/t.c\n+++ b/t.c\n@@ -2 +2 @@\n-b\n+B\n", "a\nB\nc\n"));
  assert_false(
      omplens_fix__diff_verify(&s, "--- a/t.c\n+++ b/t.c\n@@ -2 +2 @@\n-x\n+B\n", "a\nB\nc\n"));
  assert_false(
      omplens_fix__diff_verify(&s, "--- a/t.c\n+++ b/t.c\n@@ -1 +1 @@\n-b\n+B\n", "a\nB\nc\n"));
  assert_false(
      omplens_fix__diff_verify(&s, "--- a/t.c\n+++ b/t.c\n@@ -2,2 +2 @@\n-b\n+B\n", "a\nB\nc\n"));
  omplens_fix__source_free(&s);
}

static void overlapping_edits(void **state) {
  (void)state;
  omplens_fix__source s = load("abcdef\n");
  omplens_fix__edits e = {0};
  omplens_fix__replace(&e, &s, 1, 4, "X");
  omplens_fix__replace(&e, &s, 3, 5, "Y");
  assert_false(omplens_fix__edits_sort(&e));
  omplens_fix__edits_free(&e);
  omplens_fix__replace(&e, &s, 2, 2, "<"); /* an insertion where a replacement starts */
  omplens_fix__replace(&e, &s, 2, 3, "C");
  char *got = applied(&s, &e);
  assert_string_equal(got, "ab<Cdef\n");
  free(got);
  omplens_fix__edits_free(&e);
  omplens_fix__source_free(&s);
}

/* ---- the syntax tree ---- */

static const char *fixture(const char *name) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
  return path;
}

/* Offset of the first occurrence of what on the line marked @marker. */
static size_t marked(const omplens_fix__source *s, const char *marker, const char *what) {
  char m[64];
  snprintf(m, sizeof m, "@%s ", marker);
  const char *at = strstr(s->text, m);
  assert_non_null(at);
  unsigned line = omplens_fix__line_of(s, (size_t)(at - s->text));
  const char *b = s->text + s->line_start[line - 1];
  const char *w = strstr(b, what);
  assert_true(w && w < at);
  return (size_t)(w - s->text);
}

static uint32_t ref_at(const omplens_fix__ast *a, size_t offset) {
  for (size_t i = 0; i < a->num_nodes; i++)
    if (a->nodes[i].kind == OMPLENS_FIX__N_DECLREF && a->nodes[i].begin == offset)
      return (uint32_t)i;
  fail_msg("no reference at offset %zu", offset);
  return OMPLENS_FIX__NONE;
}

static void ast_uses(void **state) {
  (void)state;
  omplens_fix__source s;
  assert_int_equal(omplens_fix__source_load(fixture("uses.c"), &s), 0);
  omplens_fix__ast a;
  assert_int_equal(omplens_fix__ast_parse(fixture("uses.c"), NULL, 0, &a), 0);
  assert_int_equal(a.errors, 0);
  static const struct {
    const char *marker, *what;
    int use;
  } cases[] = {
      {"WRITE", "p", OMPLENS_FIX__USE_WRITE},       {"READ", "p", OMPLENS_FIX__USE_READ},
      {"COPIED", "p", OMPLENS_FIX__USE_COPIED},     {"ASSIGNED", "p", OMPLENS_FIX__USE_ASSIGNED},
      {"ESCAPE", "p", OMPLENS_FIX__USE_ESCAPE},     {"VALUE", "p", OMPLENS_FIX__USE_VALUE},
      {"DEREF_WRITE", "p", OMPLENS_FIX__USE_WRITE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint32_t other;
    int use =
        omplens_fix__ast_use(&a, ref_at(&a, marked(&s, cases[i].marker, cases[i].what)), &other);
    if (use != cases[i].use)
      fail_msg("%s: use %d, expected %d", cases[i].marker, use, cases[i].use);
  }
  /* the copy goes into r; the assignment's value is q */
  uint32_t other;
  omplens_fix__ast_use(&a, ref_at(&a, marked(&s, "COPIED", "p")), &other);
  assert_string_equal(omplens_fix__ast_name(&a, other), "r");
  omplens_fix__ast_use(&a, ref_at(&a, marked(&s, "ASSIGNED", "p")), &other);
  assert_string_equal(omplens_fix__ast_name(&a, omplens_fix__ast_plain_var(&a, other)), "q");
  /* the loop around a statement, the function, lookups */
  size_t w = marked(&s, "WRITE", "p");
  uint32_t fn = omplens_fix__ast_function_at(&a, w);
  assert_string_equal(omplens_fix__ast_name(&a, fn), "uses");
  uint32_t loop = omplens_fix__ast_loop_at(&a, fn, w);
  assert_int_equal(omplens_fix__line_of(&s, a.nodes[loop].begin),
                   omplens_fix__line_of(&s, marked(&s, "LOOP", "for")));
  assert_int_equal(omplens_fix__ast_loop_at(&a, fn, marked(&s, "ESCAPE", "p")), OMPLENS_FIX__NONE);
  uint32_t x = omplens_fix__ast_lookup(&a, "x", w);
  assert_int_equal(a.nodes[x].kind, OMPLENS_FIX__N_VAR);
  assert_int_equal(omplens_fix__ast_lookup(&a, "r", w), OMPLENS_FIX__NONE); /* declared later */
  assert_int_equal(a.nodes[omplens_fix__ast_lookup(&a, "p", w)].elem, OMPLENS_FIX__ELEM_ARITH);
  omplens_fix__ast_free(&a);
  omplens_fix__source_free(&s);
}

/* A template's dependent members have no spelling in libclang; written in
 * a macro's arguments, their offsets are the macro's, so the walk names
 * them from where their spelling ends (x.items.size() inside PAIR_MIN). */
static void ast_names_members_in_macro_arguments(void **state) {
  (void)state;
  omplens_fix__ast a;
  assert_int_equal(omplens_fix__ast_parse(fixture("macro_member.cpp"), NULL, 0, &a), 0);
  assert_int_equal(a.errors, 0);
  size_t size = 0, items = 0;
  for (size_t i = 0; i < a.num_nodes; i++)
    if (a.nodes[i].kind == OMPLENS_FIX__N_MEMBER) {
      size += !strcmp(omplens_fix__ast_name(&a, (uint32_t)i), "size");
      items += !strcmp(omplens_fix__ast_name(&a, (uint32_t)i), "items");
    }
  assert_int_equal(size, 4); /* each argument is expanded twice */
  assert_int_equal(items, 4);
  omplens_fix__ast_free(&a);
}

static void openmp_parse_catches_bad_clauses(void **state) {
  (void)state;
  const char *good =
      "void f(double *a, int n) {\n#pragma omp target exit data map(release: a[0:n])\n}\n";
  const char *bad =
      "void f(double *a, int n) {\n#pragma omp target enter data map(release: a[0:n])\n}\n";
  char *first = NULL;
  assert_int_equal(omplens_fix__openmp_errors("/tmp/t.c", good, NULL, 0, NULL), 0);
  assert_true(omplens_fix__openmp_errors("/tmp/t.c", bad, NULL, 0, &first) > 0);
  assert_non_null(first);
  free(first);
}

/* ---- directives a diff may not touch ---- */

static void macro_directive_is_manual(void **state) {
  (void)state;
  omplens_directive_index *ix = NULL;
  assert_int_equal(omplens_directive_index_create(NULL, &ix), 0);
  omplens_fix__source s;
  assert_int_equal(omplens_fix__source_load(fixture("macro.c"), &s), 0);
  unsigned macro_line = omplens_fix__line_of(&s, marked(&s, "MACRO_USE", "OFFLOAD"));
  unsigned plain_line = omplens_fix__line_of(&s, marked(&s, "PLAIN", "#"));
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find(ix, fixture("macro.c"), macro_line, 0, "scale",
                                          OMPLENS_RUNTIME_TARGET, &m),
                   0);
  assert_non_null(m.directive);
  const char *why = omplens_fix__directive_unsafe(m.directive, fixture("macro.c"), false);
  assert_non_null(why);
  assert_non_null(strstr(why, "macro"));
  assert_int_equal(omplens_directive_find(ix, fixture("macro.c"), plain_line, 1, "scale",
                                          OMPLENS_RUNTIME_TARGET, &m),
                   0);
  assert_non_null(m.directive);
  assert_null(omplens_fix__directive_unsafe(m.directive, fixture("macro.c"), false));
  /* the same directive in a header, or newer than the binary */
  assert_non_null(
      strstr(omplens_fix__directive_unsafe(m.directive, "/src/kernels.h", false), "header"));
  assert_non_null(
      strstr(omplens_fix__directive_unsafe(m.directive, fixture("macro.c"), true), "stale"));
  omplens_fix__source_free(&s);
  omplens_directive_index_destroy(ix);
}

/* ---- the build's flags, implicit items, buffers that stay mapped ---- */

/* A fixer with nothing but an index, for the parse of files. */
static omplens_fixer *bare_fixer(omplens_directive_index *ix) {
  omplens_fixer *fx = calloc(1, sizeof *fx);
  assert_non_null(fx);
  fx->index = ix;
  return fx;
}

/* The file parsed as the compile database says (-DOMP_OFFLOAD): w is
 * declared where the directive is. Without the database the parse takes
 * the #else branch, and w is not found (no longer reported as a wrong
 * element type). */
static void parse_with_build_flags(void **state) {
  (void)state;
  char dir[] = "/tmp/omplens-fixes-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char src[256], db[256], cmd[4400];
  snprintf(src, sizeof src, "%s/ifdef.c", dir);
  snprintf(db, sizeof db, "%s/compile_commands.json", dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", fixture("ifdef.c"), src);
  assert_int_equal(system(cmd), 0);
  FILE *f = fopen(db, "w");
  assert_non_null(f);
  fprintf(f, "[{\"directory\": \"%s\", \"file\": \"%s\", \"arguments\": [\"clang\", "
             "\"-DOMP_OFFLOAD\", \"-fopenmp\", \"-c\", \"ifdef.c\"]}]\n",
          dir, src);
  fclose(f);
  for (int with_db = 1; with_db >= 0; with_db--) {
    if (!with_db)
      unlink(db);
    omplens_directive_options o = {0};
    o.compile_commands = with_db ? dir : NULL;
    omplens_directive_index *ix = NULL;
    assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
    omplens_fixer *fx = bare_fixer(ix);
    omplens_fix__file *file = omplens_fix__file_get(fx, src, NULL);
    assert_non_null(file);
    const char *why = NULL;
    assert_true(omplens_fix__file_ast(fx, file, &why));
    uint32_t w = omplens_fix__ast_lookup(&file->ast, "w", marked(&file->src, "ENTER", "#"));
    if (with_db) {
      if (w == OMPLENS_FIX__NONE)
        fail_msg("w not found: the parse did not use -DOMP_OFFLOAD");
      assert_int_equal(file->ast.nodes[w].elem, OMPLENS_FIX__ELEM_ARITH);
    } else {
      assert_int_equal(w, OMPLENS_FIX__NONE);
    }
    omplens_fixer_destroy(fx);
    omplens_directive_index_destroy(ix);
  }
  unlink(src);
  rmdir(dir);
}

static void reduction_list_items(void **state) {
  (void)state;
  const omplens_directive_clause cl[] = {
      {OMPLENS_CLAUSE_MAP, "map", "map(to: total)", "to: total"},
      {OMPLENS_CLAUSE_REDUCTION, "reduction", "reduction(+: sum, part[0:n])", "+: sum, part[0:n]"},
      {OMPLENS_CLAUSE_REDUCTION, "reduction", "reduction(::std::max : best)", "::std::max : best"},
  };
  omplens_directive d = {0};
  d.clauses = cl;
  d.num_clauses = sizeof cl / sizeof *cl;
  assert_true(omplens_fix__reduction_var(&d, "sum"));
  assert_true(omplens_fix__reduction_var(&d, "part"));
  assert_true(omplens_fix__reduction_var(&d, "best"));
  assert_false(omplens_fix__reduction_var(&d, "su"));
  assert_false(omplens_fix__reduction_var(&d, "n"));
  assert_false(omplens_fix__reduction_var(&d, "total"));
  assert_false(omplens_fix__reduction_var(&d, "std"));
}

/* Re-sends of host buffer A into device buffer D: flagged copies after a
 * copy that left D mapped are fine; one after D was freed and allocated
 * again, or into another device buffer, is not. Kernels that ran between a
 * re-send and the copy before it are named (by construct), those before
 * that copy are not. */
static void resent_buffers(void **state) {
  (void)state;
  enum { A = 0x1000, D = 0x9000 };
  omplens_event ev[] = {
      {.kind = OMPLENS_EV_ALLOC, .host_addr = A, .dev_addr = D},
      {.kind = OMPLENS_EV_H2D, .host_addr = A, .dev_addr = D},
      {.kind = OMPLENS_EV_KERNEL}, /* 2: changes the device's copy, returned next */
      {.kind = OMPLENS_EV_D2H, .host_addr = A, .dev_addr = D},
      {.kind = OMPLENS_EV_H2D, .host_addr = A, .dev_addr = D}, /* 4: round trip */
      {.kind = OMPLENS_EV_H2D, .host_addr = A, .dev_addr = D}, /* 5: duplicate */
      {.kind = OMPLENS_EV_DELETE, .dev_addr = D},
      {.kind = OMPLENS_EV_ALLOC, .host_addr = A, .dev_addr = D},
      {.kind = OMPLENS_EV_H2D, .host_addr = A, .dev_addr = D}, /* 8: into a fresh buffer */
  };
  omplens_instance trip[] = {{4, 3}}, dups[] = {{5, 4}, {8, 5}};
  omplens_finding f[] = {
      {.category = OMPLENS_CAT_ROUND_TRIP, .host_addr = A, .num_instances = 1, .instances = trip},
      {.category = OMPLENS_CAT_DUPLICATE_SAME_BUFFER, .host_addr = A, .num_instances = 1,
       .instances = dups},
  };
  omplens_fixer fx = {0};
  fx.events = ev;
  fx.num_events = sizeof ev / sizeof *ev;
  fx.findings = f;
  fx.num_findings = 2;
  size_t both[] = {0, 1};
  omplens_fix__group g = {0};
  g.findings = both;
  g.num_findings = 2;
  omplens_fix__resends r;
  omplens_fix__resend_evidence(&fx, &g, OMPLENS_EV_H2D, &r);
  assert_int_equal(r.remapped, OMPLENS_FIX__NONE);
  assert_int_equal(r.num_kernels, 0);
  f[1].num_instances = 2; /* now also the copy into the fresh buffer */
  omplens_fix__resend_evidence(&fx, &g, OMPLENS_EV_H2D, &r);
  assert_int_equal(r.remapped, 8);
  ev[6].kind = ev[7].kind = OMPLENS_EV_KERNEL; /* no free, but another device buffer */
  ev[8].dev_addr = D + 64;
  omplens_fix__resend_evidence(&fx, &g, OMPLENS_EV_H2D, &r);
  assert_int_equal(r.remapped, 8);
  assert_int_equal(r.num_kernels, 1); /* both kernels: one construct (no trace: codeptr 0) */
  ev[8].dev_addr = D;
  omplens_fix__resend_evidence(&fx, &g, OMPLENS_EV_H2D, &r);
  assert_int_equal(r.remapped, OMPLENS_FIX__NONE);
  assert_int_equal(r.num_kernels, 1);
}

/* Copies of one value in several element types: a template's float and
 * double instantiations of `w[i] = 1` both count as filled with 1. */
static void filled_in_two_types(void **state) {
  (void)state;
  enum { N = 64 };
  float f1[N];
  double d1[N], d2[N];
  for (int i = 0; i < N; i++) {
    f1[i] = 1.0f;
    d1[i] = 1.0;
    d2[i] = i == 3 ? 2.0 : 1.0;
  }
  omplens_event ev[] = {
      {.kind = OMPLENS_EV_H2D, .bytes = sizeof f1, .flags = OMPLENS_EVF_HASHED,
       .hash = omplens_content_hash(f1, sizeof f1)},
      {.kind = OMPLENS_EV_H2D, .bytes = sizeof d1, .flags = OMPLENS_EVF_HASHED,
       .hash = omplens_content_hash(d1, sizeof d1)},
      {.kind = OMPLENS_EV_H2D, .bytes = sizeof d2, .flags = OMPLENS_EVF_HASHED,
       .hash = omplens_content_hash(d2, sizeof d2)},
  };
  omplens_fixer fx = {0};
  fx.events = ev;
  fx.num_events = 3;
  uint32_t both[] = {0, 1}, one_off[] = {0, 2};
  assert_true(omplens_fix__filled(&fx, both, 2, 1.0));
  assert_false(omplens_fix__filled(&fx, both, 2, 2.0));
  assert_false(omplens_fix__filled(&fx, one_off, 2, 1.0));
  ev[1].flags = 0; /* no hash: nothing is known */
  assert_false(omplens_fix__filled(&fx, both, 2, 1.0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lines_and_line_endings),
      cmocka_unit_test(scan_clauses_and_items),
      cmocka_unit_test(scan_continuations_and_comments),
      cmocka_unit_test(set_type_splits_clauses),
      cmocka_unit_test(set_type_single_items),
      cmocka_unit_test(set_types_of_several_items),
      cmocka_unit_test(change_removes_and_retypes),
      cmocka_unit_test(remove_items_and_clauses),
      cmocka_unit_test(remove_whole_pragma),
      cmocka_unit_test(add_clause_before_comment),
      cmocka_unit_test(insert_with_tabs),
      cmocka_unit_test(hunk_headers),
      cmocka_unit_test(diff_absolute_path),
      cmocka_unit_test(diff_without_final_newline),
      cmocka_unit_test(crlf_file),
      cmocka_unit_test(patch_accepts_diffs),
      cmocka_unit_test(verify_rejects_a_wrong_diff),
      cmocka_unit_test(overlapping_edits),
      cmocka_unit_test(ast_uses),
      cmocka_unit_test(ast_names_members_in_macro_arguments),
      cmocka_unit_test(openmp_parse_catches_bad_clauses),
      cmocka_unit_test(macro_directive_is_manual),
      cmocka_unit_test(parse_with_build_flags),
      cmocka_unit_test(reduction_list_items),
      cmocka_unit_test(resent_buffers),
      cmocka_unit_test(filled_in_two_types),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
