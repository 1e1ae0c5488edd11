/* MD5 (RFC 1321) of a source file, to compare with the checksum clang
 * records for each file in a DWARF 5 line table (DW_LNCT_MD5): that, not
 * mtime or size, is what clang writes, so it is the stamp that proves the
 * source on disk is the one that was built. Not for security. */
#include <string.h>

#include "directives_internal.h"

typedef struct md5 {
  uint32_t a, b, c, d;
} md5;

static const uint32_t K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
    0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
    0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

static const uint8_t SHIFT[16] = {7, 12, 17, 22, 5, 9, 14, 20,
                                  4, 11, 16, 23, 6, 10, 15, 21};

static uint32_t rotl(uint32_t x, unsigned n)
{
  return (x << n) | (x >> (32 - n));
}

/* The round function and message word of step i. */
static uint32_t mix(const md5 *s, unsigned i, unsigned *g)
{
  unsigned round = i / 16;
  if (round == 0) {
    *g = i;
    return (s->b & s->c) | (~s->b & s->d);
  }
  if (round == 1) {
    *g = (5 * i + 1) % 16;
    return (s->d & s->b) | (~s->d & s->c);
  }
  if (round == 2) {
    *g = (3 * i + 5) % 16;
    return s->b ^ s->c ^ s->d;
  }
  *g = (7 * i) % 16;
  return s->c ^ (s->b | ~s->d);
}

static void block(md5 *h, const uint8_t *p)
{
  uint32_t m[16];
  for (unsigned i = 0; i < 16; i++)
    m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
           (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
  md5 s = *h;
  for (unsigned i = 0; i < 64; i++) {
    unsigned g;
    uint32_t f = mix(&s, i, &g) + s.a + K[i] + m[g];
    s.a = s.d;
    s.d = s.c;
    s.c = s.b;
    s.b += rotl(f, SHIFT[(i / 16) * 4 + i % 4]);
  }
  h->a += s.a;
  h->b += s.b;
  h->c += s.c;
  h->d += s.d;
}

static void put_le(uint8_t *out, uint32_t v)
{
  for (unsigned i = 0; i < 4; i++)
    out[i] = (uint8_t)(v >> (8 * i));
}

void omplens_directives__md5(const void *data, size_t len, uint8_t out[16])
{
  md5 h = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  const uint8_t *p = data;
  size_t done = 0;
  for (; len - done >= 64; done += 64)
    block(&h, p + done);
  uint8_t tail[128] = {0};
  size_t rest = len - done;
  if (rest > 0)
    memcpy(tail, p + done, rest);
  tail[rest] = 0x80;
  size_t total = rest + 9 <= 64 ? 64 : 128;
  uint64_t bits = (uint64_t)len * 8;
  for (unsigned i = 0; i < 8; i++)
    tail[total - 8 + i] = (uint8_t)(bits >> (8 * i));
  for (size_t off = 0; off < total; off += 64)
    block(&h, tail + off);
  put_le(out, h.a);
  put_le(out + 4, h.b);
  put_le(out + 8, h.c);
  put_le(out + 12, h.d);
}
