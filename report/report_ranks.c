/* The merged view of an MPI job's ranks (docs/report.md, "MPI jobs"): the
 * directives summed over ranks with each rank's spread, the findings that
 * the ranks share, and the ranks that stand far from the median. Each
 * process is first reduced to its record (its per-directive profile and
 * its findings, by name), which a part carries to the process that
 * writes the report (report_parts.c); the records are folded one at a
 * time into a table of the job's distinct directives and findings with a
 * value per rank, so the view costs directives and findings, not events,
 * and not every rank's lists at once. */
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

/* The records of the job's ranks, in rank order (then pid). */
static int cmp_ranked(const void *a, const void *b) {
  const omplens_rank_record *x = *(const omplens_rank_record *const *)a,
                            *y = *(const omplens_rank_record *const *)b;
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

/* ---- One rank's record ------------------------------------------------ */

static char *dup_fixed(const char *s) {
  char *d = strdup(s ? s : "");
  if (d)
    fix_utf8(d);
  return d;
}

void omplens_report__rank_record_free(omplens_rank_record *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->num_directives; i++)
    free(r->directives[i].location);
  for (size_t i = 0; i < r->num_findings; i++) {
    free(r->finding_list[i].category);
    free(r->finding_list[i].location);
    free(r->finding_list[i].item);
  }
  free(r->directives);
  free(r->finding_list);
  free(r->devices_used);
  free(r->job);
  memset(r, 0, sizeof *r);
  r->rank = -1;
}

static int record_directives(omplens_rank_record *r, const omplens_report_input *in, size_t proc) {
  size_t n;
  const omplens_directive_profile *d = omplens_analysis_profiles(in->procs[proc].analysis, &n);
  r->directives = calloc(n ? n : 1, sizeof *r->directives);
  if (!r->directives)
    return -1;
  for (size_t i = 0; i < n; i++, r->num_directives++) {
    char loc[4096];
    omplens_rank_directive *o = &r->directives[i];
    omplens_format_location(in, proc, d[i].codeptr, loc, sizeof loc);
    if (!(o->location = dup_fixed(loc)))
      return -1;
    o->total_ns = d[i].total_ns;
    o->bytes = d[i].h2d.bytes + d[i].d2h.bytes + d[i].d2d.bytes;
    o->executions = d[i].executions;
  }
  return 0;
}

static int record_findings(omplens_rank_record *r, const omplens_report_input *in, size_t proc) {
  size_t n, nev;
  const omplens_finding *f = omplens_analysis_findings(in->procs[proc].analysis, &n);
  const omplens_event *ev = omplens_trace_events(in->procs[proc].trace, &nev);
  r->finding_list = calloc(n ? n : 1, sizeof *r->finding_list);
  if (!r->finding_list)
    return -1;
  for (size_t i = 0; i < n; i++, r->num_findings++) {
    char loc[4096], item[256];
    omplens_rank_finding *o = &r->finding_list[i];
    omplens_format_location(in, proc, f[i].codeptr, loc, sizeof loc);
    omplens_variable v;
    int named = in->procs[proc].annotator && f[i].num_instances && f[i].instances[0].event < nev &&
                !omplens_annotate_variable(in->procs[proc].annotator,
                                           &ev[f[i].instances[0].event], &v) && v.item;
    if (named)
      snprintf(item, sizeof item, "%s", v.item);
    o->category = dup_fixed(omplens_category_name(f[i].category));
    o->location = dup_fixed(loc);
    o->item = named ? dup_fixed(item) : NULL;
    if (!o->category || !o->location || (named && !o->item))
      return -1;
    o->bytes = f[i].bytes;
    o->count = f[i].num_instances;
    o->total_bytes = f[i].total_bytes;
    o->savings_ns = f[i].savings_ns;
  }
  return 0;
}

