/* From instances to findings: the emission queue, grouping, savings with
 * each removed operation counted once, directive and program totals, and
 * the final order. Definitions: docs/detectors.md. */
#include <stdlib.h>
#include <string.h>

#include "detect_internal.h"

/* ---- Emission ---------------------------------------------------------- */

/* The map item of e's directive whose section begins at e's host buffer:
 * its position in the directive's arguments, which names the same
 * variable in every execution whatever buffer it points to (swapped or
 * re-allocated arrays). A device memory API call (its own code address,
 * no construct) names one argument expression whatever rows or buffers
 * it copies: the call stands for it. Without either, the host buffer. */
#define VARIABLE_ITEM (UINT64_C(1) << 63)
#define VARIABLE_CALL (VARIABLE_ITEM | UINT32_MAX)

/* How many of r's arguments the trace holds (a damaged one may hold fewer). */
static uint32_t args_held(const omplens_detect__ctx *c, const omplens_region *r) {
  return r->first_arg < c->num_args && r->num_args > c->num_args - r->first_arg
             ? (uint32_t)(c->num_args - r->first_arg)
             : r->num_args;
}

uint32_t omplens_detect__arg_place(const omplens_detect__ctx *c, const omplens_region *r,
                                   uint64_t addr, uint64_t bytes) {
  uint32_t first = r->first_arg, n = args_held(c, r);
  const uint32_t *order =
      c->arg_lists && first < c->num_args ? omplens_map_lists_order(c->arg_lists, first, n) : NULL;
  if (order)
    return omplens_map_args_find(c->args + first, order, n, addr, bytes);
  for (uint32_t k = 0; k < r->num_args; k++) {
    size_t at = (size_t)first + k;
    if (at < c->num_args && omplens_map_arg_is(&c->args[at], addr, bytes))
      return k;
  }
  return UINT32_MAX;
}

static uint64_t variable_of(const omplens_detect__ctx *c,
                            const omplens_event *e) {
  if ((e->flags & OMPLENS_EVF_OWN_CODEPTR) && e->region == OMPLENS_NO_REGION)
    return VARIABLE_CALL;
  if (e->region >= c->num_regions)
    return e->host_addr;
  uint32_t k = omplens_detect__arg_place(c, &c->regions[e->region], e->host_addr, e->bytes);
  return k == UINT32_MAX ? e->host_addr : VARIABLE_ITEM | k;
}

void omplens_detect__sort_arg_lists(const omplens_detect__ctx *c, omplens_map_lists *l) {
  for (size_t i = 0; i < c->num_regions; i++) {
    const omplens_region *r = &c->regions[i];
    uint32_t n = args_held(c, r);
    if (n >= OMPLENS_DETECT__SORT_ARGS)
      omplens_map_lists_sort(l, c->args, c->num_args, r->first_arg, n); /* NULL: scanned */
  }
}

/* D2H duplicates are received by the host, so they group under it. */
static omplens_detect__group_key key_of(const omplens_detect__ctx *c, const omplens_event *e,
                        int category) {
  int on_host = e->kind == OMPLENS_EV_D2H &&
                (category == OMPLENS_CAT_DUPLICATE_SAME_BUFFER ||
                 category == OMPLENS_CAT_DUPLICATE_OTHER_BUFFER);
  return (omplens_detect__group_key){category, on_host ? (int16_t)OMPLENS_HOST : e->device,
                     omplens_detect__codeptr(c, e), variable_of(c, e),
                     e->bytes, e->host_addr};
}

static omplens_detect__group *group_at(const omplens_detect__ctx *c,
                                       size_t id) {
  return omplens_detect__blocks_at(&c->groups, id,
                                   sizeof(omplens_detect__group));
}

static int group_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__group *g = group_at(ctx, stored);
  const omplens_detect__group_key *k = key;
  return g->category == k->category && g->device == k->device &&
         g->codeptr == k->codeptr && g->variable == k->variable &&
         g->bytes == k->bytes;
}

static uint64_t group_hash(const omplens_detect__group_key *k) {
  uint64_t h = omplens_detect__mix(((uint64_t)(uint16_t)k->device << 8) |
                                   (uint64_t)k->category);
  h = omplens_detect__hash_add(h, k->codeptr);
  h = omplens_detect__hash_add(h, k->variable);
  return omplens_detect__hash_add(h, k->bytes);
}

