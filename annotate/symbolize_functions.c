/* The code scopes of a unit by address: every subprogram DIE with code,
 * found once per unit (through namespaces and classes), and the inlined
 * instances and lexical blocks nested in it, each range sorted by its
 * start. Scopes nest, so the innermost scope holding an address is the
 * last range starting at or before it, or one of that range's enclosing
 * scopes. A lookup is then a binary search and a short walk up, instead of
 * a walk of the whole unit's DIE tree (dwarf_getscopes) or of a large
 * function's children, which made symbolizing quadratic in the functions
 * of a unit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "function_names.h"
#include "symbolize_internal.h"

#define NO_SCOPE UINT32_MAX

typedef struct scope {
  Dwarf_Die die;
  uint32_t parent; /* enclosing scope, NO_SCOPE for a subprogram */
  uint32_t depth;
} scope;

typedef struct scope_range {
  Dwarf_Addr start, end;
  uint32_t scope, depth;
} scope_range;

/* A DW_TAG_call_site: the address its call returns to, and its scope. */
typedef struct call_site {
  Dwarf_Addr ret;
  uint32_t scope;
} call_site;

/* An inlined instance, found by the bare name of its function within the
 * subprogram holding it. */
typedef struct named_instance {
  Dwarf_Off function; /* the holding subprogram's DIE offset */
  uint64_t hash;      /* of the bare name */
  uint32_t scope;
} named_instance;

struct omplens_symbolize__unit_functions {
  const void *cu; /* Dwarf_Die.cu of the unit's DIE tree */
  Dwarf_Off offset;
  scope *scopes;
  size_t num_scopes, cap_scopes;
  scope_range *ranges;
  size_t count, cap;
  call_site *calls; /* by return address */
  size_t num_calls, cap_calls;
  bool failed; /* out of memory: lookups fall back to libdw */
  named_instance *named; /* by function, hash, scope; made on first use */
  size_t num_named;
  bool named_done;
  Dwarf_Die *entries; /* its offload entry points, in DIE order; made on
                         first use */
  size_t num_entries, cap_entries;
  bool entries_done;
};

static bool holds_functions(int tag) {
  return tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
         tag == DW_TAG_union_type;
}

static bool is_scope(int tag) {
  return tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
         tag == DW_TAG_subprogram;
}

static bool grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t c = *cap ? 2 * *cap : 64;
  void *q = realloc(*p, c * size);
  if (!q)
    return false;
  *p = q;
  *cap = c;
  return true;
}

/* Adds die as a scope inside parent, its ranges, and its nested scopes. */
static bool add_scope(omplens_symbolize__unit_functions *u, Dwarf_Die *die, uint32_t parent,
                      uint32_t depth) {
  if (depth > 256)
    return true;
  Dwarf_Addr base, start, end;
  ptrdiff_t off = 0;
  bool first = true;
  uint32_t me = (uint32_t)u->num_scopes;
  while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
    if (start >= end)
      continue;
    if (first) {
      if (!grow((void **)&u->scopes, &u->cap_scopes, u->num_scopes, sizeof *u->scopes))
        return false;
      u->scopes[u->num_scopes++] = (scope){*die, parent, depth};
      first = false;
    }
    if (!grow((void **)&u->ranges, &u->cap, u->count, sizeof *u->ranges))
      return false;
    u->ranges[u->count++] = (scope_range){start, end, me, depth};
  }
  Dwarf_Die child;
  if (first || dwarf_child(die, &child) != 0)
    return true; /* no code: nothing below holds any either */
  do {
    int tag = dwarf_tag(&child);
    if (is_scope(tag) && !add_scope(u, &child, me, depth + 1))
      return false;
    Dwarf_Attribute attr;
    Dwarf_Addr ret;
    if ((tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) &&
        (dwarf_formaddr(dwarf_attr(&child, DW_AT_call_return_pc, &attr), &ret) == 0 ||
         dwarf_formaddr(dwarf_attr(&child, DW_AT_low_pc, &attr), &ret) == 0)) {
      if (!grow((void **)&u->calls, &u->cap_calls, u->num_calls, sizeof *u->calls))
        return false;
      u->calls[u->num_calls++] = (call_site){ret, me};
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return true;
}

static bool gather(omplens_symbolize__unit_functions *u, Dwarf_Die *parent, int depth) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0)
    return true;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram) {
      if (!add_scope(u, &child, NO_SCOPE, 0))
        return false;
    } else if (holds_functions(tag) && !gather(u, &child, depth + 1)) {
      return false;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return true;
}

static int by_return(const void *a, const void *b) {
  const call_site *x = a, *y = b;
  if (x->ret != y->ret)
    return (x->ret > y->ret) - (x->ret < y->ret);
  return (x->scope > y->scope) - (x->scope < y->scope);
}

