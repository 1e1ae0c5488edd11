/* Call paths in the program's terms: the recorded return addresses of a
 * construct's callers (omplens_trace_call_path) and the calls the compiler
 * inlined on the way, each a source line in the calling function. */
#include "annotate_internal.h"
#include "directives_internal.h"
#include "omplens_annotate.h"
#include "omplens_symbolize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static size_t put(omplens_call_site *out, size_t n, size_t max, const char *file, unsigned line,
                  unsigned column, const char *function) {
  if (n < max && file && line)
    out[n++] = (omplens_call_site){file, line, column, function};
  return n;
}

/* Functions clang makes for a target region (its host entry point, the
 * `_debug__` function that entry wraps, outlined bodies): inlined at the
 * pragma, they are the directive itself, not a call the program makes. */
static bool compiler_made(const char *function) {
  return function && (!strncmp(function, "__omp_offloading_", 17) ||
                      strstr(function, ".omp_outlined") != NULL);
}

/* The calls that inlined loc's function, innermost first, from the one that
 * inlined `from` (NULL, or a function clang made: from the first). */
static size_t inlining_calls(const omplens_source_loc *loc, const char *from,
                             omplens_call_site *out, size_t n, size_t max) {
  size_t i = 0;
  while (from && !compiler_made(from) && i < loc->num_inline &&
         !omplens_directives__same_function(loc->inlined[i].function, from))
    i++;
  for (; i < loc->num_inline; i++)
    if (!compiler_made(loc->inlined[i].function))
      n = put(out, n, max, loc->inlined[i].call_file, loc->inlined[i].call_line,
              loc->inlined[i].call_column, loc->inlined[i].caller);
  return n;
}

/* The system's libraries (the C library's start, libgomp, libstdc++)
 * call user code but are not the program's: their frames are left out. */
static int system_module(const char *path) {
  static const char *const dirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/"};
  for (size_t i = 0; path && i < sizeof dirs / sizeof *dirs; i++)
    if (!strncmp(path, dirs[i], strlen(dirs[i])))
      return 1;
  return 0;
}

/* Whether address addr lies in a system library by the trace's load map:
 * such a frame is left out before it is symbolized, which would read that
 * library's DWARF (libc6-dbg's is compressed: some 20 MB unpacked). */
static int in_system_module(const omplens_trace *t, uint64_t addr) {
  const omplens_trace_info *info = omplens_trace_get_info(t);
  for (size_t i = 0; info && i < info->num_modules; i++)
    if (addr - 1 >= info->modules[i].low && addr - 1 < info->modules[i].high)
      return system_module(info->modules[i].path);
  return 0;
}

/* Whether name is the directive's function fn, by bare name. */
static bool directive_function(const char *name, const char *fn) {
  return omplens_directives__names_function(name) && omplens_directives__same_function(name, fn);
}

/* Whether loc is in function fn, or in an instance of it inlined there. */
static bool holds(const omplens_source_loc *loc, const char *fn) {
  bool found = directive_function(loc->function, fn);
  for (size_t i = 0; !found && i < loc->num_inline; i++)
    found = directive_function(loc->inlined[i].function, fn);
  return found;
}

/* The directive's call, symbolized: when its scopes lost the directive's
 * function (a launch clang left outside the instance inlined into the
 * caller, line 0), as if made in that function's instance nearest to it. */
static bool symbolize_site(omplens_symbolizer *sym, uint64_t site, const char *fn,
                           omplens_source_loc *loc) {
  if (omplens_symbolize(sym, site, loc) || loc->status != OMPLENS_SYM_OK)
    return false;
  if (omplens_directives__names_function(fn) && !holds(loc, fn))
    omplens_symbolize_inlined_near(sym, site, fn, loc);
  return loc->status == OMPLENS_SYM_OK;
}

/* omplens_annotate_call_path(), worked out from the DWARF. */
static size_t work_out(omplens_annotator *a, omplens_symbolizer *sym, uint64_t codeptr,
                       uint32_t path, omplens_call_site *out, size_t max) {
  omplens_source_loc loc;
  omplens_location directive;
  size_t n = 0;
  /* Of the calls inlined at the directive's call, only those that inlined
   * the directive's own function lead to it: others (a vector's size()
   * inlined into the map clause) are inside that function. */
  omplens_annotate_location(a, codeptr, &directive);
  size_t num_frames;
  const uint64_t *frames = omplens_trace_call_path(omplens_annotate__trace(a), path, &num_frames);
  /* The path's first frame is the directive's own call: the copy that
   * ran, where codeptr is the first copy's (an inlined function's copies
   * are inlined at different calls). */
  uint64_t site = num_frames ? frames[0] : codeptr;
  const char *fn = directive.function ? directive.function : "";
  if (site && symbolize_site(sym, site, fn, &loc))
    n = inlining_calls(&loc, fn, out, n, max);
  for (size_t i = 1; i < num_frames && n < max; i++) {
    if (in_system_module(omplens_annotate__trace(a), frames[i]) ||
        omplens_symbolize(sym, frames[i], &loc) || loc.status != OMPLENS_SYM_OK ||
        system_module(loc.module))
      continue; /* a module without debug info, the C library's start */
    n = put(out, n, max, loc.file, loc.line, loc.column, loc.function);
    n = inlining_calls(&loc, NULL, out, n, max);
  }
  return n;
}

