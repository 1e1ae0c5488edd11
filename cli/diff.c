/* omplens diff BEFORE AFTER: what changed between two runs of a program, and
 * how well the what-if model predicted it.
 *
 * Each side is read from its traces (a trace, a directory of traces, or an
 * `omplens run` output directory, whose latest run is used) and analysed
 * like `omplens report` does; an output directory without traces is read
 * from its findings.json (then without the what-if). Findings are matched
 * across the runs by category, device, directive (file:line, else module
 * and offset) and variable (else the size of one operation); a finding
 * whose directive only moved to another line of the same function still
 * matches (of several alike, those that moved least pair). The what-if
 * model (docs/whatif.md) predicts BEFORE's run time without the operations
 * of the findings that are gone, which is compared with AFTER's measured
 * run time. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff.h"
#include "trace_dir.h"
#include "omplens_annotate.h"
#include "omplens_config.h"
#include "omplens_detect.h"
#include "omplens_report.h"
#include "omplens_trace.h"
#include "omplens_whatif.h"

/* Exit codes, as in omplens.c (sysexits.h values). */
enum diff_exit {
  DIFF_OK = 0,
  DIFF_USAGE = 64,    /* bad command line */
  DIFF_DATAERR = 65,  /* a trace or findings.json is unreadable */
  DIFF_NOINPUT = 66,  /* an input does not exist or holds no trace */
  DIFF_SOFTWARE = 70, /* internal error, out of memory */
  DIFF_CANTCREAT = 73,/* cannot write the --json file */
};

enum { BEFORE = 0, AFTER = 1 };

/* Version of the --json document. 2: findings use the categories of
 * findings.json version 2, and each run says which version its findings
 * follow (findings_schema_version). */
#define DIFF_SCHEMA_VERSION 2

/* How a finding fared. */
enum diff_status { STATUS_GONE, STATUS_NEW, STATUS_UNCHANGED, STATUS_MERGED };
static const char *const status_names[] = {"gone", "new", "unchanged", "merged"};

static void diff_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void diff_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("omplens: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void print_diff_usage(FILE *out) {
  fputs("Usage: omplens diff [--json FILE] BEFORE AFTER\n"
        "\n"
        "Compares two runs of a program, typically before and after fixing what\n"
        "omplens found: which findings are gone, new or unchanged (with their counts),\n"
        "the bytes and time of transfers and allocations, the mappings still present\n"
        "at exit, and the run time. For the findings that are gone, the what-if model\n"
        "predicts BEFORE's run time without their operations (docs/whatif.md); that\n"
        "prediction is compared with AFTER's measured run time.\n"
        "\n"
        "BEFORE and AFTER are each a trace file, a directory of *.trace files, or an\n"
        "`omplens run` output directory (its latest run in traces/; without traces,\n"
        "its findings.json, which gives no prediction).\n"
        "\n"
        "Findings match when category, device, directive (file:line, else module and\n"
        "offset) and variable (else the size of one operation) are equal; a directive\n"
        "that moved to another line of the same function still matches (of several\n"
        "alike, those that moved least pair). Files are compared from each run's\n"
        "sources root (the git work tree holding them, else their common directory),\n"
        "so a checkout moved or rebuilt elsewhere matches.\n"
        "\n"
        "Options:\n"
        "      --json FILE   also write the comparison to FILE as JSON\n"
        "  -h, --help        show this help\n"
        "\n"
        "Exit codes: 0 compared, 64 usage, 65 unreadable trace, 66 missing input,\n"
        "70 internal error, 73 cannot write FILE.\n",
        out);
}

/* ---- data ------------------------------------------------------------------ */

/* One process of a run, read from its trace. */
typedef struct diff_process {
  omplens_trace *trace;
  omplens_analysis *analysis;
  omplens_annotator *annotator; /* NULL: locations by module and offset */
  omplens_whatif *model;        /* NULL: no prediction for this process */
} diff_process;

typedef struct diff_totals {
  uint64_t run_ns; /* the longest process */
  uint64_t transfers, transfer_bytes, transfer_ns;
  uint64_t allocs, alloc_ns;
  uint64_t kernels, kernel_ns;
  uint64_t findings, instances;
  uint64_t leftovers; /* mappings still present when the program ended */
} diff_totals;

/* A finding group of one run, with what identifies it across runs. Strings
 * belong to the run's annotators or findings.json document. */
typedef struct diff_item {
  int category;
  int device;
  const char *file;     /* NULL when unknown, then module+offset */
  const char *path;     /* file from its run's sources root: what matches */
  const char *function; /* NULL when unknown */
  unsigned line;
  const char *module;   /* NULL when unknown, then offset is the codeptr */
  uint64_t offset;
  const char *variable; /* base variable; NULL: the size identifies it */
  uint64_t bytes;       /* one operation */
  uint64_t count, total_bytes, savings_ns;
  int run;              /* BEFORE or AFTER */
  size_t proc;
  const omplens_finding *finding; /* NULL when read from findings.json */
  size_t entry;         /* the diff_entry it belongs to */
} diff_item;

typedef struct diff_run {
  const char *input;   /* as given on the command line */
  char *source;        /* what was read: a trace, a directory, a findings.json */
  diff_process *procs;
  size_t num_procs, cap_procs;
  json_t *document;    /* findings.json, when read instead of traces */
  int findings_version; /* findings.json schema whose categories its findings follow */
  diff_totals totals;
} diff_run;

/* One finding matched across the runs (several groups of one run may share
 * a key, e.g. one per host buffer: they are summed). */
typedef struct diff_entry {
  const diff_item *item[2]; /* a representative of each run, or NULL */
  uint64_t count[2], total_bytes[2], savings_ns[2];
  size_t groups[2];
  int status;               /* enum diff_status */
} diff_entry;

typedef struct diff_whatif {
  int available;            /* a prediction was made */
  const char *why_not;      /* when not available */
  size_t findings, operations;
  uint64_t removed_ns, hidden_ns, predicted_run_ns, plain_run_ns, waiting_run_ns;
  double predicted_speedup, plain_speedup, waiting_speedup;
} diff_whatif;

typedef struct diff_result {
  diff_run runs[2];
  diff_item *items;
  size_t num_items, cap_items;
  diff_entry *entries;
  size_t num_entries;
  size_t by_status[4];
  diff_whatif whatif;
  double measured_speedup;  /* 0 when AFTER's run time is 0 */
} diff_result;