/* The group of key k (whose hash is hash), created when new. */
static int group_of(omplens_detect__ctx *c, const omplens_detect__group_key *k, uint64_t hash,
                    uint32_t *id) {
  size_t at;
  *id = (uint32_t)c->groups.count;
  int rc = omplens_detect__map_insert(&c->group_of, hash, *id, group_eq, c, k,
                                      &at);
  if (rc == 0)
    *id = omplens_detect__map_value(&c->group_of, at);
  if (rc != 1)
    return rc;
  omplens_detect__group *g =
      omplens_detect__blocks_push(&c->groups, sizeof *g);
  if (!g) { /* a stored id must name an existing group */
    omplens_detect__map_remove(&c->group_of, at);
    return OMPLENS_DETECT_ENOMEM;
  }
  *g = (omplens_detect__group){
      .category = (uint8_t)k->category, .device = k->device,
      .codeptr = k->codeptr, .variable = k->variable,
      .host_addr = k->host_addr, .bytes = k->bytes};
  return 0;
}

/* Savings are summed here, while the event is still cached, rather than in
 * a later pass that would visit the instances' events in scattered order. */
static int add_instance(omplens_detect__ctx *c,
                        const omplens_detect__emission *q) {
  const omplens_event *e = &c->ev[q->event];
  const omplens_detect__group_key *k = &q->key;
  uint32_t id;
  omplens_detect__raw *r = NULL;
  int rc = group_of(c, k, q->hash, &id);
  if (rc == 0)
    r = omplens_detect__blocks_push(&c->raw, sizeof *r);
  if (!r)
    return OMPLENS_DETECT_ENOMEM;
  *r = (omplens_detect__raw){q->event, q->related, id};
  omplens_detect__group *g = group_at(c, id);
  g->num_instances++;
  g->total_ns += omplens_detect__dur(e);
  g->savings_ns += q->removal_ns;
  g->passed_over |= q->passed_over;
  /* Each operation is emitted once; unused transfers skip those marked. */
  omplens_detect__set_bit(c->removed, q->event);
  return 0;
}

/* The group an emission probably goes to: the one in its home slot. */
static const omplens_detect__group *
likely_group(const omplens_detect__ctx *c, const omplens_detect__emission *q) {
  const omplens_detect__map *m = &c->group_of;
  if (m->cap == 0)
    return NULL;
  uint32_t fp = omplens_detect__map_fp(q->hash);
  const omplens_detect__slot *s = &m->slots[omplens_detect__map_home(m, fp)];
  if (s->value == OMPLENS_DETECT__EMPTY || s->fp != fp)
    return NULL;
  return group_at(c, s->value);
}

/* Asks for every queued emission's likely group first, then groups them
 * in order: the waits for the groups overlap. */
int omplens_detect__flush(omplens_detect__ctx *c) {
  for (unsigned k = 0; k < c->queued; k++) {
    const char *g = (const char *)likely_group(c, &c->queue[k]);
    if (g) { /* a group may straddle two cache lines */
      __builtin_prefetch(g, 1);
      __builtin_prefetch(g + sizeof(omplens_detect__group) - 1, 1);
    }
  }
  int rc = 0;
  for (unsigned k = 0; k < c->queued && rc == 0; k++) {
    rc = add_instance(c, &c->queue[k]);
  }
  c->queued = 0;
  return rc;
}

/* Queues an emission; its group's slot is fetched into the cache
 * meanwhile. */
int omplens_detect__emit(omplens_detect__ctx *c, int category, uint32_t event,
                         uint32_t related, uint64_t removal_ns) {
  return omplens_detect__emit_passed(c, category, event, related, removal_ns, 0);
}

int omplens_detect__emit_passed(omplens_detect__ctx *c, int category, uint32_t event,
                                uint32_t related, uint64_t removal_ns, int passed_over) {
  if (related != OMPLENS_DETECT__NONE &&
      omplens_detect__unseen_between(c, c->ev[related].begin_ns, c->ev[event].begin_ns))
    return 0; /* what happened there is unknown */
  omplens_detect__emission *q = &c->queue[c->queued++];
  *q = (omplens_detect__emission){.key = key_of(c, &c->ev[event], category),
                                  .removal_ns = removal_ns, .event = event,
                                  .related = related, .passed_over = (uint8_t)!!passed_over};
  q->hash = group_hash(&q->key);
  omplens_detect__map_prefetch(&c->group_of, q->hash);
  return c->queued == OMPLENS_DETECT__QUEUE ? omplens_detect__flush(c) : 0;
}