/* By start; at equal starts the enclosing scope first. */
static int by_start(const void *a, const void *b) {
  const scope_range *x = a, *y = b;
  if (x->start != y->start)
    return (x->start > y->start) - (x->start < y->start);
  return (x->depth > y->depth) - (x->depth < y->depth);
}

/* Units are kept in the order of (cu, offset): a unit is found by a
 * binary search, as a program of thousands of units asks for one per
 * symbolized address. */
static int unit_cmp(const omplens_symbolize__unit_functions *u, const void *cu, Dwarf_Off offset) {
  if (u->cu != cu)
    return (uintptr_t)u->cu < (uintptr_t)cu ? -1 : 1;
  return (u->offset > offset) - (u->offset < offset);
}

static omplens_symbolize__unit_functions *unit_of(omplens_symbolizer *s, Dwarf_Die *scopedie) {
  Dwarf_Off offset = dwarf_dieoffset(scopedie);
  size_t lo = 0, hi = s->num_units;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (unit_cmp(s->units[mid], scopedie->cu, offset) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < s->num_units && unit_cmp(s->units[lo], scopedie->cu, offset) == 0)
    return s->units[lo];
  if (!grow((void **)&s->units, &s->cap_units, s->num_units, sizeof *s->units))
    return NULL;
  omplens_symbolize__unit_functions *u = calloc(1, sizeof *u);
  if (!u)
    return NULL;
  u->cu = scopedie->cu;
  u->offset = offset;
  u->failed = !gather(u, scopedie, 0);
  if (u->count)
    qsort(u->ranges, u->count, sizeof *u->ranges, by_start);
  if (u->num_calls)
    qsort(u->calls, u->num_calls, sizeof *u->calls, by_return);
  memmove(&s->units[lo + 1], &s->units[lo], (s->num_units - lo) * sizeof *s->units);
  s->units[lo] = u;
  s->num_units++;
  return u;
}

void omplens_symbolize__units_free(omplens_symbolizer *s) {
  for (size_t i = 0; i < s->num_units; i++) {
    free(s->units[i]->scopes);
    free(s->units[i]->ranges);
    free(s->units[i]->calls);
    free(s->units[i]->named);
    free(s->units[i]->entries);
    free(s->units[i]);
  }
  free(s->units);
  s->units = NULL;
  s->num_units = s->cap_units = 0;
}

/* The innermost scope holding addr, or NO_SCOPE. */
static uint32_t innermost_at(const omplens_symbolize__unit_functions *u, Dwarf_Addr addr) {
  size_t lo = 0, hi = u->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u->ranges[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NO_SCOPE;
  const scope_range *r = &u->ranges[lo - 1];
  if (addr < r->end)
    return r->scope;
  for (uint32_t up = u->scopes[r->scope].parent; up != NO_SCOPE; up = u->scopes[up].parent) {
    Dwarf_Die die = u->scopes[up].die;
    if (dwarf_haspc(&die, addr) > 0)
      return up;
  }
  return NO_SCOPE;
}

int omplens_symbolize__scopes_at(omplens_symbolizer *s, Dwarf_Die *scopedie, uint64_t addr,
                                 Dwarf_Die **chain) {
  *chain = NULL;
  omplens_symbolize__unit_functions *u = unit_of(s, scopedie);
  uint32_t inner = u && !u->failed ? innermost_at(u, addr) : NO_SCOPE;
  if (inner == NO_SCOPE)
    return -1;
  size_t n = 0;
  for (uint32_t k = inner; k != NO_SCOPE; k = u->scopes[k].parent)
    n++;
  Dwarf_Die *path = malloc(n * sizeof *path);
  if (!path)
    return -1;
  n = 0;
  for (uint32_t k = inner; k != NO_SCOPE; k = u->scopes[k].parent)
    path[n++] = u->scopes[k].die;
  *chain = path;
  return (int)n;
}

int omplens_symbolize__declared_call_at(omplens_symbolizer *s, Dwarf_Die *scopedie, uint64_t addr) {
  omplens_symbolize__unit_functions *u = unit_of(s, scopedie);
  uint32_t inner = u && !u->failed ? innermost_at(u, addr) : NO_SCOPE;
  if (inner == NO_SCOPE)
    return -1;
  size_t lo = 0, hi = u->num_calls;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u->calls[mid].ret < addr + 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < u->num_calls && u->calls[lo].ret == addr + 1; lo++)
    if (u->calls[lo].scope == inner)
      return 1;
  return 0;
}

