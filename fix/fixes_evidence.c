/* What the trace says about a directive item: every transfer and
 * allocation it made, which of them the group's findings flag, which are
 * the first or last of their buffer; the events a change removes; and the
 * predicted savings (the what-if model when built with it, else the sum of
 * the removed durations). */
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"

#ifdef OMPLENS_FIX_HAVE_WHATIF
#include "omplens_whatif.h"
#endif

/* ---- allocation lifetimes ---- */

/* Each ALLOC's DELETE (omplens_lifetimes, as the detectors define them). */
void omplens_fix__deletes(omplens_fixer *fx) {
  if (omplens_lifetimes_build(&fx->lifetimes, fx->events, fx->num_events))
    return;
  fx->deletes_built = true;
}

uint32_t omplens_fix__delete_of(const omplens_fixer *fx, uint32_t alloc, size_t *at) {
  if (!fx->deletes_built || alloc >= fx->num_events ||
      fx->events[alloc].kind != OMPLENS_EV_ALLOC)
    return OMPLENS_FIX__NONE;
  return omplens_lifetimes_delete_of(&fx->lifetimes, alloc, at);
}

void omplens_fix__deletes_free(omplens_fixer *fx) {
  omplens_lifetimes_free(&fx->lifetimes);
  fx->deletes_built = false;
}

/* ---- the operations of each directive, indexed once ---- */

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;
  return (x > y) - (x < y);
}

/* The slot of d in an open-addressing table of directives: d's, or the
 * empty one where it goes. */