/* ---- loading a run ----------------------------------------------------------- */

static int add_process(diff_run *r, omplens_trace *t) {
  if (r->num_procs == r->cap_procs) {
    size_t cap = r->cap_procs ? 2 * r->cap_procs : 4;
    diff_process *p = realloc(r->procs, cap * sizeof *p);
    if (!p)
      return OMPLENS_DETECT_ENOMEM;
    r->procs = p;
    r->cap_procs = cap;
  }
  diff_process *p = &r->procs[r->num_procs];
  memset(p, 0, sizeof *p);
  p->trace = t;
  size_t n, nr;
  const omplens_event *ev = omplens_trace_events(t, &n);
  const omplens_region *reg = omplens_trace_regions(t, &nr);
  uint64_t run_ns = omplens_trace_get_info(t)->duration_ns;
  int rc = omplens_detect_trace(t, &p->analysis);
  if (rc)
    return rc;
  r->num_procs++;
  /* Without these the diff still works: module+offset, no prediction. */
  omplens_annotator_create(t, NULL, &p->annotator);
  omplens_whatif_create(ev, n, reg, nr, run_ns, &p->model);
  return 0;
}

static int load_trace(diff_run *r, const char *path) {
  omplens_trace *t;
  int rc = omplens_trace_open(path, &t), err = errno;
  if (rc) {
    diff_error("cannot read trace %s: %s", path, omplens_cli_trace_error(path, rc, err));
    if (rc == OMPLENS_TRACE_EIO)
      return err == ENOENT ? DIFF_NOINPUT : DIFF_DATAERR;
    return rc == OMPLENS_TRACE_ENOMEM ? DIFF_SOFTWARE : DIFF_DATAERR;
  }
  rc = add_process(r, t);
  if (rc) {
    omplens_trace_close(t);
    diff_error("cannot analyse %s: %s", path, omplens_detect_strerror(rc));
    return rc == OMPLENS_DETECT_ENOMEM ? DIFF_SOFTWARE : DIFF_DATAERR;
  }
  return 0;
}

static int load_traces(diff_run *r, char **names, size_t n) {
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++)
    rc = load_trace(r, names[i]);
  return rc;
}

static int load_findings_json(diff_run *r, const char *path);

static int load_dir(diff_run *r, const char *dir) {
  char **names;
  long n = omplens_cli_list_traces(dir, &names, &r->source);
  if (n < 0) {
    diff_error("cannot open directory %s: %s", dir, strerror(errno));
    return DIFF_NOINPUT;
  }
  if (n > 0) {
    int rc = load_traces(r, names, (size_t)n);
    omplens_cli_free_names(names, (size_t)n);
    return rc;
  }
  free(names);
  char *json;
  if (asprintf(&json, "%s/findings.json", dir) < 0)
    return DIFF_SOFTWARE;
  struct stat st;
  if (stat(json, &st)) {
    free(json);
    diff_error("no traces and no findings.json in %s", dir);
    return DIFF_NOINPUT;
  }
  r->source = json;
  return load_findings_json(r, json);
}

static int load_input(diff_run *r) {
  struct stat st;
  if (stat(r->input, &st)) {
    diff_error("cannot read %s: %s", r->input, strerror(errno));
    return DIFF_NOINPUT;
  }
  if (S_ISDIR(st.st_mode))
    return load_dir(r, r->input);
  r->source = strdup(r->input);
  size_t len = strlen(r->input);
  if (len >= 5 && !strcmp(r->input + len - 5, ".json"))
    return load_findings_json(r, r->input);
  return load_trace(r, r->input);
}

static void run_free(diff_run *r) {
  for (size_t i = 0; i < r->num_procs; i++) {
    omplens_whatif_destroy(r->procs[i].model);
    omplens_annotator_destroy(r->procs[i].annotator);
    omplens_analysis_free(r->procs[i].analysis);
    omplens_trace_close(r->procs[i].trace);
  }
  free(r->procs);
  free(r->source);
  json_decref(r->document);
}

/* ---- items ------------------------------------------------------------------- */

static diff_item *new_item(diff_result *d) {
  if (d->num_items == d->cap_items) {
    size_t cap = d->cap_items ? 2 * d->cap_items : 64;
    diff_item *p = realloc(d->items, cap * sizeof *p);
    if (!p)
      return NULL;
    d->items = p;
    d->cap_items = cap;
  }
  diff_item *it = &d->items[d->num_items++];
  memset(it, 0, sizeof *it);
  return it;
}

static const omplens_module *find_module(const omplens_trace *t, uint64_t addr) {
  const omplens_trace_info *info = omplens_trace_get_info(t);
  for (size_t i = 0; info && i < info->num_modules; i++)
    if (addr >= info->modules[i].low && addr < info->modules[i].high)
      return &info->modules[i];
  return NULL;
}

/* Where a finding's directive is: source when known, else module+offset. */
static void locate(const diff_process *p, uint64_t codeptr, diff_item *it) {
  omplens_location loc = {0};
  if (p->annotator)
    omplens_annotate_location(p->annotator, codeptr, &loc);
  it->file = loc.file;
  it->line = loc.line;
  it->function = loc.function;
  it->module = loc.module;
  it->offset = loc.module ? loc.offset : codeptr;
  const omplens_module *m = loc.module ? NULL : find_module(p->trace, codeptr);
  if (m) {
    it->module = m->path;
    it->offset = codeptr - m->base;
  }
}

static int add_trace_items(diff_result *d, int run) {
  const diff_run *r = &d->runs[run];
  for (size_t p = 0; p < r->num_procs; p++) {
    const diff_process *proc = &r->procs[p];
    size_t nf, nev;
    const omplens_finding *f = omplens_analysis_findings(proc->analysis, &nf);
    const omplens_event *ev = omplens_trace_events(proc->trace, &nev);
    for (size_t i = 0; i < nf; i++) {
      diff_item *it = new_item(d);
      if (!it)
        return DIFF_SOFTWARE;
      *it = (diff_item){.category = f[i].category, .device = f[i].device,
                        .bytes = f[i].bytes, .count = f[i].num_instances,
                        .total_bytes = f[i].total_bytes, .savings_ns = f[i].savings_ns,
                        .run = run, .proc = p, .finding = &f[i]};
      locate(proc, f[i].codeptr, it);
      omplens_variable v;
      if (proc->annotator && f[i].num_instances && f[i].instances[0].event < nev &&
          !omplens_annotate_variable(proc->annotator, &ev[f[i].instances[0].event], &v))
        it->variable = v.name;
    }
  }
  return 0;
}

