/* From instances to findings: grouping, savings with each removed
 * operation counted once, directive and program totals, and the final
 * order. Definitions: docs/detectors.md. */
#include <stdlib.h>

#include "detect_internal.h"

/* ---- Emission ---------------------------------------------------------- */

typedef struct group_key {
  int category;
  int16_t device;
  uint64_t codeptr, host_addr, bytes;
} group_key;

/* D2H duplicates are received by the host, so they group under it. */
static group_key key_of(const omplens_event *e, int category) {
  int on_host = e->kind == OMPLENS_EV_D2H &&
                (category == OMPLENS_CAT_DUPLICATE_SAME_BUFFER ||
                 category == OMPLENS_CAT_DUPLICATE_OTHER_BUFFER);
  return (group_key){category, on_host ? (int16_t)OMPLENS_HOST : e->device,
                     e->codeptr, e->host_addr, e->bytes};
}

static int group_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__ctx *c = ctx;
  const omplens_finding *f = &c->findings[stored];
  const group_key *k = key;
  return f->category == k->category && f->device == k->device &&
         f->codeptr == k->codeptr && f->host_addr == k->host_addr &&
         f->bytes == k->bytes;
}

static uint64_t group_hash(const group_key *k) {
  uint64_t h = omplens_detect__mix(((uint64_t)(uint16_t)k->device << 8) |
                                   (uint64_t)k->category);
  h = omplens_detect__hash_add(h, k->codeptr);
  h = omplens_detect__hash_add(h, k->host_addr);
  return omplens_detect__hash_add(h, k->bytes);
}

static int finding_of(omplens_detect__ctx *c, const group_key *k,
                      uint32_t *id) {
  /* Room first, so that a stored id always names an existing finding. */
  int rc = omplens_detect__reserve(&c->findings, &c->cap_findings,
                                   c->num_findings + 1, sizeof *c->findings);
  size_t at;
  if (rc == 0)
    rc = omplens_detect__map_insert(&c->groups, group_hash(k),
                                    (uint32_t)c->num_findings, group_eq, c, k,
                                    &at);
  if (rc < 0)
    return rc;
  *id = omplens_detect__map_value(&c->groups, at);
  if (rc == 1)
    c->findings[c->num_findings++] = (omplens_finding){
        .category = k->category, .device = k->device, .codeptr = k->codeptr,
        .host_addr = k->host_addr, .bytes = k->bytes};
  return 0;
}

int omplens_detect__emit(omplens_detect__ctx *c, int category, uint32_t event,
                         uint32_t related) {
  const omplens_event *e = &c->ev[event];
  group_key k = key_of(e, category);
  uint32_t id;
  int rc = finding_of(c, &k, &id);
  if (rc == 0)
    rc = omplens_detect__reserve(&c->raw, &c->cap_raw,
                                 c->num_raw + 1, sizeof *c->raw);
  if (rc < 0)
    return rc;
  omplens_finding *f = &c->findings[id];
  f->num_instances++;
  f->total_bytes += e->bytes;
  f->total_ns += omplens_detect__dur(e);
  c->raw[c->num_raw++] = (omplens_detect__raw){event, related, id};
  return 0;
}

/* ---- Grouping ----------------------------------------------------------
 * A stable counting sort by finding: each category was emitted in time
 * order, so every finding's instances come out sorted by time. */

static int place_instances(omplens_detect__ctx *c, omplens_analysis *a) {
  omplens_detect__raw *exact =
      omplens_detect__rearray(c->raw, c->num_raw, sizeof *c->raw);
  if (exact)
    c->raw = exact; /* give back the growth slack before the copy */
  size_t *cursor = omplens_detect__array(c->num_findings, sizeof *cursor);
  a->instances = omplens_detect__array(c->num_raw, sizeof *a->instances);
  if (!cursor || !a->instances) {
    omplens_detect__free(cursor);
    return OMPLENS_DETECT_ENOMEM;
  }
  size_t offset = 0;
  for (size_t f = 0; f < c->num_findings; f++) {
    cursor[f] = offset;
    c->findings[f].instances = a->instances + offset;
    offset += c->findings[f].num_instances;
  }
  for (size_t r = 0; r < c->num_raw; r++)
    a->instances[cursor[c->raw[r].finding]++] =
        (omplens_instance){c->raw[r].event, c->raw[r].related};
  omplens_detect__free(cursor);
  omplens_detect__free(c->raw);
  c->raw = NULL;
  c->num_raw = c->cap_raw = 0;
  return 0;
}