static size_t dir_slot(const omplens_directive *const *slot, size_t cap,
                       const omplens_directive *d) {
  size_t j = ((uintptr_t)d * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
  while (slot[j] && slot[j] != d)
    j = (j + 1) & (cap - 1);
  return j;
}

static bool is_op(const omplens_event *e) {
  return e->kind == OMPLENS_EV_H2D || e->kind == OMPLENS_EV_D2H || e->kind == OMPLENS_EV_ALLOC;
}

/* The directive of operation e, or NULL. */
static const omplens_directive *op_directive(omplens_fixer *fx, const omplens_event *e) {
  omplens_fix__file *file;
  return omplens_fix__directive_of(fx, omplens_trace_codeptr(fx->trace, e),
                                   omplens_fix__runtime_kind(fx, e), &file);
}

/* The distinct directives of the operations, in a table grown as they
 * come (a trace names few against its events) with each one's count. */
typedef struct dir_table {
  const omplens_directive **slot;
  size_t *count; /* by slot */
  size_t cap, n;
} dir_table;

/* Counts one operation of d; false without memory. */
static bool dir_table_add(dir_table *t, const omplens_directive *d) {
  if (2 * (t->n + 1) > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    dir_table g = {calloc(cap, sizeof *g.slot), calloc(cap, sizeof *g.count), cap, t->n};
    if (!g.slot || !g.count) {
      free(g.slot);
      free(g.count);
      return false;
    }
    for (size_t j = 0; j < t->cap; j++)
      if (t->slot[j]) {
        size_t k = dir_slot(g.slot, cap, t->slot[j]);
        g.slot[k] = t->slot[j];
        g.count[k] = t->count[j];
      }
    free(t->slot);
    free(t->count);
    *t = g;
  }
  size_t j = dir_slot(t->slot, t->cap, d);
  if (!t->slot[j]) {
    t->slot[j] = d;
    t->n++;
  }
  t->count[j]++;
  return true;
}

/* The events flagged by the findings, each by the first finding that
 * flags it. */
static void index_findings(omplens_fixer *fx) {
  fx->finding_of_event = malloc((fx->num_events + 1) * sizeof *fx->finding_of_event);
  if (!fx->finding_of_event)
    return;
  memset(fx->finding_of_event, 0xff, (fx->num_events + 1) * sizeof *fx->finding_of_event);
  for (size_t k = 0; k < fx->num_findings; k++)
    for (size_t i = 0; i < fx->findings[k].num_instances; i++) {
      uint32_t ev = fx->findings[k].instances[i].event;
      if (ev < fx->num_events && fx->finding_of_event[ev] == OMPLENS_FIX__NONE)
        fx->finding_of_event[ev] = (uint32_t)k;
    }
}

/* One variable's operations within a directive's: from op_events[start]
 * to the next segment's start (or the directive's end). */
typedef struct omplens_fix__op_seg {
  uint32_t var; /* its number in op_var_numbers; 0: not known */
  size_t start;
} omplens_fix__op_seg;

/* The number of operation e's variable, numbered as first met; 0 when
 * the annotator names none; OMPLENS_NAMES_NONE without memory. */
static size_t var_number(omplens_fixer *fx, const omplens_event *e) {
  omplens_variable v;
  if (!fx->annot || omplens_annotate_variable(fx->annot, e, &v) || !v.name)
    return 0;
  size_t slot = (uintptr_t)v.name * 0x9e3779b97f4a7c15u >> 56 & (OMPLENS_FIX__RECENT_VARS - 1);
  if (fx->recent_var_name[slot] == v.name)
    return fx->recent_var_number[slot];
  size_t k = omplens_names_get(&fx->op_var_numbers, v.name);
  if (k == OMPLENS_NAMES_NONE) {
    k = fx->op_var_numbers.count + 1; /* the annotator keeps the name */
    if (omplens_names_put(&fx->op_var_numbers, v.name, k))
      return OMPLENS_NAMES_NONE;
  }
  fx->recent_var_name[slot] = v.name;
  fx->recent_var_number[slot] = (uint32_t)k;
  return k;
}


/* Sorts each directive's operations by variable number, stably (a
 * counting sort over the numbers it has), and records the segments;
 * false without memory. */
static bool group_by_variable(omplens_fixer *fx) {
  size_t n = fx->num_op_events, nsegs = 0;
  uint32_t *num = malloc((n + 1) * sizeof *num), *tmp = malloc((n + 1) * sizeof *tmp);
  size_t *slot = NULL, *seen = NULL; /* by number: its place; the directive last seen in */
  bool ok = num && tmp;
  for (size_t k = 0; ok && k < n; k++) {
    size_t v = var_number(fx, &fx->events[fx->op_events[k]]);
    ok = v != OMPLENS_NAMES_NONE;
    if (ok)
      num[k] = (uint32_t)v;
  }
  size_t nvars = fx->op_var_numbers.count + 1;
  if (ok) {
    slot = malloc(nvars * sizeof *slot);
    seen = malloc(nvars * sizeof *seen);
    fx->op_dir_seg = malloc((fx->num_op_dirs + 1) * sizeof *fx->op_dir_seg);
    ok = slot && seen && fx->op_dir_seg;
  }
  if (ok) {
    memset(seen, 0xff, nvars * sizeof *seen);
    for (size_t r = 0; r < fx->num_op_dirs; r++) /* the segments: a directive's distinct numbers */
      for (size_t k = fx->op_start[r]; k < fx->op_start[r + 1]; k++)
        if (seen[num[k]] != r) {
          seen[num[k]] = r;
          nsegs++;
        }
    ok = (fx->op_segs = malloc((nsegs + 1) * sizeof *fx->op_segs)) != NULL;
  }
  uint32_t *vars = ok ? malloc((nsegs + 1) * sizeof *vars) : NULL;
  ok = ok && vars;
  nsegs = 0;
  if (ok)
    memset(seen, 0xff, nvars * sizeof *seen);
  for (size_t r = 0; ok && r < fx->num_op_dirs; r++) {
    size_t lo = fx->op_start[r], hi = fx->op_start[r + 1], m = 0;
    fx->op_dir_seg[r] = nsegs;
    for (size_t k = lo; k < hi; k++) { /* count each number */
      if (seen[num[k]] != r) {
        seen[num[k]] = r;
        slot[num[k]] = 0;
        vars[m++] = num[k];
      }
      slot[num[k]]++;
    }
    qsort(vars, m, sizeof *vars, omplens_fix__cmp_u32);
    for (size_t j = 0, at = lo; j < m; j++) { /* each number's first place */
      size_t count = slot[vars[j]];
      slot[vars[j]] = at;
      fx->op_segs[nsegs++] = (omplens_fix__op_seg){vars[j], at};
      at += count;
    }
    for (size_t k = lo; k < hi; k++)
      tmp[slot[num[k]]++] = fx->op_events[k];
    memcpy(fx->op_events + lo, tmp + lo, (hi - lo) * sizeof *tmp);
  }
  if (ok)
    fx->op_dir_seg[fx->num_op_dirs] = nsegs;
  free(num);
  free(tmp);
  free(slot);
  free(seen);
  free(vars);
  return ok;
}

/* Every transfer and allocation by its directive, and the finding that
 * flags each event: built once, so that a question about one directive
 * item reads that item's operations, not the whole trace. A counting sort
 * in two passes over the events, holding one event number per operation
 * (a real trace has hundreds of thousands). Left empty without memory
 * (then no operation is found and nothing is proven). */
static void index_ops(omplens_fixer *fx) {
  if (fx->ops_indexed)
    return;
  fx->ops_indexed = true;
  dir_table t = {0};
  size_t n = 0;
  bool ok = true;
  for (size_t i = 0; ok && i < fx->num_events; i++) {
    const omplens_directive *d = is_op(&fx->events[i]) ? op_directive(fx, &fx->events[i]) : NULL;
    if (d) {
      ok = dir_table_add(&t, d);
      n++;
    }
  }
  fx->op_dirs = ok ? malloc((t.n + 1) * sizeof *fx->op_dirs) : NULL;
  fx->op_start = ok ? calloc(t.n + 2, sizeof *fx->op_start) : NULL;
  fx->op_events = ok ? malloc((n + 1) * sizeof *fx->op_events) : NULL;
  if (!fx->op_dirs || !fx->op_start || !fx->op_events) {
    free(t.slot);
    free(t.count);
    omplens_fix__ops_free(fx);
    fx->ops_indexed = true;
    return;
  }
  for (size_t j = 0; j < t.cap; j++)
    if (t.slot[j])
      fx->op_dirs[fx->num_op_dirs++] = t.slot[j];
  if (fx->num_op_dirs)
    qsort(fx->op_dirs, fx->num_op_dirs, sizeof *fx->op_dirs, cmp_ptr);
  for (size_t r = 0; r < fx->num_op_dirs; r++) /* each one's first place, + 1 */
    fx->op_start[r + 2] = fx->op_start[r + 1] + t.count[dir_slot(t.slot, t.cap, fx->op_dirs[r])];
  for (size_t r = 0; r < fx->num_op_dirs; r++) /* the rank, in place of the count */
    t.count[dir_slot(t.slot, t.cap, fx->op_dirs[r])] = r;
  for (size_t i = 0; i < fx->num_events; i++) {
    const omplens_directive *d = is_op(&fx->events[i]) ? op_directive(fx, &fx->events[i]) : NULL;
    if (d)
      fx->op_events[fx->op_start[t.count[dir_slot(t.slot, t.cap, d)] + 1]++] = (uint32_t)i;
  }
  fx->num_op_events = n; /* op_start[r + 1] is now r's end, so op_start[r] its start */
  free(t.slot);
  free(t.count);
  if (!group_by_variable(fx))
    omplens_fix__ops_free(fx), fx->ops_indexed = true;
  else /* after the grouping's scratch is freed: a trace's peak can be here */
    index_findings(fx);
}

void omplens_fix__ops_free(omplens_fixer *fx) {
  omplens_fix__sorted_findings_free(fx);
  free(fx->op_events);
  free(fx->op_dirs);
  free(fx->op_start);
  free(fx->finding_of_event);
  free(fx->op_segs);
  free(fx->op_dir_seg);
  omplens_names_free(&fx->op_var_numbers);
  memset(fx->recent_var_name, 0, sizeof fx->recent_var_name);
  fx->op_events = NULL;
  fx->op_dirs = NULL;
  fx->op_start = NULL;
  fx->op_segs = NULL;
  fx->op_dir_seg = NULL;
  fx->finding_of_event = NULL;
  fx->num_op_events = fx->num_op_dirs = 0;
  fx->ops_indexed = false;
}

/* The rank of directive d among those with operations, or
 * fx->num_op_dirs when it has none. */
static size_t dir_rank(omplens_fixer *fx, const omplens_directive *d) {
  index_ops(fx);
  size_t a = 0, b = fx->num_op_dirs;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    if ((uintptr_t)fx->op_dirs[m] < (uintptr_t)d)
      a = m + 1;
    else
      b = m;
  }
  return a < fx->num_op_dirs && fx->op_dirs[a] == d ? a : fx->num_op_dirs;
}

/* The operations of directive d: op_events[*lo, *hi). */
static void ops_of(omplens_fixer *fx, const omplens_directive *d, size_t *lo, size_t *hi) {
  size_t r = dir_rank(fx, d);
  *lo = *hi = 0;
  if (r < fx->num_op_dirs) {
    *lo = fx->op_start[r];
    *hi = fx->op_start[r + 1];
  }
}