/* One path in source terms, kept whole (OMPLENS_MAX_CALL_SITES at most). */
typedef struct memo_entry {
  uint64_t codeptr; /* 0: a free slot */
  uint32_t path;
  uint32_t len;
  omplens_call_site *sites;
} memo_entry;

struct omplens_path_memo {
  memo_entry *slots; /* open addressing, power-of-two capacity */
  size_t cap, used;
};

void omplens_annotate__path_memo_free(omplens_path_memo *m) {
  if (!m)
    return;
  for (size_t i = 0; i < m->cap; i++)
    free(m->slots[i].sites);
  free(m->slots);
  free(m);
}

static size_t memo_slot(const omplens_path_memo *m, uint64_t codeptr, uint32_t path) {
  uint64_t key = codeptr ^ ((uint64_t)path * 0x9e3779b97f4a7c15ULL);
  key ^= key >> 31;
  key *= 0xbf58476d1ce4e5b9ULL;
  key ^= key >> 29;
  size_t j = (size_t)key & (m->cap - 1);
  while (m->slots[j].codeptr && (m->slots[j].codeptr != codeptr || m->slots[j].path != path))
    j = (j + 1) & (m->cap - 1);
  return j;
}

/* Room for one more entry (at most half full); false when out of memory. */
static bool memo_room(omplens_path_memo *m) {
  if (2 * (m->used + 1) <= m->cap)
    return true;
  size_t cap = m->cap ? 2 * m->cap : 64;
  memo_entry *old = m->slots;
  size_t old_cap = m->cap;
  if (!(m->slots = calloc(cap, sizeof *m->slots))) {
    m->slots = old;
    return false;
  }
  m->cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].codeptr)
      m->slots[memo_slot(m, old[i].codeptr, old[i].path)] = old[i];
  free(old);
  return true;
}

/* The memo's entry of (codeptr, path), worked out at the first ask; NULL
 * when out of memory. */
static const memo_entry *memo_entry_of(omplens_annotator *a, omplens_symbolizer *sym,
                                       uint64_t codeptr, uint32_t path) {
  omplens_path_memo **mp = omplens_annotate__path_memo(a);
  if (!*mp && !(*mp = calloc(1, sizeof **mp)))
    return NULL;
  omplens_path_memo *m = *mp;
  if (m->cap) {
    const memo_entry *e = &m->slots[memo_slot(m, codeptr, path)];
    if (e->codeptr)
      return e;
  }
  omplens_call_site sites[OMPLENS_MAX_CALL_SITES];
  size_t len = work_out(a, sym, codeptr, path, sites, OMPLENS_MAX_CALL_SITES);
  omplens_call_site *kept = len ? malloc(len * sizeof *kept) : NULL;
  if ((len && !kept) || !memo_room(m)) {
    free(kept);
    return NULL;
  }
  if (len)
    memcpy(kept, sites, len * sizeof *kept);
  memo_entry *e = &m->slots[memo_slot(m, codeptr, path)];
  *e = (memo_entry){codeptr, path, (uint32_t)len, kept};
  m->used++;
  return e;
}

size_t omplens_annotate_call_path(omplens_annotator *a, uint64_t codeptr, uint32_t path,
                                  omplens_call_site *out, size_t max) {
  omplens_symbolizer *sym = a ? omplens_annotate__symbolizer(a) : NULL;
  if (!sym || !out || !max)
    return 0;
  if (!codeptr) /* no key for the memo: rare enough to work out each time */
    return work_out(a, sym, codeptr, path, out, max);
  const memo_entry *e = memo_entry_of(a, sym, codeptr, path);
  if (!e)
    return work_out(a, sym, codeptr, path, out, max);
  size_t n = e->len < max ? e->len : max;
  if (n) /* an empty path keeps no array */
    memcpy(out, e->sites, n * sizeof *out);
  return n;
}

/* The distinct call paths of the events (up to OMPLENS_MAX_COMMON_PATHS)
 * and how many events came by each. */
static size_t path_counts(const omplens_trace *t, const uint32_t *events, size_t num_events,
                          size_t stride, uint32_t *ids, size_t *counts) {
  size_t n = 0, k = 0;
  for (size_t i = 0; i < num_events; i++) {
    uint32_t event = *(const uint32_t *)(const void *)((const char *)events + i * stride);
    uint32_t id = omplens_trace_event_call_path(t, event);
    if (k >= n || ids[k] != id) /* most events come by the last one's */
      for (k = 0; k < n && ids[k] != id; k++)
        ;
    if (k == n && n == OMPLENS_MAX_COMMON_PATHS)
      continue;
    if (k == n) {
      ids[n] = id;
      counts[n++] = 0;
    }
    counts[k]++;
  }
  return n;
}