static void add_trace_totals(diff_run *r) {
  for (size_t p = 0; p < r->num_procs; p++) {
    const omplens_program_total *t = omplens_analysis_total(r->procs[p].analysis);
    diff_totals *s = &r->totals;
    if (t->run_ns > s->run_ns)
      s->run_ns = t->run_ns;
    s->transfers += t->num_transfers;
    s->transfer_bytes += t->transfer_bytes;
    s->transfer_ns += t->transfer_ns;
    s->allocs += t->num_allocs;
    s->alloc_ns += t->alloc_ns;
    s->kernels += t->num_kernels;
    s->kernel_ns += t->kernel_ns;
    size_t left;
    omplens_analysis_leftovers(r->procs[p].analysis, &left);
    s->leftovers += left;
  }
}

/* ---- findings.json ------------------------------------------------------------- */

static uint64_t json_u64(const json_t *o, const char *key) {
  json_int_t v = json_integer_value(json_object_get(o, key));
  return v > 0 ? (uint64_t)v : 0;
}

static int category_of(const char *name) {
  for (int c = 0; name && c < OMPLENS_CAT_COUNT; c++)
    if (!strcmp(name, omplens_category_name(c)))
      return c;
  return -1;
}

/* One finding of findings.json as an item; -1 when it is not one. */
static int json_item(diff_item *it, const json_t *f, int run, size_t proc) {
  it->category = category_of(json_string_value(json_object_get(f, "category")));
  const json_t *dev = json_object_get(f, "device");
  it->device = json_is_integer(dev) ? (int)json_integer_value(dev) : OMPLENS_HOST;
  const json_t *loc = json_object_get(f, "location");
  it->file = json_string_value(json_object_get(loc, "file"));
  it->line = (unsigned)json_u64(loc, "line");
  it->function = json_string_value(json_object_get(loc, "function"));
  it->module = json_string_value(json_object_get(loc, "module"));
  const char *off = json_string_value(json_object_get(loc, it->module ? "offset" : "codeptr"));
  it->offset = off ? strtoull(off, NULL, 16) : 0;
  it->variable = json_string_value(json_object_get(json_object_get(f, "variable"), "name"));
  it->bytes = json_u64(f, "bytes");
  it->count = json_u64(f, "count");
  it->total_bytes = json_u64(f, "total_bytes");
  it->savings_ns = json_u64(f, "savings_ns");
  it->run = run;
  it->proc = proc;
  return it->category < 0 ? -1 : 0;
}

static int add_json_process(diff_result *d, int run, const json_t *proc, size_t p) {
  diff_totals *s = &d->runs[run].totals;
  const json_t *t = json_object_get(proc, "totals");
  if (json_u64(t, "run_ns") > s->run_ns)
    s->run_ns = json_u64(t, "run_ns");
  s->transfers += json_u64(t, "transfers");
  s->transfer_bytes += json_u64(t, "transfer_bytes");
  s->transfer_ns += json_u64(t, "transfer_ns");
  s->allocs += json_u64(t, "allocations");
  s->alloc_ns += json_u64(t, "alloc_ns");
  s->kernels += json_u64(t, "kernels");
  s->kernel_ns += json_u64(t, "kernel_ns");
  s->leftovers += json_array_size(json_object_get(proc, "mappings_at_exit"));
  size_t i;
  const json_t *f;
  json_array_foreach(json_object_get(proc, "findings"), i, f) {
    diff_item *it = new_item(d);
    if (!it)
      return DIFF_SOFTWARE;
    if (json_item(it, f, run, p))
      d->num_items--; /* a category this omplens does not know */
  }
  return 0;
}

static int add_json_items(diff_result *d, int run) {
  const json_t *procs = json_object_get(d->runs[run].document, "processes");
  size_t p;
  const json_t *proc;
  json_array_foreach(procs, p, proc) {
    int rc = add_json_process(d, run, proc, p);
    if (rc)
      return rc;
  }
  return 0;
}

static int load_findings_json(diff_run *r, const char *path) {
  json_error_t err;
  r->document = json_load_file(path, 0, &err);
  if (!r->document) {
    diff_error("cannot read %s: %s (line %d)", path, err.text, err.line);
    return DIFF_DATAERR;
  }
  const char *schema = json_string_value(json_object_get(r->document, "schema"));
  json_int_t version = json_integer_value(json_object_get(r->document, "schema_version"));
  if (!schema || strcmp(schema, "omplens-findings") || version < 1 ||
      version > OMPLENS_FINDINGS_SCHEMA_VERSION ||
      !json_is_array(json_object_get(r->document, "processes"))) {
    diff_error("%s is not an omplens findings.json this version can read", path);
    return DIFF_DATAERR;
  }
  r->findings_version = (int)version;
  return 0;
}

/* The length of the directory of run's sources: the git work tree holding
 * its files, else their common directory; 0 when none is absolute. */
static size_t sources_root(const diff_result *d, int run, char *root, size_t size) {
  size_t n = 0;
  bool any = false;
  for (size_t i = 0; i < d->num_items; i++) {
    const char *f = d->items[i].file;
    if (d->items[i].run != run || !f || f[0] != '/')
      continue;
    if (!any) {
      const char *slash = strrchr(f, '/');
      n = (size_t)(slash - f);
      if (n >= size)
        return 0;
      memcpy(root, f, n);
      root[n] = 0;
      any = true;
    }
    size_t k = 0;
    while (k < n && root[k] == f[k])
      k++;
    if (k < n || f[n] != '/') { /* cut to the last '/' both have */
      while (k > 0 && !(root[k] == '/' && f[k] == '/'))
        k--;
      n = k;
      root[n] = 0;
    }
  }
  char probe[PATH_MAX];
  for (size_t k = n; any && k > 0;) {
    struct stat st;
    if (snprintf(probe, sizeof probe, "%.*s/.git", (int)k, root) < (int)sizeof probe &&
        !stat(probe, &st)) {
      n = k;
      break;
    }
    do /* the parent */
      k--;
    while (k > 0 && root[k] != '/');
  }
  root[n] = 0;
  return n;
}

