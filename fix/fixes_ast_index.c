/* Indexes over a parsed file's nodes, built on the first query that needs
 * them, so that a question about one directive reads what it needs and not
 * the whole file: each node's subtree end, the functions by position, and
 * the nodes by name. Without them every directive scanned the file, which
 * made the fixer quadratic in the directives of a file. */
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"

struct omplens_fix__ast_index {
  uint32_t *end;       /* per node: one past its last descendant (pre-order) */
  uint32_t *functions; /* FUNCTION nodes, by begin                           */
  size_t num_functions;
  uint32_t *by_name; /* named nodes, by name then index                    */
  size_t num_named;
  uint32_t *decls; /* declarations a name may refer to, by name, offset, index */
  size_t num_decls;
  uint32_t *kids;      /* each node's children, in tree order, node by node */
  uint32_t *kid_start; /* per node: where its children begin in kids      */
  bool *disjoint;      /* per node: its children in source order, apart  */
  bool failed;
};

static const omplens_fix__ast *sorting; /* qsort has no context argument */

static int cmp_begin(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  uint32_t ba = sorting->nodes[a].begin, bb = sorting->nodes[b].begin;
  if (ba != bb)
    return ba < bb ? -1 : 1;
  return a < b ? -1 : a > b;
}

static int cmp_name(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  int c = strcmp(sorting->names + sorting->nodes[a].name, sorting->names + sorting->nodes[b].name);
  return c ? c : (a < b ? -1 : a > b);
}

static int cmp_decl(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  int c = strcmp(sorting->names + sorting->nodes[a].name, sorting->names + sorting->nodes[b].name);
  if (c)
    return c;
  uint32_t la = sorting->nodes[a].loc, lb = sorting->nodes[b].loc;
  if (la != lb)
    return la < lb ? -1 : 1;
  return a < b ? -1 : a > b;
}

static bool is_decl(int kind) {
  return kind == OMPLENS_FIX__N_VAR || kind == OMPLENS_FIX__N_PARM ||
         kind == OMPLENS_FIX__N_ENUM_CONST;
}

void omplens_fix__ast_index_free(omplens_fix__ast *a) {
  struct omplens_fix__ast_index *x = a->index;
  if (x) {
    free(x->end);
    free(x->functions);
    free(x->by_name);
    free(x->decls);
    free(x->kids);
    free(x->kid_start);
    free(x->disjoint);
    free(x);
  }
  a->index = NULL;
}

/* Children by parent (a counting sort: tree order kept), and whether each
 * node's children follow one another in the source without overlapping. */
static void index_kids(const omplens_fix__ast *a, struct omplens_fix__ast_index *x) {
  size_t n = a->num_nodes;
  for (size_t i = 0; i < n; i++) {
    uint32_t p = a->nodes[i].parent;
    if (p < n)
      x->kid_start[p + 2]++;
  }
  for (size_t i = 2; i <= n + 1; i++)
    x->kid_start[i] += x->kid_start[i - 1];
  for (size_t i = 0; i < n; i++) {
    uint32_t p = a->nodes[i].parent;
    if (p < n)
      x->kids[x->kid_start[p + 1]++] = (uint32_t)i;
  }
  for (size_t i = 0; i < n; i++) {
    x->disjoint[i] = true;
    for (uint32_t k = x->kid_start[i] + 1; k < x->kid_start[i + 1] && x->disjoint[i]; k++)
      x->disjoint[i] = a->nodes[x->kids[k - 1]].end <= a->nodes[x->kids[k]].begin &&
                       a->nodes[x->kids[k - 1]].begin <= a->nodes[x->kids[k - 1]].end;
  }
}

/* The index of a (built when first asked; NULL without memory, when every
 * query falls back to scanning). The tree is not changed: the index is a
 * cache, hence the cast. */