/* ---- Lanes -------------------------------------------------------------
 * A lane's categories are its own, so its groups are new to into: they
 * keep their order after into's, and its instances name them with that
 * offset. Each block of the lane's goes as soon as it is copied. */

static int merge_groups(omplens_detect__ctx *into, omplens_detect__ctx *lane) {
  size_t size = sizeof(omplens_detect__group);
  omplens_detect__blocks *from = &lane->groups;
  for (size_t g = 0; g < from->count; g++) {
    void *to = omplens_detect__blocks_push(&into->groups, size);
    if (!to)
      return OMPLENS_DETECT_ENOMEM;
    memcpy(to, omplens_detect__blocks_at(from, g, size), size);
    omplens_detect__blocks_read(from, g);
  }
  omplens_detect__blocks_free(&lane->groups);
  omplens_detect__map_free(&lane->group_of);
  return 0;
}

static int merge_instances(omplens_detect__ctx *into, omplens_detect__ctx *lane,
                           uint32_t offset) {
  omplens_detect__blocks *from = &lane->raw;
  for (size_t r = 0; r < from->count; r++) {
    const omplens_detect__raw *in =
        omplens_detect__blocks_at(from, r, sizeof *in);
    omplens_detect__raw *out =
        omplens_detect__blocks_push(&into->raw, sizeof *out);
    if (!out)
      return OMPLENS_DETECT_ENOMEM;
    *out = (omplens_detect__raw){in->event, in->related, in->group + offset};
    omplens_detect__blocks_read(from, r);
  }
  omplens_detect__blocks_free(from);
  return 0;
}

int omplens_detect__merge_lane(omplens_detect__ctx *into,
                               omplens_detect__ctx *lane) {
  uint32_t offset = (uint32_t)into->groups.count;
  for (size_t w = 0; w < ((size_t)into->n + 63) / 64; w++)
    into->removed[w] |= lane->removed[w];
  int rc = merge_groups(into, lane);
  return rc < 0 ? rc : merge_instances(into, lane, offset);
}

/* ---- Grouping ----------------------------------------------------------
 * A stable counting sort by group: each category was emitted in time
 * order, so every group's instances come out sorted by time. On success
 * end[g] is where group g's instances end in a->instances. */

static int place_instances(omplens_detect__ctx *c, omplens_analysis *a,
                           size_t **end) {
  size_t *cursor = omplens_detect__array(c->groups.count, sizeof *cursor);
  a->instances = omplens_detect__array(c->raw.count, sizeof *a->instances);
  if (!cursor || !a->instances) {
    omplens_detect__free(cursor);
    return OMPLENS_DETECT_ENOMEM;
  }
  size_t offset = 0;
  for (size_t g = 0; g < c->groups.count; g++) {
    cursor[g] = offset;
    offset += group_at(c, g)->num_instances;
  }
  for (size_t r = 0; r < c->raw.count; r++) {
    const omplens_detect__raw *in =
        omplens_detect__blocks_at(&c->raw, r, sizeof *in);
    a->instances[cursor[in->group]++] =
        (omplens_instance){in->event, in->related};
  }
  omplens_detect__blocks_free(&c->raw);
  *end = cursor;
  return 0;
}

/* ---- Directive and program totals ------------------------------------- */

typedef struct totals {
  omplens_detect__map by_codeptr; /* codeptr -> index into directives */
  omplens_directive_total *directives;
  size_t num_directives, cap_directives;
} totals;

static int directive_eq(const void *ctx, uint32_t stored, const void *key) {
  return ((const totals *)ctx)->directives[stored].codeptr ==
         *(const uint64_t *)key;
}

/* A new directive takes its event sums from the survey. */
static omplens_directive_total new_directive(const omplens_detect__ctx *c,
                                             uint64_t codeptr) {
  const omplens_detect__codeptr_sums *sums =
      omplens_detect__find_sums(c, codeptr);
  omplens_directive_total d = {.codeptr = codeptr};
  if (sums) { /* always: every finding's codeptr is an event's */
    d.transfer_ns = sums->h2d.ns + sums->d2h.ns + sums->d2d.ns;
    d.transfer_bytes = sums->h2d.bytes + sums->d2h.bytes + sums->d2d.bytes;
    d.executions = sums->executions;
  }
  return d;
}

