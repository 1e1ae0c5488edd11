/* The symbolizer's public side: the load map, the per-address cache, and
 * the order in which an address is attributed (module, build-id, DWARF line,
 * ELF symbol). Design notes: docs/symbolize.md. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libelf.h>

#include "omplens_symbolize.h"
#include "function_names.h"
#include "symbolize_internal.h"

const char *omplens_symbolize_strerror(int err)
{
  switch (err) {
  case OMPLENS_SYMBOLIZE_OK:
    return "success";
  case OMPLENS_SYMBOLIZE_EINVAL:
    return "invalid argument (no symbolizer, or no result to fill)";
  case OMPLENS_SYMBOLIZE_ENOMEM:
    return "out of memory";
  default:
    return "unknown symbolizer error";
  }
}

const char *omplens_symbolize_status_name(int status)
{
  switch (status) {
  case OMPLENS_SYM_OK:
    return "ok";
  case OMPLENS_SYM_NO_DEBUG_INFO:
    return "no-debug-info";
  case OMPLENS_SYM_NO_MODULE:
    return "no-module";
  case OMPLENS_SYM_BUILD_ID_MISMATCH:
    return "build-id-mismatch";
  case OMPLENS_SYM_MODULE_MISSING:
    return "module-missing";
  case OMPLENS_SYM_MODULE_UNREADABLE:
    return "module-unreadable";
  case OMPLENS_SYM_UNRESOLVED:
    return "unresolved";
  default:
    return "unknown";
  }
}

static int compare_modules(const void *a, const void *b)
{
  const omplens_symbolize__module *x = a, *y = b;
  return (x->low > y->low) - (x->low < y->low);
}

static bool copy_module(omplens_symbolize__module *to, const omplens_module *from)
{
  to->path = strdup(from->path != NULL ? from->path : "");
  to->base = from->base;
  to->low = from->low;
  to->high = from->high;
  to->build_id_len = from->build_id_len <= sizeof(to->build_id)
                         ? from->build_id_len
                         : (uint8_t)sizeof(to->build_id);
  memcpy(to->build_id, from->build_id, to->build_id_len);
  return to->path != NULL;
}

int omplens_symbolizer_create(const omplens_module *modules, size_t count,
                              omplens_symbolizer **out)
{
  if (out != NULL)
    *out = NULL;
  if (out == NULL || (modules == NULL && count > 0))
    return OMPLENS_SYMBOLIZE_EINVAL;
  omplens_symbolizer *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return OMPLENS_SYMBOLIZE_ENOMEM;
  s->modules = calloc(count > 0 ? count : 1, sizeof(*s->modules));
  for (size_t i = 0; s->modules != NULL && i < count; i++) {
    s->num_modules++;
    if (!copy_module(&s->modules[i], &modules[i])) {
      omplens_symbolizer_destroy(s);
      return OMPLENS_SYMBOLIZE_ENOMEM;
    }
  }
  if (s->modules == NULL) {
    omplens_symbolizer_destroy(s);
    return OMPLENS_SYMBOLIZE_ENOMEM;
  }
  if (s->num_modules) /* qsort wants a non-NULL base even for 0 items */
    qsort(s->modules, s->num_modules, sizeof(*s->modules), compare_modules);
  elf_version(EV_CURRENT); /* libelf refuses to work until told */
  *out = s;
  return 0;
}

void omplens_symbolizer_destroy(omplens_symbolizer *s)
{
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->num_modules; i++) {
    omplens_symbolize__module_close(&s->modules[i]);
    free(s->modules[i].path);
  }
  free(s->modules);
  omplens_symbolize__strings_free(&s->strings);
  omplens_symbolize__units_free(s);
  free(s->cache);
  free(s);
}

/* ---- per-address cache: open addressing on codeptr ---- */

