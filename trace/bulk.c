/* Bulk arrays: see omplens_bulk.h. Every array is preceded by a header that
 * says where it came from. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "asan.h"
#include "omplens_bulk.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* 64 bytes, so that the array starts on a cache line. */
typedef struct header {
  size_t mapped; /* length of the mapping, header included; 0: from malloc */
  size_t bytes;  /* usable bytes */
  char pad[64 - 2 * sizeof(size_t)];
} header;

/* n * size, with n == 0 counted as 1; 0 on overflow. The bound leaves
 * room for what a mapping adds: the header, the page and huge-page
 * rounding (mapping_length, remap) and map_aligned's extra huge page. */
static size_t bytes_of(size_t n, size_t size) {
  if (n == 0)
    n = 1;
  if (size == 0 || n > (SIZE_MAX - 3 * HUGE_PAGE - sizeof(header)) / size)
    return 0;
  return n * size;
}

static size_t page_round(size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (n + page - 1) & ~(page - 1);
}

static int wants_mapping(size_t bytes) {
  return !OMPLENS_ASAN && bytes >= OMPLENS_BULK_MAPPED;
}

/* A mapping that starts on a huge-page boundary, so that all of it can be
 * backed by huge pages: over-map by one huge page, then trim both ends. */
static header *map_aligned(size_t length) {
  size_t span = length + HUGE_PAGE;
  char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  char *start = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
  if (start > p)
    munmap(p, (size_t)(start - p));
  size_t tail = span - (size_t)(start - p) - length;
  if (tail)
    munmap(start + length, tail);
  madvise(start, length, MADV_HUGEPAGE); /* a kernel without THP still works */
  return (header *)start;
}

/* The length of a new mapping for n bytes: whole pages, and a whole number
 * of huge pages when the last one would be at least three quarters used.
 * Its tail would otherwise be faulted in 4 KiB at a time (up to 511 faults,
 * each a trap to the hypervisor on a VM) to save at most 512 KiB. */
static size_t mapping_length(size_t n) {
  size_t length = page_round(n), tail = length % HUGE_PAGE;
  if (tail >= HUGE_PAGE / 4 * 3)
    length += HUGE_PAGE - tail;
  return length;
}

static void *allocate(size_t bytes, int zeroed) {
  header *h;
  if (wants_mapping(bytes)) {
    size_t length = mapping_length(sizeof(header) + bytes);
    if (!(h = map_aligned(length)))
      return NULL;
    h->mapped = length; /* fresh anonymous pages are zero already */
  } else {
    h = zeroed ? calloc(1, sizeof(header) + bytes) : malloc(sizeof(header) + bytes);
    if (!h)
      return NULL;
    h->mapped = 0;
  }
  h->bytes = bytes;
  return h + 1;
}

void *omplens_bulk_alloc(size_t n, size_t size) {
  size_t bytes = bytes_of(n, size);
  return bytes ? allocate(bytes, 0) : NULL;
}

void *omplens_bulk_zalloc(size_t n, size_t size) {
  size_t bytes = bytes_of(n, size);
  return bytes ? allocate(bytes, 1) : NULL;
}

/* A mapped array shrinks in place, and grows in place when the addresses
 * after it are free; else its pages move (no copy) to the head of a new
 * aligned mapping. A resized mapping is a whole number of huge pages, so
 * that the pieces a move leaves meet on huge-page boundaries and all of
 * the array can be backed by huge pages. */
static void *remap(header *h, size_t bytes) {
  size_t length = (sizeof(header) + bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  header *g = length == h->mapped ? h : mremap(h, h->mapped, length, 0);
  if (g == MAP_FAILED && length > h->mapped) {
    header *fresh = map_aligned(length);
    if (!fresh)
      return NULL;
    g = mremap(h, h->mapped, h->mapped, MREMAP_MAYMOVE | MREMAP_FIXED, fresh);
    if (g == MAP_FAILED) {
      munmap(fresh, length);
      return NULL;
    }
  }
  if (g == MAP_FAILED)
    return NULL;
  g->mapped = length;
  g->bytes = bytes;
  return g + 1;
}

void *omplens_bulk_realloc(void *p, size_t n, size_t size) {
  size_t bytes = bytes_of(n, size);
  if (!bytes)
    return NULL;
  if (!p)
    return allocate(bytes, 0);
  header *h = (header *)p - 1;
  if (h->mapped && !wants_mapping(bytes)) { /* small again: to the heap */
    void *q = allocate(bytes, 0);
    if (!q)
      return NULL;
    memcpy(q, p, bytes);
    munmap(h, h->mapped);
    return q;
  }
  if (h->mapped)
    return remap(h, bytes);
  if (!wants_mapping(bytes)) {
    header *g = realloc(h, sizeof(header) + bytes);
    if (!g)
      return NULL;
    g->bytes = bytes;
    return g + 1;
  }
  void *q = allocate(bytes, 0);
  if (!q)
    return NULL;
  memcpy(q, p, h->bytes < bytes ? h->bytes : bytes);
  free(h);
  return q;
}

void omplens_bulk_free(void *p) {
  if (!p)
    return;
  header *h = (header *)p - 1;
  if (h->mapped)
    munmap(h, h->mapped);
  else
    free(h);
}

int omplens_bulk_grow(void **arr, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return 0;
  size_t ncap = *cap ? *cap : 64;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2 / size)
      return -1;
    ncap *= 2;
  }
  void *p = omplens_bulk_realloc(*arr, ncap, size);
  if (!p)
    return -1;
  *arr = p;
  *cap = ncap;
  return 0;
}
