/* Allocation helpers with overflow checks and a failure-injection hook,
 * and the block arrays. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "detect_internal.h"

size_t omplens_detect__fail_countdown;

/* Lets the unit tests fail the n-th allocation to check ENOMEM paths. */
static int injected_failure(void) {
  if (omplens_detect__fail_countdown == 0)
    return 0;
  return --omplens_detect__fail_countdown == 0;
}

/* n == 0 is bumped to 1 so that NULL always means failure. */
static size_t bytes_of(size_t n, size_t size) {
  if (n == 0)
    n = 1;
  if (size != 0 && n > SIZE_MAX / size)
    return 0;
  return n * size;
}

/* Precedes every array: its length in bytes, header included, for
 * omplens_detect__release. Two size_t keep the array aligned as malloc's
 * would be. */
typedef struct header {
  size_t length;
  size_t padding;
} header;

static void *allocate(size_t total, int zeroed) {
  if (total > SIZE_MAX - sizeof(header))
    return NULL;
  size_t length = total + sizeof(header);
  header *h = zeroed ? calloc(1, length) : malloc(length);
  if (!h)
    return NULL;
  h->length = length;
  return h + 1;
}

void *omplens_detect__array(size_t n, size_t size) {
  size_t total = bytes_of(n, size);
  if (total == 0 || injected_failure())
    return NULL;
  return allocate(total, 0);
}

void *omplens_detect__zarray(size_t n, size_t size) {
  size_t total = bytes_of(n, size);
  if (total == 0 || injected_failure())
    return NULL;
  return allocate(total, 1);
}

void *omplens_detect__rearray(void *p, size_t n, size_t size) {
  size_t total = bytes_of(n, size);
  if (total == 0 || injected_failure())
    return NULL;
  if (!p)
    return allocate(total, 0);
  if (total > SIZE_MAX - sizeof(header))
    return NULL;
  header *grown = realloc((header *)p - 1, total + sizeof(header));
  if (!grown)
    return NULL;
  grown->length = total + sizeof(header);
  return grown + 1;
}

void omplens_detect__free(void *p) {
  if (p)
    free((header *)p - 1);
}

/* Only whole pages inside the array: the heap's own bookkeeping around it
 * is outside them, or written again by free. */
void omplens_detect__release(void *p) {
  if (!p)
    return;
  header *h = (header *)p - 1;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t begin = ((uintptr_t)p + page - 1) & ~(page - 1);
  uintptr_t end = ((uintptr_t)h + h->length) & ~(page - 1);
  if (end > begin)
    madvise((void *)begin, end - begin, MADV_DONTNEED);
  free(h);
}

/* The pointer is read and written with memcpy: storing through a void **
 * that really points at a T * would break the aliasing rules. */
int omplens_detect__reserve(void *array, size_t *cap, size_t need,
                            size_t size) {
  if (need <= *cap)
    return 0;
  size_t next = *cap ? *cap : 16;
  while (next < need) {
    if (next > SIZE_MAX / 2)
      return OMPLENS_DETECT_ENOMEM;
    next *= 2;
  }
  void *old, *grown;
  memcpy(&old, array, sizeof old);
  grown = omplens_detect__rearray(old, next, size);
  if (!grown)
    return OMPLENS_DETECT_ENOMEM;
  memcpy(array, &grown, sizeof grown);
  *cap = next;
  return 0;
}

void *omplens_detect__blocks_push(omplens_detect__blocks *b, size_t size) {
  size_t per_block = (size_t)1 << OMPLENS_DETECT__BLOCK_BITS;
  if (b->count == b->num_blocks * per_block) {
    if (omplens_detect__reserve(&b->block, &b->cap_blocks, b->num_blocks + 1,
                                sizeof *b->block) < 0)
      return NULL;
    b->block[b->num_blocks] = omplens_detect__array(per_block, size);
    if (!b->block[b->num_blocks])
      return NULL;
    b->num_blocks++;
  }
  return omplens_detect__blocks_at(b, b->count++, size);
}

void omplens_detect__blocks_free(omplens_detect__blocks *b) {
  for (size_t i = 0; i < b->num_blocks; i++)
    omplens_detect__release(b->block[i]);
  omplens_detect__free(b->block);
  *b = (omplens_detect__blocks){0};
}
