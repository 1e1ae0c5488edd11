/* diff_check: checks the JSON written by `omplens diff --json` after fixing
 * an example (tests/e2e/diff/run_diff.sh).
 *
 *   diff_check DIFF_JSON GONE
 *
 * GONE is a comma-separated list of categories. Checks that each has a
 * finding with status "gone", that no finding is "new", that fewer bytes
 * were transferred after, and that the what-if made a prediction greater
 * than 1. Each failed check prints what was expected and what was found;
 * exit status 1 when any failed. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void fail(const char *what, const char *expected, const char *got) {
  printf("FAIL: %s: expected %s, got %s\n", what, expected, got);
  failures++;
}

static int has_gone(const json_t *findings, const char *category, size_t len) {
  size_t i;
  const json_t *f;
  json_array_foreach(findings, i, f) {
    const char *c = json_string_value(json_object_get(f, "category"));
    const char *s = json_string_value(json_object_get(f, "status"));
    if (c && s && strlen(c) == len && !strncmp(c, category, len) && !strcmp(s, "gone"))
      return 1;
  }
  return 0;
}

static void check_gone(const json_t *root, const char *list) {
  const json_t *findings = json_object_get(root, "findings");
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    char what[128];
    snprintf(what, sizeof what, "finding %.*s", (int)len, p);
    if (!has_gone(findings, p, len))
      fail(what, "status gone", "no gone finding of that category");
    p += len + (p[len] == ',');
  }
}

static void check_numbers(const json_t *root) {
  char got[64];
  json_int_t added = json_integer_value(json_object_get(json_object_get(root, "summary"), "new"));
  snprintf(got, sizeof got, "%lld", (long long)added);
  if (added != 0)
    fail("new findings", "0", got);
  json_int_t before = json_integer_value(
      json_object_get(json_object_get(root, "before"), "transfer_bytes"));
  json_int_t after = json_integer_value(
      json_object_get(json_object_get(root, "after"), "transfer_bytes"));
  snprintf(got, sizeof got, "%lld -> %lld", (long long)before, (long long)after);
  if (!(after < before))
    fail("transfer bytes", "fewer after the fix", got);
  const json_t *w = json_object_get(root, "whatif");
  double speedup = json_number_value(json_object_get(w, "predicted_speedup"));
  int available = json_is_true(json_object_get(w, "available"));
  snprintf(got, sizeof got, "%s, %.3f", available ? "yes" : "no", speedup);
  if (!available || !(speedup > 1.0))
    fail("what-if prediction", "available, speedup > 1", got);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: diff_check DIFF_JSON GONE\n");
    return 2;
  }
  json_error_t err;
  json_t *root = json_load_file(argv[1], 0, &err);
  if (!root) {
    printf("FAIL: cannot read %s: %s\n", argv[1], err.text);
    return 1;
  }
  const char *schema = json_string_value(json_object_get(root, "schema"));
  if (!schema || strcmp(schema, "omplens-diff"))
    fail("schema", "omplens-diff", schema ? schema : "none");
  check_gone(root, argv[2]);
  check_numbers(root);
  json_decref(root);
  return failures ? 1 : 0;
}