static size_t cache_slot(const omplens_symbolize__cached *cache, size_t cap,
                         uint64_t codeptr)
{
  size_t i = (size_t)((codeptr * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
  while (cache[i].used && cache[i].codeptr != codeptr)
    i = (i + 1) & (cap - 1);
  return i;
}

static const omplens_source_loc *cache_find(const omplens_symbolizer *s,
                                            uint64_t codeptr)
{
  if (s->cache_cap == 0)
    return NULL;
  size_t i = cache_slot(s->cache, s->cache_cap, codeptr);
  return s->cache[i].used ? &s->cache[i].loc : NULL;
}

static bool cache_grow(omplens_symbolizer *s)
{
  size_t cap = s->cache_cap == 0 ? 256 : s->cache_cap * 2;
  omplens_symbolize__cached *cache = calloc(cap, sizeof(*cache));
  if (cache == NULL)
    return false;
  for (size_t i = 0; i < s->cache_cap; i++) {
    if (s->cache[i].used)
      cache[cache_slot(cache, cap, s->cache[i].codeptr)] = s->cache[i];
  }
  free(s->cache);
  s->cache = cache;
  s->cache_cap = cap;
  return true;
}

/* A result that cannot be cached is still right: failing to remember it only
 * costs a second lookup, so it is not reported. */
static void cache_store(omplens_symbolizer *s, uint64_t codeptr,
                        const omplens_source_loc *loc)
{
  if ((s->cache_count + 1) * 2 > s->cache_cap && !cache_grow(s))
    return;
  size_t i = cache_slot(s->cache, s->cache_cap, codeptr);
  s->cache[i].used = true;
  s->cache[i].codeptr = codeptr;
  s->cache[i].loc = *loc;
  s->cache_count++;
}

/* ---- attribution ---- */

static omplens_symbolize__module *find_module(omplens_symbolizer *s,
                                              uint64_t addr)
{
  size_t lo = 0, hi = s->num_modules;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->modules[mid].low <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0 || addr >= s->modules[lo - 1].high)
    return NULL;
  return &s->modules[lo - 1];
}

/* The ELF symbol around the call, offset given from the return address as
 * backtraces print it. */
static int fill_symbol(omplens_symbolizer *s, omplens_symbolize__module *m,
                       uint64_t codeptr, omplens_source_loc *out)
{
  uint64_t offset = 0;
  const char *name = omplens_symbolize__symbol_at(m, codeptr - 1, &offset);
  bool oom = false;
  out->symbol = omplens_symbolize__intern(&s->strings, name, &oom);
  out->symbol_offset = name != NULL ? offset + 1 : 0;
  return oom ? OMPLENS_SYMBOLIZE_ENOMEM : 0;
}

static int resolve(omplens_symbolizer *s, uint64_t codeptr,
                   omplens_source_loc *out)
{
  omplens_symbolize__module *m = codeptr != 0 ? find_module(s, codeptr) : NULL;
  out->status = OMPLENS_SYM_NO_MODULE;
  if (m == NULL)
    return 0;
  int err = m->opened ? 0 : omplens_symbolize__module_open(m);
  if (err != 0)
    return err;
  out->module = m->path;
  out->module_offset = codeptr - m->base;
  out->status = m->status;
  out->flags = m->flags;
  if (m->status != OMPLENS_SYM_OK)
    return 0;
  err = fill_symbol(s, m, codeptr, out);
  int found = err == 0 && m->dwarf != NULL
                  ? omplens_symbolize__lookup_dwarf(s, m, codeptr, out)
                  : 1;
  if (err != 0 || found < 0)
    return err != 0 ? err : found;
  if (found == 1) {
    out->status = OMPLENS_SYM_NO_DEBUG_INFO;
    out->function = out->symbol;
  }
  return 0;
}

static void reset(omplens_source_loc *out)
{
  memset(out, 0, sizeof(*out));
  out->status = OMPLENS_SYM_UNRESOLVED;
}

int omplens_symbolize(omplens_symbolizer *s, uint64_t codeptr,
                      omplens_source_loc *out)
{
  if (out == NULL)
    return OMPLENS_SYMBOLIZE_EINVAL;
  reset(out);
  if (s == NULL)
    return OMPLENS_SYMBOLIZE_EINVAL;
  const omplens_source_loc *cached = cache_find(s, codeptr);
  if (cached != NULL) {
    *out = *cached;
    return 0;
  }
  int err = resolve(s, codeptr, out);
  if (err != 0) {
    reset(out);
    return err;
  }
  cache_store(s, codeptr, out);
  return 0;
}

int omplens_symbolize_inlined_near(omplens_symbolizer *s, uint64_t codeptr,
                                   const char *function, omplens_source_loc *out)
{
  int err = omplens_symbolize(s, codeptr, out);
  const char *bare;
  size_t len;
  if (err != 0 || out->status != OMPLENS_SYM_OK ||
      !omplens_bare_function_name(function, &bare, &len))
    return err;
  omplens_symbolize__module *m = find_module(s, codeptr);
  return m != NULL && m->dwarf != NULL
             ? omplens_symbolize__inlined_near(s, m, codeptr, bare, len, out)
             : 0;
}

int omplens_symbolize_source_file(omplens_symbolizer *s, uint64_t codeptr,
                                  const char *name, omplens_source_file *out)
{
  if (out != NULL)
    memset(out, 0, sizeof(*out));
  if (s == NULL || name == NULL || out == NULL)
    return OMPLENS_SYMBOLIZE_EINVAL;
  omplens_symbolize__module *m = codeptr != 0 ? find_module(s, codeptr) : NULL;
  int err = m != NULL && !m->opened ? omplens_symbolize__module_open(m) : 0;
  if (err == 0 && m != NULL && m->status == OMPLENS_SYM_OK)
    err = omplens_symbolize__source_file(s, m, codeptr, name, out);
  if (err == 0 && out->path == NULL && name[0] == '/') {
    bool oom = false;
    out->path = omplens_symbolize__intern_path(&s->strings, NULL, name, &oom);
    err = oom ? OMPLENS_SYMBOLIZE_ENOMEM : 0;
  }
  if (err != 0)
    memset(out, 0, sizeof(*out));
  return err;
}

int omplens_symbolize_format(const omplens_source_loc *loc, char *buf,
                             size_t size)
{
  if (loc == NULL)
    return snprintf(buf, size, "[%s]", omplens_symbolize_status_name(OMPLENS_SYM_UNRESOLVED));
  const char *module = loc->module != NULL ? loc->module : "??";
  switch (loc->status) {
  case OMPLENS_SYM_OK:
    if (loc->column > 0)
      return snprintf(buf, size, "%s:%" PRIu32 ":%" PRIu32 " (%s)",
                      loc->file != NULL ? loc->file : "??", loc->line,
                      loc->column, loc->function != NULL ? loc->function : "??");
    return snprintf(buf, size, "%s:%" PRIu32 " (%s)",
                    loc->file != NULL ? loc->file : "??", loc->line,
                    loc->function != NULL ? loc->function : "??");
  case OMPLENS_SYM_NO_DEBUG_INFO:
    if (loc->symbol != NULL)
      return snprintf(buf, size, "%s+0x%" PRIx64 " (%s)", loc->symbol,
                      loc->symbol_offset, module);
    break;
  case OMPLENS_SYM_NO_MODULE:
  case OMPLENS_SYM_UNRESOLVED:
    return snprintf(buf, size, "[%s]", omplens_symbolize_status_name(loc->status));
  default:
    break;
  }
  return snprintf(buf, size, "%s+0x%" PRIx64 " [%s]", module,
                  loc->module_offset, omplens_symbolize_status_name(loc->status));
}
