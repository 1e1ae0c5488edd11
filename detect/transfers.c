/* Transfer detectors: held content (duplicates, round trips,
 * re-initializations) and unused transfers. Definitions: docs/detectors.md.
 * The scan hands each H2D and D2H with bytes to both, in time order; their
 * maps are in c->scan. */
#include "detect_internal.h"

static int is_hashed(const omplens_event *e) {
  return (e->flags & OMPLENS_EVF_HASHED) != 0;
}

/* ---- Held content -----------------------------------------------------
 * Duplicates, round trips and re-initializations are one model: what each
 * side holds. A copy is a side's (a device's, or the host's) view of one
 * host buffer, keyed (side, host_addr, bytes); it holds the content the
 * trace last showed in it, received into it or sent out of it, and whether
 * its side produced that content there (pending until it comes back). A
 * content record, keyed (side, hash, bytes), exists while a copy holds it:
 * it counts its holders and pending holders and keeps the side's latest
 * production of it. Records keep their keys, so that no earlier event is
 * read again. */

static int is_h2d(const omplens_event *e) { return e->kind == OMPLENS_EV_H2D; }

static int16_t receiver_of(const omplens_event *e) {
  return is_h2d(e) ? e->device : (int16_t)OMPLENS_HOST;
}

static int16_t sender_of(const omplens_event *e) {
  return is_h2d(e) ? (int16_t)OMPLENS_HOST : e->device;
}

typedef struct side_key {
  uint64_t a, bytes; /* host_addr of a copy, or hash of a content */
  int16_t side;
} side_key;

static uint64_t side_hash(const side_key *k) {
  uint64_t h = omplens_detect__mix((uint64_t)(uint16_t)k->side);
  return omplens_detect__hash_add(omplens_detect__hash_add(h, k->a), k->bytes);
}

static int copy_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__copy *cp =
      &((const omplens_detect__ctx *)ctx)->scan.copies[stored];
  const side_key *k = key;
  return cp->side == k->side && cp->host_addr == k->a && cp->bytes == k->bytes;
}

/* A device's past contents stay in content_of after their record goes:
 * the slot then holds SEEN | the transfer since which a copy last held it
 * (a device's transfer of that content, which gives the key), so that a
 * re-initialization is found by the lookup every receipt makes anyway. */
#define SEEN 0x80000000u

static int content_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__ctx *c = ctx;
  const side_key *k = key;
  if (stored & SEEN) {
    const omplens_event *a = &c->ev[stored & ~SEEN];
    return a->device == k->side && a->hash == k->a && a->bytes == k->bytes;
  }
  const omplens_detect__content *ct = &c->scan.contents[stored];
  return ct->side == k->side && ct->hash == k->a && ct->bytes == k->bytes;
}

/* The copy of side k (k.a = host_addr), created empty when new. */
static int copy_of(omplens_detect__ctx *c, const side_key *k, uint32_t *id) {
  omplens_detect__scan *s = &c->scan;
  size_t at;
  int rc = omplens_detect__reserve(&s->copies, &s->cap_copies,
                                   s->num_copies + 1, sizeof *s->copies);
  if (rc < 0)
    return rc;
  rc = omplens_detect__map_insert(&s->copy_of, side_hash(k),
                                  (uint32_t)s->num_copies, copy_eq, c, k, &at);
  if (rc < 0)
    return rc;
  if (rc == 1)
    s->copies[s->num_copies++] = (omplens_detect__copy){
        .host_addr = k->a, .bytes = k->bytes,
        .content = OMPLENS_DETECT__NONE, .since = OMPLENS_DETECT__NONE,
        .side = k->side};
  *id = omplens_detect__map_value(&s->copy_of, at);
  return 0;
}

/* A record no copy holds is taken from the map and its slot reused, so
 * that records grow with the buffers, not with the contents; freed records
 * chain through their sent field. */