static int directive_of(const omplens_detect__ctx *c, totals *t,
                        uint64_t codeptr, omplens_directive_total **out) {
  int rc = omplens_detect__reserve(&t->directives, &t->cap_directives,
                                   t->num_directives + 1,
                                   sizeof *t->directives);
  size_t at;
  if (rc < 0)
    return rc;
  rc = omplens_detect__map_insert(&t->by_codeptr, omplens_detect__mix(codeptr),
                                  (uint32_t)t->num_directives, directive_eq,
                                  t, &codeptr, &at);
  if (rc < 0)
    return rc;
  if (rc == 1)
    t->directives[t->num_directives++] = new_directive(c, codeptr);
  *out = &t->directives[omplens_detect__map_value(&t->by_codeptr, at)];
  return 0;
}

/* Each operation is in one group, so the groups' savings add up to the
 * directives' and the program's. */
static int add_groups(const omplens_detect__ctx *c, totals *t,
                      omplens_program_total *p) {
  for (size_t i = 0; i < c->groups.count; i++) {
    const omplens_detect__group *g = group_at(c, i);
    uint64_t bytes = g->num_instances * g->bytes;
    omplens_directive_total *d;
    int rc = directive_of(c, t, g->codeptr, &d);
    if (rc < 0)
      return rc;
    d->count[g->category] += g->num_instances;
    d->bytes[g->category] += bytes;
    d->savings_ns += g->savings_ns;
    p->count[g->category] += g->num_instances;
    p->bytes[g->category] += bytes;
    p->savings_ns += g->savings_ns;
  }
  return 0;
}

/* ---- Order ------------------------------------------------------------- */

#define CMP_ASC(x, y)                                                          \
  do {                                                                         \
    if ((x) != (y))                                                            \
      return (x) < (y) ? -1 : 1;                                               \
  } while (0)

/* A group to sort: by its savings first (a radix sort), then by its key. */
typedef struct ranked {
  uint64_t savings_ns;
  const omplens_detect__group *group;
  uint32_t id;
} ranked;

/* Savings first, then a total order on the group key for stable goldens. */
static int compare_ranked(const void *pa, const void *pb) {
  const ranked *ra = pa, *rb = pb;
  CMP_ASC(rb->savings_ns, ra->savings_ns);
  const omplens_detect__group *a = ra->group, *b = rb->group;
  CMP_ASC(a->codeptr, b->codeptr);
  CMP_ASC(a->host_addr, b->host_addr);
  CMP_ASC(a->variable, b->variable);
  CMP_ASC(a->category, b->category);
  CMP_ASC(a->device, b->device);
  CMP_ASC(a->bytes, b->bytes);
  return 0;
}

static int compare_directives(const void *pa, const void *pb) {
  const omplens_directive_total *a = pa, *b = pb;
  CMP_ASC(a->setup, b->setup);
  CMP_ASC(b->savings_ns, a->savings_ns);
  CMP_ASC(a->codeptr, b->codeptr);
  return 0;
}

static int compare_profiles(const void *pa, const void *pb) {
  const omplens_directive_profile *a = pa, *b = pb;
  CMP_ASC(b->total_ns, a->total_ns);
  CMP_ASC(a->codeptr, b->codeptr);
  return 0;
}

static omplens_finding finding_of(const omplens_detect__group *g,
                                  const omplens_instance *instances) {
  return (omplens_finding){
      .category = g->category, .device = g->device, .codeptr = g->codeptr,
      .host_addr = g->host_addr, .bytes = g->bytes,
      .num_instances = g->num_instances, .instances = instances,
      .total_bytes = g->num_instances * g->bytes, .total_ns = g->total_ns,
      .savings_ns = g->savings_ns, .passed_over = g->passed_over};
}

/* Sorts order[0, n) by savings, largest first: a least-significant-digit
 * radix sort, a byte a pass, skipping the bytes where all agree; tmp has
 * room for n. */
static void sort_by_savings(ranked *order, ranked *tmp, size_t n) {
  ranked *from = order, *to = tmp;
  for (unsigned shift = 0; shift < 64; shift += 8) {
    size_t start[257] = {0};
    for (size_t i = 0; i < n; i++)
      start[1 + (uint8_t)(~from[i].savings_ns >> shift)]++;
    if (start[1 + (uint8_t)(~from[0].savings_ns >> shift)] == n)
      continue;
    for (unsigned d = 0; d < 256; d++)
      start[d + 1] += start[d];
    for (size_t i = 0; i < n; i++)
      to[start[(uint8_t)(~from[i].savings_ns >> shift)]++] = from[i];
    ranked *swap = from;
    from = to;
    to = swap;
  }
  if (from != order)
    memcpy(order, from, n * sizeof *order);
}

