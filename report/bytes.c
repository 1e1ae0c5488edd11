/* Little-endian bytes (omplens_bytes.h). */
#include "omplens_bytes.h"

#include <stdlib.h>
#include <string.h>

void omplens_bytes_put(omplens_bytes *b, const void *p, size_t n) {
  if (b->failed)
    return;
  if (b->cap - b->len < n) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n)
      cap *= 2;
    uint8_t *d = realloc(b->d, cap);
    if (!d) {
      b->failed = 1;
      return;
    }
    b->d = d;
    b->cap = cap;
  }
  memcpy(b->d + b->len, p, n);
  b->len += n;
}

void omplens_le_set(uint8_t *p, uint64_t v, int size) {
  for (int i = 0; i < size; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t omplens_le_get(const uint8_t *p, int size) {
  uint64_t v = 0;
  for (int i = size - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

void omplens_bytes_u32(omplens_bytes *b, uint32_t v) {
  uint8_t x[4];
  omplens_le_set(x, v, 4);
  omplens_bytes_put(b, x, 4);
}

void omplens_bytes_u64(omplens_bytes *b, uint64_t v) {
  uint8_t x[8];
  omplens_le_set(x, v, 8);
  omplens_bytes_put(b, x, 8);
}