/* Matching keys: each file from its run's sources root, so that a checkout
 * moved or rebuilt elsewhere still matches. When one run's root holds the
 * other's (a run whose findings are in fewer directories), both use the
 * outer one. */
static void relative_paths(diff_result *d) {
  char root[2][PATH_MAX];
  size_t n[2];
  for (int run = BEFORE; run <= AFTER; run++)
    n[run] = sources_root(d, run, root[run], sizeof root[run]);
  for (int run = BEFORE; run <= AFTER; run++) {
    int other = !run;
    if (n[other] && n[other] < n[run] && !strncmp(root[run], root[other], n[other]) &&
        root[run][n[other]] == '/')
      n[run] = n[other];
  }
  for (size_t i = 0; i < d->num_items; i++) {
    diff_item *it = &d->items[i];
    size_t k = n[it->run];
    it->path = it->file && k && !strncmp(it->file, root[it->run], k) && it->file[k] == '/'
                   ? it->file + k + 1
                   : it->file;
  }
}

static int collect_items(diff_result *d) {
  for (int run = BEFORE; run <= AFTER; run++) {
    diff_run *r = &d->runs[run];
    int rc = r->document ? add_json_items(d, run) : add_trace_items(d, run);
    if (rc)
      return rc;
    if (!r->document)
      add_trace_totals(r);
  }
  relative_paths(d);
  for (size_t i = 0; i < d->num_items; i++) {
    diff_totals *s = &d->runs[d->items[i].run].totals;
    s->findings++;
    s->instances += d->items[i].count;
  }
  return 0;
}

/* ---- matching ------------------------------------------------------------------ */

static int cmp_text(const char *a, const char *b) {
  if (!a || !b)
    return (a != NULL) - (b != NULL);
  return strcmp(a, b);
}

#define CMP_NUM(a, b)                                                                     \
  do {                                                                                     \
    if ((a) != (b))                                                                        \
      return (a) < (b) ? -1 : 1;                                                           \
  } while (0)

static int cmp_directive(const diff_item *a, const diff_item *b) {
  int c = cmp_text(a->path, b->path);
  if (c)
    return c;
  if (a->file) {
    CMP_NUM(a->line, b->line);
    return 0;
  }
  c = cmp_text(a->module, b->module);
  if (c)
    return c;
  CMP_NUM(a->offset, b->offset);
  return 0;
}

static int cmp_buffer(const diff_item *a, const diff_item *b) {
  int c = cmp_text(a->variable, b->variable);
  if (c || a->variable)
    return c;
  CMP_NUM(a->bytes, b->bytes);
  return 0;
}

/* The identity of a finding across runs. */
static int cmp_key(const diff_item *a, const diff_item *b) {
  CMP_NUM(a->category, b->category);
  CMP_NUM(a->device, b->device);
  int c = cmp_directive(a, b);
  return c ? c : cmp_buffer(a, b);
}

static int cmp_item(const void *pa, const void *pb) {
  const diff_item *a = pa, *b = pb;
  int c = cmp_key(a, b);
  if (c)
    return c;
  CMP_NUM(a->run, b->run);
  CMP_NUM(a->proc, b->proc);
  return 0;
}

static void add_to_entry(diff_entry *e, const diff_item *it) {
  if (!e->item[it->run])
    e->item[it->run] = it;
  e->count[it->run] += it->count;
  e->total_bytes[it->run] += it->total_bytes;
  e->savings_ns[it->run] += it->savings_ns;
  e->groups[it->run]++;
}

static int entry_status(const diff_entry *e) {
  if (!e->groups[AFTER])
    return STATUS_GONE;
  return e->groups[BEFORE] ? STATUS_UNCHANGED : STATUS_NEW;
}

/* Items with equal keys form one entry. */
static int group_items(diff_result *d) {
  if (d->num_items) /* qsort wants a non-NULL base even for 0 items */
    qsort(d->items, d->num_items, sizeof *d->items, cmp_item);
  d->entries = calloc(d->num_items ? d->num_items : 1, sizeof *d->entries);
  if (!d->entries)
    return DIFF_SOFTWARE;
  for (size_t i = 0; i < d->num_items; i++) {
    if (!i || cmp_key(&d->items[i - 1], &d->items[i]))
      d->num_entries++;
    d->items[i].entry = d->num_entries - 1;
    add_to_entry(&d->entries[d->num_entries - 1], &d->items[i]);
  }
  for (size_t e = 0; e < d->num_entries; e++)
    d->entries[e].status = entry_status(&d->entries[e]);
  return 0;
}

/* Second pass: an entry of one run only, whose directive has a source
 * function, matches one of the other run in the same function when only
 * the line differs (lines added above it by the fix). */
static const diff_item *some_item(const diff_entry *e) {
  return e->item[BEFORE] ? e->item[BEFORE] : e->item[AFTER];
}

static int cmp_moved(const void *pa, const void *pb) {
  const diff_entry *a = *(const diff_entry *const *)pa, *b = *(const diff_entry *const *)pb;
  const diff_item *x = some_item(a), *y = some_item(b);
  CMP_NUM(x->category, y->category);
  CMP_NUM(x->device, y->device);
  int c = cmp_text(x->path, y->path);
  if (!c)
    c = cmp_text(x->function, y->function);
  if (!c)
    c = cmp_buffer(x, y);
  if (c)
    return c;
  CMP_NUM(x->line, y->line);
  return 0;
}

static int same_place(const diff_entry *a, const diff_entry *b) {
  const diff_item *x = some_item(a), *y = some_item(b);
  return x->category == y->category && x->device == y->device && !cmp_text(x->path, y->path) &&
         !cmp_text(x->function, y->function) && !cmp_buffer(x, y);
}

static void take_moved(diff_entry *gone, diff_entry *moved) {
  gone->item[AFTER] = moved->item[AFTER];
  gone->count[AFTER] = moved->count[AFTER];
  gone->total_bytes[AFTER] = moved->total_bytes[AFTER];
  gone->savings_ns[AFTER] = moved->savings_ns[AFTER];
  gone->groups[AFTER] = moved->groups[AFTER];
  gone->status = STATUS_UNCHANGED;
  moved->status = STATUS_MERGED;
}

