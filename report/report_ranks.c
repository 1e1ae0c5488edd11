/* The merged view of an MPI job's ranks (docs/report.md, "MPI jobs"): the
 * directives summed over ranks with each rank's spread, the findings that
 * the ranks share, and the ranks that stand far from the median. Built
 * from each rank's analysis (its per-directive profile and its findings),
 * so it costs directives and findings, not events. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_annotate.h"
#include "report_internal.h"

/* One merged directive or finding: its key and a value per rank. */
typedef struct merged {
  char *key;       /* location (directive); category, location, item, size */
  json_t *head;    /* the members that name it */
  uint64_t *value; /* per rank (in rank order): ns, or instances */
  uint64_t *bytes; /* per rank */
  uint64_t sum_extra; /* executions (directive) or savings ns (finding) */
} merged;

/* Items by key, found through an open-addressing table of their indexes
 * (a job has thousands of distinct findings, each met on every rank). */
typedef struct merge_table {
  merged *items;
  size_t n, cap, ranks;
  uint32_t *slots; /* index + 1; 0: empty */
  size_t num_slots; /* a power of two, at least twice n */
} merge_table;

static uint64_t key_hash(const char *key) {
  uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)key; *p; p++)
    h = (h ^ *p) * 0x100000001b3u;
  return h;
}

/* The slot that holds key, or the empty one where it goes. */
static uint32_t *merge_slot(const merge_table *t, const char *key, uint64_t h) {
  for (size_t i = h & (t->num_slots - 1);; i = (i + 1) & (t->num_slots - 1))
    if (!t->slots[i] || !strcmp(t->items[t->slots[i] - 1].key, key))
      return &t->slots[i];
}

static int merge_grow(merge_table *t) {
  size_t cap = t->cap ? 2 * t->cap : 64, num_slots = 2 * cap;
  merged *m = realloc(t->items, cap * sizeof *m);
  if (m)
    t->items = m;
  uint32_t *slots = calloc(num_slots, sizeof *slots);
  if (!m || !slots || cap >= UINT32_MAX) {
    free(slots);
    return -1;
  }
  free(t->slots);
  t->slots = slots;
  t->num_slots = num_slots;
  t->cap = cap;
  for (size_t i = 0; i < t->n; i++)
    *merge_slot(t, t->items[i].key, key_hash(t->items[i].key)) = (uint32_t)i + 1;
  return 0;
}

static merged *merge_find(merge_table *t, const char *key, json_t *(*head)(void *), void *ctx) {
  if (t->n == t->cap && merge_grow(t))
    return NULL;
  uint64_t h = key_hash(key);
  uint32_t *slot = merge_slot(t, key, h);
  if (*slot)
    return &t->items[*slot - 1];
  merged *m = &t->items[t->n];
  m->key = strdup(key);
  m->value = calloc(t->ranks, sizeof *m->value);
  m->bytes = calloc(t->ranks, sizeof *m->bytes);
  m->head = head(ctx);
  m->sum_extra = 0;
  if (!m->key || !m->value || !m->bytes || !m->head) {
    free(m->key);
    free(m->value);
    free(m->bytes);
    json_decref(m->head);
    return NULL;
  }
  *slot = (uint32_t)++t->n;
  return m;
}