int omplens_report__rank_record(const omplens_report_input *in, size_t proc,
                                omplens_rank_record *r) {
  memset(r, 0, sizeof *r);
  r->rank = -1;
  r->process = proc;
  const omplens_trace *t = in->procs[proc].trace;
  const omplens_trace_info *info = omplens_trace_get_info(t);
  const omplens_program_total *tot = omplens_analysis_total(in->procs[proc].analysis);
  if (!info || info->rank < 0 || !tot)
    return 0; /* no rank: no part in the merged view */
  r->pid = info->pid;
  r->job_size = info->job_size;
  if (info->job && !(r->job = dup_fixed(info->job)))
    goto oom;
  r->device_ns = tot->kernel_ns + tot->transfer_ns + tot->alloc_ns;
  r->transfer_bytes = tot->transfer_bytes;
  for (int c = 0; c < OMPLENS_CAT_COUNT; c++)
    r->findings += tot->count[c];
  int devices = info->num_devices > 0 ? info->num_devices : 0;
  unsigned char *used = calloc((size_t)(devices ? devices : 1), 1);
  r->devices_used = calloc((size_t)(devices ? devices : 1), sizeof *r->devices_used);
  if (!used || !r->devices_used) {
    free(used);
    goto oom;
  }
  omplens_report__devices_used(t, used, devices);
  for (int d = 0; d < devices; d++)
    if (used[d])
      r->devices_used[r->num_devices_used++] = d;
  free(used);
  if (record_directives(r, in, proc) || record_findings(r, in, proc))
    goto oom;
  r->rank = info->rank;
  return 0;
oom:
  omplens_report__rank_record_free(r);
  r->process = proc;
  return OMPLENS_REPORT_ENOMEM;
}

/* ---- The merged view --------------------------------------------------- */

static int add_directives(merge_table *t, const omplens_rank_record *rec, size_t r) {
  for (size_t i = 0; i < rec->num_directives; i++) {
    const omplens_rank_directive *d = &rec->directives[i];
    head_ctx h = {d->location, NULL, NULL, 0};
    merged *m = merge_find(t, d->location, directive_head, &h);
    if (!m)
      return -1;
    m->value[r] += d->total_ns;
    m->bytes[r] += d->bytes;
    m->sum_extra += d->executions;
  }
  return 0;
}