/* How far apart a gone entry's line and a new one's are, either order. */
static uint64_t line_distance(const diff_entry *x, const diff_entry *y) {
  unsigned a = some_item(x)->line, b = some_item(y)->line;
  return a > b ? a - b : b - a;
}

/* Pairs the gone and new entries of one place: as many as the fewer side
 * has, in line order, those whose lines moved least in all (a fix that
 * removes the first of three directives of a kind moves the other two up
 * one line: they pair with their own, and the first is gone). The pairs
 * are chosen by dynamic programming over the two lists; past a size that
 * would take too much memory, the first of each side pair. */
static void pair_moved(diff_entry **group, size_t n) {
  diff_entry **gone = calloc(n + 1, sizeof *gone), **moved = calloc(n + 1, sizeof *moved);
  size_t ng = 0, nm = 0;
  for (size_t i = 0; gone && moved && i < n; i++) {
    if (group[i]->status == STATUS_GONE)
      gone[ng++] = group[i];
    else if (group[i]->status == STATUS_NEW)
      moved[nm++] = group[i];
  }
  /* the longer side skips some: a[i] pairs with b[j] or is skipped */
  bool swap = nm > ng;
  diff_entry **a = swap ? moved : gone, **b = swap ? gone : moved;
  size_t na = swap ? nm : ng, nb = swap ? ng : nm, w = nb + 1;
  uint64_t *cost = nb && na * w < ((size_t)1 << 22) ? malloc((na + 1) * w * sizeof *cost) : NULL;
  if (cost) { /* cost[i * w + j]: the first i of a holding the first j of b */
    for (size_t i = 0; i <= na; i++)
      for (size_t j = 0; j <= nb && j <= i; j++) {
        uint64_t best = UINT64_MAX;
        if (i > j) /* a[i - 1] skipped */
          best = cost[(i - 1) * w + j];
        if (j) {
          uint64_t pair = cost[(i - 1) * w + j - 1] + line_distance(a[i - 1], b[j - 1]);
          if (pair <= best) /* on a tie, the pair in order */
            best = pair;
        }
        cost[i * w + j] = i || j ? best : 0;
      }
    for (size_t i = na, j = nb; j;) { /* back from the end */
      if (cost[(i - 1) * w + j - 1] + line_distance(a[i - 1], b[j - 1]) == cost[i * w + j]) {
        take_moved(swap ? b[j - 1] : a[i - 1], swap ? a[i - 1] : b[j - 1]);
        j--;
      }
      i--;
    }
  } else {
    for (size_t k = 0; k < ng && k < nm; k++)
      take_moved(gone[k], moved[k]);
  }
  free(cost);
  free(gone);
  free(moved);
}

static int match_moved(diff_result *d) {
  diff_entry **cand = calloc(d->num_entries ? d->num_entries : 1, sizeof *cand);
  if (!cand)
    return DIFF_SOFTWARE;
  size_t n = 0;
  for (size_t e = 0; e < d->num_entries; e++) {
    const diff_item *it = some_item(&d->entries[e]);
    if (d->entries[e].status != STATUS_UNCHANGED && it->file && it->function)
      cand[n++] = &d->entries[e];
  }
  if (n) /* qsort wants a non-NULL base even for 0 items */
    qsort(cand, n, sizeof *cand, cmp_moved);
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && same_place(cand[i], cand[j]); j++)
      ;
    pair_moved(cand + i, j - i);
  }
  free(cand);
  for (size_t e = 0; e < d->num_entries; e++)
    d->by_status[d->entries[e].status]++;
  return 0;
}

/* ---- what-if ------------------------------------------------------------------- */

/* BEFORE's findings of one process whose entry is gone. */
static size_t gone_findings(const diff_result *d, size_t proc, const omplens_finding **out) {
  size_t n = 0;
  for (size_t i = 0; i < d->num_items; i++) {
    const diff_item *it = &d->items[i];
    if (it->run == BEFORE && it->proc == proc && d->entries[it->entry].status == STATUS_GONE)
      out[n++] = it->finding;
  }
  return n;
}

static double ratio(uint64_t a, uint64_t b) {
  return b ? (double)a / (double)b : 0.0;
}

/* Predicts each process of BEFORE without its gone findings; the run is as
 * long as its longest process. */
static int predict_one(diff_result *d, size_t p, const omplens_finding **buf) {
  const diff_process *proc = &d->runs[BEFORE].procs[p];
  diff_whatif *w = &d->whatif;
  uint64_t run = omplens_analysis_total(proc->analysis)->run_ns;
  size_t nf = gone_findings(d, p, buf);
  omplens_whatif_result r = {.run_ns = run, .predicted_ns = run, .waiting_predicted_ns = run};
  uint32_t *ops = NULL;
  size_t k = 0;
  if (nf && !proc->model) {
    w->why_not = "the model could not be built for a trace of BEFORE";
    return 0;
  }
  if (nf && (omplens_whatif_finding_ops(proc->model, buf, nf, &ops, &k) ||
             omplens_whatif_predict(proc->model, ops, k, &r))) {
    free(ops);
    return DIFF_SOFTWARE;
  }
  free(ops);
  w->findings += nf;
  w->operations += k;
  w->removed_ns += r.removed_ns;
  w->hidden_ns += r.hidden_ns;
  if (r.predicted_ns > w->predicted_run_ns)
    w->predicted_run_ns = r.predicted_ns;
  if (r.waiting_predicted_ns > w->waiting_run_ns)
    w->waiting_run_ns = r.waiting_predicted_ns;
  uint64_t plain = r.removed_ns < run ? run - r.removed_ns : 0;
  if (plain > w->plain_run_ns)
    w->plain_run_ns = plain;
  return 0;
}

static int predict(diff_result *d) {
  diff_whatif *w = &d->whatif;
  const diff_run *before = &d->runs[BEFORE];
  if (before->document) {
    w->why_not = "BEFORE was read from findings.json: the prediction needs its traces";
    return 0;
  }
  if (!d->by_status[STATUS_GONE]) {
    w->why_not = "no finding is gone";
    return 0;
  }
  const omplens_finding **buf = calloc(d->num_items, sizeof *buf);
  if (!buf)
    return DIFF_SOFTWARE;
  int rc = 0;
  for (size_t p = 0; p < before->num_procs && !rc && !w->why_not; p++)
    rc = predict_one(d, p, buf);
  free(buf);
  if (rc || w->why_not)
    return rc;
  w->available = 1;
  w->predicted_speedup = ratio(before->totals.run_ns, w->predicted_run_ns);
  w->plain_speedup = ratio(before->totals.run_ns, w->plain_run_ns);
  w->waiting_speedup = ratio(before->totals.run_ns, w->waiting_run_ns);
  return 0;
}

