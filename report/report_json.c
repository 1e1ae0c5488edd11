/* findings.json renderer (docs/findings-schema.md). One static function per
 * part of the document; the loop in write_json assembles them. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "omplens_config.h"
#include "omplens_render.h"
#include "report_internal.h"

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

static json_t *location(const omplens_report_input *in, size_t proc, uint64_t codeptr) {
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

/* The map item of a finding's operations (they share one buffer). */
static json_t *variable(const omplens_report_input *in, size_t proc, const omplens_finding *f,
                        const omplens_event *ev, size_t nev) {
  omplens_variable v;
  omplens_annotator *a = in->procs[proc].annotator;
  if (!a || !f->num_instances || f->instances[0].event >= nev ||
      omplens_annotate_variable(a, &ev[f->instances[0].event], &v))
    return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "item", text(v.item));
  json_object_set_new(o, "name", text(v.name));
  json_object_set_new(o, "certain", json_boolean(v.certain));
  if (!v.certain) {
    json_t *c = json_array();
    for (size_t i = 0; i < v.num_candidates; i++)
      json_array_append_new(c, text(v.candidates[i]));
    json_object_set_new(o, "candidates", c);
  }
  return o;
}

static json_t *totals(const omplens_program_total *t) {
  json_t *o = json_object();
  json_object_set_new(o, "run_ns", num(t->run_ns));
  json_object_set_new(o, "savings_ns", num(t->savings_ns));
  json_object_set_new(o, "predicted_speedup", json_real(t->speedup));
  json_object_set_new(o, "transfers", num(t->num_transfers));
  json_object_set_new(o, "transfer_bytes", num(t->transfer_bytes));
  json_object_set_new(o, "transfer_ns", num(t->transfer_ns));
  json_object_set_new(o, "allocations", num(t->num_allocs));
  json_object_set_new(o, "alloc_ns", num(t->alloc_ns));
  json_object_set_new(o, "kernels", num(t->num_kernels));
  json_object_set_new(o, "kernel_ns", num(t->kernel_ns));
  json_object_set_new(o, "counts", per_category(t->count, NULL));
  json_object_set_new(o, "bytes", per_category(NULL, t->bytes));
  return o;
}