static void merge_free(merge_table *t) {
  for (size_t i = 0; i < t->n; i++) {
    free(t->items[i].key);
    free(t->items[i].value);
    free(t->items[i].bytes);
    json_decref(t->items[i].head);
  }
  free(t->items);
  free(t->slots);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The median of v[0..n) (the mean of the middle two for an even n);
 * scratch holds n values. */
static uint64_t median(const uint64_t *v, size_t n, uint64_t *scratch) {
  memcpy(scratch, v, n * sizeof *v);
  qsort(scratch, n, sizeof *scratch, cmp_u64);
  return n % 2 ? scratch[n / 2] : scratch[n / 2 - 1] / 2 + scratch[n / 2] / 2 +
                                      (scratch[n / 2 - 1] % 2 + scratch[n / 2] % 2) / 2;
}

/* Far from the median: at least OMPLENS_REPORT_FAR_RATIO times it, or at
 * most 1/OMPLENS_REPORT_FAR_RATIO of it; with a median of 0, any nonzero
 * value. */
static int far(uint64_t value, uint64_t med) {
  if (!med)
    return value > 0;
  double r = (double)value / (double)med;
  return r >= OMPLENS_REPORT_FAR_RATIO || r * OMPLENS_REPORT_FAR_RATIO <= 1.0;
}

/* The processes with a rank, in rank order (then pid). */
typedef struct ranked {
  size_t proc;
  int32_t rank, pid;
} ranked;

static int cmp_ranked(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return (x->pid > y->pid) - (x->pid < y->pid);
}

typedef struct head_ctx {
  const char *location;
  const char *category, *item;
  uint64_t bytes;
} head_ctx;

static json_t *directive_head(void *p) {
  const head_ctx *h = p;
  json_t *o = json_object();
  json_object_set_new(o, "location", json_string(h->location));
  return o;
}

static json_t *finding_head(void *p) {
  const head_ctx *h = p;
  json_t *o = json_object();
  json_object_set_new(o, "category", json_string(h->category));
  json_object_set_new(o, "location", json_string(h->location));
  json_object_set_new(o, "variable", h->item ? json_string(h->item) : json_null());
  json_object_set_new(o, "bytes", json_integer((json_int_t)h->bytes));
  return o;
}

/* json_string of text that may not be UTF-8 (a path): escaped bytes kept. */
static void fix_utf8(char *s) {
  for (unsigned char *p = (unsigned char *)s; *p; p++)
    if (*p >= 0x80)
      *p = '?';
}

static int add_directives(merge_table *t, const omplens_report_input *in, size_t proc, size_t r) {
  size_t n;
  const omplens_directive_profile *d = omplens_analysis_profiles(in->procs[proc].analysis, &n);
  for (size_t i = 0; i < n; i++) {
    char loc[4096];
    omplens_format_location(in, proc, d[i].codeptr, loc, sizeof loc);
    fix_utf8(loc);
    head_ctx h = {loc, NULL, NULL, 0};
    merged *m = merge_find(t, loc, directive_head, &h);
    if (!m)
      return -1;
    m->value[r] += d[i].total_ns;
    m->bytes[r] += d[i].h2d.bytes + d[i].d2h.bytes + d[i].d2d.bytes;
    m->sum_extra += d[i].executions;
  }
  return 0;
}

static int add_findings(merge_table *t, const omplens_report_input *in, size_t proc, size_t r) {
  size_t n, nev;
  const omplens_finding *f = omplens_analysis_findings(in->procs[proc].analysis, &n);
  const omplens_event *ev = omplens_trace_events(in->procs[proc].trace, &nev);
  for (size_t i = 0; i < n; i++) {
    char loc[4096], key[4600];
    omplens_format_location(in, proc, f[i].codeptr, loc, sizeof loc);
    fix_utf8(loc);
    omplens_variable v;
    const char *item = NULL;
    if (in->procs[proc].annotator && f[i].num_instances && f[i].instances[0].event < nev &&
        !omplens_annotate_variable(in->procs[proc].annotator, &ev[f[i].instances[0].event], &v))
      item = v.item;
    char item_buf[256] = "";
    if (item)
      snprintf(item_buf, sizeof item_buf, "%s", item);
    fix_utf8(item_buf);
    snprintf(key, sizeof key, "%s|%s|%s|%llu", omplens_category_name(f[i].category), loc, item_buf,
             (unsigned long long)f[i].bytes);
    head_ctx h = {loc, omplens_category_name(f[i].category), item ? item_buf : NULL, f[i].bytes};
    merged *m = merge_find(t, key, finding_head, &h);
    if (!m)
      return -1;
    m->value[r] += f[i].num_instances;
    m->bytes[r] += f[i].total_bytes;
    m->sum_extra += f[i].savings_ns;
  }
  return 0;
}

static json_t *u64_array(const uint64_t *v, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(a, json_integer((json_int_t)(v[i] > INT64_MAX ? INT64_MAX : v[i])));
  return a;
}

static uint64_t sum(const uint64_t *v, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; i++)
    s += v[i];
  return s;
}

static size_t nonzero(const uint64_t *v, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    k += v[i] != 0;
  return k;
}

