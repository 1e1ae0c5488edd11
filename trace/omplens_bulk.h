/* omplens bulk arrays: the analysis side's large arrays (a trace's events
 * and regions, the detectors' tables), each of which may take tens or
 * hundreds of megabytes.
 *
 * An array of OMPLENS_BULK_MAPPED bytes or more gets a mapping of its own:
 * - transparent huge pages are asked for (MADV_HUGEPAGE), so filling it
 *   takes one page fault per 2 MiB instead of one per 4 KiB, and scattered
 *   writes miss the TLB less;
 * - capacity never written costs no memory, so arrays may be sized by a
 *   bound rather than grown by copying;
 * - a mapping whose last huge page would be at least 3/4 used is made a
 *   whole number of huge pages, so that its tail is not faulted in 4 KiB
 *   at a time;
 * - growing remaps pages instead of copying them;
 * - freeing returns the memory to the system at once, where glibc's heap
 *   would keep a large freed block resident.
 * Smaller arrays, and every array in a sanitizer build (so that
 * AddressSanitizer checks their bounds), come from malloc.
 *
 * Every function takes a count and an element size and checks their
 * product for overflow. NULL means failure; n == 0 still gives a unique
 * pointer. Arrays from these functions are freed with omplens_bulk_free
 * only. */
#ifndef OMPLENS_BULK_H
#define OMPLENS_BULK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OMPLENS_BULK_MAPPED ((size_t)1 << 20)

/* n elements of size bytes; contents undefined. Caller frees with
 * omplens_bulk_free. */
void *omplens_bulk_alloc(size_t n, size_t size);
/* Likewise, zeroed. */
void *omplens_bulk_zalloc(size_t n, size_t size);
/* Resizes p (NULL: allocates) to n elements, keeping the first
 * min(old, new) elements. On failure p is left as it was. */
void *omplens_bulk_realloc(void *p, size_t n, size_t size);
/* NULL is ignored. */
void omplens_bulk_free(void *p);
/* Makes room for need elements of size bytes in *arr (a bulk array of
 * *cap, NULL and 0 at first), doubling from 64. 0, or -1 when out of memory
 * or past SIZE_MAX (*arr and *cap unchanged). */
int omplens_bulk_grow(void **arr, size_t *cap, size_t need, size_t size);

#ifdef __cplusplus
}
#endif
#endif
