/* consistency_check: the figures of a findings.json must agree with each
 * other (docs/testing.md, "Precision corpus").
 *
 *   consistency_check FINDINGS.json
 *
 * For every process, with one category per operation:
 * - no event is an instance of two detector findings (a finding with
 *   `instances_omitted` lists only some of its instances and is skipped);
 * - the instances counted in totals.counts are at most transfers +
 *   allocations: no more wasteful operations than operations;
 * - the bytes of the transfer categories in totals.bytes are at most
 *   totals.transfer_bytes;
 * - totals.counts and totals.bytes of each category are the sums of its
 *   findings' count and total_bytes;
 * - the findings' savings_ns add up to totals.savings_ns;
 * - no fix is predicted to save more than fixing every finding
 *   (totals.predicted_savings_ns);
 * - from schema version 6, where a process lists its fixes once and a
 *   finding names its fix by its place in that list: every place named is
 *   in the list, every fix listed is named, no two fixes share an id, and
 *   the code address of each finding's location is one of the process's
 *   directives (which give the directive text the finding leaves out).
 * `mapped-but-unreferenced` findings (from the source alone) count like
 * the others: they hold the operations of their item that no detector
 * finding holds. Each failed check prints one line with both numbers. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../findings_refs.h"

enum exit_code {
  EXIT_CONSISTENT = 0,   /* every check passed */
  EXIT_INCONSISTENT = 1, /* a check failed: one line each on stdout */
  EXIT_USAGE = 2,        /* bad command line, unreadable or malformed file */
};

/* Every category; is_transfer: its total_bytes are bytes moved. */
static const struct category {
  const char *name;
  int is_transfer;
} categories[] = {
    {"duplicate-transfer", 1}, {"duplicate-content", 1},       {"round-trip", 1},
    {"round-trip-other-buffer", 1}, {"reinitialization", 1},   {"unused-transfer", 1},
    {"repeated-alloc", 0},     {"unused-alloc", 0},           {"mapped-but-unreferenced", 1},
};
#define NUM_CATEGORIES (sizeof categories / sizeof categories[0])

static const char *path;   /* the findings.json being checked */
static int failures;

/* One line per failed check: where, what, and both numbers. */
static void fail(const json_t *proc, const char *what, long long got, const char *relation,
                 long long limit) {
  printf("FAIL: %s: process %lld: %s %lld, %s %lld\n", path,
         (long long)json_integer_value(json_object_get(proc, "pid")), what, got, relation, limit);
  failures++;
}

static long long number(const json_t *object, const char *key) {
  return (long long)json_integer_value(json_object_get(object, key));
}

/* Index of category `name` in categories[], or -1. */
static int category_index(const char *name) {
  for (size_t i = 0; name && i < NUM_CATEGORIES; i++)
    if (!strcmp(categories[i].name, name))
      return (int)i;
  return -1;
}

typedef struct instance_ref {
  long long event;
  size_t finding; /* index in the process's findings */
} instance_ref;

static int cmp_ref(const void *a, const void *b) {
  const instance_ref *x = a, *y = b;
  if (x->event != y->event)
    return x->event < y->event ? -1 : 1;
  return x->finding < y->finding ? -1 : x->finding > y->finding;
}

/* The event of listed instance i of a finding's instances are an array of
 * objects up to schema version 4, columns from version 5 (the "event"
 * column one value, {"first", "step"} or an array); -1 when it has none. */
static long long instance_event(const json_t *instances, size_t i) {
  if (json_is_array(instances)) {
    const json_t *e = json_object_get(json_array_get(instances, i), "event");
    return json_is_integer(e) ? (long long)json_integer_value(e) : -1;
  }
  const json_t *col = json_object_get(instances, "event");
  if (json_is_integer(col))
    return (long long)json_integer_value(col);
  if (json_is_object(col))
    return number(col, "first") + (long long)i * number(col, "step");
  const json_t *e = json_array_get(col, i);
  return json_is_integer(e) ? (long long)json_integer_value(e) : -1;
}

static size_t listed_instances(const json_t *instances) {
  return json_is_array(instances) ? json_array_size(instances)
                                  : (size_t)number(instances, "count");
}

/* The listed instances of every complete finding; caller frees
 * *refs. -1 when out of memory. */
static int collect_instances(const json_t *findings, instance_ref **refs, size_t *n) {
  size_t fi, cap = 0;
  const json_t *f;
  *refs = NULL;
  *n = 0;
  json_array_foreach(findings, fi, f) {
    if (json_object_get(f, "instances_omitted"))
      continue;
    const json_t *instances = json_object_get(f, "instances");
    for (size_t ii = 0; ii < listed_instances(instances); ii++) {
      long long event = instance_event(instances, ii);
      if (event < 0)
        continue;
      if (*n == cap) {
        cap = cap ? 2 * cap : 256;
        instance_ref *grown = realloc(*refs, cap * sizeof **refs);
        if (!grown)
          return -1;
        *refs = grown;
      }
      (*refs)[(*n)++] = (instance_ref){event, fi};
    }
  }
  return 0;
}