/* ---- text output ------------------------------------------------------------------ */

static const char *device_name(int device, char *buf) {
  if (device == OMPLENS_HOST)
    return "host";
  snprintf(buf, 32, "device %d", device);
  return buf;
}

static void format_directive(const diff_item *it, char *buf, size_t size) {
  if (it->file)
    snprintf(buf, size, "%s:%u", it->file, it->line);
  else if (it->module)
    snprintf(buf, size, "%s+0x%" PRIx64, strrchr(it->module, '/') ? strrchr(it->module, '/') + 1
                                                                   : it->module, it->offset);
  else
    snprintf(buf, size, "0x%" PRIx64, it->offset);
}

static void format_buffer(const diff_item *it, char *buf, size_t size) {
  char b[32];
  if (it->variable)
    snprintf(buf, size, "%s", it->variable);
  else
    snprintf(buf, size, "(%s)", omplens_format_bytes(it->bytes, b));
}

static void print_entry(const diff_entry *e, FILE *out) {
  const diff_item *it = some_item(e);
  char where[PATH_MAX + 32], what[256], dev[32];
  format_directive(it, where, sizeof where);
  format_buffer(it, what, sizeof what);
  fprintf(out, "  %-10s %-23s %-9s %s  %s  %" PRIu64 " -> %" PRIu64, status_names[e->status],
          omplens_category_name(it->category), device_name(it->device, dev), where, what,
          e->count[BEFORE], e->count[AFTER]);
  if (e->item[BEFORE] && e->item[AFTER] && e->item[BEFORE]->file &&
      e->item[BEFORE]->line != e->item[AFTER]->line)
    fprintf(out, "  (line %u -> %u)", e->item[BEFORE]->line, e->item[AFTER]->line);
  fputc('\n', out);
}

static int cmp_entry_order(const void *pa, const void *pb) {
  const diff_entry *a = *(const diff_entry *const *)pa, *b = *(const diff_entry *const *)pb;
  CMP_NUM(a->status, b->status);
  int side = a->status == STATUS_NEW ? AFTER : BEFORE;
  CMP_NUM(b->savings_ns[side], a->savings_ns[side]);
  return cmp_key(some_item(a), some_item(b));
}

static int print_findings(const diff_result *d, FILE *out) {
  fprintf(out, "Findings: %zu gone, %zu new, %zu unchanged\n", d->by_status[STATUS_GONE],
          d->by_status[STATUS_NEW], d->by_status[STATUS_UNCHANGED]);
  const diff_entry **order = calloc(d->num_entries ? d->num_entries : 1, sizeof *order);
  if (!order)
    return DIFF_SOFTWARE;
  size_t n = 0;
  for (size_t e = 0; e < d->num_entries; e++)
    if (d->entries[e].status != STATUS_MERGED)
      order[n++] = &d->entries[e];
  if (n) /* qsort wants a non-NULL base even for 0 items */
    qsort(order, n, sizeof *order, cmp_entry_order);
  for (size_t i = 0; i < n; i++)
    print_entry(order[i], out);
  free(order);
  return 0;
}

/* How a measure is printed. */
enum measure_unit { AS_TIME, AS_BYTES, AS_COUNT };

static const char *format_measure(uint64_t v, int unit, char *buf) {
  if (unit == AS_TIME)
    return omplens_format_ns(v, buf);
  if (unit == AS_BYTES)
    return omplens_format_bytes(v, buf);
  snprintf(buf, 32, "%" PRIu64, v);
  return buf;
}

/* One row: before, after, and the change ("-12.3 ms (-45.6%)"). */
static void print_measure(FILE *out, const char *name, uint64_t before, uint64_t after, int unit) {
  char a[32], b[32], c[32], change[64] = "";
  const char *sign = after > before ? "+" : after < before ? "-" : "";
  format_measure(after > before ? after - before : before - after, unit, c);
  if (before)
    snprintf(change, sizeof change, " (%+.1f%%)", 100.0 * ((double)after / (double)before - 1.0));
  fprintf(out, "  %-18s %12s %12s   %s%s%s\n", name, format_measure(before, unit, a),
          format_measure(after, unit, b), sign, c, change);
}

static void print_measures(const diff_result *d, FILE *out) {
  const diff_totals *b = &d->runs[BEFORE].totals, *a = &d->runs[AFTER].totals;
  fprintf(out, "\n  %-18s %12s %12s   %s\n", "", "before", "after", "change");
  print_measure(out, "run time", b->run_ns, a->run_ns, AS_TIME);
  print_measure(out, "transfers", b->transfers, a->transfers, AS_COUNT);
  print_measure(out, "transfer bytes", b->transfer_bytes, a->transfer_bytes, AS_BYTES);
  print_measure(out, "transfer time", b->transfer_ns, a->transfer_ns, AS_TIME);
  print_measure(out, "allocations", b->allocs, a->allocs, AS_COUNT);
  print_measure(out, "allocation time", b->alloc_ns, a->alloc_ns, AS_TIME);
  print_measure(out, "kernels", b->kernels, a->kernels, AS_COUNT);
  print_measure(out, "kernel time", b->kernel_ns, a->kernel_ns, AS_TIME);
  print_measure(out, "finding instances", b->instances, a->instances, AS_COUNT);
  print_measure(out, "mappings at exit", b->leftovers, a->leftovers, AS_COUNT);
}

/* The same kernels whose time moved by more than a tenth between the runs
 * (host offload on a shared machine: twice as long, or half): the
 * measured run times move by as much without any change of the code. */
static void print_noise(const diff_result *d, FILE *out) {
  const diff_totals *b = &d->runs[BEFORE].totals, *a = &d->runs[AFTER].totals;
  if (!b->kernels || a->kernels != b->kernels || !b->kernel_ns || !a->kernel_ns)
    return;
  double moved = (double)a->kernel_ns / (double)b->kernel_ns - 1.0;
  if (moved > -0.1 && moved < 0.1)
    return;
  fprintf(out,
          "  note: the same %" PRIu64 " kernels took %+.0f%% time in AFTER: run times vary "
          "that much from run to run here, so the measured speedup is as uncertain\n",
          b->kernels, 100.0 * moved);
}