static int same_sites(const omplens_call_site *a, size_t na, const omplens_call_site *b,
                      size_t nb) {
  if (na != nb)
    return 0;
  for (size_t i = 0; i < na; i++)
    if (a[i].line != b[i].line || a[i].column != b[i].column || strcmp(a[i].file, b[i].file))
      return 0;
  return 1;
}

/* The events' paths in source terms: paths that differ only in code
 * addresses (an unrolled loop's copies of one call) are one; two calls on
 * one line differ in their columns. sites[i] and
 * len[i] for each recorded path, group_of[i] the first path of its group,
 * group_count[g] the events of group g; returns the recorded paths. */
static size_t source_paths(omplens_annotator *a, uint64_t codeptr, const uint32_t *events,
                           size_t num_events, size_t stride,
                           omplens_call_site (*sites)[OMPLENS_MAX_CALL_SITES], size_t *len,
                           size_t *group_of, size_t *group_count) {
  uint32_t ids[OMPLENS_MAX_COMMON_PATHS];
  size_t counts[OMPLENS_MAX_COMMON_PATHS];
  size_t n = path_counts(omplens_annotate__trace(a), events, num_events, stride, ids, counts);
  for (size_t i = 0; i < n; i++) {
    len[i] = omplens_annotate_call_path(a, codeptr, ids[i], sites[i], OMPLENS_MAX_CALL_SITES);
    size_t g = 0;
    while (g < i && !(group_of[g] == g && same_sites(sites[g], len[g], sites[i], len[i])))
      g++;
    group_of[i] = g;
    group_count[i] = 0;
    group_count[g] += counts[i];
  }
  return n;
}

size_t omplens_annotate_common_call_path(omplens_annotator *a, uint64_t codeptr,
                                         const uint32_t *events, size_t num_events, size_t stride,
                                         omplens_call_site *out, size_t max, size_t *num_paths,
                                         size_t *num_top) {
  omplens_call_site sites[OMPLENS_MAX_COMMON_PATHS][OMPLENS_MAX_CALL_SITES];
  size_t len[OMPLENS_MAX_COMMON_PATHS], group_of[OMPLENS_MAX_COMMON_PATHS];
  size_t group_count[OMPLENS_MAX_COMMON_PATHS], best_count = 0, best = 0, distinct = 0, top = 0;
  *num_paths = 0;
  if (num_top)
    *num_top = 0;
  if (!a || !out || !events)
    return 0;
  size_t n = source_paths(a, codeptr, events, num_events, stride, sites, len, group_of, group_count);
  for (size_t i = 0; i < n; i++) {
    distinct += group_of[i] == i;
    if (group_of[i] == i && group_count[i] > best_count) {
      best_count = group_count[i];
      best = i;
      top = 0;
    }
    top += group_of[i] == i && group_count[i] == best_count;
  }
  *num_paths = distinct;
  if (num_top)
    *num_top = top;
  if (!n)
    return 0;
  size_t k = len[best] < max ? len[best] : max;
  memcpy(out, sites[best], k * sizeof *out);
  return k;
}

size_t omplens_annotate_own_frames(omplens_annotator *a, uint64_t codeptr,
                                   const omplens_call_site *sites, size_t n) {
  omplens_location directive;
  if (!a || omplens_annotate_location(a, codeptr, &directive) || !directive.function)
    return 0;
  size_t k = 0;
  while (k + 1 < n && sites[k].function &&
         directive_function(sites[k].function, directive.function))
    k++;
  return k;
}

size_t omplens_annotate_call_sites(omplens_annotator *a, uint64_t codeptr, const uint32_t *events,
                                   size_t num_events, size_t stride, omplens_call_site *out,
                                   size_t max) {
  omplens_call_site sites[OMPLENS_MAX_COMMON_PATHS][OMPLENS_MAX_CALL_SITES];
  size_t len[OMPLENS_MAX_COMMON_PATHS], group_of[OMPLENS_MAX_COMMON_PATHS];
  size_t group_count[OMPLENS_MAX_COMMON_PATHS], k = 0;
  if (!a || !out || !events)
    return 0;
  size_t n = source_paths(a, codeptr, events, num_events, stride, sites, len, group_of, group_count);
  for (size_t i = 0; i < n; i++) {
    bool seen = !len[i];
    const omplens_call_site *call =
        len[i] ? &sites[i][omplens_annotate_own_frames(a, codeptr, sites[i], len[i])] : NULL;
    for (size_t j = 0; j < k && !seen; j++)
      seen = out[j].line == call->line && out[j].column == call->column &&
             !strcmp(out[j].file, call->file);
    if (!seen && k == max)
      return 0; /* more than max: say none rather than some */
    if (!seen)
      out[k++] = *call;
  }
  return k;
}