static json_t *directive(const omplens_report_input *in, size_t proc,
                         const omplens_directive_total *d) {
  json_t *o = json_object();
  json_object_set_new(o, "location", location(in, proc, d->codeptr));
  json_object_set_new(o, "executions", num(d->executions));
  json_object_set_new(o, "savings_ns", num(d->savings_ns));
  json_object_set_new(o, "transfer_ns", num(d->transfer_ns));
  json_object_set_new(o, "transfer_bytes", num(d->transfer_bytes));
  json_object_set_new(o, "counts", per_category(d->count, NULL));
  json_object_set_new(o, "bytes", per_category(NULL, d->bytes));
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

/* The suggested change (docs/fixes.md); NULL when there is none. */
static json_t *fix_object(const omplens_fix *fx) {
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

static json_t *finding(const omplens_report_input *in, size_t proc, const omplens_finding *f,
                       size_t index) {
  size_t nev;
  const omplens_event *ev = omplens_trace_events(in->procs[proc].trace, &nev);
  json_t *o = json_object();
  json_object_set_new(o, "category", json_string(omplens_category_name(f->category)));
  json_object_set_new(o, "device", device(f->device));
  json_object_set_new(o, "location", location(in, proc, f->codeptr));
  json_t *var = variable(in, proc, f, ev, nev);
  if (var)
    json_object_set_new(o, "variable", var);
  json_object_set_new(o, "host_addr", hex(f->host_addr));
  json_object_set_new(o, "bytes", num(f->bytes));
  json_object_set_new(o, "count", num(f->num_instances));
  json_object_set_new(o, "total_bytes", num(f->total_bytes));
  json_object_set_new(o, "total_ns", num(f->total_ns));
  json_object_set_new(o, "savings_ns", num(f->savings_ns));
  /* Counts and totals above cover every instance; the list is capped, or a
   * large trace's document would be mostly instances nobody reads. */
  size_t listed = f->num_instances < OMPLENS_REPORT_MAX_INSTANCES ? f->num_instances
                                                                  : OMPLENS_REPORT_MAX_INSTANCES;
  json_t *arr = json_array();
  for (size_t i = 0; i < listed; i++)
    json_array_append_new(arr, instance(ev, nev, &f->instances[i]));
  json_object_set_new(o, "instances", arr);
  if (listed < f->num_instances)
    json_object_set_new(o, "instances_omitted", num(f->num_instances - listed));
  const omplens_fix *fx = NULL;
  if (in->procs[proc].fixer && !omplens_fix_for_finding(in->procs[proc].fixer, index, &fx))
    json_object_set_new(o, "fix", fix_object(fx));
  return o;
}

static json_t *leftover(const omplens_report_input *in, size_t proc, const omplens_leftover *l) {
  json_t *o = json_object();
  json_object_set_new(o, "device", device(l->device));
  json_object_set_new(o, "location", location(in, proc, l->codeptr));
  json_object_set_new(o, "host_addr", hex(l->host_addr));
  json_object_set_new(o, "device_addr", hex(l->dev_addr));
  json_object_set_new(o, "bytes", num(l->bytes));
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
  json_object_set_new(o, "executable", text(i->exe));
  json_object_set_new(o, "command_line", text(i->cmdline));
  json_object_set_new(o, "start_unix_ns", num(i->start_realtime_ns));
  json_object_set_new(o, "complete", json_boolean(i->complete));
  json_object_set_new(o, "devices", json_integer(i->num_devices));
  json_object_set_new(o, "dropped_events", num(i->dropped));
  json_object_set_new(o, "damage", damage_list(omplens_trace_damage(t)));
  return o;
}

/* The operations of directive `codeptr` that moved variable `name`. */
static json_t *unreferenced_finding(const omplens_report_input *in, size_t p, uint64_t codeptr,
                                    const omplens_unreferenced *u) {
  size_t nev;
  const omplens_event *ev = omplens_trace_events(in->procs[p].trace, &nev);
  omplens_annotator *a = in->procs[p].annotator;
  json_t *inst = json_array();
  uint64_t bytes = 0, ns = 0;
  int device = 0;
  for (size_t i = 0; i < nev; i++) {
    omplens_variable v;
    const omplens_event *e = &ev[i];
    if (e->codeptr != codeptr || (e->kind != OMPLENS_EV_H2D && e->kind != OMPLENS_EV_D2H &&
                                  e->kind != OMPLENS_EV_ALLOC))
      continue;
    if (omplens_annotate_variable(a, e, &v) || strcmp(v.name, u->name))
      continue;
    omplens_instance one = {(uint32_t)i, UINT32_MAX};
    json_array_append_new(inst, instance(ev, nev, &one));
    bytes += e->bytes;
    ns += e->end_ns - e->begin_ns;
    device = e->device;
  }
  if (!json_array_size(inst)) {
    json_decref(inst);
    return NULL;
  }
  json_t *o = json_object();
  json_object_set_new(o, "category", json_string("mapped-but-unreferenced"));
  json_object_set_new(o, "device", json_integer(device));
  json_object_set_new(o, "location", location(in, p, codeptr));
  json_t *var = json_object();
  json_object_set_new(var, "item", text(u->item));
  json_object_set_new(var, "name", text(u->name));
  json_object_set_new(var, "certain", json_boolean(u->certain));
  json_object_set_new(o, "variable", var);
  json_object_set_new(o, "bytes", num(json_array_size(inst) ? bytes / json_array_size(inst) : 0));
  json_object_set_new(o, "count", num(json_array_size(inst)));
  json_object_set_new(o, "total_bytes", num(bytes));
  json_object_set_new(o, "total_ns", num(ns));
  json_object_set_new(o, "savings_ns", num(ns));
  json_object_set_new(o, "source_only", json_true());
  json_object_set_new(o, "instances", inst);
  const omplens_fix *fx = NULL;
  if (in->procs[p].fixer &&
      !omplens_fix_for_unreferenced(in->procs[p].fixer, codeptr, u->name, &fx))
    json_object_set_new(o, "fix", fix_object(fx));
  return o;
}

/* Map items of executed target constructs that the body never names: a
 * finding only the source can give, not counted in the detectors' totals. */
static void append_unreferenced(const omplens_report_input *in, size_t p, json_t *arr) {
  omplens_annotator *a = in->procs[p].annotator;
  size_t nr;
  const omplens_region *r = omplens_trace_regions(in->procs[p].trace, &nr);
  uint64_t *seen = calloc(nr ? nr : 1, sizeof *seen);
  size_t nseen = 0;
  for (size_t i = 0; a && seen && i < nr; i++) {
    if (r[i].kind != OMPLENS_CONSTRUCT_TARGET)
      continue;
    size_t k = 0;
    while (k < nseen && seen[k] != r[i].codeptr)
      k++;
    if (k < nseen)
      continue;
    seen[nseen++] = r[i].codeptr;
    omplens_unreferenced u[16];
    size_t nu = omplens_annotate_unreferenced(a, r[i].codeptr, u, 16);
    for (size_t j = 0; j < nu && j < 16; j++) {
      json_t *f = unreferenced_finding(in, p, r[i].codeptr, &u[j]);
      if (f)
        json_array_append_new(arr, f);
    }
  }
  free(seen);
}

/* Each list part of a process: directives, findings or leftovers. */
static json_t *process_lists(const omplens_report_input *in, size_t p, json_t *o) {
  const omplens_analysis *a = in->procs[p].analysis;
  size_t n;
  const omplens_directive_total *d = omplens_analysis_directives(a, &n);
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(arr, directive(in, p, &d[i]));
  json_object_set_new(o, "directives", arr);
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  arr = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(arr, finding(in, p, &f[i], i));
  append_unreferenced(in, p, arr);
  json_object_set_new(o, "findings", arr);
  const omplens_leftover *l = omplens_analysis_leftovers(a, &n);
  arr = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(arr, leftover(in, p, &l[i]));
  json_object_set_new(o, "mappings_at_exit", arr);
  return o;
}

static json_t *document(const omplens_report_input *in) {
  json_t *root = json_object();
  json_object_set_new(root, "schema", json_string("omplens-findings"));
  json_object_set_new(root, "schema_version", json_integer(OMPLENS_FINDINGS_SCHEMA_VERSION));
  json_object_set_new(root, "omplens_version", json_string(OMPLENS_VERSION));
  if (in->program_exit_status >= 0)
    json_object_set_new(root, "program_exit_status", json_integer(in->program_exit_status));
  json_t *procs = json_array();
  for (size_t p = 0; p < in->num_procs; p++) {
    json_t *o = process_info(in->procs[p].trace);
    json_object_set_new(o, "totals", totals(omplens_analysis_total(in->procs[p].analysis)));
    json_array_append_new(procs, process_lists(in, p, o));
  }
  json_object_set_new(root, "processes", procs);
  return root;
}

json_t *omplens_report_document(const omplens_report_input *in) {
  return in ? document(in) : NULL;
}

int omplens_report_write_json(const omplens_report_input *in, const char *path) {
  if (!in || !path)
    return OMPLENS_REPORT_EINVAL;
  json_t *root = document(in);
  if (!root)
    return OMPLENS_REPORT_ENOMEM;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
  int rc = json_dump_file(root, tmp, JSON_INDENT(2) | JSON_ENSURE_ASCII);
  json_decref(root);
  if (rc || rename(tmp, path)) {
    int saved = errno;
    unlink(tmp);
    errno = saved;
    return OMPLENS_REPORT_EIO;
  }
  return 0;
}