/* The groups in the order of their findings; *out receives them. */
static int rank_groups(const omplens_detect__ctx *c, ranked **out) {
  size_t n = c->groups.count;
  ranked *order = omplens_detect__array(n, sizeof *order);
  ranked *tmp = omplens_detect__array(n, sizeof *tmp);
  if (!order || !tmp) {
    omplens_detect__free(order);
    omplens_detect__free(tmp);
    return OMPLENS_DETECT_ENOMEM;
  }
  for (size_t id = 0; id < n; id++)
    order[id] = (ranked){group_at(c, id)->savings_ns, group_at(c, id),
                         (uint32_t)id};
  if (n)
    sort_by_savings(order, tmp, n);
  omplens_detect__free(tmp);
  /* Equal savings: the group keys decide. */
  for (size_t lo = 0, hi; lo < n; lo = hi) {
    for (hi = lo + 1; hi < n && order[hi].savings_ns == order[lo].savings_ns;)
      hi++;
    if (hi - lo > 1)
      qsort(order + lo, hi - lo, sizeof *order, compare_ranked);
  }
  *out = order;
  return 0;
}

/* The findings, in their final order; end[g] is where group g's instances
 * end in a->instances. */
/* The set-up phase ends where the construct of the first repeated
 * kernel begins: the first kernel, in time order, of a directive that
 * runs kernels more than once (docs/detectors.md, "Set-up findings"). */
static uint64_t setup_end(const omplens_detect__ctx *c) {
  for (uint32_t i = 0; i < c->n; i++) {
    const omplens_event *e = &c->ev[i];
    if (e->kind != OMPLENS_EV_KERNEL)
      continue;
    const omplens_detect__codeptr_sums *s =
        omplens_detect__find_sums(c, omplens_detect__codeptr(c, e));
    if (!s || s->kernels.count < 2)
      continue;
    uint64_t t = e->region < c->num_regions ? c->regions[e->region].begin_ns : e->begin_ns;
    return t < e->begin_ns ? t : e->begin_ns;
  }
  return 0;
}

/* Findings whose instances all began in the set-up phase are marked, and
 * go after the others, each part in its order. */
static int rank_setup_last(const omplens_detect__ctx *c, omplens_analysis *a) {
  uint64_t end = setup_end(c);
  size_t n = a->num_findings, k = 0, setup = 0;
  a->total.setup_end_ns = end;
  for (size_t i = 0; i < n && end; i++) {
    const omplens_finding *f = &a->findings[i];
    /* instances are in time order: the last one decides */
    a->findings[i].setup = f->num_instances &&
                           c->ev[f->instances[f->num_instances - 1].event].begin_ns < end;
    setup += (size_t)a->findings[i].setup;
  }
  if (!setup || setup == n)
    return 0;
  omplens_finding *sorted = omplens_detect__array(n, sizeof *sorted);
  if (!sorted)
    return OMPLENS_DETECT_ENOMEM;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++)
      if (a->findings[i].setup == pass)
        sorted[k++] = a->findings[i];
  omplens_detect__free(a->findings);
  a->findings = sorted;
  return 0;
}

/* The findings go to their ranks in the order of the groups, whose blocks
 * are freed as they are read: the groups, the ranking and the findings
 * are not all held at once (the detectors' peak on a trace of many
 * findings). */
static int order_findings(omplens_detect__ctx *c, const size_t *end, omplens_analysis *a) {
  size_t n = c->groups.count;
  ranked *order;
  int rc = rank_groups(c, &order);
  if (rc < 0)
    return rc;
  uint32_t *rank = omplens_detect__array(n, sizeof *rank);
  if (!rank) {
    omplens_detect__free(order);
    return OMPLENS_DETECT_ENOMEM;
  }
  for (size_t k = 0; k < n; k++)
    rank[order[k].id] = (uint32_t)k;
  omplens_detect__free(order);
  a->findings = omplens_detect__array(n, sizeof *a->findings);
  if (!a->findings) {
    omplens_detect__free(rank);
    return OMPLENS_DETECT_ENOMEM;
  }
  omplens_detect__blocks *groups = &c->groups;
  for (size_t id = 0; id < n; id++) {
    const omplens_detect__group *g = group_at(c, id);
    a->findings[rank[id]] = finding_of(g, a->instances + end[id] - g->num_instances);
    omplens_detect__blocks_read(groups, id);
  }
  omplens_detect__blocks_free(groups); /* read: nothing after this asks */
  a->num_findings = n;
  omplens_detect__free(rank);
  return rank_setup_last(c, a);
}

