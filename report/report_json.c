/* findings.json renderer (docs/findings-schema.md). One static function per
 * part of the document; the loop in write_json assembles them. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_stream.h"
#include "omplens_config.h"
#include "omplens_render.h"
#include "render_md_internal.h"
#include "report_internal.h"

/* Objects already built, by a 64-bit key: one directive's location is
 * shared by all its findings, one fix by all the findings of its group, so
 * each is built once and referenced. */
typedef struct json_cache {
  uint64_t *keys;
  json_t **values;
  size_t cap, n; /* cap is a power of two, or 0 */
} json_cache;

/* The mapped-but-unreferenced findings of one process (a finding only the
 * source can give): the operations of an item the kernel never names that
 * no detector finding holds, so that each operation is in one finding and
 * the totals count them. Built once, before the totals. */
typedef struct unreferenced_set {
  int built;
  json_t *findings;     /* array of finding objects        */
  uint32_t *ops;        /* their operations (no deletes)   */
  size_t num_ops, cap_ops;
  uint64_t count, bytes, savings_ns;
  uint8_t *held;        /* bit per event: in a detector finding */
} unreferenced_set;

/* What every part of one process's document needs. */
typedef struct doc_ctx {
  const omplens_report_input *in;
  size_t proc;
  size_t max_instances; /* listed per finding */
  json_cache locations; /* by codeptr */
  json_cache fixes;     /* by the fix's address; not kept when streaming */
  unreferenced_set unreferenced;
  const json_t *page_directives; /* findings.json: the pages' document's
                           list of this process's directives (directive_list()'s
                           entries), written rather than made again; or NULL */
  uint8_t *site_kinds;  /* by the trace's site: a bit per construct kind
                           of its regions (construct_name); made at the
                           first location */
  bool site_kinds_done;
  bool without_fixes;   /* timeline.json's marks: made before the fixes */
  bool streaming;       /* findings.json: each finding's objects are written
                           once and dropped; a finding names its fix by its
                           place in the process's list of fixes, written
                           after the findings, and its location leaves out
                           the directive, which the process's directives
                           give (schema 6) */
  json_cache bare_locations; /* findings.json: by codeptr, the location
                           without its directive */
  uint32_t *fix_place;  /* findings.json: by the fix's place in the fixer's
                           list, its place in the written list + 1 (0: not
                           named yet) */
  const omplens_fix **named; /* ...the fixes named, in the written order */
  size_t num_named, cap_named;
  omplens_jout *out;    /* findings.json's writer */
} doc_ctx;

static json_t *hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return json_string(buf);
}