static uint32_t new_content(omplens_detect__scan *s) {
  uint32_t id = s->free_content;
  if (id != OMPLENS_DETECT__NONE)
    s->free_content = s->contents[id].sent;
  else
    id = (uint32_t)s->num_contents++;
  return id;
}

/* The content record of side k (k.a = hash), created when no copy holds
 * it; *seen then says since when a copy of that device last held it
 * (NONE: never, or a copy holds it now). */
static int content_of(omplens_detect__ctx *c, const side_key *k, uint32_t *id,
                      uint32_t *seen) {
  omplens_detect__scan *s = &c->scan;
  size_t at;
  int rc = omplens_detect__reserve(&s->contents, &s->cap_contents,
                                   s->num_contents + 1, sizeof *s->contents);
  if (rc < 0)
    return rc;
  uint32_t next = s->free_content != OMPLENS_DETECT__NONE
                      ? s->free_content : (uint32_t)s->num_contents;
  rc = omplens_detect__map_insert(&s->content_of, side_hash(k), next,
                                  content_eq, c, k, &at);
  if (rc < 0)
    return rc;
  uint32_t value = omplens_detect__map_value(&s->content_of, at);
  *seen = rc == 0 && (value & SEEN) ? value & ~SEEN : OMPLENS_DETECT__NONE;
  if (rc == 1 || *seen != OMPLENS_DETECT__NONE) {
    value = new_content(s);
    omplens_detect__map_set(&s->content_of, at, value);
    s->contents[value] = (omplens_detect__content){
        .hash = k->a, .bytes = k->bytes, .since = OMPLENS_DETECT__NONE,
        .sent = OMPLENS_DETECT__NONE, .side = k->side};
  }
  *id = value;
  return 0;
}

/* The last copy of record id let it go: its slot goes, or on a device
 * (events numbered below SEEN) it remembers the content as seen. */
static void retire(omplens_detect__ctx *c, uint32_t id) {
  omplens_detect__scan *s = &c->scan;
  omplens_detect__content *x = &s->contents[id];
  side_key k = {x->hash, x->bytes, x->side};
  size_t at = omplens_detect__map_find(&s->content_of, side_hash(&k), content_eq,
                                       c, &k);
  if (k.side != OMPLENS_HOST && x->since < SEEN)
    omplens_detect__map_set(&s->content_of, at, SEEN | x->since);
  else
    omplens_detect__map_remove(&s->content_of, at);
  x->sent = s->free_content;
  s->free_content = id;
}

/* Copy cp's production is pending no more (it came back, or went). */
static void returned(omplens_detect__scan *s, uint32_t cp) {
  omplens_detect__copy *k = &s->copies[cp];
  if (k->pending && k->content != OMPLENS_DETECT__NONE)
    s->contents[k->content].pending_holders--;
  k->pending = 0;
}

/* Copy cp now holds content (NONE: unknown), as transfer i showed; produced:
 * its side sent it out of cp, where it was not before. What cp held before
 * loses a holder, and a production of it can no longer come back. */
static int hold(omplens_detect__ctx *c, uint32_t cp, uint32_t content,
                uint32_t i, int produced) {
  omplens_detect__scan *s = &c->scan;
  omplens_detect__copy *k = &s->copies[cp];
  uint32_t old = k->content;
  if (old == content)
    return 0;
  returned(s, cp);
  if (content != OMPLENS_DETECT__NONE) {
    omplens_detect__content *x = &s->contents[content];
    if (x->holders++ == 0)
      x->since = i;
    if (produced) {
      x->pending_holders++;
      x->sent = i;
      x->crossed = 0;
    }
  }
  k->content = content;
  k->hash = content != OMPLENS_DETECT__NONE ? s->contents[content].hash : 0;
  if (!k->held && content != OMPLENS_DETECT__NONE) {
    k->held = 1;
    k->first_hash = k->hash;
  }
  k->since = i;
  k->pending = (uint8_t)(produced && content != OMPLENS_DETECT__NONE);
  if (old != OMPLENS_DETECT__NONE && --s->contents[old].holders == 0)
    retire(c, old);
  return 0;
}