static void print_whatif(const diff_result *d, FILE *out) {
  const diff_whatif *w = &d->whatif;
  char a[32], b[32], c[32];
  fputc('\n', out);
  if (!w->available) {
    fprintf(out, "What-if: no prediction (%s); measured speedup %.3fx\n", w->why_not,
            d->measured_speedup);
    print_noise(d, out);
    return;
  }
  uint64_t run = d->runs[BEFORE].totals.run_ns;
  /* A line above holds BEFORE's findings of one directive, variable and
   * category (several by call path or size): say how they relate. */
  if (w->findings == d->by_status[STATUS_GONE])
    fprintf(out,
            "What-if on BEFORE without the %zu gone findings (%zu operations, %s of their own):\n",
            w->findings, w->operations, omplens_format_ns(w->removed_ns, a));
  else
    fprintf(out,
            "What-if on BEFORE without the %zu findings of the %zu gone above (%zu operations, "
            "%s of their own):\n",
            w->findings, d->by_status[STATUS_GONE], w->operations,
            omplens_format_ns(w->removed_ns, a));
  fprintf(out, "  predicted run time %s (saves %s; %s hidden by overlap)\n",
          omplens_format_ns(w->predicted_run_ns, a),
          omplens_format_ns(run - w->predicted_run_ns, b), omplens_format_ns(w->hidden_ns, c));
  fprintf(out, "  predicted speedup  %.3fx (plain sum of durations: %.3fx)\n",
          w->predicted_speedup, w->plain_speedup);
  if (w->waiting_run_ns != w->predicted_run_ns)
    fprintf(out, "                     %.3fx if the host waited for its nowait tasks\n",
            w->waiting_speedup);
  fprintf(out, "  measured speedup   %.3fx (run time %s -> %s)\n", d->measured_speedup,
          omplens_format_ns(run, a), omplens_format_ns(d->runs[AFTER].totals.run_ns, b));
  if (d->measured_speedup > 0)
    fprintf(out, "  relative error     %+.1f%% (predicted vs measured speedup)\n",
            100.0 * (w->predicted_speedup / d->measured_speedup - 1.0));
  if (d->measured_speedup > 0 && w->waiting_run_ns != w->predicted_run_ns)
    fprintf(out, "                     %+.1f%% if the host waited for its nowait tasks\n",
            100.0 * (w->waiting_speedup / d->measured_speedup - 1.0));
  print_noise(d, out);
}

static void print_source(const diff_run *r, const char *name, FILE *out) {
  if (r->document)
    fprintf(out, "  %-7s %s (no traces)\n", name, r->source);
  else
    fprintf(out, "  %-7s %s (%zu trace%s)\n", name, r->source, r->num_procs,
            r->num_procs == 1 ? "" : "s");
}

/* Version 1 counted resets and later unchanged returns as duplicates or
 * round trips: such findings may show as gone on one side and new on the
 * other. Later versions kept the categories. */
static void print_version_note(const diff_result *d, FILE *out) {
  int before = d->runs[BEFORE].findings_version, after = d->runs[AFTER].findings_version;
  if ((before < 2) != (after < 2))
    fprintf(out, "  note: the findings of before follow findings.json version %d, those of after "
                 "version %d;\n        categories changed between them (docs/findings-schema.md)\n",
            before, after);
}

static int print_text(const diff_result *d, FILE *out) {
  fputs("omplens diff\n", out);
  print_source(&d->runs[BEFORE], "before:", out);
  print_source(&d->runs[AFTER], "after:", out);
  print_version_note(d, out);
  fputc('\n', out);
  int rc = print_findings(d, out);
  print_measures(d, out);
  print_whatif(d, out);
  return rc;
}

/* ---- JSON output ------------------------------------------------------------------ */

/* JSON integers are signed 64-bit: counts and times fit. */
static json_t *num(uint64_t v) {
  return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *text(const char *s) {
  return s ? json_stringn_nocheck(s, strlen(s)) : json_null();
}

static json_t *hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return json_string(buf);
}

static json_t *device_json(int device) {
  return device == OMPLENS_HOST ? json_string("host") : json_integer(device);
}

static json_t *run_json(const diff_run *r) {
  const diff_totals *t = &r->totals;
  json_t *o = json_object();
  json_object_set_new(o, "input", text(r->input));
  json_object_set_new(o, "source", text(r->source));
  json_object_set_new(o, "traces", num(r->num_procs));
  json_object_set_new(o, "findings_schema_version", json_integer(r->findings_version));
  json_object_set_new(o, "run_ns", num(t->run_ns));
  json_object_set_new(o, "transfers", num(t->transfers));
  json_object_set_new(o, "transfer_bytes", num(t->transfer_bytes));
  json_object_set_new(o, "transfer_ns", num(t->transfer_ns));
  json_object_set_new(o, "allocations", num(t->allocs));
  json_object_set_new(o, "alloc_ns", num(t->alloc_ns));
  json_object_set_new(o, "kernels", num(t->kernels));
  json_object_set_new(o, "kernel_ns", num(t->kernel_ns));
  json_object_set_new(o, "findings", num(t->findings));
  json_object_set_new(o, "instances", num(t->instances));
  json_object_set_new(o, "mappings_at_exit", num(t->leftovers));
  return o;
}

static json_t *location_json(const diff_item *it) {
  json_t *o = json_object();
  if (it->file) {
    json_object_set_new(o, "file", text(it->file));
    json_object_set_new(o, "line", json_integer(it->line));
  }
  if (it->function)
    json_object_set_new(o, "function", text(it->function));
  if (it->module) {
    json_object_set_new(o, "module", text(it->module));
    json_object_set_new(o, "offset", hex(it->offset));
  } else if (!it->file) {
    json_object_set_new(o, "codeptr", hex(it->offset));
  }
  return o;
}

static json_t *side_json(const diff_entry *e, int side) {
  if (!e->item[side])
    return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "count", num(e->count[side]));
  json_object_set_new(o, "groups", num(e->groups[side]));
  json_object_set_new(o, "total_bytes", num(e->total_bytes[side]));
  json_object_set_new(o, "savings_ns", num(e->savings_ns[side]));
  json_object_set_new(o, "location", location_json(e->item[side]));
  return o;
}