static void describe(const json_t *findings, size_t fi, char *buf, size_t size) {
  const json_t *f = json_array_get(findings, fi);
  const json_t *loc = json_object_get(f, "location");
  const char *file = json_string_value(json_object_get(loc, "file"));
  const char *slash = file ? strrchr(file, '/') : NULL;
  snprintf(buf, size, "#%zu %s %s:%lld", fi, json_string_value(json_object_get(f, "category")),
           slash ? slash + 1 : file ? file : "?", number(loc, "line"));
}

/* No event is an instance of two findings (nor twice of one). */
static int check_overlap(const json_t *proc) {
  const json_t *findings = json_object_get(proc, "findings");
  instance_ref *refs;
  size_t n;
  if (collect_instances(findings, &refs, &n)) {
    free(refs);
    fprintf(stderr, "consistency_check: out of memory\n");
    return -1;
  }
  if (n)
    qsort(refs, n, sizeof *refs, cmp_ref);
  for (size_t i = 1; i < n; i++) {
    if (refs[i].event != refs[i - 1].event)
      continue;
    char a[256], b[256];
    describe(findings, refs[i - 1].finding, a, sizeof a);
    describe(findings, refs[i].finding, b, sizeof b);
    printf("FAIL: %s: process %lld: event %lld is an instance of finding %s and of finding %s\n",
           path, number(proc, "pid"), refs[i].event, a, b);
    failures++;
  }
  free(refs);
  return 0;
}

/* Per category: the findings' count, total_bytes; and all their savings. */
typedef struct finding_sums {
  long long count[NUM_CATEGORIES], bytes[NUM_CATEGORIES], savings_ns;
} finding_sums;

static int sum_findings(const json_t *proc, finding_sums *s) {
  size_t fi;
  const json_t *f;
  memset(s, 0, sizeof *s);
  json_array_foreach(json_object_get(proc, "findings"), fi, f) {
    const char *name = json_string_value(json_object_get(f, "category"));
    int c = category_index(name);
    if (c < 0) {
      fprintf(stderr, "consistency_check: %s: unknown category %s\n", path, name ? name : "(none)");
      return -1;
    }
    s->count[c] += number(f, "count");
    s->bytes[c] += number(f, "total_bytes");
    s->savings_ns += number(f, "savings_ns");
  }
  return 0;
}

/* totals.counts/bytes hold exactly the known categories. */
static int check_category_keys(const json_t *totals) {
  const char *keys[] = {"counts", "bytes"};
  for (size_t k = 0; k < 2; k++) {
    const char *name;
    const json_t *v;
    const json_t *table = json_object_get(totals, keys[k]);
    if (!json_is_object(table)) {
      fprintf(stderr, "consistency_check: %s: totals.%s missing\n", path, keys[k]);
      return -1;
    }
    json_object_foreach((json_t *)table, name, v) {
      if (category_index(name) < 0) {
        fprintf(stderr, "consistency_check: %s: unknown category %s in totals.%s\n", path, name,
                keys[k]);
        return -1;
      }
    }
  }
  return 0;
}

/* The program totals against the operations and against the findings. */
static void check_totals(const json_t *proc, const finding_sums *s) {
  const json_t *totals = json_object_get(proc, "totals");
  const json_t *counts = json_object_get(totals, "counts");
  const json_t *bytes = json_object_get(totals, "bytes");
  long long wasteful = 0, wasted_transfer_bytes = 0;
  for (size_t c = 0; c < NUM_CATEGORIES; c++) {
    long long n = number(counts, categories[c].name), b = number(bytes, categories[c].name);
    char what[128];
    wasteful += n;
    if (categories[c].is_transfer)
      wasted_transfer_bytes += b;
    snprintf(what, sizeof what, "totals.counts.%s", categories[c].name);
    if (n != s->count[c])
      fail(proc, what, n, "but its findings count", s->count[c]);
    snprintf(what, sizeof what, "totals.bytes.%s", categories[c].name);
    if (b != s->bytes[c])
      fail(proc, what, b, "but its findings' total_bytes add up to", s->bytes[c]);
  }
  long long operations = number(totals, "transfers") + number(totals, "allocations");
  if (wasteful > operations)
    fail(proc, "wasteful operations (totals.counts)", wasteful,
         "more than transfers + allocations", operations);
  if (wasted_transfer_bytes > number(totals, "transfer_bytes"))
    fail(proc, "bytes of the transfer categories", wasted_transfer_bytes,
         "more than totals.transfer_bytes", number(totals, "transfer_bytes"));
  if (s->savings_ns != number(totals, "savings_ns"))
    fail(proc, "findings' savings_ns add up to", s->savings_ns, "but totals.savings_ns is",
         number(totals, "savings_ns"));
}

