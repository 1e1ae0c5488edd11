/* Unit tests of the directive index (annotate/omplens_directives.h).
 *
 * The fixture sources in tests/unit/directives_fixture/ mark the lines the
 * tests ask about with "@NAME" comments, so tests look lines up instead of
 * hard-coding them. kinds.expected is the golden dump of kinds.c, made by
 *   test_directives --dump tests/unit/directives_fixture/kinds.c
 * (set OMPLENS_UPDATE_GOLDEN=1 to rewrite it after a deliberate change).
 * DIRECTIVES_FIXTURE_DIR locates the fixtures. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "directives_internal.h" /* the plain parse's hook */
#include "omplens_directives.h"

static const char *fixture_dir = DIRECTIVES_FIXTURE_DIR;

/* ---- helpers ---- */

static const char *fixture(const char *name)
{
  static char paths[8][4096];
  static int next;
  char *p = paths[next++ % 8];
  snprintf(p, sizeof(paths[0]), "%s/%s", fixture_dir, name);
  return p;
}

/* The line holding "@marker" in a fixture (the whole word). */
static uint32_t line_of(const char *name, const char *marker)
{
  FILE *f = fopen(fixture(name), "r");
  assert_non_null(f);
  char buf[1024];
  uint32_t line = 0, found = 0;
  size_t len = strlen(marker);
  while (found == 0 && fgets(buf, sizeof(buf), f) != NULL) {
    line++;
    for (char *at = strstr(buf, marker); at != NULL; at = strstr(at + 1, marker))
      if (at[len] == ' ' || at[len] == '\n' || at[len] == '*')
        found = line;
  }
  fclose(f);
  if (found == 0)
    fail_msg("marker %s not in %s", marker, name);
  return found;
}

static omplens_directive_index *new_index(void)
{
  omplens_directive_index *ix = NULL;
  assert_int_equal(omplens_directive_index_create(NULL, &ix), 0);
  assert_non_null(ix);
  return ix;
}

static void assert_string(const char *got, const char *want)
{
  if (got == NULL || strcmp(got, want) != 0)
    fail_msg("got \"%s\", want \"%s\"", got != NULL ? got : "(null)", want);
}

static omplens_directive_match find(omplens_directive_index *ix, const char *name,
                                    uint32_t line, const char *function, int kind)
{
  omplens_directive_match m;
  int err = omplens_directive_find(ix, fixture(name), line, 0, function, kind, &m);
  if (err != 0)
    fail_msg("find %s:%u: %s", name, line, omplens_directives_strerror(err));
  return m;
}

/* Finds at a marker and requires one directive with the given confidence. */
static const omplens_directive *expect(omplens_directive_index *ix, const char *name,
                                       const char *marker, int kind, int confidence)
{
  omplens_directive_match m = find(ix, name, line_of(name, marker), NULL, kind);
  if (m.confidence != confidence)
    fail_msg("%s %s: confidence %s (%s), want %s", name, marker,
             omplens_directive_confidence_name(m.confidence), m.rule,
             omplens_directive_confidence_name(confidence));
  assert_non_null(m.directive);
  return m.directive;
}

static const omplens_map_item *item(const omplens_directive *d, const char *text)
{
  for (size_t i = 0; i < d->num_items; i++)
    if (strcmp(d->items[i].text, text) == 0)
      return &d->items[i];
  fail_msg("no item %s in %s", text, d->text);
  return NULL;
}

static const omplens_implicit_map *implicit(const omplens_directive *d, const char *var)
{
  for (size_t i = 0; i < d->num_implicit; i++)
    if (strcmp(d->implicit[i].var, var) == 0)
      return &d->implicit[i];
  return NULL;
}

static const omplens_directive_clause *clause(const omplens_directive *d, int kind)
{
  for (size_t i = 0; i < d->num_clauses; i++)
    if (d->clauses[i].kind == kind)
      return &d->clauses[i];
  return NULL;
}

static void write_compdb(const char *path, const char *fmt, ...)
{
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fclose(f);
}

/* ---- the golden dump ---- */

static const char *base(const char *path)
{
  const char *slash = strrchr(path != NULL ? path : "", '/');
  return slash != NULL ? slash + 1 : (path != NULL ? path : "-");
}

static const char *category_name(int c)
{
  static const char *const names[] = {"unknown", "scalar", "aggregate", "pointer"};
  return c >= 0 && c < 4 ? names[c] : "?";
}

static const char *treatment_name(int t)
{
  static const char *const names[] = {"unknown", "firstprivate", "map", "pointer"};
  return t >= 0 && t < 4 ? names[t] : "?";
}

static const char *use_name(int u)
{
  static const char *const names[] = {"use-unknown", "referenced", "unreferenced"};
  return u >= 0 && u < 3 ? names[u] : "?";
}

static void dump_extent(FILE *out, const char *what, omplens_directive_extent x)
{
  if (x.file == NULL)
    fprintf(out, "  %-8s -\n", what);
  else
    fprintf(out, "  %-8s %s:%u:%u-%u:%u\n", what, base(x.file), x.line, x.column,
            x.end_line, x.end_column);
}

static void dump_items(FILE *out, const omplens_directive *d)
{
  for (size_t i = 0; i < d->num_items; i++) {
    const omplens_map_item *it = &d->items[i];
    fprintf(out, "  item     %s %s%s%s%s%s %s var=%s at %u:%u %s\n",
            d->clauses[it->clause].name, omplens_map_type_name(it->map_type),
            it->modifiers & OMPLENS_MAPMOD_ALWAYS ? " always" : "",
            it->modifiers & OMPLENS_MAPMOD_CLOSE ? " close" : "",
            it->modifiers & OMPLENS_MAPMOD_PRESENT ? " present" : "",
            it->modifiers & OMPLENS_MAPMOD_TYPE_IMPLIED ? " (implied)" : "", it->text,
            it->var != NULL ? it->var : "-", it->line, it->column, use_name(it->use));
  }
  for (size_t i = 0; i < d->num_implicit; i++) {
    const omplens_implicit_map *im = &d->implicit[i];
    fprintf(out, "  implicit %s %s %s %s at %u:%u", im->var, category_name(im->category),
            treatment_name(im->treatment), omplens_map_type_name(im->map_type), im->line,
            im->column);
    if (im->covered_by != NULL)
      fprintf(out, " covered by %s at line %u", im->covered_by->name,
              im->covered_by->pragma.line);
    fputc('\n', out);
  }
  for (size_t i = 0; i < d->num_unreferenced; i++)
    fprintf(out, "  unused   %s\n", d->unreferenced[i]->text);
}

static void dump_directive(FILE *out, size_t index, const omplens_directive *d)
{
  fprintf(out, "directive %zu: %s [%s%s%s%s%s]\n", index, d->name,
          omplens_directive_kind_name(d->kind),
          d->flags & OMPLENS_DIRF_COMBINED ? ", combined" : "",
          d->flags & OMPLENS_DIRF_MACRO ? ", macro" : "",
          d->flags & OMPLENS_DIRF_TEXT_ONLY ? ", text-only" : "",
          d->flags & OMPLENS_DIRF_BODY_CALLS ? ", body-calls" : "");
  fprintf(out, "  text     %s\n", d->text);
  dump_extent(out, "pragma", d->pragma);
  dump_extent(out, "body", d->body);
  fprintf(out, "  function %s%s%s\n", d->function != NULL ? d->function : "-",
          d->macro != NULL ? " macro " : "", d->macro != NULL ? d->macro : "");
  for (size_t i = 0; i < d->num_clauses; i++)
    fprintf(out, "  clause   %s\n", d->clauses[i].text);
  dump_items(out, d);
}

static int dump_file(FILE *out, const char *path)
{
  omplens_directive_index *ix = NULL;
  int err = omplens_directive_index_create(NULL, &ix);
  const omplens_directive *const *dirs = NULL;
  size_t n = 0;
  if (err == 0)
    err = omplens_directive_list(ix, path, &dirs, &n);
  if (err != 0)
    fprintf(out, "error: %s\n", omplens_directives_strerror(err));
  for (size_t i = 0; i < n; i++)
    dump_directive(out, i, dirs[i]);
  omplens_directive_index_destroy(ix);
  return err;
}

/* ---- every kind, as the run time reports them ---- */

static void test_every_kind(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_directive *d =
      expect(ix, "kinds.c", "@enter", OMPLENS_RUNTIME_ENTER_DATA, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->kind, OMPLENS_DIRECTIVE_TARGET_ENTER_DATA);
  assert_null(d->body.file);
  d = expect(ix, "kinds.c", "@target", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->kind, OMPLENS_DIRECTIVE_TARGET);
  assert_string(d->name, "target");
  assert_int_equal(d->flags & OMPLENS_DIRF_COMBINED, 0);
  assert_string(d->function, "every_kind");
  assert_int_equal(d->body.line, line_of("kinds.c", "@target") + 1);
  d = expect(ix, "kinds.c", "@data", OMPLENS_RUNTIME_ENTER_DATA, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->kind, OMPLENS_DIRECTIVE_TARGET_DATA);
  assert_int_equal(d->body.end_line, line_of("kinds.c", "@data_end"));
  d = expect(ix, "kinds.c", "@update", OMPLENS_RUNTIME_UPDATE, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->kind, OMPLENS_DIRECTIVE_TARGET_UPDATE);
  d = expect(ix, "kinds.c", "@exit", OMPLENS_RUNTIME_EXIT_DATA, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->kind, OMPLENS_DIRECTIVE_TARGET_EXIT_DATA);
  d = expect(ix, "kinds.c", "@exit_delete", OMPLENS_RUNTIME_ANY, OMPLENS_MATCH_EXACT);
  assert_int_equal(item(d, "a[0:n]")->map_type, OMPLENS_MAP_DELETE);
}

