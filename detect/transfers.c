/* Transfer detectors: duplicates, round trips and unused transfers.
 * Definitions: docs/detectors.md. The scan hands each H2D and D2H with
 * content to all three, in time order; their maps are in c->scan. */
#include "detect_internal.h"

static int is_hashed(const omplens_event *e) {
  return (e->flags & OMPLENS_EVF_HASHED) != 0;
}

/* ---- Duplicates --------------------------------------------------------
 * content: (receiver, hash, bytes) -> first transfer that brought it.
 * buffer: (receiver, hash, bytes, host_addr) -> first transfer of that
 * content from that buffer, kept only for buffers other than the first one,
 * so that the common case (no duplicates) costs a single map. */

static int receiver(const omplens_event *e) {
  return e->kind == OMPLENS_EV_H2D ? e->device : OMPLENS_HOST;
}

static int content_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_event *a = &((const omplens_event *)ctx)[stored];
  const omplens_event *k = key;
  return receiver(a) == receiver(k) && a->hash == k->hash &&
         a->bytes == k->bytes;
}

static int content_buffer_eq(const void *ctx, uint32_t stored,
                             const void *key) {
  const omplens_event *a = &((const omplens_event *)ctx)[stored];
  return content_eq(ctx, stored, key) &&
         a->host_addr == ((const omplens_event *)key)->host_addr;
}

static uint64_t content_hash(const omplens_event *e) {
  uint64_t h = omplens_detect__mix((uint64_t)(int64_t)receiver(e));
  return omplens_detect__hash_add(omplens_detect__hash_add(h, e->hash),
                                  e->bytes);
}

/* Content already received: from this buffer before, or from another. */
static int on_repeat(omplens_detect__ctx *c, uint32_t i, uint64_t h,
                     uint32_t first) {
  const omplens_event *e = &c->ev[i];
  uint64_t removal = omplens_detect__dur(e);
  if (c->ev[first].host_addr == e->host_addr)
    return omplens_detect__emit(c, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, i,
                                first, removal);
  omplens_detect__map *buffer = &c->scan.content_buffer;
  size_t at;
  int rc = omplens_detect__map_insert(buffer,
                                      omplens_detect__hash_add(h, e->host_addr),
                                      i, content_buffer_eq, c->ev, e, &at);
  if (rc < 0)
    return rc;
  if (rc == 0)
    return omplens_detect__emit(c, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, i,
                                omplens_detect__map_value(buffer, at),
                                removal);
  return omplens_detect__emit(c, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, i,
                              first, removal);
}

static int on_receipt(omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  uint64_t h = content_hash(e);
  size_t at;
  int rc = omplens_detect__map_insert(&c->scan.content, h, i, content_eq,
                                      c->ev, e, &at);
  if (rc != 0)
    return rc < 0 ? rc : 0;
  return on_repeat(c, i, h, omplens_detect__map_value(&c->scan.content, at));
}

/* ---- Round trips -------------------------------------------------------
 * One stream per buffer (device, host_addr, bytes). A stream is a sequence
 * of same-direction runs; the run's "opposite" is the last transfer of the
 * previous run, and clean says every transfer of the current run so far
 * carried the opposite's content. The stream keeps the content of its last
 * and opposite transfers, so that advancing it reads no earlier event. */

enum { STREAM_LAST_HASHED = 1, STREAM_OPPOSITE_HASHED = 2, STREAM_CLEAN = 4 };

static int stream_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_detect__ctx *c = ctx;
  const omplens_detect__stream *st = &c->scan.streams[stored];
  const omplens_event *k = key;
  return st->device == k->device && st->host_addr == k->host_addr &&
         st->bytes == k->bytes;
}

static uint64_t stream_hash(const omplens_event *e) {
  uint64_t h = omplens_detect__mix((uint64_t)e->device);
  return omplens_detect__hash_add(omplens_detect__hash_add(h, e->host_addr),
                                  e->bytes);
}

/* Does e carry the content of the stream's opposite? (Same stream: same
 * size.) */
static int carries_opposite(const omplens_detect__stream *st,
                            const omplens_event *e) {
  return (st->flags & STREAM_OPPOSITE_HASHED) && is_hashed(e) &&
         st->opposite_hash == e->hash;
}

/* Returns the start of the trip event i completes, or NONE. */
static uint32_t advance(omplens_detect__stream *st, const omplens_event *e,
                        uint32_t i) {
  int clean;
  if (st->last_kind != e->kind) {
    st->opposite = st->last;
    st->opposite_hash = st->last_hash;
    st->flags = (st->flags & STREAM_LAST_HASHED) ? STREAM_OPPOSITE_HASHED : 0;
    clean = carries_opposite(st, e);
  } else {
    clean = (st->flags & STREAM_CLEAN) && carries_opposite(st, e);
  }
  st->last = i;
  st->last_kind = e->kind;
  st->last_hash = e->hash;
  st->flags = (uint8_t)((st->flags & STREAM_OPPOSITE_HASHED) |
                        (is_hashed(e) ? STREAM_LAST_HASHED : 0) |
                        (clean ? STREAM_CLEAN : 0));
  return clean ? st->opposite : OMPLENS_DETECT__NONE;
}

