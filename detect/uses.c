/* Kernel use of allocations: which live allocations each kernel was given,
 * read from the map arguments of its construct. Definitions:
 * docs/detectors.md, "Unused allocation". */
#include <string.h>

#include "detect_internal.h"

/* ---- Spans ----------------------------------------------------------------
 * Sorted by (device, lo, ord). The held allocations of one device do not
 * overlap (a mapping of memory already mapped allocates nothing), and the
 * anchors and escapes are points; so every span that meets [lo, hi) is
 * the one before the first that begins at lo or later, or one of those
 * that begin before hi. */

static int span_before(const omplens_detect__span *s, int16_t device, uint64_t lo,
                       uint32_t ord) {
  if (s->device != device)
    return s->device < device;
  if (s->lo != lo)
    return s->lo < lo;
  return s->ord < ord;
}

/* The first span not before (device, lo, ord). */
static size_t span_lower(const omplens_detect__span *s, size_t n, int16_t device, uint64_t lo,
                         uint32_t ord) {
  size_t a = 0, b = n;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (span_before(&s[mid], device, lo, ord))
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

static int span_insert(omplens_detect__span **s, size_t *n, size_t *cap,
                       omplens_detect__span add) {
  int rc = omplens_detect__reserve(s, cap, *n + 1, sizeof **s);
  if (rc < 0)
    return rc;
  size_t at = span_lower(*s, *n, add.device, add.lo, add.ord);
  memmove(*s + at + 1, *s + at, (*n - at) * sizeof **s);
  (*s)[at] = add;
  (*n)++;
  return 0;
}

static void span_remove(omplens_detect__span *s, size_t *n, int16_t device, uint64_t lo,
                        uint32_t ord) {
  size_t at = span_lower(s, *n, device, lo, ord);
  if (at < *n && s[at].device == device && s[at].lo == lo && s[at].ord == ord) {
    memmove(s + at, s + at + 1, (*n - at - 1) * sizeof *s);
    (*n)--;
  }
}

/* Calls mark for every span of device that meets [lo, hi); returns whether
 * one did. */
static int span_meet(const omplens_detect__span *s, size_t n, int16_t device, uint64_t lo,
                     uint64_t hi, uint64_t *bits) {
  size_t at = span_lower(s, n, device, lo, 0);
  int met = 0;
  if (at > 0 && s[at - 1].device == device && s[at - 1].hi > lo) {
    met = 1;
    if (bits)
      omplens_detect__set_bit(bits, s[at - 1].ord);
  }
  for (; at < n && s[at].device == device && s[at].lo < hi; at++) {
    met = 1;
    if (bits)
      omplens_detect__set_bit(bits, s[at].ord);
  }
  return met;
}

/* ---- Arguments ---------------------------------------------------------- */

/* Whether the trace holds every map argument of region r: its entry call
 * was seen (it has a location) and none of its arguments was cut off. */
static int args_known(const omplens_detect__ctx *c, const omplens_region *r) {
  return r->source && r->num_args < OMPLENS_MAX_CALL_ARGS && r->first_arg <= c->num_args &&
         r->num_args <= c->num_args - r->first_arg;
}

/* The region of event e when the trace holds its map arguments, else NULL. */
static const omplens_region *known_region(const omplens_detect__ctx *c,
                                          const omplens_event *e) {
  if (!c->regions || e->region >= c->num_regions)
    return NULL;
  const omplens_region *r = &c->regions[e->region];
  return args_known(c, r) ? r : NULL;
}

/* An address passed as a value: `is_device_ptr`, a device address from
 * omp_get_mapped_ptr or use_device_ptr, which the trace does not keep
 * (an explicit literal the size of a pointer; an implicit one is a
 * firstprivate scalar of the body). */
static bool address_value(const omplens_map_arg *a) {
  return (a->type & OMPLENS_MAPBIT_LITERAL) && !(a->type & OMPLENS_MAPBIT_IMPLICIT) &&
         a->size == sizeof(void *);
}

int omplens_detect__kernel_blind(const omplens_detect__ctx *c, const omplens_event *e) {
  const omplens_region *r = known_region(c, e);
  if (!r || r->kind != OMPLENS_CONSTRUCT_TARGET)
    return 1;
  for (uint32_t k = 0; k < r->num_args; k++)
    if (address_value(&c->args[r->first_arg + k]))
      return 1;
  return 0;
}

/* The host addresses whose device address the program asked for
 * (use_device_ptr, use_device_addr: a RETURN_PARAM argument): a kernel may
 * be given that address as a value, which the trace does not keep. */
static int list_escapes(omplens_detect__ctx *c) {
  omplens_detect__uses *u = &c->uses;
  size_t cap = 0;
  for (size_t i = 0; i < c->num_regions; i++) {
    const omplens_region *r = &c->regions[i];
    for (uint32_t k = 0; args_known(c, r) && k < r->num_args; k++) {
      const omplens_map_arg *a = &c->args[r->first_arg + k];
      if (!(a->type & OMPLENS_MAPBIT_RETURN_PARAM) || (a->type & OMPLENS_MAPBIT_LITERAL))
        continue;
      omplens_detect__span s = {a->begin, a->begin + 1, 0, r->device};
      int rc = span_insert(&u->escaped, &u->num_escaped, &cap, s);
      if (rc < 0)
        return rc;
    }
  }
  return 0;
}

int omplens_detect__uses_prepare(omplens_detect__ctx *c) {
  omplens_detect__uses *u = &c->uses;
  u->judged = omplens_detect__bitmap(c->max_allocs);
  u->given = omplens_detect__bitmap(c->max_allocs);
  u->reached = omplens_detect__bitmap(c->max_allocs);
  if (!u->judged || !u->given || !u->reached)
    return OMPLENS_DETECT_ENOMEM;
  for (size_t k = 0; k < OMPLENS_DETECT__SEEN_LISTS; k++)
    u->seen[k].epoch = UINT64_MAX;
  return c->regions && c->args ? list_escapes(c) : 0;
}

void omplens_detect__uses_free(omplens_detect__uses *u) {
  omplens_detect__free(u->held);
  omplens_detect__free(u->anchors);
  omplens_detect__free(u->escaped);
  omplens_detect__free(u->judged);
  omplens_detect__free(u->given);
  omplens_detect__free(u->reached);
  omplens_detect__free(u->stack);
  *u = (omplens_detect__uses){0};
}

/* ---- The scan ------------------------------------------------------------ */

/* The argument of e's construct that made allocation e: the one that is
 * its buffer, or else one whose buffer holds it. NULL when there is none:
 * the runtime made it from something the arguments do not show (a
 * mapper's members), which the kernels' arguments cannot show either. */
static const omplens_map_arg *item_of(const omplens_detect__ctx *c, const omplens_event *e) {
  const omplens_region *r = known_region(c, e);
  uint32_t k = r ? omplens_detect__arg_place(c, r, e->host_addr, e->bytes) : UINT32_MAX;
  if (k != UINT32_MAX)
    return &c->args[r->first_arg + k];
  for (k = 0; r && k < r->num_args; k++)
    if (omplens_map_arg_holds(&c->args[r->first_arg + k], e->host_addr))
      return &c->args[r->first_arg + k];
  return NULL;
}

/* Whether the construct of allocation event i wrote a pointer into device
 * memory (the runtime's 8-byte copy from its own storage, no map item's
 * buffer, after the section's copy): the pointer lives there, where no
 * kernel argument shows it (a declare target pointer). A pointer that
 * lives in no mapped memory (a global that is not declare target) gets no
 * such copy, and a kernel takes the section by an argument. Unknown (the
 * construct's end not recorded, or too many events to look at): true. */
static int writes_pointer(const omplens_detect__ctx *c, uint32_t i) {
  enum { LOOK = 4096 };
  const omplens_event *e = &c->ev[i];
  const omplens_region *r = &c->regions[e->region];
  if (r->end_ns <= r->begin_ns)
    return 1;
  for (uint32_t j = i + 1; j < c->n && c->ev[j].begin_ns <= r->end_ns; j++) {
    const omplens_event *w = &c->ev[j];
    if (j - i > LOOK)
      return 1;
    if (w->region != e->region || w->kind != OMPLENS_EV_H2D || w->bytes != sizeof(void *))
      continue;
    if (omplens_detect__arg_place(c, r, w->host_addr, w->bytes) == UINT32_MAX)
      return 1; /* no map item's buffer */
  }
  return 0;
}

/* Whether allocation e is the runtime's device copy of a pointer that a
 * section of its construct is attached through (a global pointer's:
 * `g[0:n]`): no map item's buffer, but where that section hangs. */
static int pointer_storage(const omplens_detect__ctx *c, const omplens_event *e) {
  const omplens_region *r = known_region(c, e);
  for (uint32_t k = 0; r && e->bytes == sizeof(void *) && k < r->num_args; k++) {
    const omplens_map_arg *a = &c->args[r->first_arg + k];
    if ((a->type & OMPLENS_MAPBIT_PTR_AND_OBJ) && a->base == e->host_addr && a->base != a->begin)
      return 1;
  }
  return 0;
}

/* Adds allocation ord (event e) to the held ones (a change of the held
 * ones, and of the anchors added with it). */
static int hold(omplens_detect__uses *u, const omplens_event *e, uint32_t ord) {
  /* A stale span at the same address lost its delete: it goes. */
  size_t at = span_lower(u->held, u->num_held, e->device, e->host_addr, 0);
  if (at < u->num_held && u->held[at].device == e->device && u->held[at].lo == e->host_addr)
    span_remove(u->held, &u->num_held, e->device, e->host_addr, u->held[at].ord);
  omplens_detect__span s = {e->host_addr, e->host_addr + (e->bytes ? e->bytes : 1), ord,
                            e->device};
  u->epoch++;
  return span_insert(&u->held, &u->num_held, &u->cap_held, s);
}

int omplens_detect__uses_alloc(omplens_detect__ctx *c, uint32_t ord) {
  omplens_detect__uses *u = &c->uses;
  const omplens_event *e = &c->ev[c->alloc_event[ord]];
  const omplens_map_arg *a = e->host_addr ? item_of(c, e) : NULL;
  if (!a && e->host_addr && pointer_storage(c, e)) {
    /* held, so that its section hangs off it; itself never judged: a
     * kernel takes the section, not the pointer's copy */
    omplens_detect__set_bit(u->judged, ord);
    omplens_detect__set_bit(u->given, ord);
    return hold(u, e, ord);
  }
  if (!a)
    return 0; /* judged by the kernels that ran, not by their arguments */
  uint64_t pointer = a->base;
  int attached = (a->type & OMPLENS_MAPBIT_PTR_AND_OBJ) && pointer != a->begin;
  /* Attached through a pointer in no memory the trace shows mapped: a
   * declare target pointer's section, which kernels use with no argument,
   * is not judged; a plain global's is, by the kernels' arguments alone. */
  if (attached && !span_meet(u->held, u->num_held, e->device, pointer, pointer + 1, NULL)) {
    if (writes_pointer(c, c->alloc_event[ord]))
      return 0;
    attached = 0;
  }
  int rc = hold(u, e, ord);
  if (rc == 0 && attached)
    rc = span_insert(&u->anchors, &u->num_anchors, &u->cap_anchors,
                     (omplens_detect__span){pointer, pointer + 1, ord, e->device});
  if (rc == 0)
    omplens_detect__set_bit(u->judged, ord);
  return rc;
}

void omplens_detect__uses_delete(omplens_detect__ctx *c, uint32_t ord) {
  omplens_detect__uses *u = &c->uses;
  if (!omplens_detect__bit(u->judged, ord))
    return;
  const omplens_event *e = &c->ev[c->alloc_event[ord]];
  span_remove(u->held, &u->num_held, e->device, e->host_addr, ord);
  for (size_t k = 0; k < u->num_anchors; k++) /* few: pointers attached now */
    if (u->anchors[k].ord == ord) {
      span_remove(u->anchors, &u->num_anchors, u->anchors[k].device, u->anchors[k].lo, ord);
      break;
    }
  u->epoch++;
}

/* Marks ord reached by the kernel being given its arguments, and keeps it
 * to be opened; false when it was already. */
static int mark_reached(omplens_detect__uses *u, uint32_t ord, int *rc) {
  if (omplens_detect__bit(u->reached, ord))
    return 0;
  *rc = omplens_detect__reserve(&u->stack, &u->cap_stack, u->num_reached + 1, sizeof *u->stack);
  if (*rc < 0)
    return 0;
  omplens_detect__set_bit(u->reached, ord);
  u->stack[u->num_reached++] = ord;
  return 1;
}

/* A kernel that reaches allocation ord through a pointer reaches all of
 * it, and what is attached through the pointers inside it, and so on
 * (nested structs, rows of a jagged array). Within one kernel each
 * allocation is opened once: stack holds those it reached, in order,
 * next the first not opened yet. */
static int reach(const omplens_detect__ctx *c, omplens_detect__uses *u, uint32_t ord) {
  int rc = 0;
  size_t next = u->num_reached;
  if (!mark_reached(u, ord, &rc))
    return rc;
  while (next < u->num_reached && rc == 0) {
    uint32_t open = u->stack[next++];
    const omplens_event *a = &c->ev[c->alloc_event[open]];
    omplens_detect__set_bit(u->given, open);
    uint64_t hi = a->host_addr + (a->bytes ? a->bytes : 1);
    size_t at = span_lower(u->anchors, u->num_anchors, a->device, a->host_addr, 0);
    for (; rc == 0 && at < u->num_anchors && u->anchors[at].device == a->device &&
           u->anchors[at].lo < hi;
         at++)
      mark_reached(u, u->anchors[at].ord, &rc);
  }
  return rc;
}

/* Reaches every allocation attached through a pointer in [lo, hi). */
static int reach_attached(const omplens_detect__ctx *c, omplens_detect__uses *u, int16_t device,
                          uint64_t lo, uint64_t hi) {
  size_t at = span_lower(u->anchors, u->num_anchors, device, lo, 0);
  int rc = 0;
  for (; rc == 0 && at < u->num_anchors && u->anchors[at].device == device &&
         u->anchors[at].lo < hi;
       at++)
    rc = reach(c, u, u->anchors[at].ord);
  return rc;
}

/* The held allocation on device holding addr, or NONE. */
static uint32_t holder(const omplens_detect__uses *u, int16_t device, uint64_t addr) {
  size_t at = span_lower(u->held, u->num_held, device, addr, UINT32_MAX);
  if (at > 0 && u->held[at - 1].device == device && u->held[at - 1].lo <= addr &&
      u->held[at - 1].hi > addr)
    return u->held[at - 1].ord;
  return OMPLENS_DETECT__NONE;
}

/* What the kernel's arguments give it: the bytes of a buffer argument,
 * and through the pointers in those bytes what is attached there; a
 * zero-length section (a pointer the body uses, which attaches to what is
 * mapped) the whole allocation it points into, with all it reaches; where
 * the argument's base is elsewhere (the place of an attached pointer),
 * what that pointer reaches. Literals carry no address. */
static int give(const omplens_detect__ctx *c, omplens_detect__uses *u, int16_t device,
                const omplens_map_arg *a) {
  if (a->type & OMPLENS_MAPBIT_LITERAL)
    return 0;
  int rc = 0;
  if (!a->size) {
    uint32_t ord = holder(u, device, a->begin);
    rc = ord == OMPLENS_DETECT__NONE ? 0 : reach(c, u, ord);
  } else {
    uint64_t hi = a->begin + a->size < a->begin ? UINT64_MAX : a->begin + a->size;
    span_meet(u->held, u->num_held, device, a->begin, hi, u->given);
    rc = reach_attached(c, u, device, a->begin, hi);
  }
  if (rc == 0 && a->base != a->begin) {
    span_meet(u->held, u->num_held, device, a->base, a->base + 1, u->given);
    rc = reach_attached(c, u, device, a->base, a->base + 1);
  }
  return rc;
}

int omplens_detect__on_kernel(omplens_detect__ctx *c, uint32_t i) {
  omplens_detect__uses *u = &c->uses;
  const omplens_event *e = &c->ev[i];
  if (!u->num_held || e->device < 0)
    return 0;
  const omplens_region *r = known_region(c, e);
  if (!r)
    return 0; /* a blind kernel: its overlap decides (allocs.c) */
  /* A loop's launches pass one list: given again, it gives nothing new
   * while the held allocations stay the same. */
  size_t slot = (r->first_arg * 0x9e3779b9u >> 7) % OMPLENS_DETECT__SEEN_LISTS;
  if (u->seen[slot].epoch == u->epoch && u->seen[slot].first == r->first_arg &&
      u->seen[slot].n == r->num_args && u->seen[slot].device == e->device)
    return 0;
  u->seen[slot] = (omplens_detect__seen){r->first_arg, r->num_args, e->device, u->epoch};
  int rc = 0;
  for (uint32_t k = 0; k < r->num_args && rc == 0; k++)
    rc = give(c, u, e->device, &c->args[r->first_arg + k]);
  for (size_t k = 0; k < u->num_reached; k++) /* the next kernel walks anew */
    omplens_detect__clear_bit(u->reached, u->stack[k]);
  u->num_reached = 0;
  return rc;
}

/* ---- The judgement ------------------------------------------------------ */

int omplens_detect__passed_over(omplens_detect__ctx *c, uint32_t ord, uint64_t end) {
  omplens_detect__uses *u = &c->uses;
  const omplens_event *a = &c->ev[c->alloc_event[ord]];
  if (!omplens_detect__bit(u->judged, ord) || omplens_detect__bit(u->given, ord))
    return 0;
  uint64_t hi = a->host_addr + a->bytes < a->host_addr ? UINT64_MAX : a->host_addr + a->bytes;
  if (span_meet(u->escaped, u->num_escaped, a->device, a->host_addr, hi, NULL))
    return 0;
  return !omplens_detect__kernel_overlaps(&c->blind, a->device, a->begin_ns, end);
}