/* One fix never saves more than fixing everything. */
static void check_savings(const json_t *proc, const json_t *fix) {
  const json_t *totals = json_object_get(proc, "totals");
  if (!json_object_get(totals, "predicted_savings_ns"))
    return;
  long long one = number(fix, "predicted_savings_ns"), every = number(totals, "predicted_savings_ns");
  if (one > every)
    fail(proc, "a fix's predicted_savings_ns", one,
         "more than fixing every finding (totals.predicted_savings_ns)", every);
}

/* Schema 6's references: each finding's fix and directive, each mapping
 * at exit's fix. */
static void check_references(const json_t *proc, const json_t *fixes) {
  size_t n = json_array_size(fixes), fi, k;
  unsigned char *named = calloc(n + 1, 1);
  const json_t *f;
  json_array_foreach(json_object_get(proc, "findings"), fi, f) {
    const json_t *fix = json_object_get(f, "fix");
    if (fix && (!json_is_integer(fix) || json_integer_value(fix) < 0 ||
                (size_t)json_integer_value(fix) >= n))
      fail(proc, "a finding names fix", json_integer_value(fix), "but the fixes listed are", (long long)n);
    else if (fix && named)
      named[json_integer_value(fix)] = 1;
    const char *at = json_string_value(json_object_get(json_object_get(f, "location"), "codeptr"));
    if (!findings_directive_location(proc, at))
      fail(proc, "finding", (long long)fi, "has a code address that no directive has; directives:",
           (long long)json_array_size(json_object_get(proc, "directives")));
  }
  json_array_foreach(json_object_get(proc, "mappings_at_exit"), fi, f) { /* their exit data */
    const json_t *fix = json_object_get(f, "fix");
    if (fix && (!json_is_integer(fix) || json_integer_value(fix) < 0 ||
                (size_t)json_integer_value(fix) >= n))
      fail(proc, "a mapping at exit names fix", json_integer_value(fix),
           "but the fixes listed are", (long long)n);
    else if (fix && named)
      named[json_integer_value(fix)] = 1;
  }
  for (k = 0; named && k < n; k++)
    if (!named[k])
      fail(proc, "fix", (long long)k, "is named by no finding nor mapping; fixes listed:",
           (long long)n);
  json_array_foreach(fixes, k, f) {
    const json_t *id = json_object_get(f, "id");
    for (size_t j = 0; id && j < k; j++)
      if (json_equal(id, json_object_get(json_array_get(fixes, j), "id")))
        fail(proc, "fix", (long long)k, "has the id of fix", (long long)j);
  }
  free(named);
}

static void check_fixes(const json_t *proc) {
  const json_t *fixes = json_object_get(proc, "fixes"), *f;
  size_t i;
  if (fixes) { /* schema 6: listed once */
    check_references(proc, fixes);
    json_array_foreach(fixes, i, f)
      check_savings(proc, f);
    return;
  }
  json_array_foreach(json_object_get(proc, "findings"), i, f)
    check_savings(proc, json_object_get(f, "fix"));
}

static int check_process(const json_t *proc) {
  finding_sums sums;
  if (check_category_keys(json_object_get(proc, "totals")) || sum_findings(proc, &sums))
    return -1;
  check_totals(proc, &sums);
  check_fixes(proc);
  return check_overlap(proc);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: consistency_check FINDINGS.json\n");
    return EXIT_USAGE;
  }
  path = argv[1];
  json_error_t err;
  json_t *root = json_load_file(path, 0, &err);
  if (!root) {
    fprintf(stderr, "consistency_check: %s: %s (line %d)\n", path, err.text, err.line);
    return EXIT_USAGE;
  }
  const json_t *procs = json_object_get(root, "processes");
  if (!json_is_array(procs) || json_array_size(procs) == 0) {
    fprintf(stderr, "consistency_check: %s: no processes\n", path);
    json_decref(root);
    return EXIT_USAGE;
  }
  size_t pi;
  const json_t *proc;
  int rc = 0;
  json_array_foreach(procs, pi, proc) {
    if (!rc)
      rc = check_process(proc);
  }
  json_decref(root);
  if (rc)
    return EXIT_USAGE;
  return failures ? EXIT_INCONSISTENT : EXIT_CONSISTENT;
}
