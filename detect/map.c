/* Open-addressing hash map; see map_internal.h. */
#include <string.h>

#include "detect_internal.h"

#define MAP_MIN_BITS 4u
/* Positions are 32-bit (derived from the fingerprint). */
#define MAP_MAX_BITS 31u

static uint32_t fingerprint(uint64_t hash) {
  return (uint32_t)(hash >> 32) ^ (uint32_t)hash;
}

/* Multiplying by an odd constant is a bijection on 32 bits, so the top bits
 * spread keys evenly and the home slot can be recomputed from fp alone. */
static size_t home(const omplens_detect__map *m, uint32_t fp) {
  return (size_t)((uint32_t)(fp * 0x9e3779b1u) >> (32u - m->bits));
}

void omplens_detect__map_free(omplens_detect__map *m) {
  omplens_detect__free(m->slots);
  memset(m, 0, sizeof *m);
}

size_t omplens_detect__map_find(const omplens_detect__map *m, uint64_t hash,
                                omplens_detect__map_eq eq, const void *ctx,
                                const void *key) {
  if (m->cap == 0)
    return OMPLENS_DETECT__MAP_NONE;
  uint32_t fp = fingerprint(hash);
  size_t mask = m->cap - 1;
  for (size_t i = home(m, fp);; i = (i + 1) & mask) {
    const omplens_detect__slot *s = &m->slots[i];
    if (s->value == OMPLENS_DETECT__EMPTY)
      return OMPLENS_DETECT__MAP_NONE;
    if (s->fp == fp && eq(ctx, s->value, key))
      return i;
  }
}

/* Places fp/value in the first free slot from its home; the caller made
 * sure there is one and that the key is absent. */
static size_t place(omplens_detect__map *m, uint32_t fp, uint32_t value) {
  size_t mask = m->cap - 1;
  size_t i = home(m, fp);
  while (m->slots[i].value != OMPLENS_DETECT__EMPTY)
    i = (i + 1) & mask;
  m->slots[i].fp = fp;
  m->slots[i].value = value;
  return i;
}

static int grow(omplens_detect__map *m) {
  unsigned bits = m->cap ? m->bits + 1 : MAP_MIN_BITS;
  if (bits > MAP_MAX_BITS)
    return OMPLENS_DETECT_ENOMEM;
  size_t cap = (size_t)1 << bits;
  omplens_detect__slot *slots = omplens_detect__array(cap, sizeof *slots);
  if (!slots)
    return OMPLENS_DETECT_ENOMEM;
  /* All-ones bytes make every value OMPLENS_DETECT__EMPTY. */
  memset(slots, 0xff, cap * sizeof *slots);
  omplens_detect__map old = *m;
  m->slots = slots;
  m->cap = cap;
  m->bits = bits;
  for (size_t i = 0; i < old.cap; i++)
    if (old.slots[i].value != OMPLENS_DETECT__EMPTY)
      place(m, old.slots[i].fp, old.slots[i].value);
  omplens_detect__free(old.slots);
  return 0;
}

int omplens_detect__map_insert(omplens_detect__map *m, uint64_t hash,
                               uint32_t value, omplens_detect__map_eq eq,
                               const void *ctx, const void *key,
                               size_t *index) {
  size_t found = omplens_detect__map_find(m, hash, eq, ctx, key);
  if (found != OMPLENS_DETECT__MAP_NONE) {
    *index = found;
    return 0;
  }
  /* Keep the load at most 3/4 so that probe sequences stay short. */
  if ((m->count + 1) * 4 > m->cap * 3) {
    int rc = grow(m);
    if (rc < 0)
      return rc;
  }
  *index = place(m, fingerprint(hash), value);
  m->count++;
  return 1;
}

/* Is slot i's home outside the cyclic range (hole, i]? Then the entry at i
 * may move back into the hole without becoming unreachable. */
static int may_fill(size_t hole, size_t i, size_t h) {
  if (hole <= i)
    return h <= hole || h > i;
  return h <= hole && h > i;
}

void omplens_detect__map_remove(omplens_detect__map *m, size_t index) {
  size_t mask = m->cap - 1;
  size_t hole = index;
  for (size_t i = (hole + 1) & mask;; i = (i + 1) & mask) {
    omplens_detect__slot *s = &m->slots[i];
    if (s->value == OMPLENS_DETECT__EMPTY)
      break;
    if (may_fill(hole, i, home(m, s->fp))) {
      m->slots[hole] = *s;
      hole = i;
    }
  }
  m->slots[hole].value = OMPLENS_DETECT__EMPTY;
  m->count--;
}