/* When the savings reach the run time the operations overlapped (threads,
 * devices): no meaningful bound exists, and 0 says so. */
static double speedup(uint64_t run_ns, uint64_t savings_ns) {
  if (savings_ns == 0)
    return 1.0;
  if (savings_ns >= run_ns)
    return 0.0;
  return (double)run_ns / (double)(run_ns - savings_ns);
}

/* ---- Entry ------------------------------------------------------------- */

/* The survey's sums become the profiles; the sums' map goes with them. */
static void move_profiles(omplens_detect__ctx *c, const totals *t, omplens_analysis *a) {
  for (size_t i = 0; i < c->num_sums; i++)
    c->sums[i].has_findings = omplens_detect__map_find(
        &t->by_codeptr, omplens_detect__mix(c->sums[i].codeptr), directive_eq, t,
        &c->sums[i].codeptr) != OMPLENS_DETECT__MAP_NONE;
  if (c->num_sums)
    qsort(c->sums, c->num_sums, sizeof *c->sums, compare_profiles);
  a->profiles = c->sums;
  a->num_profiles = c->num_sums;
  c->sums = NULL;
  c->num_sums = c->cap_sums = 0;
  omplens_detect__map_free(&c->sums_of);
}

/* A directive is set-up when all its findings are. */
static void mark_setup_directives(totals *t, const omplens_analysis *a) {
  for (size_t i = 0; i < t->num_directives; i++)
    t->directives[i].setup = a->total.setup_end_ns != 0;
  for (size_t i = 0; i < a->num_findings; i++) {
    if (a->findings[i].setup)
      continue;
    size_t at = omplens_detect__map_find(&t->by_codeptr, omplens_detect__mix(a->findings[i].codeptr),
                                         directive_eq, t, &a->findings[i].codeptr);
    if (at != OMPLENS_DETECT__MAP_NONE)
      t->directives[omplens_detect__map_value(&t->by_codeptr, at)].setup = 0;
  }
}

static void move_results(omplens_detect__ctx *c, totals *t,
                         omplens_analysis *a) {
  mark_setup_directives(t, a);
  move_profiles(c, t, a); /* before the sort: by_codeptr holds indices */
  if (t->num_directives)
    qsort(t->directives, t->num_directives, sizeof *t->directives,
          compare_directives);
  a->directives = t->directives;
  a->num_directives = t->num_directives;
  a->leftovers = c->leftovers;
  a->num_leftovers = c->num_leftovers;
  c->leftovers = NULL;
  c->num_leftovers = 0;
  t->directives = NULL;
}

static int totals_of(omplens_detect__ctx *c, totals *t, omplens_analysis *a) {
  omplens_program_total *p = &a->total;
  *p = c->events_total;
  p->run_ns = c->run_ns;
  for (size_t i = 0; i < c->num_sums; i++) {
    p->wait_ns += c->sums[i].waits.ns;
    p->num_waits += c->sums[i].waits.count;
    p->deferred_wait_ns += c->sums[i].deferred_waits.ns;
    p->num_deferred_waits += c->sums[i].deferred_waits.count;
  }
  int rc = add_groups(c, t, p);
  p->speedup = speedup(p->run_ns, p->savings_ns);
  return rc;
}

int omplens_detect__finish(omplens_detect__ctx *c, omplens_analysis *a) {
  totals t = {0};
  size_t *end = NULL;
  omplens_detect__map_free(&c->group_of);
  int rc = place_instances(c, a, &end);
  if (rc == 0)
    rc = totals_of(c, &t, a);
  if (rc == 0)
    rc = order_findings(c, end, a);
  if (rc == 0)
    move_results(c, &t, a);
  omplens_detect__free(end);
  omplens_detect__map_free(&t.by_codeptr);
  omplens_detect__free(t.directives);
  return rc;
}