/* The operations of directive d's variable number v: op_events[*lo, *hi)
 * (empty when it has none). */
static void ops_of_number(omplens_fixer *fx, const omplens_directive *d, size_t v, size_t *lo,
                          size_t *hi) {
  size_t r = dir_rank(fx, d);
  *lo = *hi = 0;
  if (r >= fx->num_op_dirs || !fx->op_dir_seg)
    return;
  size_t a = fx->op_dir_seg[r], b = fx->op_dir_seg[r + 1], end = b;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    if (fx->op_segs[m].var < v)
      a = m + 1;
    else
      b = m;
  }
  if (a < end && fx->op_segs[a].var == v) {
    *lo = fx->op_segs[a].start;
    *hi = a + 1 < end ? fx->op_segs[a + 1].start : fx->op_start[r + 1];
  }
}

/* The operations of directive d's variable var, and those of d whose
 * variable is not known: op_events[*lo, *hi) and [*ulo, *uhi). */
static void ops_of_var(omplens_fixer *fx, const omplens_directive *d, const char *var,
                       size_t *lo, size_t *hi, size_t *ulo, size_t *uhi) {
  ops_of_number(fx, d, 0, ulo, uhi);
  size_t v = omplens_names_get(&fx->op_var_numbers, var);
  *lo = *hi = 0;
  if (v != OMPLENS_NAMES_NONE)
    ops_of_number(fx, d, v, lo, hi);
}

/* ---- events of a directive item ---- */

/* Whether event i is an H2D of finding f's directive and host buffer. */
static bool copy_of_finding(const omplens_fixer *fx, const omplens_finding *f, size_t i) {
  const omplens_event *o = &fx->events[i];
  return o->kind == OMPLENS_EV_H2D && o->host_addr == f->host_addr &&
         omplens_trace_codeptr(fx->trace, o) == f->codeptr;
}

bool omplens_fix__every_copy_back_returned(omplens_fixer *fx, const omplens_finding *f) {
  const omplens_event *e = &fx->events[f->instances[0].event];
  omplens_fix__file *file;
  const omplens_directive *d =
      omplens_fix__directive_of(fx, f->codeptr, omplens_fix__runtime_kind(fx, e), &file);
  omplens_variable v;
  if (!d || !fx->annot || omplens_annotate_variable(fx->annot, e, &v) || !v.name)
    return false;
  size_t lo, hi, ulo, uhi;
  ops_of_var(fx, d, v.name, &lo, &hi, &ulo, &uhi);
  for (size_t k = lo; k < hi; k++) {
    uint32_t i = fx->op_events[k];
    if (fx->events[i].kind == OMPLENS_EV_D2H && fx->events[i].host_addr == f->host_addr &&
        !omplens_fix__returned_as_sent(fx, i))
      return false;
  }
  return hi > lo;
}

bool omplens_fix__sent_again(omplens_fixer *fx, const omplens_finding *f) {
  uint32_t ev = f->instances[0].event;
  omplens_fix__file *file;
  const omplens_directive *d =
      omplens_fix__directive_of(fx, f->codeptr, omplens_fix__runtime_kind(fx, &fx->events[ev]), &file);
  size_t lo = 0, hi = 0;
  if (d)
    ops_of(fx, d, &lo, &hi);
  if (!d || !fx->op_events) { /* not indexed: every later event */
    for (size_t i = (size_t)ev + 1; i < fx->num_events; i++)
      if (copy_of_finding(fx, f, i))
        return true;
    return false;
  }
  for (size_t k = lo; k < hi; k++) /* the directive's operations */
    if (fx->op_events[k] > ev && copy_of_finding(fx, f, fx->op_events[k]))
      return true;
  return false;
}

/* The kernel's directive at codeptr (NULL when unknown), and the range
 * [*lo, *hi) of its operations of var. */
static const omplens_directive *kernel_ops_of_var(omplens_fixer *fx, uint64_t codeptr,
                                                  const char *var, size_t *lo, size_t *hi) {
  omplens_fix__file *file;
  const omplens_directive *d =
      omplens_fix__directive_of(fx, codeptr, OMPLENS_RUNTIME_TARGET, &file);
  size_t ulo, uhi;
  ops_of_var(fx, d, var, lo, hi, &ulo, &uhi);
  return d;
}

bool omplens_fix__moved(omplens_fixer *fx, uint64_t codeptr, const char *var) {
  size_t lo, hi;
  const omplens_directive *d = kernel_ops_of_var(fx, codeptr, var, &lo, &hi);
  for (size_t k = lo; d && k < hi; k++)
    if (omplens_trace_codeptr(fx->trace, &fx->events[fx->op_events[k]]) == codeptr)
      return true;
  return false;
}

/* Whether one of region r's implicit arguments of no size begins inside
 * [addr, addr + bytes): 1 yes, 0 no, -1 its arguments were not recorded. */
static int region_points_into(const omplens_fixer *fx, uint32_t r, uint64_t addr,
                              uint64_t bytes) {
  uint32_t n;
  const omplens_map_arg *a =
      r < fx->num_regions ? omplens_trace_region_args(fx->trace, &fx->regions[r], &n) : NULL;
  if (!a || n < fx->regions[r].num_args) /* none, or not all of them */
    return -1;
  for (uint32_t i = 0; i < n; i++)
    if ((a[i].type & OMPLENS_MAPBIT_IMPLICIT) && !(a[i].type & OMPLENS_MAPBIT_LITERAL) &&
        !a[i].size && a[i].begin >= addr && a[i].begin - addr < bytes)
      return 1;
  return 0;
}

int omplens_fix__pointer_into(omplens_fixer *fx, uint64_t codeptr, const char *var) {
  size_t lo, hi;
  const omplens_directive *d = kernel_ops_of_var(fx, codeptr, var, &lo, &hi);
  int seen = -1;
  for (size_t k = lo; d && k < hi; k++) {
    const omplens_event *e = &fx->events[fx->op_events[k]];
    if (e->kind != OMPLENS_EV_ALLOC || omplens_trace_codeptr(fx->trace, e) != codeptr)
      continue;
    int into = region_points_into(fx, e->region, e->host_addr, e->bytes);
    if (into)
      return into;
    seen = 0;
  }
  return seen;
}

/* A group's findings, sorted (a copy): which of them flags an event is a
 * binary search, where a group can hold thousands. */