/* Does the copy hold what transfer e carries? (Same copy: same size.) */
static int holds(const omplens_detect__copy *k, const omplens_event *e) {
  return k->content != OMPLENS_DETECT__NONE && is_hashed(e) && k->hash == e->hash;
}

/* The sender's copy shows what transfer i carried out of it. Content it
 * did not hold before was produced there: the sender holds it as sent. */
static int on_sent(omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  omplens_detect__scan *s = &c->scan;
  side_key k = {e->host_addr, e->bytes, sender_of(e)};
  uint32_t cp, ct = OMPLENS_DETECT__NONE, seen;
  int rc = copy_of(c, &k, &cp);
  if (rc < 0)
    return rc;
  if (holds(&s->copies[cp], e))
    return 0; /* unchanged */
  if (is_hashed(e)) {
    k.a = e->hash;
    rc = content_of(c, &k, &ct, &seen);
    if (rc < 0)
      return rc;
  }
  return hold(c, cp, ct, i, 1);
}

/* Zeros look alike whatever wrote them: an array the host zero-fills is no
 * device result coming back. The hash of n zero bytes costs a pass over n
 * bytes: it is cached per size (programs use few sizes). */
static int is_zeros(omplens_detect__ctx *c, const omplens_event *e) {
  omplens_detect__zeros *z =
      &c->scan.zeros[omplens_detect__mix(e->bytes) % OMPLENS_DETECT__ZERO_SIZES];
  if (z->bytes != e->bytes) {
    z->bytes = e->bytes;
    z->hash = omplens_content_hash_of_zeros(e->bytes);
  }
  return e->hash == z->hash;
}

/* One value, as a flag, a counter or a constant is: two variables that
 * hold the same one say nothing about where either came from. */
#define SCALAR_BYTES 8

/* What receiving content ct into copy cp is, given what the receiver
 * holds (seen: since when it last held it, for a content no copy holds);
 * *related receives the event that makes it wasteful. Only a device takes
 * back its own result through another buffer (the host copied it), and
 * not zeros nor a single value. A receiver that gets into one buffer what
 * it holds in another has a duplicate, but for a single value (two
 * scalars that happen to be equal, two pointers the runtime attaches to
 * one device address): that is no data sent twice. Zeros and single
 * values are set back (re-initialized) only in a buffer that held them:
 * the last to, or one whose first content they were (two reductions'
 * start values, both 0: each is its own reset, whichever went first). */
static int judge_receipt(omplens_detect__ctx *c, const omplens_event *e, uint32_t cp,
                         uint32_t ct, uint32_t seen, uint32_t *related) {
  const omplens_detect__scan *s = &c->scan;
  const omplens_detect__copy *k = &s->copies[cp];
  const omplens_detect__content *x = &s->contents[ct];
  if (k->content == ct) {
    *related = k->since; /* for a round trip: the production */
    return k->pending ? OMPLENS_CAT_ROUND_TRIP
                      : OMPLENS_CAT_DUPLICATE_SAME_BUFFER;
  }
  if (x->holders > 0 && is_h2d(e) && x->pending_holders > 0 && !x->crossed &&
      e->bytes > SCALAR_BYTES && !is_zeros(c, e)) {
    *related = x->sent;
    return OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER;
  }
  if (x->holders > 0) {
    *related = x->since;
    if (e->bytes > SCALAR_BYTES)
      return OMPLENS_CAT_DUPLICATE_OTHER_BUFFER;
    /* a single value another buffer holds too: a reset of this one's own */
    return is_h2d(e) && k->held && k->first_hash == e->hash ? OMPLENS_CAT_REINIT : -1;
  }
  /* zeros and single values are set back only where they were (this
   * buffer last held them, or held them first): another buffer that held
   * the same one is alike by chance (a new variable's `mass = 0` after
   * another's) */
  if (seen != OMPLENS_DETECT__NONE &&
      (c->ev[seen].host_addr == e->host_addr || (k->held && k->first_hash == e->hash) ||
       (e->bytes > SCALAR_BYTES && !is_zeros(c, e)))) {
    *related = seen;
    return OMPLENS_CAT_REINIT;
  }
  return -1;
}

