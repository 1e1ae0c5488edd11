/* Shared pieces of the renderers: number formatting and code locations. */
#include "omplens_report.h"
#include "report_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *omplens_report_strerror(int err) {
  switch (err) {
  case OMPLENS_REPORT_OK: return "success";
  case OMPLENS_REPORT_EIO: return "cannot write the report";
  case OMPLENS_REPORT_ENOMEM: return "out of memory";
  case OMPLENS_REPORT_EINVAL: return "invalid report input";
  default: return "unknown error";
  }
}

const char *omplens_format_ns(uint64_t ns, char *buf) {
  if (ns < 1000)
    snprintf(buf, 32, "%" PRIu64 " ns", ns);
  else if (ns < 1000000)
    snprintf(buf, 32, "%.1f us", (double)ns / 1e3);
  else if (ns < 1000000000)
    snprintf(buf, 32, "%.1f ms", (double)ns / 1e6);
  else
    snprintf(buf, 32, "%.2f s", (double)ns / 1e9);
  return buf;
}

const char *omplens_format_bytes(uint64_t bytes, char *buf) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)bytes;
  unsigned u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    u++;
  }
  if (u == 0)
    snprintf(buf, 32, "%" PRIu64 " B", bytes);
  else
    snprintf(buf, 32, "%.1f %s", v, units[u]);
  return buf;
}

static const omplens_module *find_module(const omplens_trace *t, uint64_t addr) {
  const omplens_trace_info *info = omplens_trace_get_info(t);
  for (size_t i = 0; info && i < info->num_modules; i++)
    if (addr >= info->modules[i].low && addr < info->modules[i].high)
      return &info->modules[i];
  return NULL;
}

const char *omplens_report__base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s && s[1] ? s + 1 : path;
}

const char *omplens_report__str_at(const json_t *o, const char *key) {
  return json_string_value(json_object_get(o, key));
}

bool omplens_report__copies_back_unwritten(const json_t *f) {
  const json_t *in = json_object_get(f, "instances");
  const char *kind = omplens_report__str_at(json_is_array(in) ? json_array_get(in, 0) : in, "kind");
  const char *category = omplens_report__str_at(f, "category");
  return kind && category && !strcmp(kind, "d2h") && !strcmp(category, "unused-transfer");
}

json_int_t omplens_report__int_at(const json_t *o, const char *key) {
  return json_integer_value(json_object_get(o, key));
}

/* Fills loc with what is known of codeptr: source from the annotator, else
 * module and offset from the trace's load map. Returns 0 when anything is. */
int omplens_report__locate(const omplens_report_input *in, size_t proc, uint64_t codeptr,
                           omplens_location *loc) {
  memset(loc, 0, sizeof *loc);
  if (proc >= in->num_procs)
    return -1;
  if (in->procs[proc].annotator) {
    omplens_annotate_location(in->procs[proc].annotator, codeptr, loc);
    if (loc->module || loc->via)
      return 0;
  }
  const omplens_module *m = find_module(in->procs[proc].trace, codeptr);
  if (!m)
    return -1;
  loc->module = m->path;
  loc->offset = codeptr - m->base;
  return 0;
}

size_t omplens_report__call_path(const omplens_report_input *in, size_t proc,
                                 const omplens_finding *f, omplens_call_site *out, size_t max,
                                 size_t *num_paths, size_t *num_top) {
  *num_paths = *num_top = 0;
  if (!f->num_instances)
    return 0;
  return omplens_annotate_common_call_path(in->procs[proc].annotator, f->codeptr,
                                           &f->instances[0].event, f->num_instances,
                                           sizeof *f->instances, out, max, num_paths, num_top);
}

const char *omplens_format_location(const omplens_report_input *in, size_t proc,
                                    uint64_t codeptr, char *buf, size_t size) {
  omplens_location loc;
  if (omplens_report__locate(in, proc, codeptr, &loc))
    snprintf(buf, size, "0x%" PRIx64, codeptr);
  else if (loc.file)
    snprintf(buf, size, "%s:%u", loc.file, loc.line);
  else if (loc.function)
    snprintf(buf, size, "%s", loc.function);
  else
    snprintf(buf, size, "%s+0x%" PRIx64, omplens_report__base_name(loc.module), loc.offset);
  return buf;
}

int omplens_report__devices_used(const omplens_trace *t, unsigned char *used, int limit) {
  size_t n;
  const omplens_event *ev = omplens_trace_events(t, &n);
  for (size_t k = 0; k < n; k++) {
    int kind = ev[k].kind;
    if (kind != OMPLENS_EV_ALLOC && kind != OMPLENS_EV_H2D && kind != OMPLENS_EV_D2H &&
        kind != OMPLENS_EV_D2D && kind != OMPLENS_EV_KERNEL)
      continue;
    if (ev[k].device >= 0 && ev[k].device < limit)
      used[ev[k].device] = 1;
    if (kind == OMPLENS_EV_D2D && ev[k].peer_device >= 0 && ev[k].peer_device < limit)
      used[ev[k].peer_device] = 1;
  }
  int count = 0;
  for (int d = 0; d < limit; d++)
    count += used[d];
  return count;
}

bool omplens_report__leftover_variable(const omplens_report_input *in, size_t proc,
                                       const omplens_leftover *l, omplens_variable *v) {
  size_t nev;
  const omplens_event *ev = omplens_trace_events(in->procs[proc].trace, &nev);
  memset(v, 0, sizeof *v);
  return in->procs[proc].annotator && l->alloc_event < nev &&
         !omplens_annotate_variable(in->procs[proc].annotator, &ev[l->alloc_event], v) && v->item;
}