static json_t *num(uint64_t v) {
  return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *device(int dev) {
  return dev < 0 ? json_string("host") : json_integer(dev);
}

/* Strings from traces may hold any bytes; jansson wants UTF-8. */
static json_t *text(const char *s) {
  json_t *j = json_string(s ? s : "");
  if (j)
    return j;
  size_t n = strlen(s);
  char buf[4096];
  if (n >= sizeof buf)
    n = sizeof buf - 1;
  for (size_t i = 0; i < n; i++)
    buf[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
  buf[n] = 0;
  return json_string(buf);
}

static json_t *per_category(const uint32_t *counts, const uint64_t *bytes) {
  json_t *o = json_object();
  for (int c = 0; c < OMPLENS_CAT_COUNT; c++)
    json_object_set_new(o, omplens_category_name(c),
                        counts ? num(counts[c]) : num(bytes[c]));
  return o;
}

static json_t *directive_info(const omplens_location_directive *d) {
  if (!d->kind && !d->confidence && !d->note)
    return NULL;
  json_t *o = json_object();
  if (d->kind) {
    json_object_set_new(o, "kind", text(d->kind));
    json_object_set_new(o, "text", text(d->text));
    json_object_set_new(o, "file", text(d->file));
    json_object_set_new(o, "line", json_integer(d->line));
    json_object_set_new(o, "end_line", json_integer(d->end_line));
  }
  if (d->confidence)
    json_object_set_new(o, "confidence", json_string(d->confidence));
  if (d->num_candidates > 1 || !d->kind) {
    json_t *c = json_array();
    for (size_t i = 0; i < d->num_candidates; i++)
      json_array_append_new(c, json_integer(d->candidate_lines[i]));
    json_object_set_new(o, "candidate_lines", c);
  }
  json_object_set_new(o, "partial_parse", json_boolean(d->partial_parse));
  json_object_set_new(o, "stale", json_boolean(d->stale));
  if (d->note)
    json_object_set_new(o, "note", text(d->note));
  return o;
}

static json_t *describe_location(const omplens_report_input *in, size_t proc, uint64_t codeptr) {
  omplens_location loc;
  json_t *o = json_object();
  json_object_set_new(o, "codeptr", hex(codeptr));
  if (omplens_report__locate(in, proc, codeptr, &loc))
    return o;
  if (loc.module) {
    json_object_set_new(o, "module", text(loc.module));
    json_object_set_new(o, "offset", hex(loc.offset));
  }
  if (loc.file) {
    json_object_set_new(o, "file", text(loc.file));
    json_object_set_new(o, "line", json_integer(loc.line));
    json_object_set_new(o, "column", json_integer(loc.column));
  }
  if (loc.function)
    json_object_set_new(o, "function", text(loc.function));
  if (loc.via)
    json_object_set_new(o, "via", json_string(omplens_location_via_name(loc.via)));
  if (loc.note)
    json_object_set_new(o, "note", text(loc.note));
  json_t *d = directive_info(&loc.directive);
  if (d)
    json_object_set_new(o, "directive", d);
  return o;
}

static size_t slot_of(const json_cache *c, uint64_t key) {
  size_t i = (size_t)((key * 0x9e3779b97f4a7c15u) >> 20) & (c->cap - 1);
  while (c->values[i] && c->keys[i] != key)
    i = (i + 1) & (c->cap - 1);
  return i;
}

static int cache_grow(json_cache *c) {
  json_cache bigger = {calloc(c->cap ? c->cap * 2 : 64, sizeof *c->keys),
                       calloc(c->cap ? c->cap * 2 : 64, sizeof *c->values),
                       c->cap ? c->cap * 2 : 64, c->n};
  if (!bigger.keys || !bigger.values) {
    free(bigger.keys);
    free(bigger.values);
    return -1;
  }
  for (size_t i = 0; i < c->cap; i++)
    if (c->values[i]) {
      size_t k = slot_of(&bigger, c->keys[i]);
      bigger.keys[k] = c->keys[i];
      bigger.values[k] = c->values[i];
    }
  free(c->keys);
  free(c->values);
  *c = bigger;
  return 0;
}

static void cache_free(json_cache *c) {
  for (size_t i = 0; i < c->cap; i++)
    json_decref(c->values[i]);
  free(c->keys);
  free(c->values);
  *c = (json_cache){0};
}

/* The object cached for key, or NULL. */
static json_t *cache_get(const json_cache *c, uint64_t key) {
  return c->cap ? c->values[slot_of(c, key)] : NULL;
}

/* Keeps a reference to o (not NULL) for key; without room it is not kept,
 * which is still correct. Returns o. */
static json_t *cache_put(json_cache *c, uint64_t key, json_t *o) {
  if (!o || ((c->n + 1) * 2 > c->cap && cache_grow(c)))
    return o;
  size_t k = slot_of(c, key);
  c->keys[k] = key;
  c->values[k] = json_incref(o);
  c->n++;
  return o;
}

static void doc_ctx_free(doc_ctx *x) {
  free(x->site_kinds);
  cache_free(&x->locations);
  cache_free(&x->bare_locations);
  cache_free(&x->fixes);
  free(x->fix_place);
  free(x->named);
  json_decref(x->unreferenced.findings);
  free(x->unreferenced.ops);
  free(x->unreferenced.held);
}

/* The construct the runtime reported at codeptr, from the kinds of its
 * regions: a `target data` shows as an enter and an exit; NULL for none
 * (a call of the device memory API). */
static const char *construct_name(doc_ctx *x, uint64_t codeptr) {
  const omplens_trace *t = x->in->procs[x->proc].trace;
  if (!x->site_kinds_done) {
    x->site_kinds_done = true;
    size_t nsites, nregions;
    omplens_trace_sites(t, &nsites);
    const omplens_region *r = omplens_trace_regions(t, &nregions);
    if ((x->site_kinds = calloc(nsites + 1, 1)))
      for (size_t i = 0; i < nregions; i++)
        if (r[i].kind < 8)
          x->site_kinds[omplens_trace_site_index(t, r[i].codeptr)] |= (uint8_t)(1u << r[i].kind);
  }
  uint32_t site = omplens_trace_site_index(t, codeptr);
  unsigned k = site && x->site_kinds ? x->site_kinds[site] : 0;
  if (k & (1u << OMPLENS_CONSTRUCT_TARGET))
    return "target";
  if ((k & (1u << OMPLENS_CONSTRUCT_ENTER_DATA)) && (k & (1u << OMPLENS_CONSTRUCT_EXIT_DATA)))
    return "target data";
  if (k & (1u << OMPLENS_CONSTRUCT_ENTER_DATA))
    return "target enter data";
  if (k & (1u << OMPLENS_CONSTRUCT_EXIT_DATA))
    return "target exit data";
  if (k & (1u << OMPLENS_CONSTRUCT_UPDATE))
    return "target update";
  return NULL;
}

/* A new reference to the location object of codeptr. */
static json_t *location(doc_ctx *x, uint64_t codeptr) {
  json_t *known = cache_get(&x->locations, codeptr);
  if (known)
    return json_incref(known);
  json_t *o = describe_location(x->in, x->proc, codeptr);
  const char *construct = construct_name(x, codeptr);
  if (o && construct)
    json_object_set_new(o, "construct", json_string(construct));
  return cache_put(&x->locations, codeptr, o);
}

/* A new reference to the location of a finding at codeptr: in
 * findings.json without its directive, which the process's entry of
 * codeptr in directives gives. */
static json_t *finding_location(doc_ctx *x, uint64_t codeptr) {
  if (!x->streaming)
    return location(x, codeptr);
  json_t *known = cache_get(&x->bare_locations, codeptr);
  if (known)
    return json_incref(known);
  json_t *full = location(x, codeptr);
  if (!full || !json_object_get(full, "directive"))
    return full;
  json_t *o = json_copy(full); /* shallow: the members are shared */
  json_decref(full);
  if (o)
    json_object_del(o, "directive");
  return cache_put(&x->bare_locations, codeptr, o);
}

/* The map item of a finding's operations (they share one buffer), with
 * the storage its pointer takes, named where the change is made. */
static json_t *variable(const omplens_report_input *in, size_t proc, const omplens_finding *f,
                        size_t index, const omplens_event *ev, size_t nev) {
  omplens_variable v;
  omplens_annotator *a = in->procs[proc].annotator;
  if (!a || !f->num_instances || f->instances[0].event >= nev)
    return NULL;
  if (omplens_annotate_variable(a, &ev[f->instances[0].event], &v)) {
    if (!v.pointer) /* no map item, and no pointer it serves */
      return NULL;
    json_t *o = json_object(); /* the runtime's own: the pointer it is for */
    json_object_set_new(o, "pointer", text(v.pointer));
    return o;
  }
  json_t *o = json_object();
  json_object_set_new(o, "item", text(v.item));
  json_object_set_new(o, "name", text(v.name));
  json_object_set_new(o, "certain", json_boolean(v.certain));
  const char *where, *storage =
      in->procs[proc].fixer ? omplens_fix_storage(in->procs[proc].fixer, index, &where) : NULL;
  if (storage) {
    json_object_set_new(o, "storage", text(storage));
    json_object_set_new(o, "storage_at", text(where));
  }
  if (!v.certain) {
    json_t *c = json_array();
    for (size_t i = 0; i < v.num_candidates; i++)
      json_array_append_new(c, text(v.candidates[i]));
    json_object_set_new(o, "candidates", c);
  }
  return o;
}

/* Fixing every finding at once, as the what-if model predicts it when the
 * fixer has it (the critical path), else the plain sum of the removed
 * durations. */
static void predict_every(doc_ctx *x, uint64_t savings_ns, uint64_t *predicted, double *speedup) {
  const omplens_program_total *t = omplens_analysis_total(x->in->procs[x->proc].analysis);
  omplens_fixer *fixer = x->in->procs[x->proc].fixer;
  *predicted = savings_ns;
  *speedup = !savings_ns ? 1.0
             : savings_ns < t->run_ns ? (double)t->run_ns / (double)(t->run_ns - savings_ns)
                                      : 0.0;
  if (fixer)
    omplens_fix_predict_every(fixer, x->unreferenced.ops, x->unreferenced.num_ops, predicted,
                              speedup, NULL);
}

/* Host offload: LLVM's host plugin names its devices "generic-64bit". */
static int host_offload(const omplens_trace *t) {
  for (int d = 0; d < omplens_trace_get_info(t)->num_devices; d++) {
    const char *type = omplens_trace_device_type(t, d);
    if (type && !strncmp(type, "generic", 7))
      return 1;
  }
  return 0;
}

/* Operations that ran asynchronously (nowait regions, _async copies). */
static uint64_t async_ops(const omplens_trace *t) {
  size_t nev, nr;
  uint64_t count = 0;
  const omplens_event *ev = omplens_trace_events(t, &nev);
  const omplens_region *r = omplens_trace_regions(t, &nr);
  for (size_t i = 0; i < nev; i++)
    count += (ev[i].flags & OMPLENS_EVF_ASYNC) || (ev[i].region < nr && r[ev[i].region].nowait);
  return count;
}

/* One line each where the prediction is known to be rough, shown next to
 * it. */
static json_t *model_notes(const omplens_report_figures *g) {
  json_t *notes = json_array();
  char line[512], a[32], b[32];
  uint64_t savings = g->savings_ns, predicted = g->predicted_savings_ns;
  uint64_t async = g->async_ops;
  if (savings > predicted && (savings - predicted) * 10 > savings) {
    snprintf(line, sizeof line,
             "%s of the %s that the wasteful operations take (their allocations' frees "
             "included) overlapped other work (threads, devices, asynchronous copies): removing "
             "that part saves no time.",
             omplens_format_ns(savings - predicted, a), omplens_format_ns(savings, b));
    json_array_append_new(notes, json_string(line));
  }
  if (predicted > savings) {
    snprintf(line, sizeof line,
             "The fixes also remove operations that are not wasteful alone (a data region "
             "copies once what each execution copied), so they save more than the %s the "
             "wasteful operations take (their allocations' frees included).",
             omplens_format_ns(savings, a));
    json_array_append_new(notes, json_string(line));
  }
  if (g->host_offload) {
    snprintf(line, sizeof line,
             "The devices are the host (host offload): a copy is a memory copy within one "
             "memory, and the first copy into fresh memory pays its page faults, so the "
             "measured durations, and the prediction, can differ much from a GPU's.");
    json_array_append_new(notes, json_string(line));
  }
  if (async) {
    snprintf(line, sizeof line,
             "%" PRIu64 " operations ran asynchronously (nowait): where the host waited for them "
             "is inferred from the trace's order, so their share of the prediction is rough.",
             async);
    json_array_append_new(notes, json_string(line));
  }
  return notes;
}

static void build_unreferenced(doc_ctx *x);

/* The figures of x's process, filled from its findings (the unreferenced
 * ones built first). */
static void work_out_figures(doc_ctx *x, omplens_report_figures *g) {
  const omplens_program_total *t = omplens_analysis_total(x->in->procs[x->proc].analysis);
  const unreferenced_set *u = &x->unreferenced;
  if (!u->built)
    build_unreferenced(x);
  *g = (omplens_report_figures){.known = 1, .savings_ns = t->savings_ns + u->savings_ns,
                                .unreferenced_count = u->count, .unreferenced_bytes = u->bytes,
                                .unreferenced_ns = u->savings_ns,
                                .async_ops = async_ops(x->in->procs[x->proc].trace),
                                .host_offload = host_offload(x->in->procs[x->proc].trace)};
  predict_every(x, g->savings_ns, &g->predicted_savings_ns, &g->predicted_speedup);
}

const omplens_report_figures *omplens_report__figures(const omplens_report_input *in, size_t proc,
                                                      omplens_report_figures *scratch) {
  omplens_report_figures *kept = in->procs[proc].figures;
  if (kept && kept->known)
    return kept;
  doc_ctx x = {.in = in, .proc = proc};
  work_out_figures(&x, kept ? kept : scratch);
  doc_ctx_free(&x);
  return kept ? kept : scratch;
}

void omplens_report_prepare(const omplens_report_input *in) {
  omplens_report_figures scratch;
  for (size_t p = 0; in && p < in->num_procs; p++)
    if (in->procs[p].figures)
      omplens_report__figures(in, p, &scratch);
}

/* Host waits per host thread (docs/detectors.md, "Host waits"): the
 * synchronous regions and the waits for nowait ones (omplens_trace_waits)
 * that begin in the window, if any, by thread: per thread its waits, their
 * time, and the part of both that waited for nowait regions. */
static json_t *waits_by_thread(const omplens_trace *t) {
  size_t nr, nw;
  const omplens_region *r = omplens_trace_regions(t, &nr);
  const omplens_trace_wait *w = omplens_trace_waits(t, &nw);
  uint64_t begin = 0, end = UINT64_MAX;
  omplens_trace_window(t, &begin, &end);
  uint32_t threads = 0;
  for (size_t i = 0; i < nr; i++)
    threads = (uint32_t)r[i].thread + 1 > threads ? (uint32_t)r[i].thread + 1 : threads;
  for (size_t i = 0; i < nw; i++)
    threads = w[i].thread + 1 > threads ? w[i].thread + 1 : threads;
  uint64_t *sum = calloc((size_t)threads + 1, 4 * sizeof *sum);
  json_t *list = json_array();
  for (size_t i = 0; sum && i < nr; i++) {
    if (r[i].nowait || r[i].begin_ns < begin || r[i].begin_ns >= end)
      continue;
    sum[4 * r[i].thread]++;
    sum[4 * r[i].thread + 1] += r[i].end_ns > r[i].begin_ns ? r[i].end_ns - r[i].begin_ns : 0;
  }
  for (size_t i = 0; sum && i < nw; i++) {
    if (w[i].begin_ns < begin || w[i].begin_ns >= end)
      continue;
    uint64_t ns = w[i].end_ns > w[i].begin_ns ? w[i].end_ns - w[i].begin_ns : 0;
    sum[4 * w[i].thread]++;
    sum[4 * w[i].thread + 1] += ns;
    sum[4 * w[i].thread + 2]++;
    sum[4 * w[i].thread + 3] += ns;
  }
  for (uint32_t k = 0; sum && k < threads; k++) {
    if (!sum[4 * k])
      continue;
    json_t *o = json_object();
    json_object_set_new(o, "thread", num(k));
    json_object_set_new(o, "waits", num(sum[4 * k]));
    json_object_set_new(o, "wait_ns", num(sum[4 * k + 1]));
    json_object_set_new(o, "deferred_waits", num(sum[4 * k + 2]));
    json_object_set_new(o, "deferred_wait_ns", num(sum[4 * k + 3]));
    json_array_append_new(list, o);
  }
  free(sum);
  return list;
}

/* The program's figures. savings_ns, counts and bytes sum the findings
 * (mapped-but-unreferenced included): each operation is in one finding. */
static json_t *totals(doc_ctx *x) {
  const omplens_program_total *t = omplens_analysis_total(x->in->procs[x->proc].analysis);
  omplens_report_figures scratch = {0}, *g = x->in->procs[x->proc].figures;
  if (!g)
    g = &scratch;
  if (!g->known)
    work_out_figures(x, g);
  json_t *o = json_object();
  json_object_set_new(o, "run_ns", num(t->run_ns));
  json_object_set_new(o, "savings_ns", num(g->savings_ns));
  json_object_set_new(o, "predicted_savings_ns", num(g->predicted_savings_ns));
  json_object_set_new(o, "predicted_speedup", json_real(g->predicted_speedup));
  json_object_set_new(o, "transfers", num(t->num_transfers));
  json_object_set_new(o, "transfer_bytes", num(t->transfer_bytes));
  json_object_set_new(o, "transfer_ns", num(t->transfer_ns));
  json_object_set_new(o, "allocations", num(t->num_allocs));
  json_object_set_new(o, "alloc_ns", num(t->alloc_ns));
  json_object_set_new(o, "frees", num(t->num_frees));
  json_object_set_new(o, "free_ns", num(t->free_ns));
  json_object_set_new(o, "kernels", num(t->num_kernels));
  json_object_set_new(o, "kernel_ns", num(t->kernel_ns));
  json_object_set_new(o, "host_waits", num(t->num_waits));
  json_object_set_new(o, "host_wait_ns", num(t->wait_ns));
  json_object_set_new(o, "deferred_waits", num(t->num_deferred_waits));
  json_object_set_new(o, "deferred_wait_ns", num(t->deferred_wait_ns));
  json_object_set_new(o, "host_waits_by_thread", waits_by_thread(x->in->procs[x->proc].trace));
  json_object_set_new(o, "setup_end_ns", num(t->setup_end_ns));
  json_t *counts = per_category(t->count, NULL), *bytes = per_category(NULL, t->bytes);
  json_object_set_new(counts, OMPLENS_REPORT_UNREFERENCED, num(g->unreferenced_count));
  json_object_set_new(bytes, OMPLENS_REPORT_UNREFERENCED, num(g->unreferenced_bytes));
  json_object_set_new(o, "counts", counts);
  json_object_set_new(o, "bytes", bytes);
  json_object_set_new(o, "model_notes", model_notes(g));
  return o;
}

static json_t *operation_sum(const omplens_operation_sum *s, int with_bytes) {
  json_t *o = json_object();
  json_object_set_new(o, "count", num(s->count));
  if (with_bytes)
    json_object_set_new(o, "bytes", num(s->bytes));
  json_object_set_new(o, "ns", num(s->ns));
  return o;
}

static json_t *profile(const omplens_directive_profile *p, uint64_t run_ns) {
  json_t *o = json_object();
  json_object_set_new(o, "executions", num(p->executions));
  json_object_set_new(o, "kernels", operation_sum(&p->kernels, 0));
  json_object_set_new(o, "h2d", operation_sum(&p->h2d, 1));
  json_object_set_new(o, "d2h", operation_sum(&p->d2h, 1));
  json_object_set_new(o, "d2d", operation_sum(&p->d2d, 1));
  json_object_set_new(o, "allocs", operation_sum(&p->allocs, 0));
  json_object_set_new(o, "frees", operation_sum(&p->frees, 0));
  json_t *waits = operation_sum(&p->waits, 0);
  json_object_set_new(waits, "deferred", operation_sum(&p->deferred_waits, 0));
  json_object_set_new(o, "host_waits", waits);
  json_object_set_new(o, "total_ns", num(p->total_ns));
  json_object_set_new(o, "share_of_run",
                      json_real(run_ns ? (double)p->total_ns / (double)run_ns : 0.0));
  json_object_set_new(o, "has_findings", json_boolean(p->has_findings));
  return o;
}

/* A directive's entry: its totals (d, or zeros when it has no findings)
 * and its profile. */
static json_t *directive(doc_ctx *x, const omplens_directive_profile *p,
                         const omplens_directive_total *d) {
  static const omplens_directive_total none;
  if (!d)
    d = &none;
  json_t *o = json_object();
  json_object_set_new(o, "location", location(x, p->codeptr));
  json_object_set_new(o, "executions", num(p->executions));
  json_object_set_new(o, "savings_ns", num(d->savings_ns));
  json_object_set_new(o, "setup", json_boolean(d->setup));
  json_object_set_new(o, "transfer_ns", num(p->h2d.ns + p->d2h.ns + p->d2d.ns));
  json_object_set_new(o, "transfer_bytes", num(p->h2d.bytes + p->d2h.bytes + p->d2d.bytes));
  json_object_set_new(o, "counts", per_category(d->count, NULL));
  json_object_set_new(o, "bytes", per_category(NULL, d->bytes));
  json_object_set_new(o, "profile",
                      profile(p, omplens_analysis_total(x->in->procs[x->proc].analysis)->run_ns));
  return o;
}

static json_t *instance(const omplens_event *ev, size_t nev, const omplens_instance *in) {
  json_t *o = json_object();
  if (in->event >= nev)
    return o;
  const omplens_event *e = &ev[in->event];
  json_object_set_new(o, "event", num(in->event));
  json_object_set_new(o, "kind", json_string(omplens_event_kind_name(e->kind)));
  json_object_set_new(o, "time_ns", num(e->begin_ns));
  json_object_set_new(o, "duration_ns", num(e->end_ns - e->begin_ns));
  json_object_set_new(o, "bytes", num(e->bytes));
  json_object_set_new(o, "host_addr", hex(e->host_addr));
  json_object_set_new(o, "device_addr", hex(e->dev_addr));
  if (e->flags & OMPLENS_EVF_HASHED)
    json_object_set_new(o, "hash", hex(e->hash));
  if (in->related < nev) {
    json_object_set_new(o, "related_event", num(in->related));
    json_object_set_new(o, "related_time_ns", num(ev[in->related].begin_ns));
  }
  return o;
}

/* How many of f's instances a document lists. */
static size_t listed_count(const doc_ctx *x, const omplens_finding *f) {
  return f->num_instances < x->max_instances ? f->num_instances : x->max_instances;
}

/* The first `listed` instances of f. */
static json_t *listed_instances(const omplens_event *ev, size_t nev, const omplens_finding *f,
                                size_t listed) {
  json_t *arr = json_array();
  for (size_t i = 0; i < listed; i++)
    json_array_append_new(arr, instance(ev, nev, &f->instances[i]));
  return arr;
}

/* The suggested change (docs/fixes.md); NULL when there is none. */
static json_t *make_fix_object(const omplens_fix *fx) {
  if (!fx)
    return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "kind", json_string(omplens_fix_kind_name(fx->kind)));
  json_object_set_new(o, "confidence", json_string(omplens_fix_confidence_name(fx->confidence)));
  json_object_set_new(o, "summary", text(fx->summary));
  if (fx->diff_relative)
    json_object_set_new(o, "diff", text(fx->diff_relative));
  if (fx->manual)
    json_object_set_new(o, "manual", text(fx->manual));
  if (fx->file) {
    json_object_set_new(o, "file", text(fx->file));
    json_object_set_new(o, "line", json_integer(fx->line));
  }
  json_object_set_new(o, "findings_removed", num(fx->num_findings));
  json_object_set_new(o, "operations_removed", num(fx->num_removed));
  json_object_set_new(o, "predicted_savings_ns", num(fx->predicted_savings_ns));
  json_object_set_new(o, "predicted_speedup", json_real(fx->predicted_speedup));
  return o;
}

/* fx's place in omplens_fix_list() in *place; false when it is not there. */
static bool fix_listed(doc_ctx *x, const omplens_fix *fx, size_t *place, size_t *num) {
  const omplens_fix *list;
  size_t n;
  if (omplens_fix_list(x->in->procs[x->proc].fixer, &list, &n) || fx < list || fx >= list + n)
    return false;
  *place = (size_t)(fx - list);
  *num = n;
  return true;
}

/* fx's object. Its id is its place in omplens_fix_list(): findings with
 * the same id are removed by one change, which a page shows once. */
static json_t *fix_object_of(doc_ctx *x, const omplens_fix *fx) {
  json_t *o = make_fix_object(fx);
  size_t place, n;
  /* A recipe is no change: it may name "the buffer" for several variables. */
  if (o && fx->diff && fix_listed(x, fx, &place, &n))
    json_object_set_new(o, "id", num((uint64_t)place));
  return o;
}

/* A new reference to fx's object, shared by the findings of its group. */
static json_t *fix_object(doc_ctx *x, const omplens_fix *fx) {
  if (!fx)
    return NULL;
  json_t *known = cache_get(&x->fixes, (uint64_t)(uintptr_t)fx);
  if (known)
    return json_incref(known);
  return cache_put(&x->fixes, (uint64_t)(uintptr_t)fx, fix_object_of(x, fx));
}

/* findings.json: fx's place in the process's list of fixes, which it
 * joins when first named; SIZE_MAX without memory. */
static size_t fix_ref(doc_ctx *x, const omplens_fix *fx) {
  size_t place = 0, n = 0;
  bool listed = fix_listed(x, fx, &place, &n);
  if (listed && !x->fix_place && !(x->fix_place = calloc(n, sizeof *x->fix_place)))
    return SIZE_MAX;
  if (listed && x->fix_place[place])
    return x->fix_place[place] - 1;
  if (x->num_named == x->cap_named) {
    size_t cap = x->cap_named ? 2 * x->cap_named : 64;
    const omplens_fix **named = realloc(x->named, cap * sizeof *named);
    if (!named)
      return SIZE_MAX;
    x->named = named;
    x->cap_named = cap;
  }
  x->named[x->num_named++] = fx;
  if (listed) /* one not listed (none is) is named anew each time */
    x->fix_place[place] = (uint32_t)x->num_named;
  return x->num_named - 1;
}

/* A finding's "fix": fx's object in a document, its place in the list of
 * fixes in findings.json (without memory, none, and the file fails). */
static json_t *fix_value(doc_ctx *x, const omplens_fix *fx) {
  if (!x->streaming)
    return fix_object(x, fx);
  size_t k = fix_ref(x, fx);
  if (k == SIZE_MAX && x->out)
    x->out->failed = 1;
  return k == SIZE_MAX ? NULL : num(k);
}

/* The calls that led to f's directive (its operations' most common call
 * path), innermost first; NULL when none is known. */
static json_t *call_path(doc_ctx *x, const omplens_finding *f, size_t index, size_t *num_paths,
                         size_t *num_top) {
  omplens_call_site sites[OMPLENS_MAX_CALL_SITES];
  size_t n = omplens_report__call_path(x->in, x->proc, f, sites, OMPLENS_MAX_CALL_SITES,
                                       num_paths, num_top);
  if (!n)
    return NULL;
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    json_t *c = json_object();
    json_object_set_new(c, "file", text(sites[i].file));
    json_object_set_new(c, "line", json_integer(sites[i].line));
    if (sites[i].function)
      json_object_set_new(c, "function", text(sites[i].function));
    omplens_fixer *fixer = x->in->procs[x->proc].fixer;
    unsigned loop = i == 0 && fixer ? omplens_fix_call_loop(fixer, index) : 0;
    if (loop)
      json_object_set_new(c, "loop_line", json_integer(loop));
    json_array_append_new(arr, c);
  }
  return arr;
}