/* The receiver's copy now holds what transfer i brought, which is wasteful
 * when the receiver held it already or held it before. */
static int on_received(omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  omplens_detect__scan *s = &c->scan;
  side_key k = {e->host_addr, e->bytes, receiver_of(e)};
  uint32_t cp, ct = OMPLENS_DETECT__NONE, related = OMPLENS_DETECT__NONE;
  int category = -1, rc = copy_of(c, &k, &cp);
  if (rc < 0)
    return rc;
  if (holds(&s->copies[cp], e)) { /* the common duplicate: no lookup */
    ct = s->copies[cp].content;
    category = judge_receipt(c, e, cp, ct, OMPLENS_DETECT__NONE, &related);
  } else if (is_hashed(e)) {
    uint32_t seen;
    k.a = e->hash;
    rc = content_of(c, &k, &ct, &seen);
    if (rc < 0)
      return rc;
    /* Held once and changed since: the host resets what the device
     * changed. The reverse (the device sends again what the host changed)
     * is the host asking for the result anew: only H2D copies qualify. */
    category = judge_receipt(c, e, cp, ct, is_h2d(e) ? seen : OMPLENS_DETECT__NONE,
                             &related);
  }
  /* A trip returns its production: once. */
  if (category == OMPLENS_CAT_ROUND_TRIP)
    returned(s, cp);
  if (category == OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER)
    s->contents[ct].crossed = 1;
  rc = hold(c, cp, ct, i, 0);
  if (rc < 0 || category < 0)
    return rc;
  return omplens_detect__emit(c, category, i, related, omplens_detect__dur(e));
}

/* ---- Unused transfers --------------------------------------------------
 * One target per device buffer (device, dev_addr), with its latest H2D and
 * the kernel that would read it. */

static int target_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__ctx *c = ctx;
  const omplens_detect__target *t = &c->scan.targets[stored];
  const omplens_event *k = key;
  return t->device == k->device && t->dev_addr == k->dev_addr;
}

static uint64_t target_hash(const omplens_event *e) {
  return omplens_detect__hash_add(omplens_detect__mix((uint64_t)e->device),
                                  e->dev_addr);
}

static int same_content(const omplens_detect__target *t,
                        const omplens_event *e) {
  return t->hashed && is_hashed(e) && t->hash == e->hash &&
         t->bytes == e->bytes;
}

static int on_h2d(omplens_detect__ctx *c, uint32_t i) {
  omplens_detect__scan *s = &c->scan;
  const omplens_event *e = &c->ev[i];
  /* The next kernel on the device after the copy completes. */
  uint64_t reader =
      omplens_detect__kernel_after(&c->kernels, e->device, e->end_ns);
  /* No kernel reads it, unless one the trace did not see did. */
  if (reader == UINT64_MAX && !omplens_detect__unseen_between(c, e->begin_ns, UINT64_MAX))
    omplens_detect__set_bit(c->unused, i);
  size_t at;
  uint32_t id = (uint32_t)s->num_targets;
  int rc = omplens_detect__reserve(&s->targets, &s->cap_targets,
                                   s->num_targets + 1, sizeof *s->targets);
  if (rc < 0)
    return rc;
  rc = omplens_detect__map_insert(&s->target_of, target_hash(e), id,
                                  target_eq, c, e, &at);
  if (rc < 0)
    return rc;
  if (rc == 1)
    s->num_targets++;
  omplens_detect__target *t =
      &s->targets[omplens_detect__map_value(&s->target_of, at)];
  /* Overwritten with other content before any kernel could read it. The
   * same content again leaves the first copy to be read: the second is
   * the waste, and the content detectors name it. A shorter copy from the
   * same address overwrites only the start: the kernel reads the rest.
   * A kernel the trace did not see in between may have read it. */
  if (rc == 0 && t->reader > e->begin_ns && e->bytes >= t->bytes && !same_content(t, e) &&
      !omplens_detect__unseen_between(c, c->ev[t->h2d].begin_ns, e->begin_ns))
    omplens_detect__set_bit(c->unused, t->h2d);
  *t = (omplens_detect__target){e->dev_addr, reader,     e->hash,
                                e->bytes,    i,          e->device,
                                (uint8_t)is_hashed(e)};
  return 0;
}