static const struct omplens_fix__ast_index *index_of(const omplens_fix__ast *a) {
  if (a->index)
    return a->index->failed ? NULL : a->index;
  struct omplens_fix__ast_index *x = calloc(1, sizeof *x);
  if (!x)
    return NULL;
  ((omplens_fix__ast *)a)->index = x;
  size_t n = a->num_nodes;
  x->end = malloc((n + 1) * sizeof *x->end);
  x->functions = malloc((n + 1) * sizeof *x->functions);
  x->by_name = malloc((n + 1) * sizeof *x->by_name);
  x->decls = malloc((n + 1) * sizeof *x->decls);
  x->kids = malloc((n + 1) * sizeof *x->kids);
  x->kid_start = calloc(n + 2, sizeof *x->kid_start);
  x->disjoint = malloc((n + 1) * sizeof *x->disjoint);
  if (!x->end || !x->functions || !x->by_name || !x->decls || !x->kids || !x->kid_start ||
      !x->disjoint) {
    x->failed = true;
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    x->end[i] = (uint32_t)i + 1;
  for (size_t i = n; i-- > 0;) { /* a parent precedes its children */
    uint32_t p = a->nodes[i].parent;
    if (p != OMPLENS_FIX__NONE && p < i && x->end[p] < x->end[i])
      x->end[p] = x->end[i];
  }
  for (size_t i = 0; i < n; i++) {
    if (a->nodes[i].kind == OMPLENS_FIX__N_FUNCTION)
      x->functions[x->num_functions++] = (uint32_t)i;
    if (a->names && a->nodes[i].name) {
      x->by_name[x->num_named++] = (uint32_t)i;
      if (is_decl(a->nodes[i].kind))
        x->decls[x->num_decls++] = (uint32_t)i;
    }
  }
  index_kids(a, x);
  sorting = a;
  qsort(x->functions, x->num_functions, sizeof *x->functions, cmp_begin);
  qsort(x->by_name, x->num_named, sizeof *x->by_name, cmp_name);
  qsort(x->decls, x->num_decls, sizeof *x->decls, cmp_decl);
  return x;
}

uint32_t omplens_fix__ast_end(const omplens_fix__ast *a, uint32_t n) {
  const struct omplens_fix__ast_index *x = index_of(a);
  if (x)
    return x->end[n];
  uint32_t k = n + 1;
  while (k < a->num_nodes && omplens_fix__ast_within(a, k, n))
    k++;
  return k;
}

/* The first of ids (sorted by name first) whose name is not below name,
 * or (above) above it. */
static size_t name_bound(const omplens_fix__ast *a, const uint32_t *ids, size_t n,
                         const char *name, bool above) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(a->names + a->nodes[ids[mid]].name, name);
    if (c < 0 || (above && c == 0))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The run of ids (sorted by name first) whose node is named name: both
 * ends by binary search, as a name may be declared thousands of times (a
 * parameter of every function). */
static const uint32_t *run_of(const omplens_fix__ast *a, const uint32_t *ids, size_t n,
                              const char *name, size_t *count) {
  size_t lo = name_bound(a, ids, n, name, false);
  *count = name_bound(a, ids + lo, n - lo, name, true);
  return ids + lo;
}

const uint32_t *omplens_fix__ast_named(const omplens_fix__ast *a, const char *name, size_t *count) {
  *count = 0;
  const struct omplens_fix__ast_index *x = index_of(a);
  return x && *name ? run_of(a, x->by_name, x->num_named, name, count) : NULL;
}

static bool holds(const omplens_fix__node *n, size_t offset) {
  return n->begin <= offset && offset < n->end;
}

/* Whether declaration i is visible at offset: declared before it, in a
 * scope that holds it. */
static bool visible(const omplens_fix__ast *a, uint32_t i, size_t offset) {
  if (a->nodes[i].loc >= offset)
    return false;
  uint32_t scope = omplens_fix__ast_scope(a, i);
  return scope == OMPLENS_FIX__NONE || holds(&a->nodes[scope], offset);
}

uint32_t omplens_fix__ast_lookup(const omplens_fix__ast *a, const char *name, size_t offset) {
  uint32_t best = OMPLENS_FIX__NONE;
  const struct omplens_fix__ast_index *x = index_of(a);
  if (!x) { /* the latest visible declaration, first in tree order */
    for (size_t i = 0; i < a->num_nodes; i++)
      if (is_decl(a->nodes[i].kind) && !strcmp(omplens_fix__ast_name(a, (uint32_t)i), name) &&
          visible(a, (uint32_t)i, offset) &&
          (best == OMPLENS_FIX__NONE || a->nodes[i].loc > a->nodes[best].loc))
        best = (uint32_t)i;
    return best;
  }
  size_t count;
  const uint32_t *d = *name ? run_of(a, x->decls, x->num_decls, name, &count) : NULL;
  if (!d)
    return best;
  size_t lo = 0, hi = count; /* the declarations before offset: d[0, lo) */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->nodes[d[mid]].loc < offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* Back from the latest: the first visible one, or at the same offset
   * the first in tree order. */
  for (size_t k = lo; k-- > 0;) {
    if (best != OMPLENS_FIX__NONE && a->nodes[d[k]].loc < a->nodes[best].loc)
      break;
    if (visible(a, d[k], offset))
      best = d[k];
  }
  return best;
}

uint32_t omplens_fix__ast_function_at(const omplens_fix__ast *a, size_t offset) {
  const struct omplens_fix__ast_index *x = index_of(a);
  uint32_t found = OMPLENS_FIX__NONE;
  if (!x) {
    for (size_t i = 0; i < a->num_nodes && found == OMPLENS_FIX__NONE; i++)
      if (a->nodes[i].kind == OMPLENS_FIX__N_FUNCTION && a->nodes[i].begin <= offset &&
          offset < a->nodes[i].end)
        found = (uint32_t)i;
    return found;
  }
  /* The functions holding offset begin at or before it; the first of them
   * in tree order is the outermost, the one a scan would find. */
  size_t lo = 0, hi = x->num_functions;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->nodes[x->functions[mid]].begin <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t k = lo; k-- > 0;) {
    const omplens_fix__node *n = &a->nodes[x->functions[k]];
    if (offset < n->end && (found == OMPLENS_FIX__NONE || x->functions[k] < found))
      found = x->functions[k];
    if (n->parent == OMPLENS_FIX__NONE && n->end <= offset)
      break; /* a top-level function that ends before: none earlier holds offset */
  }
  return found;
}

size_t omplens_fix__ast_kids(const omplens_fix__ast *a, uint32_t n, const uint32_t **kids,
                             bool *disjoint) {
  const struct omplens_fix__ast_index *x = index_of(a);
  if (!x || n >= a->num_nodes)
    return *kids = NULL, *disjoint = false, 0;
  *kids = x->kids + x->kid_start[n];
  *disjoint = x->disjoint[n];
  return x->kid_start[n + 1] - x->kid_start[n];
}