/* A number as num() gives it. */
static void jm_num(omplens_jmembers *m, const char *key, uint64_t v) {
  omplens_jm_int(m, key, v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

typedef struct instance_writer instance_writer;
static void write_instances(void *ctx, int depth);

/* The members of finding f (its index in the analysis). The listed
 * instances are written as columns by w when the members are written
 * (findings.json), else added as instance() objects. */
static void finding_members(doc_ctx *x, const omplens_finding *f, size_t index,
                            omplens_jmembers *m, instance_writer *w) {
  const omplens_report_input *in = x->in;
  size_t proc = x->proc, nev;
  const omplens_event *ev = omplens_trace_events(in->procs[proc].trace, &nev);
  omplens_jm_string(m, "category", omplens_category_name(f->category));
  omplens_jm_value(m, "device", device(f->device));
  omplens_jm_value(m, "location", finding_location(x, f->codeptr));
  size_t num_paths = 0, num_top = 0;
  json_t *path = call_path(x, f, index, &num_paths, &num_top);
  bool has_path = path != NULL;
  omplens_jm_value(m, "call_path", path);
  if (num_paths > 1)
    jm_num(m, "call_paths", num_paths);
  if (has_path && num_top > 1)
    jm_num(m, "call_paths_as_frequent", num_top);
  omplens_jm_value(m, "variable", variable(in, proc, f, index, ev, nev));
  omplens_jm_hex(m, "host_addr", f->host_addr);
  jm_num(m, "bytes", f->bytes);
  jm_num(m, "count", f->num_instances);
  jm_num(m, "total_bytes", f->total_bytes);
  jm_num(m, "total_ns", f->total_ns);
  jm_num(m, "savings_ns", f->savings_ns);
  omplens_jm_bool(m, "setup", f->setup);
  if (f->passed_over)
    omplens_jm_bool(m, "passed_over", 1);
  /* Counts and totals above cover every instance; the list is capped, or a
   * large trace's document would be mostly instances nobody reads. */
  size_t listed = listed_count(x, f);
  if (m->obj) {
    omplens_jm_value(m, "instances", listed_instances(ev, nev, f, listed));
  } else {
    omplens_jout_key(m->j, m->depth, "instances", &m->first);
    write_instances(w, m->depth);
  }
  if (listed < f->num_instances)
    jm_num(m, "instances_omitted", f->num_instances - listed);
  const omplens_fix *fx = NULL;
  omplens_fixer *fixer = in->procs[proc].fixer;
  const char *account = fixer ? omplens_fix_account(fixer, index) : NULL;
  omplens_jm_string(m, "explanation", account);
  if (fixer && !omplens_fix_for_finding(fixer, index, &fx))
    omplens_jm_value(m, "fix", fix_value(x, fx));
}

/* The document's object of finding f. */
static json_t *finding(doc_ctx *x, const omplens_finding *f, size_t index) {
  omplens_jmembers m = {.obj = json_object()};
  if (m.obj)
    finding_members(x, f, index, &m, NULL);
  return m.obj;
}

static json_t *leftover(doc_ctx *x, const omplens_leftover *l, size_t index) {
  json_t *o = json_object();
  json_object_set_new(o, "device", device(l->device));
  json_object_set_new(o, "location", location(x, l->codeptr));
  omplens_variable v;
  if (omplens_report__leftover_variable(x->in, x->proc, l, &v)) { /* the map item that made it */
    json_t *var = json_object();
    json_object_set_new(var, "item", text(v.item));
    json_object_set_new(var, "name", text(v.name));
    json_object_set_new(var, "certain", json_boolean(v.certain));
    json_object_set_new(o, "variable", var);
  } else if (v.pointer) { /* the runtime's copy of the pointer items go through */
    json_t *var = json_object();
    json_object_set_new(var, "pointer", text(v.pointer));
    json_object_set_new(o, "variable", var);
  }
  json_object_set_new(o, "host_addr", hex(l->host_addr));
  json_object_set_new(o, "device_addr", hex(l->dev_addr));
  json_object_set_new(o, "bytes", num(l->bytes));
  /* Its fix: an exit data where the buffer is freed (fixes.patch), or,
   * for the mappings the summary names, a recipe; not a recipe each for
   * the thousands of mappings a loop can leave. */
  const omplens_fix *fx = NULL;
  if (x->in->procs[x->proc].fixer && !x->without_fixes &&
      !omplens_fix_for_leftover(x->in->procs[x->proc].fixer, index, &fx) &&
      (fx->diff || index < OMPLENS_REPORT__LEFTOVERS_SHOWN))
    json_object_set_new(o, "fix", fix_value(x, fx));
  return o;
}

static json_t *damage_list(const char *damage) {
  json_t *arr = json_array();
  while (damage && *damage) {
    const char *nl = strchr(damage, '\n');
    size_t n = nl ? (size_t)(nl - damage) : strlen(damage);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(n < 511 ? n : 511), damage);
    json_array_append_new(arr, text(line));
    damage += nl ? n + 1 : n;
  }
  return arr;
}

static json_t *process_info(const omplens_trace *t) {
  const omplens_trace_info *i = omplens_trace_get_info(t);
  json_t *o = json_object();
  json_object_set_new(o, "trace", text(omplens_trace_path(t)));
  json_object_set_new(o, "pid", json_integer(i->pid));
  json_object_set_new(o, "rank", i->rank >= 0 ? json_integer(i->rank) : json_null());
  json_object_set_new(o, "job_size", i->job_size > 0 ? json_integer(i->job_size) : json_null());
  json_object_set_new(o, "executable", text(i->exe));
  json_object_set_new(o, "command_line", text(i->cmdline));
  json_object_set_new(o, "start_unix_ns", num(i->start_realtime_ns));
  json_object_set_new(o, "complete", json_boolean(i->complete));
  json_object_set_new(o, "devices", json_integer(i->num_devices));
  json_t *types = json_array();
  for (int d = 0; d < i->num_devices; d++) {
    const char *type = omplens_trace_device_type(t, d);
    json_array_append_new(types, type ? text(type) : json_null());
  }
  json_object_set_new(o, "device_types", types);
  unsigned char *used = calloc((size_t)(i->num_devices > 0 ? i->num_devices : 1), 1);
  json_t *used_list = json_array();
  if (used)
    omplens_report__devices_used(t, used, i->num_devices);
  for (int d = 0; used && d < i->num_devices; d++)
    if (used[d])
      json_array_append_new(used_list, json_integer(d));
  free(used);
  json_object_set_new(o, "devices_used", used_list);
  uint64_t begin, end; /* report --window: what this process's figures cover */
  if (omplens_trace_window(t, &begin, &end)) {
    json_t *w = json_object();
    json_object_set_new(w, "begin_ns", num(begin));
    json_object_set_new(w, "end_ns", num(end < i->duration_ns ? end : i->duration_ns));
    json_object_set_new(o, "window", w);
  }
  size_t np;
  const omplens_trace_pause *pauses = omplens_trace_pauses(t, &np);
  if (np) { /* omp_control_tool: what the program left out of the analysis */
    json_t *list = json_array();
    for (size_t k = 0; k < np; k++) {
      json_t *p = json_object();
      json_object_set_new(p, "begin_ns", num(pauses[k].begin_ns));
      json_object_set_new(p, "end_ns", num(pauses[k].end_ns));
      json_array_append_new(list, p);
    }
    json_object_set_new(o, "paused", list);
    json_object_set_new(o, "paused_ns", num(omplens_trace_paused_ns(t, 0, UINT64_MAX)));
  }
  json_object_set_new(o, "dropped_events", num(i->dropped));
  json_object_set_new(o, "damage", damage_list(omplens_trace_damage(t)));
  return o;
}

/* Appends op to a growable list of event numbers; -1 without memory. */
static int push_op(uint32_t **ops, size_t *n, size_t *cap, uint32_t op) {
  if (*n == *cap) {
    size_t more = *cap ? 2 * *cap : 64;
    uint32_t *grown = realloc(*ops, more * sizeof *grown);
    if (!grown)
      return -1;
    *ops = grown;
    *cap = more;
  }
  (*ops)[(*n)++] = op;
  return 0;
}

/* A map item that a construct's body never names, and the operations
 * that moved it which no detector finding holds, in event order. */
typedef struct unreferenced_item {
  uint64_t codeptr;
  omplens_unreferenced u;
  uint32_t *ops;
  size_t num_ops, cap_ops;
} unreferenced_item;

/* The finding of item it (its operations found); NULL when it has none
 * (the findings on that item then carry the removal). An allocation
 * counts with its delete (l: the trace's lifetimes, or empty). */
static json_t *unreferenced_finding(doc_ctx *x, const unreferenced_item *it,
                                    const omplens_lifetimes *l) {
  const omplens_report_input *in = x->in;
  unreferenced_set *set = &x->unreferenced;
  size_t p = x->proc, nev, count = 0, at = 0;
  const omplens_event *ev = omplens_trace_events(in->procs[p].trace, &nev);
  json_t *inst = json_array();
  uint64_t bytes = 0, ns = 0;
  int device = 0;
  for (size_t k = 0; k < it->num_ops; k++) {
    uint32_t i = it->ops[k];
    const omplens_event *e = &ev[i];
    if (push_op(&set->ops, &set->num_ops, &set->cap_ops, i))
      continue;
    omplens_instance one = {i, UINT32_MAX};
    if (count++ < x->max_instances)
      json_array_append_new(inst, instance(ev, nev, &one));
    if (e->kind != OMPLENS_EV_ALLOC)
      bytes += e->bytes; /* bytes moved */
    ns += e->end_ns - e->begin_ns;
    uint32_t del = e->kind == OMPLENS_EV_ALLOC ? omplens_lifetimes_delete_of(l, i, &at) : UINT32_MAX;
    if (del < nev)
      ns += ev[del].end_ns > ev[del].begin_ns ? ev[del].end_ns - ev[del].begin_ns : 0;
    device = e->device;
  }
  if (!count) {
    json_decref(inst);
    return NULL;
  }
  const omplens_unreferenced *u = &it->u;
  uint64_t codeptr = it->codeptr;
  set->count += count;
  set->bytes += bytes;
  set->savings_ns += ns;
  json_t *o = json_object();
  json_object_set_new(o, "category", json_string(OMPLENS_REPORT_UNREFERENCED));
  json_object_set_new(o, "device", json_integer(device));
  json_object_set_new(o, "location", finding_location(x, codeptr));
  json_t *var = json_object();
  json_object_set_new(var, "item", text(u->item));
  json_object_set_new(var, "name", text(u->name));
  json_object_set_new(var, "certain", json_boolean(u->certain));
  json_object_set_new(o, "variable", var);
  json_object_set_new(o, "bytes", num(bytes / count));
  json_object_set_new(o, "count", num(count));
  json_object_set_new(o, "total_bytes", num(bytes));
  json_object_set_new(o, "total_ns", num(ns));
  json_object_set_new(o, "savings_ns", num(ns));
  json_object_set_new(o, "source_only", json_true());
  json_object_set_new(o, "instances", inst);
  if (json_array_size(inst) < count)
    json_object_set_new(o, "instances_omitted", num(count - json_array_size(inst)));
  const omplens_fix *fx = NULL;
  if (in->procs[p].fixer && !x->without_fixes &&
      !omplens_fix_for_unreferenced(in->procs[p].fixer, codeptr, u->name, &fx))
    json_object_set_new(o, "fix", fix_value(x, fx));
  return o;
}

/* A bit per event held by a detector finding. */
static uint8_t *held_events(const omplens_analysis *an, size_t nev) {
  uint8_t *held = calloc(nev / 8 + 1, 1);
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(an, &n);
  for (size_t i = 0; held && i < n; i++)
    for (size_t k = 0; k < f[i].num_instances; k++)
      if (f[i].instances[k].event < nev)
        held[f[i].instances[k].event >> 3] |= (uint8_t)(1u << (f[i].instances[k].event & 7));
  return held;
}

/* The unreferenced items of the executed target constructs, in the order
 * of their first regions (up to 16 a construct); *by_site: per trace
 * site, the first of its items + 1 (0: none; a site's items are
 * consecutive). False without memory. */
static bool unreferenced_items(doc_ctx *x, unreferenced_item **items, size_t *n,
                               uint32_t **by_site) {
  omplens_annotator *a = x->in->procs[x->proc].annotator;
  const omplens_trace *t = x->in->procs[x->proc].trace;
  size_t nr, nsites, cap = 0;
  const omplens_region *r = omplens_trace_regions(t, &nr);
  omplens_trace_sites(t, &nsites);
  *items = NULL;
  *n = 0;
  *by_site = calloc(nsites + 1, sizeof **by_site);
  unsigned char *seen = calloc(nsites + 1, 1); /* per site: a target region came before */
  bool ok = *by_site && seen;
  for (size_t i = 0; ok && i < nr; i++) {
    uint32_t site = omplens_trace_site_index(t, r[i].codeptr);
    if (r[i].kind != OMPLENS_CONSTRUCT_TARGET || seen[site])
      continue;
    seen[site] = 1;
    omplens_unreferenced found[16];
    size_t nu = omplens_annotate_unreferenced(a, r[i].codeptr, found, 16);
    if (nu > 16)
      nu = 16;
    if (nu && *n + nu > cap) {
      unreferenced_item *grown = realloc(*items, (cap = 2 * cap + 16) * sizeof *grown);
      ok = grown != NULL;
      *items = ok ? grown : *items;
    }
    if (nu && ok && site)
      (*by_site)[site] = (uint32_t)*n + 1;
    for (size_t j = 0; ok && j < nu; j++)
      (*items)[(*n)++] = (unreferenced_item){r[i].codeptr, found[j], NULL, 0, 0};
  }
  free(seen);
  return ok;
}

/* Map items of executed target constructs that the body never names: the
 * operations of each that no detector finding holds, gathered in one pass
 * over the events (a construct may map hundreds of such items). */
static void build_unreferenced(doc_ctx *x) {
  unreferenced_set *u = &x->unreferenced;
  omplens_annotator *a = x->in->procs[x->proc].annotator;
  const omplens_trace *t = x->in->procs[x->proc].trace;
  size_t nev, nsites, n = 0;
  const omplens_event *ev = omplens_trace_events(t, &nev);
  omplens_trace_sites(t, &nsites);
  u->built = 1;
  u->findings = json_array();
  if (!a)
    return;
  u->held = held_events(x->in->procs[x->proc].analysis, nev);
  unreferenced_item *items = NULL;
  uint32_t *by_site = NULL;
  bool ok = u->held && unreferenced_items(x, &items, &n, &by_site);
  bool allocs = false;
  for (size_t i = 0; ok && n && i < nev; i++) {
    const omplens_event *e = &ev[i];
    omplens_variable v;
    if ((e->kind != OMPLENS_EV_H2D && e->kind != OMPLENS_EV_D2H && e->kind != OMPLENS_EV_ALLOC) ||
        e->site > nsites || !by_site[e->site] || (u->held[i >> 3] >> (i & 7) & 1) ||
        omplens_annotate_variable(a, e, &v))
      continue;
    size_t first = by_site[e->site] - 1;
    for (size_t j = first; j < n && items[j].codeptr == items[first].codeptr; j++) {
      unreferenced_item *it = &items[j];
      if (!strcmp(v.name, it->u.name) &&
          !push_op(&it->ops, &it->num_ops, &it->cap_ops, (uint32_t)i))
        allocs |= e->kind == OMPLENS_EV_ALLOC;
    }
  }
  omplens_lifetimes l = {0};
  if (allocs)
    omplens_lifetimes_build(&l, ev, nev);
  for (size_t j = 0; j < n; j++) {
    json_t *f = unreferenced_finding(x, &items[j], &l);
    if (f)
      json_array_append_new(u->findings, f);
    free(items[j].ops);
  }
  omplens_lifetimes_free(&l);
  free(items);
  free(by_site);
}

/* Appends the process's mapped-but-unreferenced findings to arr. */
static void append_unreferenced(doc_ctx *x, json_t *arr) {
  if (!x->unreferenced.built)
    build_unreferenced(x);
  json_array_extend(arr, x->unreferenced.findings);
}

static int compare_totals(const void *pa, const void *pb) {
  const omplens_directive_total *const *a = pa, *const *b = pb;
  return (*a)->codeptr < (*b)->codeptr ? -1 : (*a)->codeptr > (*b)->codeptr;
}

/* The directives' totals, by codeptr (caller frees; NULL without memory). */
static const omplens_directive_total **totals_by_codeptr(doc_ctx *x, size_t *n) {
  const omplens_directive_total *d = omplens_analysis_directives(x->in->procs[x->proc].analysis, n);
  const omplens_directive_total **by_codeptr = calloc(*n ? *n : 1, sizeof *by_codeptr);
  for (size_t i = 0; by_codeptr && i < *n; i++)
    by_codeptr[i] = &d[i];
  if (by_codeptr)
    qsort(by_codeptr, *n, sizeof *by_codeptr, compare_totals);
  return by_codeptr;
}

/* The entry of directive profile p, with its totals from by_codeptr. */
static json_t *directive_of(doc_ctx *x, const omplens_directive_total **by_codeptr, size_t n,
                            const omplens_directive_profile *p) {
  omplens_directive_total key = {.codeptr = p->codeptr};
  const omplens_directive_total *k = &key, **found = NULL;
  if (p->has_findings)
    found = bsearch(&k, by_codeptr, n, sizeof *by_codeptr, compare_totals);
  return directive(x, p, found ? *found : NULL);
}

/* Every directive, by time (omplens_analysis_profiles); those with
 * findings are found among the totals by codeptr. */
static json_t *directive_list(doc_ctx *x) {
  size_t n, np;
  const omplens_directive_profile *p = omplens_analysis_profiles(x->in->procs[x->proc].analysis, &np);
  const omplens_directive_total **by_codeptr = totals_by_codeptr(x, &n);
  json_t *arr = json_array();
  if (!by_codeptr)
    return arr;
  for (size_t i = 0; i < np; i++)
    json_array_append_new(arr, directive_of(x, by_codeptr, n, &p[i]));
  free(by_codeptr);
  return arr;
}

static json_t *leftover_list(doc_ctx *x) {
  size_t n;
  const omplens_leftover *l = omplens_analysis_leftovers(x->in->procs[x->proc].analysis, &n);
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(arr, leftover(x, &l[i], i));
  return arr;
}

/* A process up to its findings: where it ran, totals and (unless
 * streamed) directives. */
static json_t *process_head(doc_ctx *x, bool directives) {
  json_t *o = process_info(x->in->procs[x->proc].trace);
  json_object_set_new(o, "totals", totals(x));
  if (directives)
    json_object_set_new(o, "directives", directive_list(x));
  return o;
}

/* One process with at most max_findings of the detectors' findings (the
 * ones saving most come first); the rest are counted in findings_omitted. */
static json_t *process(doc_ctx *x, size_t max_findings) {
  json_t *o = process_head(x, true);
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(x->in->procs[x->proc].analysis, &n);
  size_t listed = n < max_findings ? n : max_findings;
  json_t *arr = json_array();
  for (size_t i = 0; i < listed; i++)
    json_array_append_new(arr, finding(x, &f[i], i));
  append_unreferenced(x, arr);
  json_object_set_new(o, "findings", arr);
  json_object_set_new(o, "mappings_at_exit", leftover_list(x));
  if (listed < n) {
    uint64_t saved = 0;
    for (size_t i = listed; i < n; i++)
      saved += f[i].savings_ns;
    json_object_set_new(o, "findings_omitted", num(n - listed));
    json_object_set_new(o, "findings_omitted_savings_ns", num(saved));
  }
  return o;
}

static json_t *root_head(const omplens_report_input *in) {
  json_t *root = json_object();
  json_object_set_new(root, "schema", json_string("omplens-findings"));
  json_object_set_new(root, "schema_version", json_integer(OMPLENS_FINDINGS_SCHEMA_VERSION));
  json_object_set_new(root, "omplens_version", json_string(OMPLENS_VERSION));
  if (in->program_exit_status >= 0)
    json_object_set_new(root, "program_exit_status", json_integer(in->program_exit_status));
  return root;
}

static json_t *document(const omplens_report_input *in, size_t max_findings, size_t max_instances,
                        bool pages) {
  json_t *root = root_head(in);
  json_t *procs = json_array();
  for (size_t p = 0; p < in->num_procs; p++) {
    doc_ctx x = {.in = in, .proc = p, .max_instances = max_instances};
    json_t *proc = process(&x, max_findings);
    if (pages) /* here, on one thread: the renderers only read it */
      json_object_set_new(proc, OMPLENS_REPORT__PAGE_DIRECTIVES,
                          omplens_report__page_directives(proc));
    json_array_append_new(procs, proc);
    doc_ctx_free(&x);
  }
  json_object_set_new(root, "processes", procs);
  json_t *ranks = omplens_report__ranks(in);
  if (ranks)
    json_object_set_new(root, "ranks", ranks);
  return root;
}

json_t *omplens_report_document(const omplens_report_input *in) {
  return in ? document(in, SIZE_MAX, OMPLENS_REPORT_MAX_INSTANCES, false) : NULL;
}

json_t *omplens_report_document_limited(const omplens_report_input *in, size_t max_findings,
                                        size_t max_instances) {
  return in ? document(in, max_findings ? max_findings : SIZE_MAX,
                       max_instances ? max_instances : OMPLENS_REPORT_MAX_INSTANCES, true)
            : NULL;
}

/* ---- what timeline.json marks, before the fixes ------------------------- */

/* {"location": ...} of codeptr. */
static json_t *located(doc_ctx *x, uint64_t codeptr) {
  json_t *o = json_object();
  json_object_set_new(o, "location", location(x, codeptr));
  return o;
}

/* One process as process() lists it, with what timeline.json reads of it
 * (docs/sarif-and-timeline.md): where it ran, its directives' and leftover
 * mappings' locations, and its findings' categories, locations and listed
 * instances, in the same order. */
static json_t *marks_process(doc_ctx *x, size_t max_findings) {
  const omplens_analysis *an = x->in->procs[x->proc].analysis;
  size_t nev, n, np, nl;
  const omplens_event *ev = omplens_trace_events(x->in->procs[x->proc].trace, &nev);
  json_t *o = process_info(x->in->procs[x->proc].trace), *dirs = json_array(),
         *findings = json_array(), *leftovers = json_array();
  const omplens_directive_profile *p = omplens_analysis_profiles(an, &np);
  for (size_t i = 0; i < np; i++)
    json_array_append_new(dirs, located(x, p[i].codeptr));
  const omplens_finding *f = omplens_analysis_findings(an, &n);
  for (size_t i = 0; i < n && i < max_findings; i++) {
    json_t *m = located(x, f[i].codeptr);
    json_object_set_new(m, "category", json_string(omplens_category_name(f[i].category)));
    json_object_set_new(m, "instances", listed_instances(ev, nev, &f[i], listed_count(x, &f[i])));
    json_array_append_new(findings, m);
  }
  append_unreferenced(x, findings);
  const omplens_leftover *l = omplens_analysis_leftovers(an, &nl);
  for (size_t i = 0; i < nl; i++)
    json_array_append_new(leftovers, located(x, l[i].codeptr));
  json_object_set_new(o, "directives", dirs);
  json_object_set_new(o, "findings", findings);
  json_object_set_new(o, "mappings_at_exit", leftovers);
  return o;
}

json_t *omplens_report_timeline_marks(const omplens_report_input *in, size_t max_findings,
                                      size_t max_instances) {
  if (!in)
    return NULL;
  json_t *root = root_head(in), *procs = json_array();
  for (size_t p = 0; p < in->num_procs; p++) {
    doc_ctx x = {.in = in, .proc = p, .without_fixes = true,
                 .max_instances = max_instances ? max_instances : OMPLENS_REPORT_MAX_INSTANCES};
    json_array_append_new(procs, marks_process(&x, max_findings ? max_findings : SIZE_MAX));
    doc_ctx_free(&x);
  }
  json_object_set_new(root, "processes", procs);
  return root;
}

/* ---- findings.json, streamed ------------------------------------------- */

/* Writes the listed instances of one finding as instance() would build them. */
typedef struct instance_writer {
  omplens_jout *j;
  const omplens_event *ev;
  size_t nev;
  const omplens_instance *instances;
  size_t listed;
  /* The listed instances' values, gathered once (an instance's event is
   * read once, not once per field and pass): field f of instance i at
   * values[f * cap + i], present when bit f of present[i] is set. */
  uint64_t *values;
  uint16_t *present;
  size_t cap;
} instance_writer;

/* Appends to p: the decimal digits of v (clamped as num() does). */
static char *put_u64(char *p, uint64_t v) {
  return omplens_report__format_u64(p, v > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : v);
}

static char *put_lit(char *p, const char *s) {
  size_t n = strlen(s);
  memcpy(p, s, n);
  return p + n;
}

/* The members instance() gives an instance, as columns: findings.json
 * lists a finding's instances field by field (docs/findings-schema.md,
 * version 5), since a loop's instances repeat most fields and number their
 * events regularly. */
enum instance_field {
  IF_EVENT, IF_KIND, IF_TIME, IF_DURATION, IF_BYTES, IF_HOST, IF_DEVICE, IF_HASH, IF_RELATED,
  IF_RELATED_TIME, IF_COUNT
};

static const struct {
  const char *name;
  enum { AS_NUMBER, AS_HEX, AS_KIND } form;
} INSTANCE_FIELDS[IF_COUNT] = {
    [IF_EVENT] = {"event", AS_NUMBER},         [IF_KIND] = {"kind", AS_KIND},
    [IF_TIME] = {"time_ns", AS_NUMBER},        [IF_DURATION] = {"duration_ns", AS_NUMBER},
    [IF_BYTES] = {"bytes", AS_NUMBER},         [IF_HOST] = {"host_addr", AS_HEX},
    [IF_DEVICE] = {"device_addr", AS_HEX},     [IF_HASH] = {"hash", AS_HEX},
    [IF_RELATED] = {"related_event", AS_NUMBER},
    [IF_RELATED_TIME] = {"related_time_ns", AS_NUMBER},
};

/* Instance in's values of every field into v[]; bit f of the result is set
 * when instance() gives the member. Numbers are clamped as num() clamps
 * them. */
static unsigned instance_values(const instance_writer *w, const omplens_instance *in,
                                uint64_t v[IF_COUNT]) {
  if (in->event >= w->nev)
    return 0;
  const omplens_event *e = &w->ev[in->event];
  unsigned present = (1u << IF_EVENT) | (1u << IF_KIND) | (1u << IF_TIME) |
                     (1u << IF_DURATION) | (1u << IF_BYTES) | (1u << IF_HOST) |
                     (1u << IF_DEVICE);
  v[IF_EVENT] = in->event;
  v[IF_KIND] = e->kind;
  v[IF_TIME] = e->begin_ns;
  v[IF_DURATION] = e->end_ns - e->begin_ns;
  v[IF_BYTES] = e->bytes;
  v[IF_HOST] = e->host_addr;
  v[IF_DEVICE] = e->dev_addr;
  v[IF_HASH] = e->hash;
  if (e->flags & OMPLENS_EVF_HASHED)
    present |= 1u << IF_HASH;
  if (in->related < w->nev) {
    v[IF_RELATED] = in->related;
    v[IF_RELATED_TIME] = w->ev[in->related].begin_ns;
    present |= (1u << IF_RELATED) | (1u << IF_RELATED_TIME);
  }
  for (int f = 0; f < IF_COUNT; f++)
    if (INSTANCE_FIELDS[f].form == AS_NUMBER && v[f] > (uint64_t)INT64_MAX)
      v[f] = (uint64_t)INT64_MAX;
  return present;
}

/* Gathers the listed instances' values; false without memory. */
static bool gather(instance_writer *w) {
  if (w->listed > w->cap) {
    size_t cap = w->listed;
    uint64_t *values = realloc(w->values, cap * IF_COUNT * sizeof *values);
    if (values)
      w->values = values;
    uint16_t *present = values ? realloc(w->present, cap * sizeof *present) : NULL;
    if (!present)
      return false;
    w->present = present;
    w->cap = cap;
  }
  for (size_t i = 0; i < w->listed; i++) {
    /* Instances point all over the event array: fetch ahead. */
    if (i + 8 < w->listed && w->instances[i + 8].event < w->nev)
      __builtin_prefetch(&w->ev[w->instances[i + 8].event]);
    uint64_t v[IF_COUNT];
    w->present[i] = (uint16_t)instance_values(w, &w->instances[i], v);
    for (int f = 0; f < IF_COUNT; f++)
      w->values[(size_t)f * w->cap + i] = v[f];
  }
  return true;
}

/* Instance i's value of field f in *v; false when instance() leaves the
 * member out. */
static bool instance_value(const instance_writer *w, size_t i, enum instance_field f,
                           uint64_t *v) {
  *v = w->values[(size_t)f * w->cap + i];
  return w->present[i] >> f & 1;
}

static char *put_value(char *p, enum instance_field f, uint64_t v) {
  switch (INSTANCE_FIELDS[f].form) {
  case AS_HEX: return omplens_report__format_hex(p, v);
  case AS_KIND: return put_lit(put_lit(put_lit(p, "\""), omplens_event_kind_name((int)v)), "\"");
  default: return put_u64(p, v);
  }
}

/* How a column is written: left out (no instance has the field), one
 * value (every instance has it, the same), a progression {"first", "step"}
 * (numbers, every instance, not decreasing by a constant step, 3 or more),
 * or an array of every instance's value (null where one has none). */
enum column_form { COL_ABSENT, COL_SAME, COL_STEP, COL_ARRAY };

static enum column_form column_form(const instance_writer *w, enum instance_field f,
                                    uint64_t *first, uint64_t *step) {
  size_t present = 0;
  bool same = true, stepped = INSTANCE_FIELDS[f].form == AS_NUMBER && w->listed >= 3;
  uint64_t prev = 0;
  for (size_t i = 0; i < w->listed; i++) {
    uint64_t v;
    if (!instance_value(w, i, f, &v)) {
      stepped = same = false;
      continue;
    }
    if (present == 0)
      *first = v;
    else if (present == 1)
      *step = v - prev;
    same = same && v == *first;
    stepped = stepped && (present == 0 || (v >= prev && v - prev == *step));
    prev = v;
    present++;
  }
  if (!present)
    return COL_ABSENT;
  return same ? COL_SAME : stepped ? COL_STEP : COL_ARRAY;
}

/* The column of field f, after its key, on one line. */
static void write_column(instance_writer *w, enum instance_field f, enum column_form form,
                         uint64_t first, uint64_t step) {
  char buf[64], *p = buf;
  if (form == COL_SAME) {
    p = put_value(p, f, first);
  } else if (form == COL_STEP) {
    p = put_u64(put_lit(p, "{\"first\": "), first);
    p = put_lit(put_u64(put_lit(p, ", \"step\": "), step), "}");
  }
  if (form != COL_ARRAY) {
    omplens_jout_raw(w->j, buf, (size_t)(p - buf));
    return;
  }
  omplens_jout_raw(w->j, "[", 1);
  for (size_t i = 0; i < w->listed; i++) {
    uint64_t v;
    p = buf;
    if (i)
      p = put_lit(p, ", ");
    p = instance_value(w, i, f, &v) ? put_value(p, f, v) : put_lit(p, "null");
    omplens_jout_raw(w->j, buf, (size_t)(p - buf));
  }
  omplens_jout_raw(w->j, "]", 1);
}

/* The listed instances: {"count": N, then a column per field}. */
static void write_instances(void *ctx, int depth) {
  instance_writer *w = ctx;
  char buf[32];
  if (!gather(w)) {
    w->j->failed = 1; /* out of memory: the file is not written */
    return;
  }
  omplens_jout_raw(w->j, "{", 1);
  omplens_jout_newline(w->j, depth + 1);
  char *p = put_u64(put_lit(buf, "\"count\": "), w->listed);
  omplens_jout_raw(w->j, buf, (size_t)(p - buf));
  for (int f = 0; f < IF_COUNT; f++) {
    uint64_t first = 0, step = 0;
    enum column_form form = column_form(w, (enum instance_field)f, &first, &step);
    if (form == COL_ABSENT)
      continue;
    omplens_jout_raw(w->j, ",", 1);
    omplens_jout_newline(w->j, depth + 1);
    p = put_lit(put_lit(put_lit(buf, "\""), INSTANCE_FIELDS[f].name), "\": ");
    omplens_jout_raw(w->j, buf, (size_t)(p - buf));
    write_column(w, (enum instance_field)f, form, first, step);
  }
  omplens_jout_newline(w->j, depth);
  omplens_jout_raw(w->j, "}", 1);
}

/* A mapped-but-unreferenced finding o (its instances as instance()
 * objects, with no related event) written with its instances as columns
 * too; nonzero without memory. */
static int stream_source_only(omplens_jout *j, int depth, instance_writer *w, json_t *o,
                              json_t *hole, bool comma) {
  const json_t *rows = json_object_get(o, "instances");
  size_t k, listed = json_array_size(rows);
  omplens_instance *inst = malloc((listed ? listed : 1) * sizeof *inst);
  if (!inst)
    return -1;
  const json_t *row;
  json_array_foreach(rows, k, row) {
    json_int_t ev = json_integer_value(json_object_get(row, "event"));
    inst[k] = (omplens_instance){json_object_get(row, "event") ? (uint32_t)ev : UINT32_MAX,
                                 UINT32_MAX};
  }
  json_object_set(o, "instances", hole);
  w->instances = inst;
  w->listed = listed;
  omplens_jout_raw(j, comma ? "," : "", comma ? 1 : 0);
  omplens_jout_newline(j, depth + 1);
  omplens_jout_value(j, o, depth + 1, hole, write_instances, w);
  free(inst);
  return 0;
}

/* The findings array of one process at member level depth, one finding
 * object alive at a time. */
static int stream_findings(omplens_jout *j, doc_ctx *x, int depth) {
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(x->in->procs[x->proc].analysis, &n);
  json_t *extra = json_array(), *hole = json_array();
  if (!extra || !hole) {
    json_decref(extra);
    json_decref(hole);
    return OMPLENS_REPORT_ENOMEM;
  }
  append_unreferenced(x, extra);
  if (!n && !json_array_size(extra)) {
    omplens_jout_raw(j, "[]", 2);
  } else {
    instance_writer w = {.j = j};
    w.ev = omplens_trace_events(x->in->procs[x->proc].trace, &w.nev);
    omplens_jout_raw(j, "[", 1);
    for (size_t i = 0; i < n && !j->failed; i++) {
      w.instances = f[i].instances;
      w.listed = listed_count(x, &f[i]);
      omplens_jout_raw(j, i ? "," : "", i ? 1 : 0);
      omplens_jout_newline(j, depth + 1);
      omplens_jout_raw(j, "{", 1);
      omplens_jmembers m = {.j = j, .depth = depth + 2, .first = 1};
      finding_members(x, &f[i], i, &m, &w);
      omplens_jout_newline(j, depth + 1);
      omplens_jout_raw(j, "}", 1);
    }
    for (size_t i = 0; i < json_array_size(extra) && !j->failed; i++) {
      json_t *o = json_array_get(extra, i);
      if (stream_source_only(j, depth, &w, o, hole, i || n))
        j->failed = 1;
    }
    omplens_jout_newline(j, depth);
    omplens_jout_raw(j, "]", 1);
    free(w.values);
    free(w.present);
  }
  json_decref(extra);
  json_decref(hole);
  return 0;
}

/* The directives array of one process at member level depth, as
 * directive_list() would write, one directive's entry alive at a time:
 * with thousands of directives the whole list was 10 MB of JSON objects.
 * Beside a page document, its list (the same entries) is written. */
/* An array of n objects at member level depth, made by make(ctx, i) one
 * at a time (NULL: out of memory, and the file fails). */
static void stream_array(omplens_jout *j, int depth, size_t n,
                         json_t *(*make)(void *ctx, size_t i), void *ctx) {
  omplens_jout_raw(j, n ? "[" : "[]", n ? 1 : 2);
  for (size_t i = 0; i < n && !j->failed; i++) {
    json_t *o = make(ctx, i);
    if (!o) {
      j->failed = 1;
      break;
    }
    omplens_jout_raw(j, i ? "," : "", i ? 1 : 0);
    omplens_jout_newline(j, depth + 1);
    omplens_jout_value(j, o, depth + 1, NULL, NULL, NULL);
    json_decref(o);
  }
  if (n) {
    omplens_jout_newline(j, depth);
    omplens_jout_raw(j, "]", 1);
  }
}

typedef struct directive_maker {
  doc_ctx *x;
  const omplens_directive_profile *profiles;
  const omplens_directive_total **by_codeptr;
  size_t num_totals;
} directive_maker;

static json_t *make_directive(void *ctx, size_t i) {
  directive_maker *d = ctx;
  return directive_of(d->x, d->by_codeptr, d->num_totals, &d->profiles[i]);
}

static int stream_directives(omplens_jout *j, doc_ctx *x, int depth) {
  size_t np;
  directive_maker d = {x, omplens_analysis_profiles(x->in->procs[x->proc].analysis, &np), NULL, 0};
  if (x->page_directives) {
    omplens_jout_value(j, x->page_directives, depth, NULL, NULL, NULL);
    return 0;
  }
  if (!(d.by_codeptr = totals_by_codeptr(x, &d.num_totals)))
    return OMPLENS_REPORT_ENOMEM;
  stream_array(j, depth, np, make_directive, &d);
  free(d.by_codeptr);
  return 0;
}

static json_t *make_fix(void *ctx, size_t i) {
  doc_ctx *x = ctx;
  return fix_object_of(x, x->named[i]);
}

/* One process object at element level depth. */
static int stream_process(omplens_jout *j, doc_ctx *x, int depth) {
  x->out = j;
  json_t *head = process_head(x, false);
  if (!head)
    return OMPLENS_REPORT_ENOMEM;
  int first = 1;
  omplens_jout_raw(j, "{", 1);
  omplens_jout_members(j, head, depth + 1, &first, NULL, NULL, NULL);
  json_decref(head);
  omplens_jout_key(j, depth + 1, "directives", &first);
  int rc = stream_directives(j, x, depth + 1);
  if (!rc) {
    omplens_jout_key(j, depth + 1, "findings", &first);
    rc = stream_findings(j, x, depth + 1);
  }
  json_t *left = rc ? NULL : leftover_list(x); /* names their fixes */
  if (!rc && !left)
    rc = OMPLENS_REPORT_ENOMEM;
  if (!rc) {
    omplens_jout_key(j, depth + 1, "fixes", &first); /* each once, in the order named */
    stream_array(j, depth + 1, x->num_named, make_fix, x);
  }
  if (!rc) {
    omplens_jout_key(j, depth + 1, "mappings_at_exit", &first);
    omplens_jout_value(j, left, depth + 1, NULL, NULL, NULL);
  }
  json_decref(left);
  omplens_jout_newline(j, depth);
  omplens_jout_raw(j, "}", 1);
  return rc;
}

int omplens_report__stream_json_frame(int program_exit_status, size_t num_procs,
                                      omplens_report__process_writer write,
                                      json_t *(*ranks_of)(void *ctx), void *ctx, FILE *out) {
  omplens_jout *j = malloc(sizeof *j);
  omplens_report_input head = {NULL, 0, program_exit_status};
  json_t *root = root_head(&head);
  if (!j || !root) {
    free(j);
    json_decref(root);
    return OMPLENS_REPORT_ENOMEM;
  }
  omplens_jout_init(j, out);
  int first = 1, rc = 0;
  omplens_jout_raw(j, "{", 1);
  omplens_jout_members(j, root, 1, &first, NULL, NULL, NULL);
  json_decref(root);
  omplens_jout_key(j, 1, "processes", &first);
  omplens_jout_raw(j, num_procs ? "[" : "[]", num_procs ? 1 : 2);
  for (size_t p = 0; p < num_procs && !rc; p++) {
    omplens_jout_raw(j, p ? "," : "", p ? 1 : 0);
    omplens_jout_newline(j, 2);
    rc = write(ctx, j, p, 2);
  }
  if (num_procs) {
    omplens_jout_newline(j, 1);
    omplens_jout_raw(j, "]", 1);
  }
  /* After the processes: the annotators are asked in the order of the
   * document (a note told once lands on the first location asked). */
  json_t *ranks = rc || !ranks_of ? NULL : ranks_of(ctx);
  if (ranks) {
    omplens_jout_key(j, 1, "ranks", &first);
    omplens_jout_value(j, ranks, 1, NULL, NULL, NULL);
    json_decref(ranks);
  }
  omplens_jout_newline(j, 0);
  omplens_jout_raw(j, "}", 1);
  if (omplens_jout_finish(j) && !rc)
    rc = OMPLENS_REPORT_EIO;
  free(j);
  return rc;
}

/* From page, the pages' document's object of x's process: its directives
 * list, when it holds directive_list()'s entries (one per profile, in
 * order), and each entry's location object, kept in x's cache by the
 * profile's code address for the findings written next. */
static void borrow_page(doc_ctx *x, const json_t *page) {
  size_t np;
  const omplens_directive_profile *p = omplens_analysis_profiles(x->in->procs[x->proc].analysis, &np);
  const json_t *list = json_object_get(page, "directives");
  if (!np || json_array_size(list) != np)
    return;
  x->page_directives = list;
  for (size_t i = 0; i < np; i++)
    if (!cache_get(&x->locations, p[i].codeptr))
      cache_put(&x->locations, p[i].codeptr, json_object_get(json_array_get(list, i), "location"));
}

int omplens_report__stream_process(const omplens_report_input *in, size_t proc,
                                   const json_t *page, omplens_jout *j, int depth) {
  doc_ctx x = {.in = in, .proc = proc, .max_instances = OMPLENS_REPORT_MAX_INSTANCES,
               .streaming = true};
  borrow_page(&x, page);
  int rc = stream_process(j, &x, depth);
  doc_ctx_free(&x);
  return rc;
}

typedef struct stream_input {
  const omplens_report_input *in;
  const json_t *pages; /* the page document's processes, or NULL */
} stream_input;

static int write_process(void *ctx, omplens_jout *j, size_t proc, int depth) {
  const stream_input *s = ctx;
  return omplens_report__stream_process(s->in, proc, json_array_get(s->pages, proc), j, depth);
}

static json_t *ranks_of_input(void *ctx) {
  return omplens_report__ranks(((const stream_input *)ctx)->in);
}

int omplens_report_stream_json_beside(const omplens_report_input *in, const json_t *doc,
                                      FILE *out) {
  if (!in || !out)
    return OMPLENS_REPORT_EINVAL;
  const json_t *pages = json_object_get(doc, "processes");
  stream_input s = {in, json_array_size(pages) == in->num_procs ? pages : NULL};
  return omplens_report__stream_json_frame(in->program_exit_status, in->num_procs, write_process,
                                           ranks_of_input, &s, out);
}

int omplens_report_stream_json(const omplens_report_input *in, FILE *out) {
  return omplens_report_stream_json_beside(in, NULL, out);
}

json_t *omplens_report__root(int program_exit_status) {
  omplens_report_input head = {NULL, 0, program_exit_status};
  return root_head(&head);
}

json_t *omplens_report__page_process(const omplens_report_input *in, size_t proc,
                                     size_t max_findings, size_t max_instances) {
  doc_ctx x = {.in = in, .proc = proc,
               .max_instances = max_instances ? max_instances : OMPLENS_REPORT_MAX_INSTANCES};
  json_t *o = process(&x, max_findings ? max_findings : SIZE_MAX);
  if (o)
    json_object_set_new(o, OMPLENS_REPORT__PAGE_DIRECTIVES, omplens_report__page_directives(o));
  doc_ctx_free(&x);
  return o;
}

int omplens_report_write_json(const omplens_report_input *in, const char *path) {
  if (!in || !path)
    return OMPLENS_REPORT_EINVAL;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
  FILE *f = fopen(tmp, "w");
  int rc = f ? omplens_report_stream_json(in, f) : OMPLENS_REPORT_EIO;
  if (f && fclose(f) && !rc)
    rc = OMPLENS_REPORT_EIO;
  if (rc || rename(tmp, path)) {
    int saved = errno;
    unlink(tmp);
    errno = saved;
    return rc ? rc : OMPLENS_REPORT_EIO;
  }
  return 0;
}