static void set_u64(json_t *o, const char *key, uint64_t v) {
  json_object_set_new(o, key, json_integer((json_int_t)(v > INT64_MAX ? INT64_MAX : v)));
}

/* Sorts merged items by the sum of their values (then savings), largest
 * first, keeping the order first met among equals. */
static size_t sort_ranks; /* qsort has no context argument */
static int cmp_merged(const void *a, const void *b) {
  const merged *x = a, *y = b;
  uint64_t sx = sum(x->value, sort_ranks), sy = sum(y->value, sort_ranks);
  if (sx != sy)
    return sx > sy ? -1 : 1;
  if (x->sum_extra != y->sum_extra)
    return x->sum_extra > y->sum_extra ? -1 : 1;
  return strcmp(x->key, y->key);
}

/* Findings: by the savings summed over ranks, largest first. */
static int cmp_merged_savings(const void *a, const void *b) {
  const merged *x = a, *y = b;
  if (x->sum_extra != y->sum_extra)
    return x->sum_extra > y->sum_extra ? -1 : 1;
  return cmp_merged(a, b);
}

static json_t *directive_list(merge_table *t, uint64_t *scratch) {
  json_t *arr = json_array();
  for (size_t i = 0; i < t->n; i++) {
    const merged *m = &t->items[i];
    json_t *o = json_deep_copy(m->head);
    set_u64(o, "ranks", nonzero(m->value, t->ranks) ? nonzero(m->value, t->ranks)
                                                     : nonzero(m->bytes, t->ranks));
    set_u64(o, "executions", m->sum_extra);
    set_u64(o, "total_ns", sum(m->value, t->ranks));
    memcpy(scratch, m->value, t->ranks * sizeof *scratch);
    qsort(scratch, t->ranks, sizeof *scratch, cmp_u64);
    set_u64(o, "min_ns", scratch[0]);
    set_u64(o, "median_ns", median(m->value, t->ranks, scratch));
    set_u64(o, "max_ns", scratch[t->ranks - 1]);
    set_u64(o, "transfer_bytes", sum(m->bytes, t->ranks));
    json_object_set_new(o, "per_rank_ns", u64_array(m->value, t->ranks));
    json_object_set_new(o, "per_rank_bytes", u64_array(m->bytes, t->ranks));
    json_array_append_new(arr, o);
  }
  return arr;
}

static json_t *finding_list(merge_table *t) {
  json_t *arr = json_array();
  for (size_t i = 0; i < t->n; i++) {
    const merged *m = &t->items[i];
    json_t *o = json_deep_copy(m->head);
    set_u64(o, "ranks", nonzero(m->value, t->ranks));
    set_u64(o, "count", sum(m->value, t->ranks));
    set_u64(o, "total_bytes", sum(m->bytes, t->ranks));
    set_u64(o, "savings_ns", m->sum_extra);
    json_object_set_new(o, "per_rank_count", u64_array(m->value, t->ranks));
    json_array_append_new(arr, o);
  }
  return arr;
}

/* The measures outliers are looked for in, per rank. */
enum { M_DEVICE_NS, M_TRANSFER_BYTES, M_FINDINGS, M_COUNT };
static const char *const MEASURE_NAMES[M_COUNT] = {"device_ns", "transfer_bytes", "findings"};

static json_t *outlier_list(uint64_t *const measure[M_COUNT], const ranked *rk, size_t n,
                            uint64_t *scratch) {
  json_t *arr = json_array();
  for (int k = 0; k < M_COUNT; k++) {
    uint64_t med = median(measure[k], n, scratch);
    for (size_t r = 0; r < n; r++) {
      if (!far(measure[k][r], med))
        continue;
      json_t *o = json_object();
      json_object_set_new(o, "rank", json_integer(rk[r].rank));
      json_object_set_new(o, "measure", json_string(MEASURE_NAMES[k]));
      set_u64(o, "value", measure[k][r]);
      set_u64(o, "median", med);
      json_object_set_new(o, "ratio", med ? json_real((double)measure[k][r] / (double)med)
                                          : json_null());
      json_array_append_new(arr, o);
    }
  }
  return arr;
}

