/* omplens names: see omplens_names.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "omplens_names.h"

struct omplens_names_slot {
  const char *name; /* NULL: empty */
  uint64_t hash;
  size_t value;
};

static uint64_t hash_of(const char *name) { return XXH3_64bits(name, strlen(name)); }

/* The slot holding name, or the empty slot where it would go. cap is a
 * power of two and the table is never full. */
static omplens_names_slot *slot_of(const omplens_names_slot *slots, size_t cap,
                                   const char *name, uint64_t hash) {
  size_t i = (size_t)hash & (cap - 1);
  while (slots[i].name &&
         (slots[i].hash != hash || strcmp(slots[i].name, name) != 0))
    i = (i + 1) & (cap - 1);
  return (omplens_names_slot *)&slots[i];
}

size_t omplens_names_get(const omplens_names *m, const char *name) {
  if (!m->count || !name)
    return OMPLENS_NAMES_NONE;
  const omplens_names_slot *s = slot_of(m->slots, m->cap, name, hash_of(name));
  return s->name ? s->value : OMPLENS_NAMES_NONE;
}

static int grow(omplens_names *m) {
  size_t cap = m->cap ? 2 * m->cap : 16;
  if (cap > SIZE_MAX / 2 / sizeof *m->slots)
    return -1;
  omplens_names_slot *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return -1;
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].name)
      *slot_of(slots, cap, m->slots[i].name, m->slots[i].hash) = m->slots[i];
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
  return 0;
}

int omplens_names_put(omplens_names *m, const char *name, size_t value) {
  if (!name)
    return -1;
  if (2 * (m->count + 1) > m->cap && grow(m))
    return -1;
  uint64_t hash = hash_of(name);
  omplens_names_slot *s = slot_of(m->slots, m->cap, name, hash);
  if (!s->name)
    m->count++;
  *s = (omplens_names_slot){name, hash, value};
  return 0;
}

void omplens_names_free(omplens_names *m) {
  free(m->slots);
  *m = (omplens_names){0};
}