static json_t *entry_json(const diff_entry *e) {
  const diff_item *it = some_item(e);
  json_t *o = json_object();
  json_object_set_new(o, "status", json_string(status_names[e->status]));
  json_object_set_new(o, "category", json_string(omplens_category_name(it->category)));
  json_object_set_new(o, "device", device_json(it->device));
  json_object_set_new(o, "variable", text(it->variable));
  json_object_set_new(o, "bytes", num(it->bytes));
  json_object_set_new(o, "before", side_json(e, BEFORE));
  json_object_set_new(o, "after", side_json(e, AFTER));
  return o;
}

static json_t *whatif_json(const diff_result *d) {
  const diff_whatif *w = &d->whatif;
  json_t *o = json_object();
  json_object_set_new(o, "available", json_boolean(w->available));
  json_object_set_new(o, "measured_speedup", json_real(d->measured_speedup));
  if (!w->available) {
    json_object_set_new(o, "reason", text(w->why_not));
    return o;
  }
  uint64_t run = d->runs[BEFORE].totals.run_ns;
  json_object_set_new(o, "findings", num(w->findings));
  json_object_set_new(o, "operations", num(w->operations));
  json_object_set_new(o, "removed_ns", num(w->removed_ns));
  json_object_set_new(o, "hidden_ns", num(w->hidden_ns));
  json_object_set_new(o, "predicted_run_ns", num(w->predicted_run_ns));
  json_object_set_new(o, "predicted_savings_ns", num(run - w->predicted_run_ns));
  json_object_set_new(o, "predicted_speedup", json_real(w->predicted_speedup));
  json_object_set_new(o, "plain_sum_speedup", json_real(w->plain_speedup));
  json_object_set_new(o, "waiting_predicted_run_ns", num(w->waiting_run_ns));
  json_object_set_new(o, "waiting_speedup", json_real(w->waiting_speedup));
  if (d->measured_speedup > 0) {
    json_object_set_new(o, "relative_error",
                        json_real(w->predicted_speedup / d->measured_speedup - 1.0));
    json_object_set_new(o, "waiting_relative_error",
                        json_real(w->waiting_speedup / d->measured_speedup - 1.0));
  }
  return o;
}

static json_t *diff_json(const diff_result *d) {
  json_t *root = json_object();
  json_object_set_new(root, "schema", json_string("omplens-diff"));
  json_object_set_new(root, "schema_version", json_integer(DIFF_SCHEMA_VERSION));
  json_object_set_new(root, "omplens_version", json_string(OMPLENS_VERSION));
  json_object_set_new(root, "before", run_json(&d->runs[BEFORE]));
  json_object_set_new(root, "after", run_json(&d->runs[AFTER]));
  json_t *summary = json_object();
  for (int s = STATUS_GONE; s <= STATUS_UNCHANGED; s++)
    json_object_set_new(summary, status_names[s], num(d->by_status[s]));
  json_object_set_new(root, "summary", summary);
  json_t *findings = json_array();
  for (int s = STATUS_GONE; s <= STATUS_UNCHANGED; s++)
    for (size_t e = 0; e < d->num_entries; e++)
      if (d->entries[e].status == s)
        json_array_append_new(findings, entry_json(&d->entries[e]));
  json_object_set_new(root, "findings", findings);
  json_object_set_new(root, "whatif", whatif_json(d));
  return root;
}

static int write_json(const diff_result *d, const char *path) {
  json_t *root = diff_json(d);
  int rc = root ? json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
  json_decref(root);
  if (rc) {
    diff_error("cannot write %s: %s", path, strerror(errno));
    return DIFF_CANTCREAT;
  }
  return 0;
}

/* ---- command ---------------------------------------------------------------------- */

/* Options of `diff`. */
typedef struct diff_options {
  const char *json_path; /* --json: where to write the comparison as JSON, or NULL */
} diff_options;

enum { PARSED_HELP = -1, PARSED_BAD = -2 };

static int parse_diff_options(int argc, char **argv, diff_options *o) {
  static const struct option longopts[] = {{"json", required_argument, NULL, 'j'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int c;
  optind = 1;
  opterr = 0; /* errors are reported below, as "omplens: ..." */
  while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'j':
      o->json_path = optarg;
      break;
    case 'h':
      print_diff_usage(stdout);
      return PARSED_HELP;
    case ':':
      diff_error("%s needs an argument; try 'omplens diff --help'", argv[optind - 1]);
      return PARSED_BAD;
    default:
      diff_error("unknown option '%s'; try 'omplens diff --help'", argv[optind - 1]);
      return PARSED_BAD;
    }
  }
  return optind;
}

static int compare(diff_result *d) {
  int rc = collect_items(d);
  if (!rc)
    rc = group_items(d);
  if (!rc)
    rc = match_moved(d);
  d->measured_speedup = ratio(d->runs[BEFORE].totals.run_ns, d->runs[AFTER].totals.run_ns);
  if (!rc)
    rc = predict(d);
  if (rc)
    diff_error("out of memory");
  return rc;
}

int omplens_cmd_diff(int argc, char **argv) {
  diff_options o = {NULL};
  int first = parse_diff_options(argc, argv, &o);
  if (first < 0)
    return first == PARSED_HELP ? DIFF_OK : DIFF_USAGE;
  if (argc - first != 2) {
    diff_error("diff needs two runs: omplens diff [--json FILE] BEFORE AFTER");
    return DIFF_USAGE;
  }
  diff_result d = {0};
  d.runs[BEFORE].input = argv[first];
  d.runs[AFTER].input = argv[first + 1];
  /* Runs analysed from their traces follow this version; a findings.json its own. */
  for (int run = BEFORE; run <= AFTER; run++)
    d.runs[run].findings_version = OMPLENS_FINDINGS_SCHEMA_VERSION;
  int rc = load_input(&d.runs[BEFORE]);
  if (!rc)
    rc = load_input(&d.runs[AFTER]);
  if (!rc)
    rc = compare(&d);
  if (!rc)
    rc = print_text(&d, stdout);
  if (!rc && o.json_path)
    rc = write_json(&d, o.json_path);
  run_free(&d.runs[BEFORE]);
  run_free(&d.runs[AFTER]);
  free(d.items);
  free(d.entries);
  return rc;
}
