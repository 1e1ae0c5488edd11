/* A small open-addressing hash map from a caller-defined key to a uint32_t
 * value, used by every detector. The map does not store keys: the caller
 * stores a value that identifies the key (an event index, or an index into
 * its own array) and supplies an equality callback that compares a stored
 * value with a probe key. A slot is 8 bytes (a 32-bit fingerprint of the
 * key's hash and the value), so a map costs 11-21 bytes per key.
 *
 * Linear probing; the home slot is derived from the fingerprint alone, so
 * removal can use backward shifting instead of tombstones. */
#ifndef OMPLENS_DETECT_MAP_INTERNAL_H
#define OMPLENS_DETECT_MAP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Not a valid value: marks empty slots. Detectors never store it. */
#define OMPLENS_DETECT__EMPTY UINT32_MAX
#define OMPLENS_DETECT__MAP_NONE SIZE_MAX

typedef struct omplens_detect__slot {
  uint32_t fp;    /* fingerprint of the key's hash */
  uint32_t value; /* OMPLENS_DETECT__EMPTY when the slot is free */
} omplens_detect__slot;

/* Zero-initialize ({0}) for an empty map; nothing is allocated until the
 * first insertion. */
typedef struct omplens_detect__map {
  omplens_detect__slot *slots;
  size_t cap; /* power of two, or 0 */
  size_t count;
  unsigned bits; /* log2(cap) */
} omplens_detect__map;

/* Returns nonzero when the key identified by the stored value equals key. */
typedef int (*omplens_detect__map_eq)(const void *ctx, uint32_t stored,
                                      const void *key);

/* Frees the slots, giving their pages back to the system (maps are freed
 * when their pass ends: see omplens_detect__free), and leaves an empty,
 * reusable map. */
void omplens_detect__map_free(omplens_detect__map *m);

/* Doubles the slots (or makes the first ones). Returns 0, or
 * OMPLENS_DETECT_ENOMEM with the map unchanged. */
int omplens_detect__map_grow(omplens_detect__map *m);

/* Removes the entry at a slot index returned by find or insert. */
void omplens_detect__map_remove(omplens_detect__map *m, size_t index);

/* Find and insert are inline so that each caller's eq is inlined too: the
 * detectors call them millions of times. */

static inline uint32_t omplens_detect__map_fp(uint64_t hash) {
  return (uint32_t)(hash >> 32) ^ (uint32_t)hash;
}

/* Multiplying by an odd constant is a bijection on 32 bits, so the top bits
 * spread keys evenly and the home slot can be recomputed from fp alone. */
static inline size_t omplens_detect__map_home(const omplens_detect__map *m,
                                              uint32_t fp) {
  return (size_t)((uint32_t)(fp * 0x9e3779b1u) >> (32u - m->bits));
}

/* Slot index of key, or OMPLENS_DETECT__MAP_NONE. The index is valid until
 * the next insertion or removal. */
static inline size_t omplens_detect__map_find(const omplens_detect__map *m,
                                              uint64_t hash,
                                              omplens_detect__map_eq eq,
                                              const void *ctx,
                                              const void *key) {
  if (m->cap == 0)
    return OMPLENS_DETECT__MAP_NONE;
  uint32_t fp = omplens_detect__map_fp(hash);
  size_t mask = m->cap - 1;
  for (size_t i = omplens_detect__map_home(m, fp);; i = (i + 1) & mask) {
    const omplens_detect__slot *s = &m->slots[i];
    if (s->value == OMPLENS_DETECT__EMPTY)
      return OMPLENS_DETECT__MAP_NONE;
    if (s->fp == fp && eq(ctx, s->value, key))
      return i;
  }
}

/* Places fp/value in the first free slot from its home; the caller made
 * sure there is one and that the key is absent. */
static inline size_t omplens_detect__map_place(omplens_detect__map *m,
                                               uint32_t fp, uint32_t value) {
  size_t mask = m->cap - 1;
  size_t i = omplens_detect__map_home(m, fp);
  while (m->slots[i].value != OMPLENS_DETECT__EMPTY)
    i = (i + 1) & mask;
  m->slots[i].fp = fp;
  m->slots[i].value = value;
  return i;
}

/* Finds key or inserts it with value. Returns 1 when inserted, 0 when the
 * key was present (its value unchanged), OMPLENS_DETECT_ENOMEM when the map
 * could not grow (the map is unchanged). *index receives the slot index. */
static inline int omplens_detect__map_insert(omplens_detect__map *m,
                                             uint64_t hash, uint32_t value,
                                             omplens_detect__map_eq eq,
                                             const void *ctx, const void *key,
                                             size_t *index) {
  size_t found = omplens_detect__map_find(m, hash, eq, ctx, key);
  if (found != OMPLENS_DETECT__MAP_NONE) {
    *index = found;
    return 0;
  }
  /* Keep the load at most 3/4 so that probe sequences stay short. */
  if ((m->count + 1) * 4 > m->cap * 3) {
    int rc = omplens_detect__map_grow(m);
    if (rc < 0) {
      *index = OMPLENS_DETECT__MAP_NONE;
      return rc;
    }
  }
  *index = omplens_detect__map_place(m, omplens_detect__map_fp(hash), value);
  m->count++;
  return 1;
}

/* Asks the cache for key's home slot ahead of a find or insert. */
static inline void omplens_detect__map_prefetch(const omplens_detect__map *m,
                                                uint64_t hash) {
  if (m->cap)
    __builtin_prefetch(
        &m->slots[omplens_detect__map_home(m, omplens_detect__map_fp(hash))]);
}

static inline uint32_t omplens_detect__map_value(const omplens_detect__map *m,
                                                 size_t index) {
  return m->slots[index].value;
}

static inline void omplens_detect__map_set(omplens_detect__map *m,
                                           size_t index, uint32_t value) {
  m->slots[index].value = value;
}

/* Key hashing: a 64-bit finalizer (splitmix64) and a combiner. */
static inline uint64_t omplens_detect__mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

static inline uint64_t omplens_detect__hash_add(uint64_t h, uint64_t v) {
  return omplens_detect__mix(h ^ (v + 0x9e3779b97f4a7c15ull));
}

#endif