typedef struct sorted_findings {
  size_t *v;
  size_t n;
} sorted_findings;

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* A finding's share of the sum that tells one set of findings from
 * another (splitmix64's finalizer). */
static uint64_t finding_mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

/* Group g's findings sorted, kept on fx until another group's are asked
 * for, or g's change (its list, length or the sum of their mixes); false
 * without memory. */
static bool sort_findings(omplens_fixer *fx, const omplens_fix__group *g, sorted_findings *out) {
  uint64_t sum = 0;
  for (size_t k = 0; k < g->num_findings; k++)
    sum += finding_mix(g->findings[k]);
  if (fx->sorted_findings.group != g || fx->sorted_findings.findings != g->findings ||
      fx->sorted_findings.n != g->num_findings || fx->sorted_findings.sum != sum) {
    omplens_fix__sorted_findings_free(fx);
    size_t *v = malloc((g->num_findings + 1) * sizeof *v);
    if (!v)
      return false;
    memcpy(v, g->findings, g->num_findings * sizeof *v);
    qsort(v, g->num_findings, sizeof *v, cmp_size);
    fx->sorted_findings.group = g;
    fx->sorted_findings.findings = g->findings;
    fx->sorted_findings.n = g->num_findings;
    fx->sorted_findings.sum = sum;
    fx->sorted_findings.sorted = v;
  }
  out->v = fx->sorted_findings.sorted;
  out->n = fx->sorted_findings.n;
  return true;
}

void omplens_fix__sorted_findings_free(omplens_fixer *fx) {
  free(fx->sorted_findings.sorted);
  memset(&fx->sorted_findings, 0, sizeof fx->sorted_findings);
}

static bool flagged_by(const sorted_findings *g, const omplens_fixer *fx, uint32_t ev) {
  uint32_t f = fx->finding_of_event ? fx->finding_of_event[ev] : OMPLENS_FIX__NONE;
  size_t key = f;
  return f != OMPLENS_FIX__NONE && bsearch(&key, g->v, g->n, sizeof *g->v, cmp_size);
}

/* Whether a finding flags copy ev as bringing its receiver what it held
 * or had sent (a duplicate or a round trip): nobody changed the data in
 * between. */
static bool held_before(const omplens_fixer *fx, uint32_t ev) {
  uint32_t f = fx->finding_of_event ? fx->finding_of_event[ev] : OMPLENS_FIX__NONE;
  if (f == OMPLENS_FIX__NONE)
    return false;
  int cat = fx->findings[f].category;
  return cat == OMPLENS_CAT_DUPLICATE_SAME_BUFFER || cat == OMPLENS_CAT_ROUND_TRIP;
}

static bool is_group_buffer(const omplens_fix__group *g, const omplens_fixer *fx, uint64_t addr) {
  for (size_t k = 0; k < g->num_findings; k++)
    if (fx->findings[g->findings[k]].host_addr == addr)
      return true;
  return false;
}


/* Per buffer: its first and last H2D and D2H at the site. */
typedef struct buffer_ends {
  uint64_t addr;
  uint32_t first_h2d, last_h2d, last_d2h, first_alloc;
} buffer_ends;

typedef struct site_events {
  uint32_t *ev;
  size_t n;
  /* op_events[lo, hi) and [ulo, uhi): the item's variable's operations at
   * its directive, and those of no known variable (when by_var) */
  size_t lo, hi, ulo, uhi;
  bool by_var;
  buffer_ends *buf;
  size_t nbuf;
  uint32_t *slots; /* open addressing over buf by addr; cap a power of two */
  size_t cap;
} site_events;

static bool returned_in_site(omplens_fixer *fx, const site_events *se, uint32_t d2h);

static void site_events_free(site_events *se) {
  free(se->ev);
  free(se->buf);
  free(se->slots);
  memset(se, 0, sizeof *se);
}

static size_t buffer_slot(const site_events *se, uint64_t addr) {
  size_t j = (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (se->cap - 1);
  while (se->slots[j] != OMPLENS_FIX__NONE && se->buf[se->slots[j]].addr != addr)
    j = (j + 1) & (se->cap - 1);
  return j;
}

/* Twice the room for buffers (a directive's operations use few, however
 * many operations there are), the table rebuilt; false without memory. */
static bool grow_buffers(site_events *se) {
  size_t cap = se->cap ? 2 * se->cap : 16;
  buffer_ends *buf = realloc(se->buf, cap / 2 * sizeof *buf);
  uint32_t *slots = malloc(cap * sizeof *slots);
  if (buf)
    se->buf = buf;
  if (!buf || !slots) {
    free(slots);
    return false;
  }
  free(se->slots);
  se->slots = slots;
  se->cap = cap;
  memset(slots, 0xff, cap * sizeof *slots);
  for (size_t b = 0; b < se->nbuf; b++)
    slots[buffer_slot(se, se->buf[b].addr)] = (uint32_t)b;
  return true;
}

static buffer_ends *buffer_of(site_events *se, uint64_t addr) {
  uint32_t b = se->cap ? se->slots[buffer_slot(se, addr)] : OMPLENS_FIX__NONE;
  return b == OMPLENS_FIX__NONE ? NULL : &se->buf[b];
}

/* Whether event e carries the hash of as many zero bytes as it copied;
 * *bytes and *hash keep the last size's zeros hash (hashing zeros costs
 * their size: once per size). */
static bool all_zeros(const omplens_event *e, uint64_t *bytes, uint64_t *hash) {
  if (!(e->flags & OMPLENS_EVF_HASHED))
    return false;
  if (e->bytes != *bytes) {
    *bytes = e->bytes;
    *hash = omplens_content_hash_of_zeros(e->bytes);
  }
  return e->hash == *hash;
}

static bool collect(omplens_fixer *fx, const omplens_fix__group *g, const omplens_fix__site *s,
                    site_events *se) {
  memset(se, 0, sizeof *se);
  /* The item's operations: those of its variable, and those of no known
   * variable on the group's buffers, in event order. */
  size_t lo, hi, ulo, uhi;
  if (s->var)
    ops_of_var(fx, s->dir, s->var, &lo, &hi, &ulo, &uhi);
  else
    ops_of(fx, s->dir, &ulo, &uhi), lo = hi = 0; /* no variable is asked for */
  *se = (site_events){.lo = lo, .hi = hi, .ulo = ulo, .uhi = uhi, .by_var = s->var != NULL};
  if (!s->dir || (lo == hi && ulo == uhi))
    return fx->op_events != NULL;
  se->ev = malloc((hi - lo + uhi - ulo) * sizeof *se->ev);
  if (!se->ev || !grow_buffers(se))
    return false;
  while (lo < hi || ulo < uhi) { /* two runs in event order, merged */
    bool named = ulo == uhi || (lo < hi && fx->op_events[lo] < fx->op_events[ulo]);
    uint32_t i = named ? fx->op_events[lo++] : fx->op_events[ulo++];
    if (named || is_group_buffer(g, fx, fx->events[i].host_addr))
      se->ev[se->n++] = i;
  }
  if (!s->var) /* the directive's operations, one variable after another */
    qsort(se->ev, se->n, sizeof *se->ev, omplens_fix__cmp_u32);
  for (size_t k = 0; k < se->n; k++) {
    uint32_t i = se->ev[k];
    const omplens_event *e = &fx->events[i];
    size_t j = buffer_slot(se, e->host_addr);
    if (se->slots[j] == OMPLENS_FIX__NONE && 2 * (se->nbuf + 1) > se->cap) {
      if (!grow_buffers(se))
        return false;
      j = buffer_slot(se, e->host_addr);
    }
    if (se->slots[j] == OMPLENS_FIX__NONE) {
      se->slots[j] = (uint32_t)se->nbuf;
      se->buf[se->nbuf++] = (buffer_ends){e->host_addr, OMPLENS_FIX__NONE, OMPLENS_FIX__NONE,
                                          OMPLENS_FIX__NONE, OMPLENS_FIX__NONE};
    }
    buffer_ends *b = &se->buf[se->slots[j]];
    if (e->kind == OMPLENS_EV_H2D) {
      if (b->first_h2d == OMPLENS_FIX__NONE)
        b->first_h2d = i;
      b->last_h2d = i;
    } else if (e->kind == OMPLENS_EV_D2H) {
      b->last_d2h = i;
    } else if (b->first_alloc == OMPLENS_FIX__NONE) {
      b->first_alloc = i;
    }
  }
  return true;
}

void omplens_fix__evidence_of(omplens_fixer *fx, const omplens_fix__group *g,
                              const omplens_fix__site *s, omplens_fix__evidence *out) {
  memset(out, 0, sizeof *out);
  out->h2d_unflagged_first_only = out->h2d_unflagged_last_only = true;
  out->h2d_new_first_only = out->d2h_unflagged_last_only = true;
  site_events se;
  sorted_findings mine = {0};
  if (!collect(fx, g, s, &se) || !sort_findings(fx, g, &mine)) {
    site_events_free(&se);
    out->h2d_unflagged_first_only = out->h2d_unflagged_last_only = false;
    out->h2d_new_first_only = out->d2h_unflagged_last_only = false;
    out->h2d = 1; /* nothing is proven */
    return;
  }
  out->buffers = (uint32_t)se.nbuf;
  uint64_t zbytes = UINT64_MAX, zh = 0;
  for (size_t k = 0; k < se.n; k++) {
    uint32_t i = se.ev[k];
    const omplens_event *e = &fx->events[i];
    bool fl = flagged_by(&mine, fx, i);
    const buffer_ends *b = buffer_of(&se, e->host_addr);
    if (e->kind == OMPLENS_EV_H2D) {
      out->h2d++;
      out->h2d_flagged += fl;
      out->h2d_zeros += all_zeros(e, &zbytes, &zh);
      if (!fl && b->first_h2d != i)
        out->h2d_unflagged_first_only = false;
      bool old = fl || held_before(fx, i);
      out->h2d_old += old;
      if (!old && b->first_h2d != i)
        out->h2d_new_first_only = false;
      if (!fl && b->last_h2d != i)
        out->h2d_unflagged_last_only = false;
    } else if (e->kind == OMPLENS_EV_D2H) {
      out->d2h++;
      out->d2h_flagged += fl;
      out->d2h_old += fl || held_before(fx, i);
      out->d2h_unchanged += fl || returned_in_site(fx, &se, i);
      if (!fl && b->last_d2h != i)
        out->d2h_unflagged_last_only = false;
    } else {
      out->allocs++;
      out->allocs_flagged += fl;
    }
  }
  site_events_free(&se);
}

/* ---- re-sends: device buffers that stay mapped, kernels in between ---- */

/* A host buffer on a device, as the copies between them left it. */
typedef struct kept_buffer {
  uint64_t host_addr, dev_addr;
  int16_t device;
  bool copied;   /* a copy to or from the device came before */
  bool broken;   /* its device buffer was freed or allocated since */
  uint32_t since; /* the event of that copy */
} kept_buffer;

static int cmp_id(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static kept_buffer *kept_of(kept_buffer *kb, size_t n, uint64_t host, int16_t device) {
  for (size_t i = 0; i < n; i++)
    if (kb[i].host_addr == host && kb[i].device == device)
      return &kb[i];
  return NULL;
}

/* Adds the constructs of the kernels on device that ran in (from, to). */
static void kernels_in(const omplens_fixer *fx, uint32_t from, uint32_t to, int16_t device,
                       omplens_fix__resends *out) {
  for (uint32_t i = from + 1; i < to; i++) {
    const omplens_event *e = &fx->events[i];
    if (e->kind != OMPLENS_EV_KERNEL || e->device != device)
      continue;
    uint64_t code = omplens_trace_codeptr(fx->trace, e);
    size_t k = 0;
    while (k < out->num_kernels && out->kernels[k] != code)
      k++;
    if (k < out->num_kernels)
      continue;
    if (k == OMPLENS_FIX__MAX_KERNELS)
      out->too_many = true;
    else
      out->kernels[out->num_kernels++] = code;
  }
}

/* One pass over the events up to the last flagged copy, following only the
 * group's buffers. */
static void walk_resends(const omplens_fixer *fx, const uint32_t *ids, size_t n, kept_buffer *kb,
                         size_t nkb, omplens_fix__resends *out) {
  for (uint32_t i = 0; n && i <= ids[n - 1]; i++) {
    const omplens_event *e = &fx->events[i];
    if (e->kind == OMPLENS_EV_DELETE) {
      for (size_t b = 0; b < nkb; b++)
        kb[b].broken |= kb[b].copied && kb[b].device == e->device && kb[b].dev_addr == e->dev_addr;
      continue;
    }
    kept_buffer *b = kept_of(kb, nkb, e->host_addr, e->device);
    if (!b)
      continue;
    if (e->kind == OMPLENS_EV_ALLOC) {
      b->broken = true;
    } else if (e->kind == OMPLENS_EV_H2D || e->kind == OMPLENS_EV_D2H) {
      if (bsearch(&i, ids, n, sizeof *ids, cmp_id)) {
        if ((!b->copied || b->broken || b->dev_addr != e->dev_addr) &&
            out->remapped == OMPLENS_FIX__NONE)
          out->remapped = i;
        if (b->copied)
          kernels_in(fx, b->since, i, e->device, out);
      }
      *b = (kept_buffer){e->host_addr, e->dev_addr, e->device, true, false, i};
    }
  }
}

void omplens_fix__resend_evidence(omplens_fixer *fx, const omplens_fix__group *g, int kind,
                                  omplens_fix__resends *out) {
  memset(out, 0, sizeof *out);
  out->remapped = OMPLENS_FIX__NONE;
  size_t n = 0;
  for (size_t k = 0; k < g->num_findings; k++)
    n += fx->findings[g->findings[k]].num_instances;
  uint32_t *ids = malloc((n + 1) * sizeof *ids);
  kept_buffer *kb = malloc((n + 1) * sizeof *kb);
  if (!ids || !kb) {
    free(ids);
    free(kb);
    out->remapped = 0; /* nothing is proven */
    return;
  }
  size_t m = 0, nkb = 0;
  for (size_t k = 0; k < g->num_findings; k++) {
    const omplens_finding *f = &fx->findings[g->findings[k]];
    if (f->category != OMPLENS_CAT_ROUND_TRIP && f->category != OMPLENS_CAT_DUPLICATE_SAME_BUFFER)
      continue; /* an unused copy may go whatever the device held */
    for (size_t i = 0; i < f->num_instances; i++) {
      const omplens_event *e = &fx->events[f->instances[i].event];
      if (e->kind != kind)
        continue;
      ids[m++] = f->instances[i].event;
      if (!kept_of(kb, nkb, e->host_addr, e->device))
        kb[nkb++] = (kept_buffer){e->host_addr, 0, e->device, false, false, 0};
    }
  }
  qsort(ids, m, sizeof *ids, cmp_id);
  walk_resends(fx, ids, m, kb, nkb, out);
  free(ids);
  free(kb);
}

/* ---- removed events ---- */

/* The events a change removes: a list, sorted and made unique at the
 * end, or, where they may be many against the trace (a loop's fix removes
 * most of its operations), a bit per event, which needs neither the
 * list's growth nor its sort. */
typedef struct idset {
  uint32_t *v;
  size_t n, cap;
  uint64_t *bits; /* a bit per event (below limit), or NULL */
  size_t limit;
  size_t alloc_at; /* where the last allocation put was in the lifetimes */
  bool failed;
} idset;

static void put(idset *s, uint32_t id) {
  if (id == OMPLENS_FIX__NONE)
    return;
  if (s->bits) {
    uint64_t bit = 1ull << (id & 63);
    if (id >= s->limit)
      return; /* no such event */
    s->n += !(s->bits[id >> 6] & bit);
    s->bits[id >> 6] |= bit;
    return;
  }
  if (!omplens_fix__room(&s->v, s->n, &s->cap, sizeof *s->v, 64)) {
    s->failed = true;
    return;
  }
  s->v[s->n++] = id;
}

static void put_op(omplens_fixer *fx, idset *s, uint32_t ev) {
  put(s, ev);
  put(s, omplens_fix__delete_of(fx, ev, &s->alloc_at));
}

int omplens_fix__cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

bool omplens_fix__u32_place(const uint32_t *v, size_t n, uint32_t x, size_t *at) {
  size_t a = 0, b = n;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    if (v[m] < x)
      a = m + 1;
    else
      b = m;
  }
  *at = a;
  return a < n && v[a] == x;
}

void omplens_fix__sort_unique(uint32_t *ids, size_t *n) {
  if (!*n)
    return; /* qsort wants a non-NULL array */
  qsort(ids, *n, sizeof *ids, omplens_fix__cmp_u32);
  size_t m = 0;
  for (size_t i = 0; i < *n; i++)
    if (!m || ids[m - 1] != ids[i])
      ids[m++] = ids[i];
  *n = m;
}

/* Keep-resident removes, per buffer of each item, every allocation but the
 * first, every H2D but the first and every D2H but the last: the wrapping
 * region makes those once. Removing an item or a data directive removes
 * everything it did. */
static void site_ops(omplens_fixer *fx, const omplens_fix__group *g, const omplens_fix__site *s,
                     idset *out) {
  site_events se;
  bool resident =
      g->kind == OMPLENS_FIX_KEEP_RESIDENT || g->kind == OMPLENS_FIX_KEEP_RESIDENT_CALLER;
  if (collect(fx, g, s, &se)) {
    for (size_t k = 0; k < se.n; k++) {
      uint32_t i = se.ev[k];
      const omplens_event *e = &fx->events[i];
      const buffer_ends *b = buffer_of(&se, e->host_addr);
      if (!resident || (e->kind == OMPLENS_EV_H2D && i != b->first_h2d) ||
          (e->kind == OMPLENS_EV_D2H && i != b->last_d2h) ||
          (e->kind == OMPLENS_EV_ALLOC && i != b->first_alloc))
        put_op(fx, out, i);
    }
  }
  site_events_free(&se);
}

/* At most how many events site s removes: each of its operations and
 * that one's DELETE. */
static size_t site_bound(omplens_fixer *fx, const omplens_fix__site *s) {
  size_t lo, hi;
  ops_of(fx, s->dir, &lo, &hi);
  return s->dir ? 2 * (hi - lo) : 0;
}

/* The set's events in order, into *out (caller frees); false without
 * memory. */
static bool idset_list(idset *s, uint32_t **out) {
  if (!s->bits) {
    omplens_fix__sort_unique(s->v, &s->n);
    *out = s->v;
    return true;
  }
  *out = malloc((s->n + 1) * sizeof **out);
  size_t k = 0;
  for (size_t w = 0; *out && w <= s->limit / 64; w++)
    for (uint64_t b = s->bits[w]; b; b &= b - 1)
      (*out)[k++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
  free(s->bits);
  s->bits = NULL;
  return *out != NULL;
}

int omplens_fix__removed(omplens_fixer *fx, const omplens_fix__group *g, uint32_t **out,
                         size_t *n) {
  if (!fx->deletes_built) /* built for the first fix with a diff: manual ones never ask */
    omplens_fix__deletes(fx);
  idset s = {0};
  size_t bound = 0;
  /* An unreferenced item no finding names: its own, and those it took in */
  bool own = g->unreferenced;
  for (size_t k = 0; own && k < g->num_sites; k++)
    own = !omplens_fix__same_item(&g->sites[k], &g->site);
  for (size_t k = 0; k < g->num_findings; k++)
    bound += 2 * fx->findings[g->findings[k]].num_instances + site_bound(fx, omplens_fix__site_at(g, k));
  if (own)
    bound += site_bound(fx, &g->site);
  for (size_t k = 0; k < g->num_more_items; k++)
    bound += site_bound(fx, &g->more_items[k]);
  /* A bit per event costs 1/32 of a list entry's four bytes. */
  if (bound >= fx->num_events / 32 + 64) {
    s.bits = calloc(fx->num_events / 64 + 1, sizeof *s.bits);
    s.limit = fx->num_events;
  }
  for (size_t k = 0; k < g->num_findings; k++) {
    const omplens_finding *f = &fx->findings[g->findings[k]];
    for (size_t i = 0; i < f->num_instances; i++)
      put_op(fx, &s, f->instances[i].event);
  }
  bool whole = g->kind == OMPLENS_FIX_KEEP_RESIDENT ||
               g->kind == OMPLENS_FIX_KEEP_RESIDENT_CALLER ||
               g->kind == OMPLENS_FIX_REMOVE_DIRECTIVE || g->unreferenced ||
               g->kind == OMPLENS_FIX_INIT_ON_DEVICE || /* every copy, the first too */
               g->kind == OMPLENS_FIX_FIRSTPRIVATE ||   /* every allocation and copy */
               (g->kind == OMPLENS_FIX_REMOVE_ITEM && g->num_findings &&
                fx->findings[g->findings[0]].category == OMPLENS_CAT_UNUSED_ALLOC);
  if (own)
    site_ops(fx, g, &g->site, &s);
  for (size_t k = 0; k < g->num_more_items; k++)
    site_ops(fx, g, &g->more_items[k], &s);
  /* the items are a cache of the group's findings, which stay unchanged:
   * hence the cast */
  if (whole && !omplens_fix__group_items((omplens_fix__group *)g))
    s.failed = true;
  for (size_t k = 0; whole && !s.failed && k < g->num_findings; k++)
    if (g->item_first[k] == k) /* each site once */
      site_ops(fx, g, omplens_fix__site_at(g, k), &s);
  if (s.failed || !idset_list(&s, out)) {
    free(s.v);
    free(s.bits);
    return OMPLENS_FIX_ENOMEM;
  }
  *n = s.n;
  return 0;
}

/* ---- copies back ---- */

/* Where operation ev sits among its variable's operations at its
 * directive: op_events[*at] == ev, within [*lo, *hi); false when it is
 * not indexed. */
static bool place_in(const omplens_fixer *fx, uint32_t ev, size_t lo, size_t hi, size_t *at);

static bool op_place(omplens_fixer *fx, uint32_t ev, size_t *lo, size_t *hi, size_t *at) {
  const omplens_event *e = &fx->events[ev];
  const omplens_directive *d = op_directive(fx, e);
  size_t v = var_number(fx, e);
  if (!d || v == OMPLENS_NAMES_NONE)
    return false;
  ops_of_number(fx, d, v, lo, hi);
  return place_in(fx, ev, *lo, *hi, at);
}

/* How far back a copy back of no indexed directive looks for its
 * construct's copy in (events of other threads may sit in between). */
#define SENT_LOOKBACK 4096

/* The copy in of a copy back: the last before it of its construct, of
 * the same host bytes (so of the same map argument and variable). Among
 * the operations of the variable at its directive the search reads those
 * of this execution only, however many items the construct maps. */
static bool returnable(const omplens_fixer *fx, const omplens_event *e) {
  return e->kind == OMPLENS_EV_D2H && (e->flags & OMPLENS_EVF_HASHED) &&
         e->region != OMPLENS_NO_REGION && e->region < fx->num_regions;
}

/* The search of omplens_fix__returned_as_sent() back from op_events[at]
 * (d2h) to lo, or, when not indexed, from event d2h. */
static bool sent_before(const omplens_fixer *fx, uint32_t d2h, bool indexed, size_t lo,
                        size_t at) {
  const omplens_event *e = &fx->events[d2h];
  uint64_t since = fx->regions[e->region].begin_ns;
  for (size_t k = 0; at-- > lo && (indexed || k < SENT_LOOKBACK); k++) {
    const omplens_event *in = &fx->events[indexed ? fx->op_events[at] : at];
    if (in->end_ns < since && in->begin_ns < since)
      break;
    if (in->region == e->region && in->kind == OMPLENS_EV_H2D && in->host_addr == e->host_addr &&
        in->bytes == e->bytes)
      return (in->flags & OMPLENS_EVF_HASHED) && in->hash == e->hash;
  }
  return false;
}

/* A copy back of `target exit data` or `target update` (which send
 * nothing into the buffers they copy back): whether it brings what the
 * last copy into its device buffer sent, the last copy of the same host
 * bytes into the same device buffer before it (an enter data's, a data
 * region's, an update's), looked for among the SENT_LOOKBACK events
 * before it and not before the buffer's allocation. */
static bool exit_returns_sent(const omplens_fixer *fx, uint32_t d2h) {
  const omplens_event *e = &fx->events[d2h];
  for (size_t k = 0, i = d2h; i-- > 0 && k < SENT_LOOKBACK; k++) {
    const omplens_event *in = &fx->events[i];
    if (in->device != e->device || in->dev_addr != e->dev_addr)
      continue;
    if (in->kind == OMPLENS_EV_ALLOC)
      return false; /* the buffer's start: nothing was sent into it */
    if (in->kind == OMPLENS_EV_H2D)
      return in->host_addr == e->host_addr && in->bytes == e->bytes &&
             (in->flags & OMPLENS_EVF_HASHED) && in->hash == e->hash;
  }
  return false;
}

static bool exiting(const omplens_fixer *fx, const omplens_event *e) {
  int kind = fx->regions[e->region].kind;
  return kind == OMPLENS_CONSTRUCT_EXIT_DATA || kind == OMPLENS_CONSTRUCT_UPDATE;
}

bool omplens_fix__returned_as_sent(omplens_fixer *fx, uint32_t d2h) {
  return omplens_fix__all_returned_as_sent(fx, &(omplens_instance){d2h, UINT32_MAX}, 1);
}

bool omplens_fix__all_returned_as_sent(omplens_fixer *fx, const omplens_instance *events, size_t n) {
  size_t lo = 0, hi = 0, at; /* the operations of the last event's item and directive */
  for (size_t i = 0; i < n; i++) {
    uint32_t d2h = events[i].event;
    if (!returnable(fx, &fx->events[d2h]))
      return false;
    if (exiting(fx, &fx->events[d2h])) {
      if (!exit_returns_sent(fx, d2h))
        return false;
    } else if (place_in(fx, d2h, lo, hi, &at) || op_place(fx, d2h, &lo, &hi, &at)) {
      if (!sent_before(fx, d2h, true, lo, at))
        return false;
    } else if (!sent_before(fx, d2h, false, 0, d2h)) {
      return false;
    }
  }
  return true;
}

/* Where event ev sits in op_events[lo, hi) (in event order), if there. */
static bool place_in(const omplens_fixer *fx, uint32_t ev, size_t lo, size_t hi, size_t *at) {
  size_t k = 0;
  bool there = hi > lo && omplens_fix__u32_place(fx->op_events + lo, hi - lo, ev, &k);
  *at = lo + k;
  return there;
}

/* omplens_fix__returned_as_sent() for an operation of se: its variable's
 * operations are se's own runs, so its variable is not asked again. */
static bool returned_in_site(omplens_fixer *fx, const site_events *se, uint32_t d2h) {
  size_t at;
  if (!se->by_var || !returnable(fx, &fx->events[d2h]) || exiting(fx, &fx->events[d2h]))
    return omplens_fix__returned_as_sent(fx, d2h);
  if (place_in(fx, d2h, se->lo, se->hi, &at))
    return sent_before(fx, d2h, true, se->lo, at);
  if (place_in(fx, d2h, se->ulo, se->uhi, &at))
    return sent_before(fx, d2h, true, se->ulo, at);
  return omplens_fix__returned_as_sent(fx, d2h);
}

/* ---- one value in every element ---- */

/* XXH-based content hash of bytes holding value v as element type t
 * (0 double, 1 float, 2 int32, 3 int64), or 0 when it cannot be (size,
 * a fraction for an integer type, no memory). */
static uint64_t fill_hash(uint64_t bytes, int t, double v) {
  static const size_t size[] = {8, 4, 4, 8};
  if (bytes % size[t] || bytes > ((uint64_t)256 << 20) || (t >= 2 && v != (double)(int64_t)v))
    return 0;
  unsigned char *buf = malloc(bytes ? bytes : 1), one[8];
  if (!buf)
    return 0;
  double d = v;
  float fl = (float)v;
  int32_t i32 = (int32_t)v;
  int64_t i64 = (int64_t)v;
  memcpy(one, t == 0 ? (const void *)&d : t == 1 ? (const void *)&fl
                                        : t == 2 ? (const void *)&i32 : (const void *)&i64,
         size[t]);
  for (uint64_t k = 0; k < bytes; k += size[t])
    memcpy(buf + k, one, size[t]);
  uint64_t h = omplens_content_hash(buf, bytes);
  free(buf);
  return h;
}

bool omplens_fix__filled(const omplens_fixer *fx, const uint32_t *events, size_t n, double v) {
  /* Each copy in one of the element types: a template's instantiations
   * (float and double) send the value `w[i] = 1` writes as each type. */
  uint64_t bytes = UINT64_MAX, h[4] = {0};
  for (size_t k = 0; k < n; k++) {
    const omplens_event *e = &fx->events[events[k]];
    if (!(e->flags & OMPLENS_EVF_HASHED))
      return false;
    if (e->bytes != bytes) { /* filling costs the size: once per size */
      bytes = e->bytes;
      for (int t = 0; t < 4; t++)
        h[t] = fill_hash(bytes, t, v);
    }
    bool any = false;
    for (int t = 0; t < 4; t++)
      any |= h[t] && e->hash == h[t];
    if (!any)
      return false;
  }
  return n > 0;
}

bool omplens_fix__site_filled(omplens_fixer *fx, const omplens_fix__group *g,
                              const omplens_fix__site *s, double v) {
  site_events se;
  bool ok = collect(fx, g, s, &se);
  uint32_t *h2d = ok && se.n ? malloc(se.n * sizeof *h2d) : NULL;
  size_t n = 0;
  for (size_t k = 0; h2d && k < se.n; k++)
    if (fx->events[se.ev[k]].kind == OMPLENS_EV_H2D)
      h2d[n++] = se.ev[k];
  ok = h2d && omplens_fix__filled(fx, h2d, n, v);
  free(h2d);
  site_events_free(&se);
  return ok;
}

/* ---- zeros ---- */

bool omplens_fix__all_zero(const omplens_fixer *fx, const omplens_finding *f) {
  if (!f->num_instances || !f->bytes)
    return false;
  uint64_t zbytes = UINT64_MAX, zh = 0;
  for (size_t i = 0; i < f->num_instances; i++)
    if (!all_zeros(&fx->events[f->instances[i].event], &zbytes, &zh))
      return false;
  return true;
}

bool omplens_fix__claims_held(const omplens_fixer *fx, const omplens_finding *f) {
  return f->num_instances &&
         (f->category == OMPLENS_CAT_DUPLICATE_SAME_BUFFER ||
          f->category == OMPLENS_CAT_ROUND_TRIP) &&
         fx->events[f->instances[0].event].kind == OMPLENS_EV_H2D;
}

/* ---- prediction ---- */

void omplens_fix__whatif_free(omplens_fixer *fx) {
#ifdef OMPLENS_FIX_HAVE_WHATIF
  omplens_whatif_destroy(fx->whatif);
#endif
  fx->whatif = NULL;
}

void omplens_fix__predict(omplens_fixer *fx, omplens_fix *f) {
  uint64_t sum = 0;
  for (size_t i = 0; i < f->num_removed; i++) {
    const omplens_event *e = &fx->events[f->removed[i]];
    sum += e->end_ns > e->begin_ns ? e->end_ns - e->begin_ns : 0;
  }
  f->predicted_savings_ns = sum;
  uint64_t run = fx->run_ns;
  f->predicted_speedup = run > sum ? (double)run / (double)(run - sum) : 0.0;
#ifdef OMPLENS_FIX_HAVE_WHATIF
  /* The model costs memory per event: built for the first fix that
   * removes something (a trace without sources has none). */
  if (!fx->whatif && f->num_removed)
    omplens_whatif_create(fx->events, fx->num_events, fx->regions, fx->num_regions, fx->run_ns,
                          (omplens_whatif **)&fx->whatif);
  omplens_whatif_result r;
  if (fx->whatif && f->num_removed &&
      !omplens_whatif_predict(fx->whatif, f->removed, f->num_removed, &r)) {
    f->predicted_savings_ns = r.savings_ns;
    f->predicted_speedup = r.speedup;
  }
#endif
  if (!f->num_removed)
    f->predicted_speedup = 1.0;
}
