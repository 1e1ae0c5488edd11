/* A growing buffer of little-endian numbers and bytes, and the numbers'
 * reading: the encodings of report parts (report_parts.c) and of the
 * distributed report's messages (cli/distribute.c). */
#ifndef OMPLENS_BYTES_H
#define OMPLENS_BYTES_H

#include <stddef.h>
#include <stdint.h>

typedef struct omplens_bytes {
  uint8_t *d; /* malloc'd: the owner frees it */
  size_t len, cap;
  int failed; /* out of memory: later puts do nothing */
} omplens_bytes;

void omplens_bytes_put(omplens_bytes *b, const void *p, size_t n);
void omplens_bytes_u32(omplens_bytes *b, uint32_t v);
void omplens_bytes_u64(omplens_bytes *b, uint64_t v);

/* v as size (1 to 8) little-endian bytes at p, and back. */
void omplens_le_set(uint8_t *p, uint64_t v, int size);
uint64_t omplens_le_get(const uint8_t *p, int size);

#endif