static omplens_detect__stream new_stream(const omplens_event *e, uint32_t i) {
  return (omplens_detect__stream){
      .host_addr = e->host_addr, .bytes = e->bytes, .last_hash = e->hash,
      .last = i, .opposite = OMPLENS_DETECT__NONE, .device = e->device,
      .last_kind = e->kind, .flags = is_hashed(e) ? STREAM_LAST_HASHED : 0};
}

static int on_stream(omplens_detect__ctx *c, uint32_t i) {
  omplens_detect__scan *s = &c->scan;
  const omplens_event *e = &c->ev[i];
  size_t at;
  uint32_t id = (uint32_t)s->num_streams;
  int rc = omplens_detect__reserve(&s->streams, &s->cap_streams,
                                   s->num_streams + 1, sizeof *s->streams);
  if (rc < 0)
    return rc;
  rc = omplens_detect__map_insert(&s->stream_of, stream_hash(e), id,
                                  stream_eq, c, e, &at);
  if (rc < 0)
    return rc;
  if (rc == 1) {
    s->streams[s->num_streams++] = new_stream(e, i);
    return 0;
  }
  omplens_detect__stream *st =
      &s->streams[omplens_detect__map_value(&s->stream_of, at)];
  uint32_t start = advance(st, e, i);
  if (start == OMPLENS_DETECT__NONE)
    return 0;
  return omplens_detect__emit(c, OMPLENS_CAT_ROUND_TRIP, i, start,
                              omplens_detect__dur(e));
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

static int on_h2d(omplens_detect__ctx *c, uint32_t i) {
  omplens_detect__scan *s = &c->scan;
  const omplens_event *e = &c->ev[i];
  /* The next kernel on the device after the copy completes. */
  uint64_t reader =
      omplens_detect__kernel_after(&c->kernels, e->device, e->end_ns);
  if (reader == UINT64_MAX)
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
  /* Overwritten before any kernel could read it. */
  if (rc == 0 && t->reader > e->begin_ns)
    omplens_detect__set_bit(c->unused, t->h2d);
  *t = (omplens_detect__target){e->dev_addr, reader, i, e->device};
  return 0;
}

/* Emitted after the scan, once later copies could overwrite them, so that
 * the category stays in time order. */
int omplens_detect__unused_transfers(omplens_detect__ctx *c) {
  int rc = 0;
  for (size_t w = 0; w < ((size_t)c->n + 63) / 64 && rc == 0; w++) {
    for (uint64_t bits = c->unused[w]; bits && rc == 0; bits &= bits - 1) {
      uint32_t i = (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(bits);
      rc = omplens_detect__emit(c, OMPLENS_CAT_UNUSED_TRANSFER, i,
                                OMPLENS_DETECT__NONE,
                                omplens_detect__dur(&c->ev[i]));
    }
  }
  return rc;
}

/* ---- The scan's entry ---------------------------------------------------- */

/* The content and stream maps outgrow the cache and their lookups are
 * random: asking for a transfer's slots some events before its turn hides
 * the wait. */
void omplens_detect__look_ahead(const omplens_detect__ctx *c, uint32_t i) {
  const omplens_event *e = &c->ev[i];
  if ((e->kind != OMPLENS_EV_H2D && e->kind != OMPLENS_EV_D2H) || !e->bytes)
    return;
  if (is_hashed(e))
    omplens_detect__map_prefetch(&c->scan.content, content_hash(e));
  omplens_detect__map_prefetch(&c->scan.stream_of, stream_hash(e));
}

/* An H2D or D2H with bytes: a receipt and a step of its buffer's stream. */
int omplens_detect__on_content(omplens_detect__ctx *c, uint32_t i) {
  int rc = 0;
  if (is_hashed(&c->ev[i]))
    rc = on_receipt(c, i);
  return rc < 0 ? rc : on_stream(c, i);
}

/* An H2D with bytes: a copy a kernel should read. */
int omplens_detect__on_target(omplens_detect__ctx *c, uint32_t i) {
  return c->ev[i].kind == OMPLENS_EV_H2D ? on_h2d(c, i) : 0;
}

void omplens_detect__scan_free(omplens_detect__scan *s) {
  omplens_detect__map_free(&s->live);
  omplens_detect__map_free(&s->buffer_of);
  omplens_detect__free(s->buffers);
  omplens_detect__map_free(&s->content);
  omplens_detect__map_free(&s->content_buffer);
  omplens_detect__map_free(&s->stream_of);
  omplens_detect__free(s->streams);
  omplens_detect__map_free(&s->target_of);
  omplens_detect__free(s->targets);
  *s = (omplens_detect__scan){0};
}