/* Emitted after the scan, once later copies could overwrite them, so that
 * the category stays in time order. A copy that a content category holds
 * already (c->removed) stays there: one category per operation. */
int omplens_detect__unused_transfers(omplens_detect__ctx *c) {
  int rc = 0;
  for (size_t w = 0; w < ((size_t)c->n + 63) / 64 && rc == 0; w++) {
    for (uint64_t bits = c->unused[w] & ~c->removed[w]; bits && rc == 0;
         bits &= bits - 1) {
      uint32_t i = (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(bits);
      rc = omplens_detect__emit(c, OMPLENS_CAT_UNUSED_TRANSFER, i,
                                OMPLENS_DETECT__NONE,
                                omplens_detect__dur(&c->ev[i]));
    }
  }
  return rc;
}

/* ---- The scan's entry ---------------------------------------------------- */

/* The copy and content maps outgrow the cache and their lookups are
 * random: asking for a transfer's slots some events before its turn hides
 * the wait. */
void omplens_detect__look_ahead(const omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  if ((e->kind != OMPLENS_EV_H2D && e->kind != OMPLENS_EV_D2H) || !e->bytes)
    return;
  side_key sent = {e->host_addr, e->bytes, sender_of(e)};
  side_key received = {e->host_addr, e->bytes, receiver_of(e)};
  omplens_detect__map_prefetch(&c->scan.copy_of, side_hash(&sent));
  omplens_detect__map_prefetch(&c->scan.copy_of, side_hash(&received));
  if (is_hashed(e)) {
    received.a = sent.a = e->hash;
    omplens_detect__map_prefetch(&c->scan.content_of, side_hash(&received));
    omplens_detect__map_prefetch(&c->scan.content_of, side_hash(&sent));
  }
}

/* An H2D or D2H with bytes: it shows what the sender's copy held, then
 * what the receiver's copy holds. */
int omplens_detect__on_content(omplens_detect__ctx *c, uint32_t i) {
  int rc = on_sent(c, i);
  return rc < 0 ? rc : on_received(c, i);
}

/* An H2D with bytes: a copy a kernel should read. */
int omplens_detect__on_target(omplens_detect__ctx *c, uint32_t i) {
  return c->ev[i].kind == OMPLENS_EV_H2D ? on_h2d(c, i) : 0;
}

void omplens_detect__forget_contents(omplens_detect__scan *s) {
  omplens_detect__map_free(&s->copy_of);
  omplens_detect__free(s->copies);
  omplens_detect__map_free(&s->content_of);
  omplens_detect__free(s->contents);
  s->copies = NULL;
  s->contents = NULL;
  s->num_copies = s->cap_copies = s->num_contents = s->cap_contents = 0;
  s->free_content = OMPLENS_DETECT__NONE;
}

void omplens_detect__scan_free(omplens_detect__scan *s) {
  omplens_detect__map_free(&s->live);
  omplens_detect__map_free(&s->buffer_of);
  omplens_detect__free(s->buffers);
  omplens_detect__map_free(&s->copy_of);
  omplens_detect__free(s->copies);
  omplens_detect__map_free(&s->content_of);
  omplens_detect__free(s->contents);
  omplens_detect__map_free(&s->target_of);
  omplens_detect__free(s->targets);
  *s = (omplens_detect__scan){0};
}
