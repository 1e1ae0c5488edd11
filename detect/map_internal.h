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

/* Frees the slots and leaves an empty, reusable map. */
void omplens_detect__map_free(omplens_detect__map *m);

/* Slot index of key, or OMPLENS_DETECT__MAP_NONE. The index is valid until
 * the next insertion or removal. */
size_t omplens_detect__map_find(const omplens_detect__map *m, uint64_t hash,
                                omplens_detect__map_eq eq, const void *ctx,
                                const void *key);

/* Finds key or inserts it with value. Returns 1 when inserted, 0 when the
 * key was present (its value unchanged), OMPLENS_DETECT_ENOMEM when the map
 * could not grow (the map is unchanged). *index receives the slot index. */
int omplens_detect__map_insert(omplens_detect__map *m, uint64_t hash,
                               uint32_t value, omplens_detect__map_eq eq,
                               const void *ctx, const void *key,
                               size_t *index);

/* Removes the entry at a slot index returned by find or insert. */
void omplens_detect__map_remove(omplens_detect__map *m, size_t index);

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