/* ---- Savings and directive totals ------------------------------------ */

typedef struct totals {
  omplens_detect__map by_codeptr; /* codeptr -> index into directives */
  omplens_directive_total *directives;
  size_t num_directives, cap_directives;
  uint64_t *removed; /* operations already counted in the totals */
} totals;

static int directive_eq(const void *ctx, uint32_t stored, const void *key) {
  return ((const totals *)ctx)->directives[stored].codeptr ==
         *(const uint64_t *)key;
}

static size_t find_directive(const totals *t, uint64_t codeptr) {
  size_t at = omplens_detect__map_find(&t->by_codeptr,
                                       omplens_detect__mix(codeptr),
                                       directive_eq, t, &codeptr);
  return at == OMPLENS_DETECT__MAP_NONE
             ? SIZE_MAX
             : omplens_detect__map_value(&t->by_codeptr, at);
}

static int directive_of(totals *t, uint64_t codeptr,
                        omplens_directive_total **out) {
  int rc = omplens_detect__reserve(&t->directives, &t->cap_directives,
                                   t->num_directives + 1,
                                   sizeof *t->directives);
  size_t at;
  if (rc == 0)
    rc = omplens_detect__map_insert(&t->by_codeptr, omplens_detect__mix(codeptr),
                                    (uint32_t)t->num_directives, directive_eq,
                                    t, &codeptr, &at);
  if (rc < 0)
    return rc;
  if (rc == 1)
    t->directives[t->num_directives++] =
        (omplens_directive_total){.codeptr = codeptr};
  *out = &t->directives[omplens_detect__map_value(&t->by_codeptr, at)];
  return 0;
}

/* Adds one removed operation: always to its finding, to the directive and
 * the program only the first time any finding removes it. */
static void remove_op(const omplens_detect__ctx *c, totals *t,
                      omplens_finding *f, omplens_directive_total *d,
                      omplens_program_total *p, uint32_t op) {
  uint64_t ns = omplens_detect__dur(&c->ev[op]);
  f->savings_ns += ns;
  if (omplens_detect__bit(t->removed, op))
    return;
  omplens_detect__set_bit(t->removed, op);
  d->savings_ns += ns;
  p->savings_ns += ns;
}

/* Fixing an allocation finding removes the allocation and its delete. */
static void add_finding(const omplens_detect__ctx *c, totals *t,
                        omplens_finding *f, omplens_directive_total *d,
                        omplens_program_total *p) {
  uint32_t hint = 0;
  d->count[f->category] += (uint32_t)f->num_instances;
  d->bytes[f->category] += f->total_bytes;
  p->count[f->category] += (uint32_t)f->num_instances;
  p->bytes[f->category] += f->total_bytes;
  for (size_t i = 0; i < f->num_instances; i++) {
    uint32_t op = f->instances[i].event;
    remove_op(c, t, f, d, p, op);
    if (!omplens_detect__is_alloc_category(f->category))
      continue;
    uint32_t del = omplens_detect__delete_of(c, op, &hint);
    if (del != OMPLENS_DETECT__NONE)
      remove_op(c, t, f, d, p, del);
  }
}

static int add_savings(omplens_detect__ctx *c, totals *t,
                       omplens_program_total *p) {
  t->removed = omplens_detect__bitmap(c->n);
  if (!t->removed)
    return OMPLENS_DETECT_ENOMEM;
  for (size_t i = 0; i < c->num_findings; i++) {
    omplens_directive_total *d;
    int rc = directive_of(t, c->findings[i].codeptr, &d);
    if (rc < 0)
      return rc;
    add_finding(c, t, &c->findings[i], d, p);
  }
  return 0;
}

/* ---- Event totals ------------------------------------------------------ */

/* Executions of a directive: distinct (codeptr, region) pairs. */
static int execution_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_event *a = &((const omplens_event *)ctx)[stored];
  const omplens_event *k = key;
  return a->codeptr == k->codeptr && a->region == k->region;
}