static json_t *rank_entry(const omplens_report_input *in, const ranked *rk, uint64_t *const m[M_COUNT],
                          size_t r) {
  const omplens_trace *t = in->procs[rk[r].proc].trace;
  const omplens_trace_info *info = omplens_trace_get_info(t);
  json_t *o = json_object();
  json_object_set_new(o, "rank", json_integer(rk[r].rank));
  json_object_set_new(o, "process", json_integer((json_int_t)rk[r].proc));
  json_object_set_new(o, "pid", json_integer(rk[r].pid));
  json_t *used = json_array();
  unsigned char *u = calloc((size_t)(info->num_devices > 0 ? info->num_devices : 1), 1);
  if (u)
    omplens_report__devices_used(t, u, info->num_devices);
  for (int d = 0; u && d < info->num_devices; d++)
    if (u[d])
      json_array_append_new(used, json_integer(d));
  free(u);
  json_object_set_new(o, "devices_used", used);
  for (int k = 0; k < M_COUNT; k++)
    set_u64(o, MEASURE_NAMES[k], m[k][r]);
  return o;
}

static json_t *build(const omplens_report_input *in, ranked *rk, size_t n, uint64_t *buf) {
  uint64_t *measure[M_COUNT] = {buf, buf + n, buf + 2 * n}, *scratch = buf + 3 * n;
  merge_table dirs = {NULL, 0, 0, n, NULL, 0}, finds = {NULL, 0, 0, n, NULL, 0};
  int job_size = 0;
  for (size_t r = 0; r < n; r++) {
    size_t p = rk[r].proc;
    const omplens_program_total *tot = omplens_analysis_total(in->procs[p].analysis);
    int js = omplens_trace_get_info(in->procs[p].trace)->job_size;
    job_size = js > job_size ? js : job_size;
    measure[M_DEVICE_NS][r] = tot->kernel_ns + tot->transfer_ns + tot->alloc_ns;
    measure[M_TRANSFER_BYTES][r] = tot->transfer_bytes;
    measure[M_FINDINGS][r] = 0;
    for (int c = 0; c < OMPLENS_CAT_COUNT; c++)
      measure[M_FINDINGS][r] += tot->count[c];
    if (add_directives(&dirs, in, p, r) || add_findings(&finds, in, p, r)) {
      merge_free(&dirs);
      merge_free(&finds);
      return NULL;
    }
  }
  sort_ranks = n;
  qsort(dirs.items, dirs.n, sizeof *dirs.items, cmp_merged);
  qsort(finds.items, finds.n, sizeof *finds.items, cmp_merged_savings);
  json_t *o = json_object();
  json_object_set_new(o, "ranks", json_integer((json_int_t)n));
  json_object_set_new(o, "job_size", job_size ? json_integer(job_size) : json_null());
  json_object_set_new(o, "far_ratio", json_real(OMPLENS_REPORT_FAR_RATIO));
  json_t *procs = json_array();
  for (size_t r = 0; r < n; r++)
    json_array_append_new(procs, rank_entry(in, rk, measure, r));
  json_object_set_new(o, "processes", procs);
  json_object_set_new(o, "directives", directive_list(&dirs, scratch));
  json_object_set_new(o, "findings", finding_list(&finds));
  json_object_set_new(o, "outliers", outlier_list(measure, rk, n, scratch));
  merge_free(&dirs);
  merge_free(&finds);
  return o;
}

json_t *omplens_report__ranks(const omplens_report_input *in) {
  size_t n = 0;
  ranked *rk = calloc(in->num_procs ? in->num_procs : 1, sizeof *rk);
  if (!rk)
    return NULL;
  for (size_t p = 0; p < in->num_procs; p++) {
    const omplens_trace_info *info = omplens_trace_get_info(in->procs[p].trace);
    if (info->rank >= 0 && omplens_analysis_total(in->procs[p].analysis))
      rk[n++] = (ranked){p, info->rank, info->pid};
  }
  json_t *o = NULL;
  uint64_t *buf = n >= 2 ? calloc(4 * n, sizeof *buf) : NULL;
  if (buf) {
    qsort(rk, n, sizeof *rk, cmp_ranked);
    o = build(in, rk, n, buf);
  }
  free(buf);
  free(rk);
  return o;
}