/* FNV-1a. */
static uint64_t name_hash(const char *p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

static int by_function_name(const void *a, const void *b) {
  const named_instance *x = a, *y = b;
  if (x->function != y->function)
    return (x->function > y->function) - (x->function < y->function);
  if (x->hash != y->hash)
    return (x->hash > y->hash) - (x->hash < y->hash);
  return (x->scope > y->scope) - (x->scope < y->scope);
}

/* Every inlined instance of the unit under its holding subprogram and bare
 * name: one pass over the scopes, which list a parent before its children. */
static bool index_names(omplens_symbolize__unit_functions *u) {
  u->named_done = true;
  uint32_t *holder = malloc((u->num_scopes ? u->num_scopes : 1) * sizeof *holder);
  named_instance *named = malloc((u->num_scopes ? u->num_scopes : 1) * sizeof *named);
  if (!holder || !named) {
    free(holder);
    free(named);
    return false;
  }
  size_t n = 0;
  for (uint32_t i = 0; i < u->num_scopes; i++) {
    Dwarf_Die die = u->scopes[i].die;
    int tag = dwarf_tag(&die);
    uint32_t parent = u->scopes[i].parent;
    holder[i] = tag == DW_TAG_subprogram || parent == NO_SCOPE ? i : holder[parent];
    const char *bare;
    size_t len;
    if (tag == DW_TAG_inlined_subroutine &&
        omplens_bare_function_name(omplens_symbolize__die_name(&die), &bare, &len)) {
      Dwarf_Die function = u->scopes[holder[i]].die;
      named[n++] = (named_instance){dwarf_dieoffset(&function), name_hash(bare, len), i};
    }
  }
  free(holder);
  if (n)
    qsort(named, n, sizeof *named, by_function_name);
  u->named = named;
  u->num_named = n;
  return true;
}

int omplens_symbolize__instances_named(omplens_symbolizer *s, Dwarf_Die *scopedie,
                                       Dwarf_Die *function, const char *bare, size_t len,
                                       Dwarf_Die **out) {
  *out = NULL;
  omplens_symbolize__unit_functions *u = unit_of(s, scopedie);
  if (!u || u->failed || (!u->named_done && !index_names(u)) || !u->named)
    return -1;
  named_instance key = {dwarf_dieoffset(function), name_hash(bare, len), 0};
  size_t lo = 0, hi = u->num_named;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (by_function_name(&u->named[mid], &key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < u->num_named && u->named[end].function == key.function &&
         u->named[end].hash == key.hash)
    end++;
  if (end == lo)
    return 0;
  Dwarf_Die *found = malloc((end - lo) * sizeof *found);
  if (!found)
    return -1;
  int count = 0;
  for (size_t i = lo; i < end; i++) {
    Dwarf_Die die = u->scopes[u->named[i].scope].die;
    const char *b;
    size_t n;
    if (omplens_bare_function_name(omplens_symbolize__die_name(&die), &b, &n) && n == len &&
        memcmp(b, bare, len) == 0)
      found[count++] = die;
  }
  *out = found;
  return count;
}

/* Skips decimal digits; NULL when there are none. */
static const char *skip_digits(const char *p) {
  const char *start = p;
  while (*p >= '0' && *p <= '9')
    p++;
  return p > start ? p : NULL;
}

/* The host entry point of a target region, named by clang
 * __omp_offloading_<device>_<file>_<parent>_l<line>[_<count>]. Not the
 * `_debug__` function it wraps at -O0, nor the outlined helpers named after
 * it (they contain a '.'), whose declaration lines are the region's body. */
bool omplens_symbolize__is_offload_entry(const char *name) {
  static const char prefix[] = "__omp_offloading_";
  if (name == NULL || strncmp(name, prefix, sizeof(prefix) - 1) != 0 ||
      strchr(name, '.') != NULL)
    return false;
  const char *marker = NULL;
  for (const char *p = strstr(name, "_l"); p != NULL; p = strstr(p + 1, "_l"))
    marker = p;
  const char *end = marker != NULL ? skip_digits(marker + 2) : NULL;
  if (end != NULL && *end == '_')
    end = skip_digits(end + 1);
  return end != NULL && *end == '\0';
}

/* The unit's functions (scopes without a parent) named as entry points:
 * one pass over its scopes, which list them in DIE order. */
static bool index_entries(omplens_symbolize__unit_functions *u) {
  u->entries_done = true;
  for (size_t i = 0; i < u->num_scopes; i++) {
    Dwarf_Die die = u->scopes[i].die;
    if (u->scopes[i].parent != NO_SCOPE || dwarf_tag(&die) != DW_TAG_subprogram ||
        !omplens_symbolize__is_offload_entry(omplens_symbolize__die_name(&die)))
      continue;
    if (u->num_entries == INT32_MAX)
      break;
    if (!grow((void **)&u->entries, &u->cap_entries, u->num_entries, sizeof *u->entries))
      return false;
    u->entries[u->num_entries++] = die;
  }
  return true;
}

int omplens_symbolize__offload_entries(omplens_symbolizer *s, Dwarf_Die *scopedie,
                                       Dwarf_Die **out) {
  *out = NULL;
  omplens_symbolize__unit_functions *u = unit_of(s, scopedie);
  if (!u || u->failed || (!u->entries_done && !index_entries(u)))
    return -1;
  *out = u->entries;
  return (int)u->num_entries;
}
