/* Open-addressing hash map; see map_internal.h. */
#include <string.h>

#include "detect_internal.h"

#define MAP_MIN_BITS 4u
/* Positions are 32-bit (derived from the fingerprint). */
#define MAP_MAX_BITS 31u

void omplens_detect__map_free(omplens_detect__map *m) {
  omplens_detect__free(m->slots);
  memset(m, 0, sizeof *m);
}

int omplens_detect__map_grow(omplens_detect__map *m) {
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
      omplens_detect__map_place(m, old.slots[i].fp, old.slots[i].value);
  omplens_detect__free(old.slots);
  return 0;
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
    if (may_fill(hole, i, omplens_detect__map_home(m, s->fp))) {
      m->slots[hole] = *s;
      hole = i;
    }
  }
  m->slots[hole].value = OMPLENS_DETECT__EMPTY;
  m->count--;
}
