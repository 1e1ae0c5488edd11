/* Transfer detectors: duplicates, round trips and unused transfers.
 * Definitions: docs/detectors.md. Each detector is one pass in time order
 * with its own maps, freed before the next pass starts. */
#include "detect_internal.h"

static int is_hashed(const omplens_event *e) {
  return (e->flags & OMPLENS_EVF_HASHED) != 0;
}

/* H2D and D2H with content; zero-byte copies move nothing. */
static int is_host_transfer(const omplens_event *e) {
  return (e->kind == OMPLENS_EV_H2D || e->kind == OMPLENS_EV_D2H) &&
         e->bytes != 0;
}

static int same_content(const omplens_event *a, const omplens_event *b) {
  return is_hashed(a) && is_hashed(b) && a->hash == b->hash &&
         a->bytes == b->bytes;
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

typedef struct duplicate_state {
  omplens_detect__map content;
  omplens_detect__map buffer;
} duplicate_state;

/* Content already received: from this buffer before, or from another. */
static int on_repeat(omplens_detect__ctx *c, duplicate_state *s, uint32_t i,
                     uint64_t h, uint32_t first) {
  const omplens_event *e = &c->ev[i];
  if (c->ev[first].host_addr == e->host_addr)
    return omplens_detect__emit(c, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, i,
                                first);
  size_t at;
  int rc = omplens_detect__map_insert(&s->buffer,
                                      omplens_detect__hash_add(h, e->host_addr),
                                      i, content_buffer_eq, c->ev, e, &at);
  if (rc < 0)
    return rc;
  if (rc == 0)
    return omplens_detect__emit(c, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, i,
                                omplens_detect__map_value(&s->buffer, at));
  return omplens_detect__emit(c, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, i,
                              first);
}

static int on_receipt(omplens_detect__ctx *c, duplicate_state *s,
                      uint32_t i) {
  const omplens_event *e = &c->ev[i];
  uint64_t h = content_hash(e);
  size_t at;
  int rc = omplens_detect__map_insert(&s->content, h, i, content_eq, c->ev, e,
                                      &at);
  if (rc != 0)
    return rc < 0 ? rc : 0;
  return on_repeat(c, s, i, h, omplens_detect__map_value(&s->content, at));
}

int omplens_detect__duplicates(omplens_detect__ctx *c) {
  duplicate_state s = {{0}, {0}};
  int rc = 0;
  for (uint32_t i = 0; i < c->n && rc == 0; i++)
    if (is_host_transfer(&c->ev[i]) && is_hashed(&c->ev[i]))
      rc = on_receipt(c, &s, i);
  omplens_detect__map_free(&s.content);
  omplens_detect__map_free(&s.buffer);
  return rc;
}

/* ---- Round trips -------------------------------------------------------
 * One stream per buffer (device, host_addr, bytes). A stream is a sequence
 * of same-direction runs; the run's "opposite" is the last transfer of the
 * previous run, and clean says every transfer of the current run so far
 * carried the opposite's content. */

typedef struct stream {
  uint32_t last;     /* latest transfer on the buffer                 */
  uint32_t opposite; /* latest transfer in the other direction, or NONE */
  uint32_t clean;
} stream;

typedef struct trip_state {
  omplens_detect__map buffers; /* buffer key -> index into streams */
  stream *streams;
  size_t num_streams, cap_streams;
  const omplens_event *ev;
} trip_state;

static int stream_eq(const void *ctx, uint32_t stored, const void *key) {
  const trip_state *s = ctx;
  const omplens_event *a = &s->ev[s->streams[stored].last];
  const omplens_event *k = key;
  return a->device == k->device && a->host_addr == k->host_addr &&
         a->bytes == k->bytes;
}

static uint64_t stream_hash(const omplens_event *e) {
  uint64_t h = omplens_detect__mix((uint64_t)e->device);
  return omplens_detect__hash_add(omplens_detect__hash_add(h, e->host_addr),
                                  e->bytes);
}

/* Returns the start of the trip event i completes, or NONE. */
static uint32_t advance(const omplens_event *ev, stream *st, uint32_t i) {
  const omplens_event *e = &ev[i];
  if (ev[st->last].kind != e->kind) {
    st->opposite = st->last;
    st->clean = same_content(&ev[st->opposite], e);
  } else {
    st->clean = st->clean && same_content(&ev[st->opposite], e);
  }
  st->last = i;
  return st->clean ? st->opposite : OMPLENS_DETECT__NONE;
}

static int on_transfer(omplens_detect__ctx *c, trip_state *s, uint32_t i) {
  size_t at;
  uint32_t id = (uint32_t)s->num_streams;
  int rc = omplens_detect__reserve(&s->streams, &s->cap_streams,
                                   s->num_streams + 1, sizeof *s->streams);
  if (rc == 0)
    rc = omplens_detect__map_insert(&s->buffers, stream_hash(&c->ev[i]), id,
                                    stream_eq, s, &c->ev[i], &at);
  if (rc < 0)
    return rc;
  if (rc == 1) {
    s->streams[s->num_streams++] = (stream){i, OMPLENS_DETECT__NONE, 0};
    return 0;
  }
  stream *st = &s->streams[omplens_detect__map_value(&s->buffers, at)];
  uint32_t start = advance(c->ev, st, i);
  if (start == OMPLENS_DETECT__NONE)
    return 0;
  return omplens_detect__emit(c, OMPLENS_CAT_ROUND_TRIP, i, start);
}

int omplens_detect__round_trips(omplens_detect__ctx *c) {
  trip_state s = {.ev = c->ev};
  int rc = 0;
  for (uint32_t i = 0; i < c->n && rc == 0; i++)
    if (is_host_transfer(&c->ev[i]))
      rc = on_transfer(c, &s, i);
  omplens_detect__map_free(&s.buffers);
  omplens_detect__free(s.streams);
  return rc;
}

/* ---- Unused transfers --------------------------------------------------
 * Pending H2D per device buffer (device, dev_addr); value: latest H2D. */

static int target_eq(const void *ctx, uint32_t stored, const void *key) {
  const omplens_event *a = &((const omplens_event *)ctx)[stored];
  const omplens_event *k = key;
  return a->device == k->device && a->dev_addr == k->dev_addr;
}

static uint64_t target_hash(const omplens_event *e) {
  return omplens_detect__hash_add(omplens_detect__mix((uint64_t)e->device),
                                  e->dev_addr);
}

/* The next kernel on the device after the copy completes. */
static uint64_t consumer(const omplens_detect__ctx *c, uint32_t i) {
  return omplens_detect__kernel_after(&c->kernels, c->ev[i].device,
                                      c->ev[i].end_ns);
}

static int mark_unused(omplens_detect__ctx *c, omplens_detect__map *pending,
                       uint64_t *unused) {
  for (uint32_t i = 0; i < c->n; i++) {
    const omplens_event *e = &c->ev[i];
    if (e->kind != OMPLENS_EV_H2D || e->bytes == 0)
      continue;
    if (consumer(c, i) == UINT64_MAX)
      omplens_detect__set_bit(unused, i);
    size_t at;
    int rc = omplens_detect__map_insert(pending, target_hash(e), i, target_eq,
                                        c->ev, e, &at);
    if (rc < 0)
      return rc;
    uint32_t prev = omplens_detect__map_value(pending, at);
    /* Overwritten before any kernel could read it. */
    if (rc == 0 && consumer(c, prev) > e->begin_ns)
      omplens_detect__set_bit(unused, prev);
    omplens_detect__map_set(pending, at, i);
  }
  return 0;
}

int omplens_detect__unused_transfers(omplens_detect__ctx *c) {
  omplens_detect__map pending = {0};
  uint64_t *unused = omplens_detect__bitmap(c->n);
  int rc = unused ? mark_unused(c, &pending, unused) : OMPLENS_DETECT_ENOMEM;
  omplens_detect__map_free(&pending);
  /* Emitted afterwards so that the category stays in time order. */
  for (uint32_t i = 0; i < c->n && rc == 0; i++)
    if (omplens_detect__bit(unused, i))
      rc = omplens_detect__emit(c, OMPLENS_CAT_UNUSED_TRANSFER, i,
                                OMPLENS_DETECT__NONE);
  omplens_detect__free(unused);
  return rc;
}