static int add_findings(merge_table *t, const omplens_rank_record *rec, size_t r) {
  for (size_t i = 0; i < rec->num_findings; i++) {
    const omplens_rank_finding *f = &rec->finding_list[i];
    size_t len = strlen(f->category) + strlen(f->location) + (f->item ? strlen(f->item) : 0) + 32;
    char stack[4600], *key = len <= sizeof stack ? stack : malloc(len);
    if (!key)
      return -1;
    snprintf(key, len, "%s|%s|%s|%llu", f->category, f->location, f->item ? f->item : "",
             (unsigned long long)f->bytes);
    head_ctx h = {f->location, f->category, f->item, f->bytes};
    merged *m = merge_find(t, key, finding_head, &h);
    if (key != stack)
      free(key);
    if (!m)
      return -1;
    m->value[r] += f->count;
    m->bytes[r] += f->total_bytes;
    m->sum_extra += f->savings_ns;
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

static json_t *outlier_list(uint64_t *const measure[M_COUNT], const omplens_rank_record *const *rk,
                            size_t n, uint64_t *scratch) {
  json_t *arr = json_array();
  for (int k = 0; k < M_COUNT; k++) {
    uint64_t med = median(measure[k], n, scratch);
    for (size_t r = 0; r < n; r++) {
      if (!far(measure[k][r], med))
        continue;
      json_t *o = json_object();
      json_object_set_new(o, "rank", json_integer(rk[r]->rank));
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

static json_t *rank_entry(const omplens_rank_record *rec, uint64_t *const m[M_COUNT], size_t r) {
  json_t *o = json_object();
  json_object_set_new(o, "rank", json_integer(rec->rank));
  json_object_set_new(o, "process", json_integer((json_int_t)rec->process));
  json_object_set_new(o, "pid", json_integer(rec->pid));
  json_t *used = json_array();
  for (size_t d = 0; d < rec->num_devices_used; d++)
    json_array_append_new(used, json_integer(rec->devices_used[d]));
  json_object_set_new(o, "devices_used", used);
  for (int k = 0; k < M_COUNT; k++)
    set_u64(o, MEASURE_NAMES[k], m[k][r]);
  return o;
}

/* The view of the ranks rk[0..n) (in rank order), whose directives and
 * findings are in dirs and finds, per rank in that order. */
static json_t *build(const omplens_rank_record *const *rk, size_t n, uint64_t *buf,
                     merge_table *dirs, merge_table *finds) {
  uint64_t *measure[M_COUNT] = {buf, buf + n, buf + 2 * n}, *scratch = buf + 3 * n;
  int job_size = 0;
  for (size_t r = 0; r < n; r++) {
    job_size = rk[r]->job_size > job_size ? rk[r]->job_size : job_size;
    measure[M_DEVICE_NS][r] = rk[r]->device_ns;
    measure[M_TRANSFER_BYTES][r] = rk[r]->transfer_bytes;
    measure[M_FINDINGS][r] = rk[r]->findings;
  }
  sort_ranks = n;
  if (dirs->n) /* an empty table has no items array, which qsort may not take */
    qsort(dirs->items, dirs->n, sizeof *dirs->items, cmp_merged);
  if (finds->n)
    qsort(finds->items, finds->n, sizeof *finds->items, cmp_merged_savings);
  json_t *o = json_object();
  json_object_set_new(o, "ranks", json_integer((json_int_t)n));
  json_object_set_new(o, "job_size", job_size ? json_integer(job_size) : json_null());
  if (rk[0]->job)
    json_object_set_new(o, "job", json_string(rk[0]->job));
  json_object_set_new(o, "far_ratio", json_real(OMPLENS_REPORT_FAR_RATIO));
  json_t *procs = json_array();
  for (size_t r = 0; r < n; r++)
    json_array_append_new(procs, rank_entry(rk[r], measure, r));
  json_object_set_new(o, "processes", procs);
  json_object_set_new(o, "directives", directive_list(dirs, scratch));
  json_object_set_new(o, "findings", finding_list(finds));
  json_object_set_new(o, "outliers", outlier_list(measure, rk, n, scratch));
  return o;
}

static int same_job(const char *a, const char *b) {
  return a == b || (a && b && !strcmp(a, b));
}

size_t omplens_report__ranks_jobs(const omplens_rank_record *records, size_t n) {
  size_t jobs = 0;
  for (size_t i = 0; i < n; i++) {
    if (records[i].rank < 0)
      continue;
    size_t k = 0;
    while (k < i && (records[k].rank < 0 || !same_job(records[k].job, records[i].job)))
      k++;
    jobs += k == i;
  }
  return jobs;
}

/* ---- The merge, one record at a time ------------------------------------ */

struct omplens_report__merge {
  size_t slots;
  merge_table dirs, finds;  /* values per slot */
  omplens_rank_record *rec; /* per slot: rank -1 unless merged; no lists */
  int have_job;             /* the first record with a rank was met: its job is merged */
  char *job;
  int failed;
};

omplens_report__merge *omplens_report__merge_new(size_t slots) {
  omplens_report__merge *m = calloc(1, sizeof *m);
  if (!m || !(m->rec = calloc(slots ? slots : 1, sizeof *m->rec))) {
    free(m);
    return NULL;
  }
  m->slots = slots;
  m->dirs.ranks = m->finds.ranks = slots;
  for (size_t i = 0; i < slots; i++)
    m->rec[i].rank = -1;
  return m;
}

void omplens_report__merge_free(omplens_report__merge *m) {
  if (!m)
    return;
  merge_free(&m->dirs);
  merge_free(&m->finds);
  for (size_t i = 0; i < m->slots; i++)
    omplens_report__rank_record_free(&m->rec[i]);
  free(m->rec);
  free(m->job);
  free(m);
}

int omplens_report__merge_add(omplens_report__merge *m, const omplens_rank_record *r, size_t slot) {
  if (m->failed || slot >= m->slots || m->rec[slot].rank >= 0)
    return m->failed = -1;
  if (r->rank < 0)
    return 0;
  if (!m->have_job) {
    m->have_job = 1;
    if (r->job && !(m->job = strdup(r->job)))
      return m->failed = -1;
  } else if (!same_job(m->job, r->job)) {
    return 0; /* another job's rank (docs/report.md, "MPI jobs") */
  }
  omplens_rank_record *o = &m->rec[slot];
  *o = (omplens_rank_record){r->process, -1, r->pid, r->job_size, NULL, r->device_ns,
                             r->transfer_bytes, r->findings, NULL, 0, NULL, 0, NULL, 0};
  o->devices_used = calloc(r->num_devices_used ? r->num_devices_used : 1, sizeof *o->devices_used);
  if (!o->devices_used || (r->job && !(o->job = strdup(r->job))) ||
      add_directives(&m->dirs, r, slot) || add_findings(&m->finds, r, slot))
    return m->failed = -1;
  memcpy(o->devices_used, r->devices_used, r->num_devices_used * sizeof *o->devices_used);
  o->num_devices_used = r->num_devices_used;
  o->rank = r->rank;
  return 0;
}

/* The values of a table in the order of the ranks (slot[k] is rank k's). */
static int to_rank_order(merge_table *t, const size_t *slot, size_t n) {
  for (size_t i = 0; i < t->n; i++) {
    merged *m = &t->items[i];
    uint64_t *v = calloc(n, sizeof *v), *b = calloc(n, sizeof *b);
    if (!v || !b) {
      free(v);
      free(b);
      return -1;
    }
    for (size_t k = 0; k < n; k++) {
      v[k] = m->value[slot[k]];
      b[k] = m->bytes[slot[k]];
    }
    free(m->value);
    free(m->bytes);
    m->value = v;
    m->bytes = b;
  }
  t->ranks = n;
  return 0;
}

json_t *omplens_report__merge_finish(omplens_report__merge *m) {
  size_t n = 0;
  json_t *o = NULL;
  const omplens_rank_record **rk = calloc(m->slots ? m->slots : 1, sizeof *rk);
  size_t *slot = calloc(m->slots ? m->slots : 1, sizeof *slot);
  for (size_t i = 0; rk && i < m->slots; i++)
    if (m->rec[i].rank >= 0)
      rk[n++] = &m->rec[i];
  uint64_t *buf = n >= 2 && !m->failed ? calloc(4 * n, sizeof *buf) : NULL;
  if (buf && slot) {
    qsort(rk, n, sizeof *rk, cmp_ranked);
    for (size_t k = 0; k < n; k++)
      slot[k] = (size_t)(rk[k] - m->rec);
    if (!to_rank_order(&m->dirs, slot, n) && !to_rank_order(&m->finds, slot, n))
      o = build(rk, n, buf, &m->dirs, &m->finds);
  }
  free(buf);
  free(slot);
  free(rk);
  omplens_report__merge_free(m);
  return o;
}

json_t *omplens_report__ranks_of(const omplens_rank_record *records, size_t n) {
  omplens_report__merge *m = omplens_report__merge_new(n);
  for (size_t i = 0; m && i < n; i++)
    omplens_report__merge_add(m, &records[i], i);
  return m ? omplens_report__merge_finish(m) : NULL;
}

json_t *omplens_report__ranks(const omplens_report_input *in) {
  omplens_rank_record *rec = calloc(in->num_procs ? in->num_procs : 1, sizeof *rec);
  if (!rec)
    return NULL;
  int failed = 0;
  for (size_t p = 0; p < in->num_procs && !failed; p++)
    failed = omplens_report__rank_record(in, p, &rec[p]) != 0;
  json_t *o = failed ? NULL : omplens_report__ranks_of(rec, in->num_procs);
  for (size_t p = 0; p < in->num_procs; p++)
    omplens_report__rank_record_free(&rec[p]);
  free(rec);
  return o;
}