/* The end of a target data region is reported as an exit at its last line. */
static void test_data_region_end(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_match m = find(ix, "kinds.c", line_of("kinds.c", "@data_end"),
                                   "every_kind", OMPLENS_RUNTIME_EXIT_DATA);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.directive->kind, OMPLENS_DIRECTIVE_TARGET_DATA);
  assert_string(m.rule, "closing line of the target data region");
  /* Inside the region, for a target: no target there, several in the
   * function, so no guess. */
  m = find(ix, "kinds.c", line_of("kinds.c", "@data_body"), "every_kind",
           OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_AMBIGUOUS);
  assert_null(m.directive);
  assert_int_equal(m.num_candidates, 3);
  m = find(ix, "kinds.c", line_of("kinds.c", "@data_body"), NULL,
           OMPLENS_RUNTIME_ENTER_DATA);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_int_equal(m.directive->kind, OMPLENS_DIRECTIVE_TARGET_DATA);
  assert_string(m.rule, "innermost enclosing region");
}

static void test_combined_forms(void **state)
{
  omplens_directive_index *ix = *state;
  static const struct {
    const char *marker, *name;
  } forms[] = {{"@combined", "target teams distribute parallel for"},
               {"@tpf", "target parallel for"},
               {"@tsimd", "target simd"},
               {"@tloop", "target teams loop"},
               {"@tteams", "target teams"},
               {"@tpar", "target parallel"}};
  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
    const omplens_directive *d = expect(ix, "kinds.c", forms[i].marker,
                                        OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
    assert_int_equal(d->kind, OMPLENS_DIRECTIVE_TARGET);
    assert_string(d->name, forms[i].name);
    assert_true(d->flags & OMPLENS_DIRF_COMBINED);
  }
  /* `target teams` over a separate `distribute parallel for`: the body
   * starts at the inner pragma. */
  const omplens_directive *d =
      expect(ix, "kinds.c", "@tteams", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->body.line, line_of("kinds.c", "@tteams") + 1);
  /* clang-19 -O0 puts its launch on the loop below the inner pragma. */
  omplens_directive_match m = find(ix, "kinds.c", line_of("kinds.c", "@tteams") + 2,
                                   "other_forms", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_ptr_equal(m.directive, d);
}

/* clang-19 maps a combined construct's launch to the loop's line. */
static void test_combined_loop_line(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_match m = find(ix, "kinds.c", line_of("kinds.c", "@combined_loop"),
                                   "every_kind", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_string(m.directive->name, "target teams distribute parallel for");
  assert_string(m.rule, "first line of the target construct's statement");
}

static void test_multiline_pragma(void **state)
{
  omplens_directive_index *ix = *state;
  uint32_t first = line_of("kinds.c", "@combined");
  const omplens_directive *d =
      expect(ix, "kinds.c", "@combined", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_string(d->text, "#pragma omp target teams distribute parallel for "
                         "map(always, to: a[0:n]) map(close, tofrom: c[0:n]) "
                         "nowait device(0)");
  assert_int_equal(d->pragma.line, first);
  assert_int_equal(d->pragma.end_line, first + 3);
  assert_int_equal(d->pragma.column, 1);
  /* Any line of the pragma finds it. */
  omplens_directive_match m = find(ix, "kinds.c", first + 2, NULL, OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_ptr_equal(m.directive, d);
  /* Items keep the line and column they are written at. */
  const omplens_map_item *c = item(d, "c[0:n]");
  assert_int_equal(c->line, first + 2);
  assert_int_equal(c->column, 24);
}

static void test_map_modifiers(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_directive *d =
      expect(ix, "kinds.c", "@combined", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  const omplens_map_item *a = item(d, "a[0:n]");
  assert_int_equal(a->clause_kind, OMPLENS_CLAUSE_MAP);
  assert_int_equal(a->map_type, OMPLENS_MAP_TO);
  assert_int_equal(a->modifiers, OMPLENS_MAPMOD_ALWAYS);
  assert_string(a->var, "a");
  const omplens_map_item *c = item(d, "c[0:n]");
  assert_int_equal(c->map_type, OMPLENS_MAP_TOFROM);
  assert_int_equal(c->modifiers, OMPLENS_MAPMOD_CLOSE);
  assert_non_null(clause(d, OMPLENS_CLAUSE_NOWAIT));
  assert_string(clause(d, OMPLENS_CLAUSE_DEVICE)->argument, "0");
  assert_null(clause(d, OMPLENS_CLAUSE_NOWAIT)->argument);

  d = expect(ix, "kinds.c", "@data", OMPLENS_RUNTIME_ENTER_DATA, OMPLENS_MATCH_EXACT);
  assert_int_equal(item(d, "a[0:n]")->modifiers, OMPLENS_MAPMOD_PRESENT);
  assert_int_equal(item(d, "b[0:n]")->map_type, OMPLENS_MAP_TOFROM);
  d = expect(ix, "kinds.c", "@enter", OMPLENS_RUNTIME_ENTER_DATA, OMPLENS_MATCH_EXACT);
  assert_int_equal(item(d, "b[0:n]")->map_type, OMPLENS_MAP_ALLOC);
  d = expect(ix, "kinds.c", "@exit", OMPLENS_RUNTIME_EXIT_DATA, OMPLENS_MATCH_EXACT);
  assert_int_equal(item(d, "a[0:n]")->map_type, OMPLENS_MAP_RELEASE);
  assert_int_equal(item(d, "b[0:n]")->map_type, OMPLENS_MAP_FROM);
  d = expect(ix, "kinds.c", "@implied", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_int_equal(item(d, "e[0:n]")->map_type, OMPLENS_MAP_TOFROM);
  assert_int_equal(item(d, "e[0:n]")->modifiers, OMPLENS_MAPMOD_TYPE_IMPLIED);
  d = expect(ix, "kinds.c", "@unused", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_string(item(d, "g->cells[0:g->n]")->var, "g");
}

static void test_update_motion(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_directive *d =
      expect(ix, "kinds.c", "@update", OMPLENS_RUNTIME_UPDATE, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->num_items, 2);
  const omplens_map_item *b = item(d, "b[0:n]");
  assert_int_equal(b->clause_kind, OMPLENS_CLAUSE_FROM);
  assert_int_equal(b->map_type, OMPLENS_MAP_FROM);
  const omplens_map_item *a = item(d, "a[0:n]");
  assert_int_equal(a->clause_kind, OMPLENS_CLAUSE_TO);
  assert_int_equal(a->map_type, OMPLENS_MAP_TO);
  assert_int_equal(a->modifiers, OMPLENS_MAPMOD_PRESENT);
  assert_int_equal(a->use, OMPLENS_USE_UNKNOWN);
  assert_string(clause(d, OMPLENS_CLAUSE_DEPEND)->text, "depend(inout: b[0])");
}

static void assert_implicit(const omplens_directive *d, const char *var, int category,
                            int treatment, int map_type)
{
  const omplens_implicit_map *im = implicit(d, var);
  if (im == NULL)
    fail_msg("%s is not an implicit map of %s", var, d->text);
  assert_int_equal(im->category, category);
  assert_int_equal(im->treatment, treatment);
  assert_int_equal(im->map_type, map_type);
}

static void test_implicit_maps(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_directive *d =
      expect(ix, "kinds.c", "@target", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_implicit(d, "s", OMPLENS_VAR_SCALAR, OMPLENS_IMPLICIT_FIRSTPRIVATE, OMPLENS_MAP_NONE);
  assert_null(implicit(d, "a")); /* mapped explicitly */
  assert_null(implicit(d, "i")); /* declared in the region */

  d = expect(ix, "kinds.c", "@combined", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_implicit(d, "local", OMPLENS_VAR_AGGREGATE, OMPLENS_IMPLICIT_MAP, OMPLENS_MAP_TOFROM);
  assert_implicit(d, "table", OMPLENS_VAR_AGGREGATE, OMPLENS_IMPLICIT_MAP, OMPLENS_MAP_TOFROM);
  assert_null(implicit(d, "coeffs")); /* declare target */
  assert_int_equal(implicit(d, "local")->line, line_of("kinds.c", "@combined_loop") + 1);

  d = expect(ix, "kinds.c", "@inner", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_implicit(d, "count", OMPLENS_VAR_SCALAR, OMPLENS_IMPLICIT_MAP, OMPLENS_MAP_TOFROM);
  assert_implicit(d, "b", OMPLENS_VAR_POINTER, OMPLENS_IMPLICIT_POINTER, OMPLENS_MAP_NONE);
  const omplens_implicit_map *b = implicit(d, "b");
  assert_non_null(b->covered_by);
  assert_int_equal(b->covered_by->kind, OMPLENS_DIRECTIVE_TARGET_DATA);

  d = expect(ix, "kinds.c", "@tloop", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_implicit(d, "sum", OMPLENS_VAR_SCALAR, OMPLENS_IMPLICIT_MAP, OMPLENS_MAP_TOFROM);
  d = expect(ix, "kinds.c", "@tpar", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->num_implicit, 0); /* firstprivate(sum), is_device_ptr(e) */
}

static void test_unreferenced(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_directive *d =
      expect(ix, "kinds.c", "@unused", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->num_unreferenced, 2);
  assert_string(d->unreferenced[0]->text, "x[0:n]");
  assert_string(d->unreferenced[1]->text, "g->cells[0:g->n]");
  assert_int_equal(item(d, "y[0:n]")->use, OMPLENS_USE_REFERENCED);
  d = expect(ix, "kinds.c", "@data", OMPLENS_RUNTIME_ENTER_DATA, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->num_unreferenced, 1);
  assert_string(d->unreferenced[0]->text, "c[0:n]");
  d = expect(ix, "kinds.c", "@target", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->num_unreferenced, 0);
}

/* ---- where directives hide ---- */

/* The directive in kernels.h, through header_user.c, as the runtime asks. */
static omplens_directive_query axpy_query(void)
{
  return (omplens_directive_query){.file = fixture("kernels.h"),
                                   .line = line_of("kernels.h", "@axpy"),
                                   .function = "axpy",
                                   .runtime_kind = OMPLENS_RUNTIME_TARGET,
                                   .unit = fixture("header_user.c")};
}

static void test_header(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_query q = axpy_query();
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_string(base(m.directive->pragma.file), "kernels.h");
  assert_string(m.directive->function, "axpy");
  assert_int_equal(m.flags, 0);
  assert_int_equal(item(m.directive, "x[0:n]")->use, OMPLENS_USE_REFERENCED);
  /* Without its unit the header is parsed alone, with the same answer. */
  omplens_directive_index *alone = new_index();
  m = find(alone, "kernels.h", q.line, "axpy", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_string(m.directive->name, "target teams distribute parallel for");
  omplens_directive_index_destroy(alone);
}

static void test_pragma_macro(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_directive *d = expect(ix, "macro.c", "@macro_scale",
                                      OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_true(d->flags & OMPLENS_DIRF_MACRO);
  assert_string(d->macro, "OFFLOAD_SCALE");
  assert_string(d->text, "#pragma omp target teams distribute parallel for "
                         "map(tofrom: p[0:n])");
  assert_int_equal(item(d, "p[0:n]")->use, OMPLENS_USE_REFERENCED);
  /* Inside a target data region the OpenMP parse is blind: rebuilt. */
  d = expect(ix, "macro.c", "@macro_nested", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_string(d->text, "#pragma omp target teams distribute parallel for "
                         "map(tofrom: q[0:n])");
  d = expect(ix, "macro.c", "@operator", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_true(d->flags & OMPLENS_DIRF_MACRO);
  assert_null(d->macro);
  assert_int_equal(d->body.line, line_of("macro.c", "@operator") + 1);
  d = expect(ix, "macro.c", "@macro_pull", OMPLENS_RUNTIME_UPDATE, OMPLENS_MATCH_EXACT);
  assert_string(d->macro, "PULL");
  assert_string(d->text, "#pragma omp target update from(v[0:n])");
  assert_string(d->function, "pull");
}

/* The OpenMP parse skips function bodies unless a `_Pragma` is written in
 * a file of the unit: one written in a header must still be found. */
static void test_pragma_macro_of_header(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_directive *d = expect(ix, "macro_user.c", "@hdr_pull",
                                      OMPLENS_RUNTIME_UPDATE, OMPLENS_MATCH_EXACT);
  assert_true(d->flags & OMPLENS_DIRF_MACRO);
  assert_false(d->flags & OMPLENS_DIRF_TEXT_INCOMPLETE);
  assert_string(d->macro, "OMP");
  assert_string(d->text, "#pragma omp target update from(v[0:n])");
  assert_string(d->function, "refresh");
  /* Two levels of macros: only the OpenMP parse of the body knows it. */
  d = expect(ix, "macro_user.c", "@hdr_push", OMPLENS_RUNTIME_UPDATE, OMPLENS_MATCH_EXACT);
  assert_true(d->flags & OMPLENS_DIRF_MACRO);
  assert_string(d->name, "target update");
}

static void test_cxx_template(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_match m = find(ix, "templ.cpp", line_of("templ.cpp", "@tmpl"),
                                   "scale<double>", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.flags, 0);
  assert_string(m.directive->function, "scale");
  assert_implicit(m.directive, "factor", OMPLENS_VAR_UNKNOWN, OMPLENS_IMPLICIT_UNKNOWN,
                  OMPLENS_MAP_NONE);
  assert_implicit(m.directive, "n", OMPLENS_VAR_SCALAR, OMPLENS_IMPLICIT_FIRSTPRIVATE,
                  OMPLENS_MAP_NONE);
  m = find(ix, "templ.cpp", line_of("templ.cpp", "@method"), "Field::refresh()",
           OMPLENS_RUNTIME_UPDATE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_string(m.directive->function, "refresh");
  assert_string(item(m.directive, "d[0:size]")->var, "d");
}

/* A member of a class template: the name has template arguments before the
 * member's own name, and must not outweigh the line. */
static void test_class_template_member(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_query q = {.file = fixture("templ.cpp"),
                               .line = line_of("templ.cpp", "@box_sum"),
                               .function = "Box<double>::sum",
                               .runtime_kind = OMPLENS_RUNTIME_TARGET, .pragma_line = 1};
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.flags, 0);
  assert_string(m.directive->function, "sum");
  q.line = line_of("templ.cpp", "@apply_call");
  q.function = "ns::Apply<ns::Op<double, int>>::operator()";
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.flags, 0);
  assert_string(m.directive->function, "operator()");
  /* Without a line the names choose, and they must match. */
  m = find(ix, "templ.cpp", 0, "Box<double>::sum", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_int_equal(m.directive->pragma.line, line_of("templ.cpp", "@box_sum"));
  m = find(ix, "templ.cpp", 0, "ns::Apply<ns::Op<double, int> >::operator()",
           OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_int_equal(m.directive->pragma.line, line_of("templ.cpp", "@apply_call"));
}

/* clang ends a line at "\n", "\r\n" and a lone "\r"; so must the index. */
static void test_line_breaks(void **state)
{
  (void)state;
  static const char text[] = "void f(double *a, int n)\r\n"   /* 1 */
                             "{\r\n"                            /* 2 */
                             "  int k = 0; /* a stray CR: */\r"  /* 3 */
                             "  k++;\r\n"                       /* 4 */
                             "#pragma omp target update to(a[0:n])\r\n" /* 5 */
                             "  k++;\r"                          /* 6 */
                             "#pragma omp target enter data map(to: a[0:n])\r" /* 7 */
                             "}\r\n";
  char dir[] = "/tmp/omplens-eol-XXXXXX", path[4200];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/eol.c", dir);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fwrite(text, 1, sizeof(text) - 1, f);
  fclose(f);
  omplens_directive_index *ix = new_index();
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find(ix, path, 5, 0, "f", OMPLENS_RUNTIME_UPDATE, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.directive->pragma.line, 5);
  assert_string(m.directive->text, "#pragma omp target update to(a[0:n])");
  /* A pragma ended by a lone CR stops there. */
  assert_int_equal(omplens_directive_find(ix, path, 7, 0, "f", OMPLENS_RUNTIME_ENTER_DATA, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.directive->pragma.end_line, 7);
  assert_string(m.directive->text, "#pragma omp target enter data map(to: a[0:n])");
  omplens_directive_index_destroy(ix);
  unlink(path);
  rmdir(dir);
}

/* Under an #if the parse's macros leave out: found by the runtime's line
 * from its text, never a reason to call the file stale. */
static void test_inactive_branch(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_query q = {.file = fixture("ifdef.c"),
                               .line = line_of("ifdef.c", "@ifdef_kernel"),
                               .function = "step",
                               .runtime_kind = OMPLENS_RUNTIME_TARGET, .pragma_line = 1};
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.flags, OMPLENS_MATCHF_GUESSED_FLAGS);
  const omplens_directive *d = m.directive;
  assert_int_equal(d->flags & (OMPLENS_DIRF_INACTIVE | OMPLENS_DIRF_TEXT_ONLY),
                   OMPLENS_DIRF_INACTIVE | OMPLENS_DIRF_TEXT_ONLY);
  assert_string(d->name, "target teams distribute parallel for");
  assert_int_equal(d->body.line, line_of("ifdef.c", "@ifdef_loop"));
  assert_int_equal(item(d, "u[0:n]")->use, OMPLENS_USE_REFERENCED);
  /* A line of its loop from DWARF finds it too; a guess by name does not. */
  m = find(ix, "ifdef.c", line_of("ifdef.c", "@ifdef_loop"), "step", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  m = find(ix, "ifdef.c", 0, "step", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NONE);
  /* The list is the program the parse saw. */
  const omplens_directive *const *dirs = NULL;
  size_t n = 9;
  assert_int_equal(omplens_directive_list(ix, fixture("ifdef.c"), &dirs, &n), 0);
  assert_int_equal(n, 0);
}

/* With the build's flags the branch is in; `#if 0` stays out for all. */
static void test_inactive_with_flags(void **state)
{
  (void)state;
  char dir[] = "/tmp/omplens-ifdef-XXXXXX", db[4200];
  assert_non_null(mkdtemp(dir));
  snprintf(db, sizeof(db), "%s/compile_commands.json", dir);
  write_compdb(db,
               "[{\"directory\": \"%s\", \"file\": \"ifdef.c\",\n"
               "  \"command\": \"clang-19 -fopenmp -DUSE_OFFLOAD -c ifdef.c\"}]\n",
               fixture_dir);
  omplens_directive_options o = {.compile_commands = db};
  omplens_directive_index *ix = NULL;
  assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
  omplens_directive_query q = {.file = fixture("ifdef.c"),
                               .line = line_of("ifdef.c", "@ifdef_kernel"),
                               .runtime_kind = OMPLENS_RUNTIME_TARGET, .pragma_line = 1};
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.flags, 0);
  assert_int_equal(m.directive->flags & OMPLENS_DIRF_INACTIVE, 0);
  q.line = line_of("ifdef.c", "@if_zero");
  q.runtime_kind = OMPLENS_RUNTIME_UPDATE;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.flags, 0); /* the build's own flags: nothing guessed */
  assert_true(m.directive->flags & OMPLENS_DIRF_INACTIVE);
  const omplens_directive *const *dirs = NULL;
  size_t n = 0;
  assert_int_equal(omplens_directive_list(ix, fixture("ifdef.c"), &dirs, &n), 0);
  assert_int_equal(n, 1);
  omplens_directive_index_destroy(ix);
  unlink(db);
  rmdir(dir);
}

static void test_partial(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_match m =
      find(ix, "partial.c", line_of("partial.c", "@partial_inner"), "broken",
           OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_true(m.flags & OMPLENS_MATCHF_PARTIAL);
  assert_non_null(m.diagnostic);
  assert_non_null(strstr(m.diagnostic, "no_such_header.h"));
  assert_string(m.directive->name, "target teams distribute parallel for");
  assert_true(m.directive->flags & OMPLENS_DIRF_TEXT_ONLY);
  assert_int_equal(m.directive->body.line, line_of("partial.c", "@partial_inner") + 1);
  m = find(ix, "partial.c", line_of("partial.c", "@partial_data"), NULL,
           OMPLENS_RUNTIME_ENTER_DATA);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.directive->kind, OMPLENS_DIRECTIVE_TARGET_DATA);
  assert_int_equal(item(m.directive, "v->data[0:n]")->use, OMPLENS_USE_REFERENCED);
}

/* ---- headers read through the unit that includes them ---- */

/* A header that is not self-contained is read through a source of the
 * compile database that includes it (here through another header), never
 * alone: no error, no PARTIAL. */
static void test_header_through_includer(void **state)
{
  (void)state;
  char dir[] = "/tmp/omplens-includer-XXXXXX", db[4200];
  assert_non_null(mkdtemp(dir));
  snprintf(db, sizeof(db), "%s/compile_commands.json", dir);
  write_compdb(db,
               "[{\"directory\": \"%s\", \"file\": \"kinds.c\",\n"
               "  \"command\": \"clang-19 -fopenmp -c kinds.c\"},\n"
               " {\"directory\": \"%s/unit_of_header\", \"file\": \"main.cpp\",\n"
               "  \"command\": \"clang++-19 -std=c++17 -fopenmp -c main.cpp\"}]\n",
               fixture_dir, fixture_dir);
  omplens_directive_options o = {.compile_commands = db};
  omplens_directive_index *ix = NULL;
  assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
  omplens_directive_match m = find(ix, "unit_of_header/solver.hpp",
                                   line_of("unit_of_header/solver.hpp", "@solver_kernel"),
                                   "operator()", OMPLENS_RUNTIME_TARGET);
  if (m.flags != 0)
    fail_msg("flags 0x%x (%s)", m.flags, m.diagnostic != NULL ? m.diagnostic : "-");
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_string(m.directive->function, "operator()");
  assert_int_equal(item(m.directive, "v.data[0:v.n]")->use, OMPLENS_USE_REFERENCED);
  omplens_directive_index_destroy(ix);
  unlink(db);
  rmdir(dir);
}

static unsigned solver_flags(omplens_directive_index *ix, const char *unit)
{
  omplens_directive_query q = {
      .file = fixture("unit_of_header/solver.hpp"),
      .line = line_of("unit_of_header/solver.hpp", "@solver_kernel"),
      .function = "operator()", .runtime_kind = OMPLENS_RUNTIME_TARGET,
      .unit = unit != NULL ? fixture(unit) : NULL};
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  return m.flags;
}

/* A header's parse status does not depend on the order of lookups: an
 * error of the unit's own source is that source's, and a header read
 * alone is read again through the first unit that includes it. */
static void test_header_status_any_order(void **state)
{
  (void)state;
  omplens_directive_index *ix = new_index();
  omplens_directive_match m = find(ix, "unit_of_header/other.cpp",
                                   line_of("unit_of_header/other.cpp", "@other_error"),
                                   NULL, OMPLENS_RUNTIME_ANY);
  assert_true(m.flags & OMPLENS_MATCHF_PARTIAL);
  assert_non_null(strstr(m.diagnostic, "undeclared_helper"));
  assert_int_equal(solver_flags(ix, NULL), 0); /* read through other.cpp */
  omplens_directive_index_destroy(ix);

  ix = new_index();
  assert_int_equal(solver_flags(ix, "unit_of_header/main.cpp"), 0);
  assert_int_equal(solver_flags(ix, "unit_of_header/other.cpp"), 0);
  omplens_directive_index_destroy(ix);

  ix = new_index(); /* alone first: it does not parse, and that is said */
  assert_true(solver_flags(ix, NULL) & OMPLENS_MATCHF_PARTIAL);
  assert_int_equal(solver_flags(ix, "unit_of_header/main.cpp"), 0);
  assert_int_equal(solver_flags(ix, NULL), 0);
  omplens_directive_index_destroy(ix);
}

/* ---- a .c file that another #includes ---- */

static unsigned part_flags(omplens_directive_index *ix, const char *unit)
{
  omplens_directive_query q = {
      .file = fixture("included_c/part.c"),
      .line = line_of("included_c/part.c", "@part_kernel"),
      .function = "relax", .runtime_kind = OMPLENS_RUNTIME_TARGET,
      .unit = unit != NULL ? fixture(unit) : NULL};
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  return m.flags;
}

/* A file the build does not compile is read through a unit that includes
 * it, whatever its extension: DWARF's compile unit, or the source of the
 * compile database whose #includes reach it (listed twice, as bear lists
 * the driver's -cc1 job too). Alone, part.c does not parse. */
static void test_included_source(void **state)
{
  (void)state;
  omplens_directive_index *ix = new_index();
  assert_int_equal(part_flags(ix, "included_c/unit.c"), 0);
  omplens_directive_index_destroy(ix);

  ix = new_index(); /* nothing says: alone by its extension, then through the unit */
  assert_true(part_flags(ix, NULL) & OMPLENS_MATCHF_PARTIAL);
  assert_int_equal(part_flags(ix, "included_c/unit.c"), 0);
  assert_int_equal(part_flags(ix, NULL), 0);
  omplens_directive_index_destroy(ix);

  char dir[] = "/tmp/omplens-included-XXXXXX", db[4200];
  assert_non_null(mkdtemp(dir));
  snprintf(db, sizeof(db), "%s/compile_commands.json", dir);
  write_compdb(db,
               "[{\"directory\": \"%s/included_c\", \"file\": \"unit.c\",\n"
               "  \"command\": \"clang-19 -fopenmp -c unit.c\"},\n"
               " {\"directory\": \"%s/included_c\", \"file\": \"unit.c\",\n"
               "  \"command\": \"clang-19 -cc1 -fopenmp unit.c\"}]\n",
               fixture_dir, fixture_dir);
  omplens_directive_options o = {.compile_commands = db};
  assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
  const omplens_directive *const *dirs = NULL;
  size_t n = 0;
  assert_int_equal(omplens_directive_list(ix, fixture("included_c/part.c"), &dirs, &n), 0);
  assert_int_equal(n, 1);
  assert_int_equal(part_flags(ix, NULL), 0);
  omplens_directive_index_destroy(ix);
  unlink(db);
  rmdir(dir);
}

/* ---- calls of the device memory API ---- */

static omplens_api_call_match find_call(omplens_directive_index *ix, const char *marker,
                                        uint32_t delta, uint32_t column)
{
  omplens_directive_query q = {.file = fixture("device_api.c"),
                               .line = line_of("device_api.c", marker) + delta,
                               .column = column};
  omplens_api_call_match m;
  int err = omplens_directive_find_api_call(ix, &q, &m);
  if (err != 0)
    fail_msg("find_api_call %s: %s", marker, omplens_directives_strerror(err));
  return m;
}

static const omplens_api_call *expect_call(omplens_directive_index *ix, const char *marker,
                                           const char *routine)
{
  omplens_api_call_match m = find_call(ix, marker, 0, 0);
  if (m.confidence != OMPLENS_MATCH_EXACT || m.call == NULL)
    fail_msg("%s: confidence %s (%s)", marker, omplens_directive_confidence_name(m.confidence),
             m.rule);
  assert_int_equal(m.flags, 0);
  assert_string(m.call->routine, routine);
  assert_string(m.call->function, "steps");
  assert_string(base(m.call->call.file), "device_api.c");
  return m.call;
}

static void assert_argument(const omplens_api_argument *a, const char *text, const char *var)
{
  assert_string(a->text, text);
  assert_string(a->var, var);
}

static void test_api_calls(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_api_call *c = expect_call(ix, "@api_assign", "omp_target_alloc");
  assert_string(c->text, "d_table = omp_target_alloc(n * sizeof(double), dev);");
  assert_argument(&c->result, "d_table", "d_table");
  assert_int_equal(c->num_args, 2);
  assert_argument(&c->args[1], "dev", "dev");
  c = expect_call(ix, "@api_init", "omp_target_alloc");
  assert_argument(&c->result, "d_tmp", "d_tmp");
  c = expect_call(ix, "@api_h2d", "omp_target_memcpy");
  assert_int_equal(c->num_args, 7);
  assert_argument(&c->args[0], "d_table", "d_table");
  assert_argument(&c->args[1], "h", "h");
  assert_null(c->result.text);
  /* A call over two lines: found from either, its text joined. */
  c = expect_call(ix, "@api_d2h", "omp_target_memcpy");
  assert_int_equal(c->call.end_line, c->call.line + 1);
  assert_string(c->text, "omp_target_memcpy(out, d_table + 1, (n - 1) * sizeof(double), "
                         "0, 0, host, dev);");
  assert_argument(&c->args[1], "d_table + 1", "d_table");
  assert_ptr_equal(find_call(ix, "@api_d2h", 1, 0).call, c);
  c = expect_call(ix, "@api_member", "omp_target_memcpy");
  assert_argument(&c->args[0], "f->buf", "f");
  c = expect_call(ix, "@api_associate", "omp_target_associate_ptr");
  assert_argument(&c->args[0], "h", "h");
  assert_argument(&c->args[1], "d_tmp", "d_tmp");
  expect_call(ix, "@api_free", "omp_target_free");
  /* Two calls on one line: the column picks one, else ambiguous. */
  omplens_api_call_match m = find_call(ix, "@api_two", 0, 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_AMBIGUOUS);
  assert_null(m.call);
  m = find_call(ix, "@api_two", 0, 40);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_string(m.call->routine, "omp_target_free");
  assert_argument(&m.call->args[0], "d_global", "d_global");
  m = find_call(ix, "@api_two", 0, 14);
  assert_string(m.call->routine, "omp_target_alloc");
  assert_argument(&m.call->result, "d_global", "d_global");
  m = find_call(ix, "@api_none", 0, 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NONE);
  assert_null(m.call);
  /* An edited file: the call is still named, but not exactly. */
  omplens_directive_query q = {.file = fixture("device_api.c"),
                               .line = line_of("device_api.c", "@api_free"),
                               .md5 = (const uint8_t *)"0123456789abcdef"};
  assert_int_equal(omplens_directive_find_api_call(ix, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_true(m.flags & OMPLENS_MATCHF_STALE);
  assert_non_null(m.call);
  assert_int_equal(omplens_directive_find_api_call(NULL, &q, &m), OMPLENS_DIRECTIVES_EINVAL);
  assert_null(m.call);
}

/* ---- failures and doubts ---- */

static void test_missing_file(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_match m;
  int err = omplens_directive_find(ix, fixture("no_such_file.c"), 10, 0, NULL,
                                   OMPLENS_RUNTIME_TARGET, &m);
  assert_int_equal(err, OMPLENS_DIRECTIVES_ENOENT);
  assert_non_null(strstr(omplens_directives_strerror(err), "not found"));
  assert_int_equal(m.confidence, OMPLENS_MATCH_NONE);
  assert_null(m.directive);
  /* Asked again (names are resolved once, then remembered): the same. */
  err = omplens_directive_find(ix, fixture("no_such_file.c"), 10, 0, NULL,
                               OMPLENS_RUNTIME_TARGET, &m);
  assert_int_equal(err, OMPLENS_DIRECTIVES_ENOENT);
  /* A relative name, as DWARF keeps it, resolves against comp_dir. */
  omplens_directive_options o = {.comp_dir = fixture_dir};
  omplens_directive_index *rel = NULL;
  assert_int_equal(omplens_directive_index_create(&o, &rel), 0);
  for (int again = 0; again < 2; again++) {
    err = omplens_directive_find(rel, "kinds.c", line_of("kinds.c", "@target"), 0, NULL,
                                 OMPLENS_RUNTIME_TARGET, &m);
    assert_int_equal(err, 0);
    assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
    err = omplens_directive_find(rel, "no_such_file.c", 10, 0, NULL, OMPLENS_RUNTIME_TARGET, &m);
    assert_int_equal(err, OMPLENS_DIRECTIVES_ENOENT);
  }
  omplens_directive_index_destroy(rel);
}

static char *copy_with_lines(const char *name, const char *prefix, const char *dir)
{
  static char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *in = fopen(fixture(name), "r"), *out = fopen(path, "w");
  assert_non_null(in);
  assert_non_null(out);
  fputs(prefix, out);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
    fwrite(buf, 1, n, out);
  fclose(in);
  fclose(out);
  return path;
}

static void test_stale_stamps(void **state)
{
  omplens_directive_index *ix = *state;
  uint32_t line = line_of("kinds.c", "@target");
  struct stat st;
  assert_int_equal(stat(fixture("kinds.c"), &st), 0);
  /* DWARF's stamp differs: even the pragma line is only a guess. */
  omplens_directive_query q = {.file = fixture("kinds.c"), .line = line,
                               .runtime_kind = OMPLENS_RUNTIME_TARGET,
                               .mtime = (int64_t)st.st_mtime - 100,
                               .size = (int64_t)st.st_size};
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_true(m.flags & OMPLENS_MATCHF_STALE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  q.mtime = (int64_t)st.st_mtime;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.flags, 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
}

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

/* clang records DW_LNCT_MD5, not mtime/size. */
static void test_stale_md5(void **state)
{
  omplens_directive_index *ix = *state;
  uint8_t md5[16];
  md5_of(fixture("kinds.c"), md5);
  omplens_directive_query q = {.file = fixture("kinds.c"),
                               .line = line_of("kinds.c", "@update"),
                               .runtime_kind = OMPLENS_RUNTIME_UPDATE, .md5 = md5};
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.flags, 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  /* A trusted file: a line in no directive is optimized code. */
  q.line = line_of("kinds.c", "@nothing");
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.flags, OMPLENS_MATCHF_OFF_DIRECTIVE);
  md5[0] ^= 1;
  q.line = line_of("kinds.c", "@update");
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_true(m.flags & OMPLENS_MATCHF_STALE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
}

/* clang -O2 attributes calls to unrelated lines of the function. */
static void test_off_directive(void **state)
{
  omplens_directive_index *ix = *state;
  uint32_t line = line_of("kinds.c", "@decl");
  omplens_directive_match m = find(ix, "kinds.c", line, "every_kind", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.flags, OMPLENS_MATCHF_OFF_DIRECTIVE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_AMBIGUOUS);
  assert_int_equal(m.num_candidates, 3);
  m = find(ix, "kinds.c", line, "every_kind", OMPLENS_RUNTIME_UPDATE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_int_equal(m.directive->kind, OMPLENS_DIRECTIVE_TARGET_UPDATE);
  /* A line of code from DWARF proves nothing about the file, with or
   * without a function. */
  m = find(ix, "kinds.c", line, NULL, OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.flags, OMPLENS_MATCHF_OFF_DIRECTIVE);
}

/* Without a stamp, only the lines can tell the file changed: past the end,
 * or the runtime's pragma line with no pragma on it. */
static void test_stale_lines(void **state)
{
  omplens_directive_index *ix = *state;
  uint32_t nothing = line_of("kinds.c", "@nothing");
  omplens_directive_match m = find(ix, "kinds.c", nothing, "unused_map", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.flags, OMPLENS_MATCHF_OFF_DIRECTIVE); /* a DWARF line */
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_int_equal(m.directive->pragma.line, line_of("kinds.c", "@unused"));
  omplens_directive_query q = {.file = fixture("kinds.c"), .line = nothing,
                               .function = "unused_map",
                               .runtime_kind = OMPLENS_RUNTIME_TARGET, .pragma_line = 1};
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.flags, OMPLENS_MATCHF_STALE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  q.line = line_of("kinds.c", "@unused"); /* the pragma is there */
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.flags, 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  m = find(ix, "kinds.c", 100000, NULL, OMPLENS_RUNTIME_UPDATE);
  assert_true(m.flags & OMPLENS_MATCHF_STALE);
}

/* The source edited after the build. */
static void test_stale_edited(void **state)
{
  omplens_directive_index *ix = *state;
  uint32_t line = line_of("kinds.c", "@target");
  uint8_t built[16];
  md5_of(fixture("kinds.c"), built);
  char dir[] = "/tmp/omplens-directives-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char prefix[512] = "/* a licence header added after the build */\n";
  for (int i = 0; i < 40; i++)
    strcat(prefix, "/**/\n");
  char *edited = copy_with_lines("kinds.c", prefix, dir);
  omplens_directive_match m;
  /* The runtime's pragma line now holds no pragma: stale, and no guess. */
  omplens_directive_query q = {.file = edited, .line = line, .function = "every_kind",
                               .runtime_kind = OMPLENS_RUNTIME_TARGET, .pragma_line = 1};
  assert_int_equal(omplens_directive_find_query(ix, &q, &m), 0);
  assert_int_equal(m.flags, OMPLENS_MATCHF_STALE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_AMBIGUOUS);
  assert_int_equal(m.num_candidates, 3);
  /* Three lines only: the pragma line still tells the edit; a line of code
   * from DWARF does not, and then only the stamp does. */
  edited = copy_with_lines("kinds.c", "/* 1 */\n/* 2 */\n/* 3 */\n", dir);
  omplens_directive_index *fresh = new_index();
  q.file = edited;
  assert_int_equal(omplens_directive_find_query(fresh, &q, &m), 0);
  assert_int_equal(m.flags, OMPLENS_MATCHF_STALE);
  q.pragma_line = 0;
  assert_int_equal(omplens_directive_find_query(fresh, &q, &m), 0);
  assert_int_equal(m.flags, OMPLENS_MATCHF_OFF_DIRECTIVE);
  q.md5 = built;
  assert_int_equal(omplens_directive_find_query(fresh, &q, &m), 0);
  assert_int_equal(m.flags, OMPLENS_MATCHF_STALE);
  omplens_directive_index_destroy(fresh);
  unlink(edited);
  rmdir(dir);
}

static void test_line_zero(void **state)
{
  omplens_directive_index *ix = *state;
  omplens_directive_match m = find(ix, "kinds.c", 0, "unused_map", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_int_equal(m.flags, OMPLENS_MATCHF_NO_LINE);
  assert_int_equal(m.directive->pragma.line, line_of("kinds.c", "@unused"));
  m = find(ix, "kinds.c", 0, "every_kind", OMPLENS_RUNTIME_UPDATE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_int_equal(m.directive->kind, OMPLENS_DIRECTIVE_TARGET_UPDATE);
  m = find(ix, "kinds.c", 0, "every_kind", OMPLENS_RUNTIME_EXIT_DATA);
  assert_int_equal(m.confidence, OMPLENS_MATCH_AMBIGUOUS);
  assert_null(m.directive);
  assert_int_equal(m.num_candidates, 3); /* two exit data, one target data */
  for (size_t i = 0; i < m.num_candidates; i++)
    assert_string(m.candidates[i]->function, "every_kind");
  m = find(ix, "kinds.c", 0, "no_such_function", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NONE);
}

static void test_mismatches(void **state)
{
  omplens_directive_index *ix = *state;
  uint32_t line = line_of("kinds.c", "@target");
  /* Names never outweigh the line: the flag says so, the match stands. */
  omplens_directive_match m = find(ix, "kinds.c", line, "other_forms", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal(m.flags, OMPLENS_MATCHF_FUNCTION_MISMATCH);
  m = find(ix, "kinds.c", line, "__omp_offloading_10302_every_kind_l27", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT); /* says nothing */
  m = find(ix, "kinds.c", line, NULL, OMPLENS_RUNTIME_UPDATE);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NEAREST);
  assert_true(m.flags & OMPLENS_MATCHF_KIND_MISMATCH);
  assert_int_equal(m.directive->kind, OMPLENS_DIRECTIVE_TARGET);
}

/* ---- compile_commands.json ---- */

static void count_app(omplens_directive_index *ix, size_t want, bool partial)
{
  const omplens_directive *const *dirs = NULL;
  size_t n = 0;
  assert_int_equal(omplens_directive_list(ix, fixture("compdb/app.c"), &dirs, &n), 0);
  assert_int_equal(n, want);
  omplens_directive_match m = find(ix, "compdb/app.c", line_of("compdb/app.c", "@app_kernel"),
                                   "app", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_int_equal((m.flags & OMPLENS_MATCHF_PARTIAL) != 0, partial);
}

static void test_compile_commands(void **state)
{
  char dir[] = "/tmp/omplens-compdb-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char db[4200];
  snprintf(db, sizeof(db), "%s/compile_commands.json", dir);
  write_compdb(db,
               "[{\"directory\": \"%s/compdb\", \"file\": \"app.c\",\n"
               "  \"command\": \"clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu "
               "-I include '-DUSE_PULL' -MD -MF app.d -c app.c -o app.o\"}]\n",
               fixture_dir);
  omplens_directive_options o = {.compile_commands = dir}; /* the directory */
  omplens_directive_index *ix = NULL;
  assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
  count_app(ix, 2, false);
  omplens_directive_index_destroy(ix);
  /* The same with "arguments", and the file named itself. */
  write_compdb(db,
               "[{\"directory\": \"%s\", \"file\": \"compdb/app.c\",\n"
               "  \"arguments\": [\"cc\", \"-Icompdb/include\", \"-D\", \"USE_PULL\", "
               "\"-c\", \"compdb/app.c\"]}]\n",
               fixture_dir);
  o.compile_commands = db;
  assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
  count_app(ix, 2, false);
  omplens_directive_index_destroy(ix);
  /* Without it: config.h is missing, USE_PULL undefined. */
  ix = new_index();
  count_app(ix, 1, true);
  omplens_directive_index_destroy(ix);
  /* A broken database fails at create. */
  write_compdb(db, "{ not an array");
  assert_int_equal(omplens_directive_index_create(&o, &ix), OMPLENS_DIRECTIVES_ECOMPDB);
  assert_null(ix);
  unlink(db);
  rmdir(dir);
}

/* A .c file that its command compiles as C++ (clang++, -x c++, -std=c++NN)
 * is parsed as C++: -x c with -std=c++11 is a pair clang refuses. */
static void test_language_from_command(void **state)
{
  (void)state;
  static const char *const commands[] = {
      "\"command\": \"clang++-19 -std=c++11 -fopenmp -c cxx.c\"",
      "\"command\": \"/usr/bin/clang++ -fopenmp -c cxx.c\"",
      "\"arguments\": [\"clang-19\", \"-x\", \"c++\", \"-fopenmp\", \"-c\", \"cxx.c\"]",
      "\"arguments\": [\"cc\", \"-std=gnu++17\", \"-c\", \"cxx.c\"]",
      /* how clang++ records itself in DW_AT_producer */
      "\"command\": \"/usr/lib/llvm-19/bin/clang --driver-mode=g++ -fopenmp -c cxx.c\"",
  };
  char dir[] = "/tmp/omplens-lang-XXXXXX", db[4200];
  assert_non_null(mkdtemp(dir));
  snprintf(db, sizeof(db), "%s/compile_commands.json", dir);
  uint32_t line = line_of("compdb/cxx.c", "@cxx_kernel");
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
    write_compdb(db, "[{\"directory\": \"%s/compdb\", \"file\": \"cxx.c\", %s}]\n",
                 fixture_dir, commands[i]);
    omplens_directive_options o = {.compile_commands = db};
    omplens_directive_index *ix = NULL;
    assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
    omplens_directive_match m = find(ix, "compdb/cxx.c", line, "cxx_kernel",
                                     OMPLENS_RUNTIME_TARGET);
    if (m.flags != 0)
      fail_msg("%s: flags 0x%x (%s)", commands[i], m.flags,
               m.diagnostic != NULL ? m.diagnostic : "no diagnostic");
    assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
    omplens_directive_index_destroy(ix);
  }
  /* Without the command it is C, with errors: and that is said. */
  omplens_directive_index *ix = new_index();
  omplens_directive_match m = find(ix, "compdb/cxx.c", line, "cxx_kernel",
                                   OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.flags, OMPLENS_MATCHF_PARTIAL | OMPLENS_MATCHF_GUESSED_FLAGS);
  omplens_directive_index_destroy(ix);
  unlink(db);
  rmdir(dir);
}

/* Warning flags of the command decide what libclang accepts: one that
 * turns off an error-by-default warning is kept. */
static void test_warning_flags_kept(void **state)
{
  (void)state;
  char dir[] = "/tmp/omplens-warn-XXXXXX", db[4200];
  assert_non_null(mkdtemp(dir));
  snprintf(db, sizeof(db), "%s/compile_commands.json", dir);
  write_compdb(db,
               "[{\"directory\": \"%s/compdb\", \"file\": \"lenient.c\",\n"
               "  \"command\": \"clang-19 -fopenmp -Wno-implicit-function-declaration "
               "-c lenient.c\"}]\n",
               fixture_dir);
  omplens_directive_options o = {.compile_commands = db};
  omplens_directive_index *ix = NULL;
  assert_int_equal(omplens_directive_index_create(&o, &ix), 0);
  uint32_t line = line_of("compdb/lenient.c", "@lenient_kernel");
  omplens_directive_match m = find(ix, "compdb/lenient.c", line, "lenient_kernel",
                                   OMPLENS_RUNTIME_TARGET);
  if (m.flags != 0)
    fail_msg("flags 0x%x (%s)", m.flags, m.diagnostic != NULL ? m.diagnostic : "no diagnostic");
  omplens_directive_index_destroy(ix);
  unlink(db);
  rmdir(dir);
}

/* ---- the API's edges ---- */

static void test_null_and_names(void **state)
{
  omplens_directive_match m;
  memset(&m, 0xff, sizeof(m));
  assert_int_equal(omplens_directive_find(NULL, "x.c", 1, 0, NULL, 0, &m),
                   OMPLENS_DIRECTIVES_EINVAL);
  assert_int_equal(m.confidence, OMPLENS_MATCH_NONE);
  assert_null(m.directive);
  assert_int_equal(m.num_candidates, 0);
  assert_int_equal(omplens_directive_find(*state, NULL, 1, 0, NULL, 0, &m),
                   OMPLENS_DIRECTIVES_EINVAL);
  assert_int_equal(omplens_directive_find(*state, "x.c", 1, 0, NULL, 0, NULL),
                   OMPLENS_DIRECTIVES_EINVAL);
  const omplens_directive *const *dirs = (void *)1;
  size_t n = 7;
  assert_int_equal(omplens_directive_list(NULL, "x.c", &dirs, &n), OMPLENS_DIRECTIVES_EINVAL);
  assert_null(dirs);
  assert_int_equal(n, 0);
  assert_int_equal(omplens_directive_index_create(NULL, NULL), OMPLENS_DIRECTIVES_EINVAL);
  omplens_directive_index_destroy(NULL);
  assert_string(omplens_directives_strerror(-999), "unknown directive index error");
  assert_string(omplens_directive_kind_name(OMPLENS_DIRECTIVE_TARGET_EXIT_DATA),
                "target exit data");
  assert_string(omplens_directive_confidence_name(OMPLENS_MATCH_AMBIGUOUS), "ambiguous");
  assert_string(omplens_map_type_name(OMPLENS_MAP_RELEASE), "release");
  assert_string(omplens_map_type_name(99), "unknown");
}

/* Each file is read once: the same directive comes back. */
static void test_cached(void **state)
{
  omplens_directive_index *ix = *state;
  const omplens_directive *a =
      expect(ix, "kinds.c", "@update", OMPLENS_RUNTIME_UPDATE, OMPLENS_MATCH_EXACT);
  const omplens_directive *b =
      expect(ix, "kinds.c", "@update", OMPLENS_RUNTIME_ANY, OMPLENS_MATCH_EXACT);
  assert_ptr_equal(a, b);
}

static void test_golden(void **state)
{
  char *got = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&got, &len);
  assert_non_null(out);
  assert_int_equal(dump_file(out, fixture("kinds.c")), 0);
  fclose(out);
  const char *golden = fixture("kinds.expected");
  if (getenv("OMPLENS_UPDATE_GOLDEN") != NULL) {
    FILE *g = fopen(golden, "w");
    assert_non_null(g);
    fputs(got, g);
    fclose(g);
  }
  FILE *g = fopen(golden, "r");
  assert_non_null(g);
  char *want = calloc(1, len + 2);
  size_t wlen = fread(want, 1, len + 1, g);
  fclose(g);
  if (wlen != len || memcmp(want, got, len) != 0)
    fail_msg("dump of kinds.c differs from kinds.expected; got:\n%s", got);
  free(want);
  free(got);
}

/* ---- hostile input (the textual scan must survive anything) ---- */

static void write_file(const char *path, const char *text, size_t len)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fwrite(text, 1, len, f);
  fclose(f);
}

/* Writes text as a fresh source and asks everything of it: no crash, no
 * error but the ones a bad file deserves. */
static void probe(const char *dir, const char *text, size_t len)
{
  char path[4200];
  snprintf(path, sizeof(path), "%s/h.c", dir);
  write_file(path, text, len);
  omplens_directive_index *ix = new_index(); /* one per version of h.c */
  const omplens_directive *const *dirs = NULL;
  size_t n = 0;
  assert_int_equal(omplens_directive_list(ix, path, &dirs, &n), 0);
  omplens_directive_match m;
  for (uint32_t line = 0; line < 12; line++)
    assert_int_equal(omplens_directive_find(ix, path, line, 0, "f", (int)(line % 5), &m), 0);
  omplens_directive_index_destroy(ix);
  unlink(path);
}

static void probe_repeated(const char *dir, const char *unit, size_t times)
{
  size_t n = strlen(unit);
  char *s = malloc(n * times + 1);
  assert_non_null(s);
  for (size_t i = 0; i < times; i++)
    memcpy(s + i * n, unit, n);
  probe(dir, s, n * times);
  free(s);
}

static void probe_noise(const char *dir)
{
  static const char alphabet[] = "#pragmaomptargetmap(){}[]:;,\\\n\"'/* _Pragma";
  unsigned seed = 12345;
  char noise[4096];
  for (size_t i = 0; i < sizeof(noise); i++) {
    seed = seed * 1103515245u + 12345u;
    noise[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
  }
  probe(dir, noise, sizeof(noise));
}

static void test_hostile_input(void **state)
{
  static const char *const texts[] = {
      "#pragma omp target map(",
      "#pragma omp target \\",
      "void f(void) {\n#pragma omp target data map(to: a[0:n]\n{ /* never closed",
      "_Pragma(\"omp target\"",
      "#define P(x) _Pragma(#x)\nvoid f(int *a) { P(omp target map(a[0:1])) a[0]=1; }",
      "#pragma omp target update to(\"str\\\"ing\", 'c', R\"x(raw)x\")\n",
      "#pragma omp target map(always,,close,:)\n;\n#pragma omp target map(:)\n",
      "#pragma omp target map(tofrom: ::x, y[0:1]) map(to \n",
      "\\\n#\\\npragma omp target\\\n map(a) // c \\\n continued\nx;",
      "#define M(a, ) _Pragma(\"omp target\") a\nvoid f(void) { M(1,) ; }",
  };
  char dir[] = "/tmp/omplens-hostile-XXXXXX";
  assert_non_null(mkdtemp(dir));
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
    probe(dir, texts[i], strlen(texts[i]));
  probe_repeated(dir, "{ if (x) ", 5000);
  probe_repeated(dir, "#pragma omp target\n", 3000);
  probe_noise(dir);
  rmdir(dir);
}

static int setup(void **state)
{
  omplens_directive_index *ix = NULL;
  if (omplens_directive_index_create(NULL, &ix) != 0)
    return -1;
  *state = ix;
  return 0;
}

static int teardown(void **state)
{
  omplens_directive_index_destroy(*state);
  return 0;
}

/* A header that its unit includes and that holds no OpenMP text has no
 * directive: listing it reads no parse of its own. */
static void test_plain_header(void **state)
{
  (void)state;
  omplens_directive_index *ix = new_index();
  omplens_directives_cost before, after, listed;
  omplens_directives_parse_cost(&before);
  omplens_directive_match m = find(ix, "plain_user.c", line_of("plain_user.c", "@halve"), "halve",
                                   OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  omplens_directives_parse_cost(&after);
  assert_int_equal(after.parsed + after.cached - before.parsed - before.cached, 1);
  const omplens_directive *const *dirs;
  size_t n = 99;
  assert_int_equal(omplens_directive_list(ix, fixture("plain_helpers.h"), &dirs, &n), 0);
  assert_int_equal(n, 0);
  omplens_directives_parse_cost(&listed);
  assert_int_equal(listed.parsed + listed.cached, after.parsed + after.cached);
  omplens_directive_index_destroy(ix);
}

/* Resident KiB of libclang's and libLLVM's code (executable mappings),
 * from /proc/self/smaps; -1 when it cannot be read. */
static long libclang_code_kb(void)
{
  FILE *f = fopen("/proc/self/smaps", "r");
  if (f == NULL)
    return -1;
  char line[4096];
  long kb = 0, rss;
  bool code = false;
  while (fgets(line, sizeof(line), f) != NULL) {
    char perms[8];
    if (sscanf(line, "%*x-%*x %7s", perms) == 1 && strchr(line, '/') != NULL)
      code = perms[2] == 'x' && (strstr(line, "libclang") || strstr(line, "libLLVM"));
    else if (code && sscanf(line, "Rss: %ld kB", &rss) == 1)
      kb += rss;
  }
  fclose(f);
  return kb;
}

static bool libclang_linked; /* mapped before any parse: the sanitized builds */

/* After a parse, the code libclang ran is given back: most of the 50 MB
 * that loading it touches, and the 20 MB a parse runs. The file stays in
 * the page cache, and a later parse maps again what it runs. */
static void test_parses_done(void **state)
{
  (void)state;
  if (libclang_linked)
    skip(); /* linked, not loaded by omplens: its code is the program's */
  omplens_directive_index *ix = new_index();
  expect(ix, "kinds.c", "@target", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  long ran = libclang_code_kb();
  omplens_directives_parses_done();
  long left = libclang_code_kb();
  if (ran == 0)
    skip(); /* libclang could not be loaded: the text alone was read */
  assert_true(ran > 4096);
  assert_true(left * 4 < ran);
  omplens_directive_index_destroy(ix);
  ix = new_index(); /* and it parses again */
  expect(ix, "kinds.c", "@target", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_true(libclang_code_kb() > left);
  omplens_directive_index_destroy(ix);
}

/* A file with many directives: each is found by any line of its pragma,
 * a target data by its closing line, and two pragmas of one line are both
 * candidates (the look-ups use an index of the lines, not a scan). */
static void test_many_in_one_file(void **state)
{
  (void)state;
  omplens_directive_index *ix = new_index();
  const char *name = "many_in_one.c";
  uint32_t first = line_of(name, "@first"), cont = line_of(name, "@cont");
  assert_int_equal(expect(ix, name, "@first", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT)->pragma.line,
                   first);
  const omplens_directive *d = expect(ix, name, "@cont", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->pragma.line, cont - 1); /* the pragma's second line */
  assert_int_equal(d->pragma.end_line, cont);
  omplens_directive_match m = find(ix, name, cont - 1, NULL, OMPLENS_RUNTIME_TARGET);
  assert_ptr_equal(m.directive, d);
  d = expect(ix, name, "@close", OMPLENS_RUNTIME_EXIT_DATA, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->kind, OMPLENS_DIRECTIVE_TARGET_DATA);
  assert_int_equal(d->pragma.line, line_of(name, "@data"));
  m = find(ix, name, line_of(name, "@close"), NULL, OMPLENS_RUNTIME_TARGET);
  assert_int_not_equal(m.confidence, OMPLENS_MATCH_EXACT); /* a target is not closed there */
  m = find(ix, name, line_of(name, "@twice"), NULL, OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.num_candidates, 2);
  assert_int_equal(m.confidence, OMPLENS_MATCH_AMBIGUOUS);
  /* every one of the forty alike, each on its own line */
  FILE *f = fopen(fixture(name), "r");
  assert_non_null(f);
  char buf[256];
  size_t found = 0;
  for (uint32_t line = 1; fgets(buf, sizeof(buf), f) != NULL; line++) {
    if (strcmp(buf, "#pragma omp target map(tofrom: a[0:1])\n") != 0)
      continue;
    m = find(ix, name, line, "many", OMPLENS_RUNTIME_TARGET);
    assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
    assert_int_equal(m.directive->pragma.line, line);
    found++;
  }
  fclose(f);
  assert_int_equal(found, 40);
  d = expect(ix, name, "@last", OMPLENS_RUNTIME_TARGET, OMPLENS_MATCH_EXACT);
  assert_int_equal(d->pragma.line, line_of(name, "@last"));
  omplens_directive_index_destroy(ix);
}

/* The files the hook was last shown, by base name, space-separated. */
static char shown[512];

static void show(const char *const *files, size_t num_files, const char *const *args,
                 size_t num_args, void *tu)
{
  (void)args, (void)num_args, (void)tu;
  shown[0] = '\0';
  for (size_t i = 0; i < num_files; i++) {
    const char *slash = strrchr(files[i], '/');
    snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown), "%s%s", i ? " " : "",
             slash ? slash + 1 : files[i]);
  }
}

/* The plain parse is shown with the files holding directives and the
 * headers without any that call their functions, not the other headers. */
static void test_plain_parse_shown(void **state)
{
  (void)state;
  omplens_directive_index *ix = new_index();
  omplens_directives__on_plain_unit(ix, show);
  shown[0] = '\0';
  omplens_directive_match m = find(ix, "caller_user.c", line_of("caller_user.c", "@scale"),
                                   "scale", OMPLENS_RUNTIME_TARGET);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_string(shown, "caller_user.c plain_caller.h");
  omplens_directive_index_destroy(ix);
}

/* ---- units read ahead ---- */

static void assert_same_list(omplens_directive_index *a, omplens_directive_index *b,
                             const char *name)
{
  const omplens_directive *const *da, *const *db;
  size_t na, nb;
  assert_int_equal(omplens_directive_list(a, fixture(name), &da, &na), 0);
  assert_int_equal(omplens_directive_list(b, fixture(name), &db, &nb), 0);
  assert_int_equal(na, nb);
  for (size_t i = 0; i < na; i++) {
    assert_string(da[i]->text, db[i]->text);
    assert_int_equal(da[i]->pragma.line, db[i]->pragma.line);
    assert_int_equal(da[i]->num_items, db[i]->num_items);
  }
}

/* Units read ahead (on threads where there are CPUs) are each parsed once,
 * duplicates and unreadable names skipped, and the lookups that follow
 * parse nothing more and answer as an index that read them one by one. */
static void test_prefetch(void **state)
{
  (void)state;
  omplens_directive_index *ahead = new_index(), *lazy = new_index();
  omplens_directives_cost before, after, later;
  const char *units[] = {fixture("kinds.c"), fixture("header_user.c"), fixture("kinds.c"),
                         fixture("no_such_unit.c"), NULL, fixture("macro_user.c")};
  omplens_directives_parse_cost(&before);
  assert_int_equal(omplens_directives_prefetch(ahead, units, sizeof units / sizeof *units, NULL, NULL), 0);
  omplens_directives_parse_cost(&after);
  assert_int_equal(after.parsed + after.cached - before.parsed - before.cached, 3);
  omplens_directive_query q = axpy_query();
  omplens_directive_match m;
  assert_int_equal(omplens_directive_find_query(ahead, &q, &m), 0);
  assert_int_equal(m.confidence, OMPLENS_MATCH_EXACT);
  assert_same_list(ahead, lazy, "kinds.c");
  assert_same_list(ahead, lazy, "macro_user.c");
  omplens_directives_parse_cost(&later);
  assert_int_equal(omplens_directive_find_query(lazy, &q, &m), 0);
  assert_same_list(ahead, lazy, "kernels.h");
  /* Only the lazy index parsed: kinds.c, macro_user.c, header_user.c. */
  omplens_directives_cost last;
  omplens_directives_parse_cost(&last);
  assert_int_equal(later.parsed + later.cached - after.parsed - after.cached, 2);
  assert_int_equal(last.parsed + last.cached - later.parsed - later.cached, 1);
  assert_int_equal(omplens_directives_prefetch(ahead, units, 2, NULL, NULL), 0); /* all read */
  omplens_directives_cost again;
  omplens_directives_parse_cost(&again);
  assert_int_equal(again.parsed + again.cached, last.parsed + last.cached);
  assert_int_equal(omplens_directives_prefetch(NULL, units, 1, NULL, NULL), OMPLENS_DIRECTIVES_EINVAL);
  omplens_directive_index_destroy(ahead);
  omplens_directive_index_destroy(lazy);
}

int main(int argc, char **argv)
{
  if (argc == 3 && strcmp(argv[1], "--dump") == 0)
    return dump_file(stdout, argv[2]) == 0 ? 0 : 1;
  if (argc == 2)
    fixture_dir = argv[1];
  libclang_linked = libclang_code_kb() > 0;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_kind),
      cmocka_unit_test(test_data_region_end),
      cmocka_unit_test(test_combined_forms),
      cmocka_unit_test(test_combined_loop_line),
      cmocka_unit_test(test_multiline_pragma),
      cmocka_unit_test(test_map_modifiers),
      cmocka_unit_test(test_update_motion),
      cmocka_unit_test(test_implicit_maps),
      cmocka_unit_test(test_unreferenced),
      cmocka_unit_test(test_header),
      cmocka_unit_test(test_pragma_macro),
      cmocka_unit_test(test_pragma_macro_of_header),
      cmocka_unit_test(test_cxx_template),
      cmocka_unit_test(test_class_template_member),
      cmocka_unit_test(test_line_breaks),
      cmocka_unit_test(test_inactive_branch),
      cmocka_unit_test(test_inactive_with_flags),
      cmocka_unit_test(test_partial),
      cmocka_unit_test(test_header_through_includer),
      cmocka_unit_test(test_header_status_any_order),
      cmocka_unit_test(test_included_source),
      cmocka_unit_test(test_api_calls),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_stale_stamps),
      cmocka_unit_test(test_stale_md5),
      cmocka_unit_test(test_off_directive),
      cmocka_unit_test(test_stale_lines),
      cmocka_unit_test(test_stale_edited),
      cmocka_unit_test(test_line_zero),
      cmocka_unit_test(test_mismatches),
      cmocka_unit_test(test_compile_commands),
      cmocka_unit_test(test_language_from_command),
      cmocka_unit_test(test_warning_flags_kept),
      cmocka_unit_test(test_null_and_names),
      cmocka_unit_test(test_cached),
      cmocka_unit_test(test_prefetch),
      cmocka_unit_test(test_plain_header),
      cmocka_unit_test(test_many_in_one_file),
      cmocka_unit_test(test_parses_done),
      cmocka_unit_test(test_plain_parse_shown),
      cmocka_unit_test(test_golden),
      cmocka_unit_test(test_hostile_input),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
