/* Shared pieces of the renderers: number formatting and code locations. */
#include "omplens_report.h"

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

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

const char *omplens_format_location(const omplens_report_input *in, size_t proc,
                                    uint64_t codeptr, char *buf, size_t size) {
  omplens_location loc = {0};
  if (in->locate && !in->locate(in->locate_ctx, proc, codeptr, &loc) && loc.file) {
    snprintf(buf, size, "%s:%u", loc.file, loc.line);
    return buf;
  }
  const omplens_module *m = proc < in->num_procs ? find_module(in->procs[proc].trace, codeptr) : NULL;
  if (m)
    snprintf(buf, size, "%s+0x%" PRIx64, base_name(m->path), codeptr - m->base);
  else
    snprintf(buf, size, "0x%" PRIx64, codeptr);
  return buf;
}

/* Fills loc with at least module and offset; used by the JSON renderer. */
int omplens_report__locate(const omplens_report_input *in, size_t proc, uint64_t codeptr,
                           omplens_location *loc) {
  memset(loc, 0, sizeof *loc);
  if (in->locate && !in->locate(in->locate_ctx, proc, codeptr, loc))
    return 0;
  memset(loc, 0, sizeof *loc);
  const omplens_module *m = proc < in->num_procs ? find_module(in->procs[proc].trace, codeptr) : NULL;
  if (!m)
    return -1;
  loc->module = m->path;
  loc->offset = codeptr - m->base;
  return 0;
}