static void add_program_event(omplens_program_total *p, const omplens_event *e) {
  uint64_t ns = omplens_detect__dur(e);
  if (omplens_detect__is_transfer(e)) {
    p->transfer_ns += ns;
    p->transfer_bytes += e->bytes;
    p->num_transfers++;
  } else if (e->kind == OMPLENS_EV_ALLOC) {
    p->alloc_ns += ns;
    p->num_allocs++;
  } else if (e->kind == OMPLENS_EV_KERNEL) {
    p->kernel_ns += ns;
    p->num_kernels++;
  }
}

/* An event outside any construct (no region) is its own execution. */
static int add_directive_event(totals *t, omplens_detect__map *executions,
                               const omplens_event *ev, uint32_t i) {
  const omplens_event *e = &ev[i];
  size_t id = find_directive(t, e->codeptr);
  if (id == SIZE_MAX)
    return 0;
  omplens_directive_total *d = &t->directives[id];
  if (omplens_detect__is_transfer(e)) {
    d->transfer_ns += omplens_detect__dur(e);
    d->transfer_bytes += e->bytes;
  }
  if (e->region == OMPLENS_NO_REGION) {
    d->executions++;
    return 0;
  }
  uint64_t h = omplens_detect__hash_add(omplens_detect__mix(e->codeptr),
                                        e->region);
  size_t at;
  int rc = omplens_detect__map_insert(executions, h, i, execution_eq, ev, e,
                                      &at);
  if (rc == 1)
    d->executions++;
  return rc < 0 ? rc : 0;
}

static int add_events(const omplens_detect__ctx *c, totals *t,
                      omplens_program_total *p) {
  omplens_detect__map executions = {0};
  int rc = 0;
  for (uint32_t i = 0; i < c->n && rc == 0; i++) {
    add_program_event(p, &c->ev[i]);
    if (t->num_directives)
      rc = add_directive_event(t, &executions, c->ev, i);
  }
  omplens_detect__map_free(&executions);
  return rc;
}

/* ---- Order ------------------------------------------------------------- */

#define CMP_ASC(x, y)                                                          \
  do {                                                                         \
    if ((x) != (y))                                                            \
      return (x) < (y) ? -1 : 1;                                               \
  } while (0)

/* Savings first, then a total order on the group key for stable goldens. */
static int compare_findings(const void *pa, const void *pb) {
  const omplens_finding *a = pa, *b = pb;
  CMP_ASC(b->savings_ns, a->savings_ns);
  CMP_ASC(a->codeptr, b->codeptr);
  CMP_ASC(a->host_addr, b->host_addr);
  CMP_ASC(a->category, b->category);
  CMP_ASC(a->device, b->device);
  CMP_ASC(a->bytes, b->bytes);
  return 0;
}

static int compare_directives(const void *pa, const void *pb) {
  const omplens_directive_total *a = pa, *b = pb;
  CMP_ASC(b->savings_ns, a->savings_ns);
  CMP_ASC(a->codeptr, b->codeptr);
  return 0;
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

static void move_results(omplens_detect__ctx *c, totals *t,
                         omplens_analysis *a) {
  /* qsort must not see the NULL of an empty array. */
  if (c->num_findings)
    qsort(c->findings, c->num_findings, sizeof *c->findings,
          compare_findings);
  if (t->num_directives)
    qsort(t->directives, t->num_directives, sizeof *t->directives,
          compare_directives);
  a->findings = c->findings;
  a->num_findings = c->num_findings;
  a->directives = t->directives;
  a->num_directives = t->num_directives;
  a->leftovers = c->leftovers;
  a->num_leftovers = c->num_leftovers;
  c->findings = NULL;
  c->num_findings = c->cap_findings = 0;
  c->leftovers = NULL;
  c->num_leftovers = 0;
  t->directives = NULL;
}

int omplens_detect__finish(omplens_detect__ctx *c, omplens_analysis *a) {
  totals t = {0};
  omplens_program_total *p = &a->total;
  omplens_detect__map_free(&c->groups);
  int rc = place_instances(c, a);
  if (rc == 0)
    rc = add_savings(c, &t, p);
  if (rc == 0)
    rc = add_events(c, &t, p);
  if (rc == 0) {
    p->run_ns = c->run_ns;
    p->speedup = speedup(p->run_ns, p->savings_ns);
    move_results(c, &t, a);
  }
  omplens_detect__map_free(&t.by_codeptr);
  omplens_detect__free(t.removed);
  omplens_detect__free(t.directives);
  return rc;
}
