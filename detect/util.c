/* Allocation helpers (bulk arrays with a failure-injection hook) and the
 * block arrays. */
#include <stdatomic.h>
#include <string.h>

#include "detect_internal.h"
#include "omplens_bulk.h"

_Atomic size_t omplens_detect__fail_countdown;

/* Lets the unit tests fail the n-th allocation to check ENOMEM paths. */
static int injected_failure(void) {
  size_t left = atomic_load_explicit(&omplens_detect__fail_countdown,
                                     memory_order_relaxed);
  while (left != 0 &&
         !atomic_compare_exchange_weak(&omplens_detect__fail_countdown, &left,
                                       left - 1))
    ;
  return left == 1;
}

void *omplens_detect__array(size_t n, size_t size) {
  return injected_failure() ? NULL : omplens_bulk_alloc(n, size);
}

void *omplens_detect__zarray(size_t n, size_t size) {
  return injected_failure() ? NULL : omplens_bulk_zalloc(n, size);
}

void *omplens_detect__rearray(void *p, size_t n, size_t size) {
  return injected_failure() ? NULL : omplens_bulk_realloc(p, n, size);
}

void omplens_detect__free(void *p) { omplens_bulk_free(p); }

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

void omplens_detect__blocks_read(omplens_detect__blocks *b, size_t i) {
  size_t per_block = (size_t)1 << OMPLENS_DETECT__BLOCK_BITS;
  if ((i + 1) % per_block == 0) {
    omplens_detect__free(b->block[i / per_block]);
    b->block[i / per_block] = NULL;
  }
}

void omplens_detect__blocks_free(omplens_detect__blocks *b) {
  for (size_t i = 0; i < b->num_blocks; i++)
    omplens_detect__free(b->block[i]);
  omplens_detect__free(b->block);
  *b = (omplens_detect__blocks){0};
}
