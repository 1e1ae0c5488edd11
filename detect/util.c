/* Allocation helpers with overflow checks and a failure-injection hook. */
#include <stdlib.h>
#include <string.h>

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

void *omplens_detect__array(size_t n, size_t size) {
  size_t total = bytes_of(n, size);
  if (total == 0 || injected_failure())
    return NULL;
  return malloc(total);
}

void *omplens_detect__zarray(size_t n, size_t size) {
  size_t total = bytes_of(n, size);
  if (total == 0 || injected_failure())
    return NULL;
  return calloc(1, total);
}

void *omplens_detect__rearray(void *p, size_t n, size_t size) {
  size_t total = bytes_of(n, size);
  if (total == 0 || injected_failure())
    return NULL;
  return realloc(p, total);
}

void omplens_detect__free(void *p) { free(p); }

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
