/* memory_touch: what fresh memory costs on this machine, which decides much
 * of omplens report's time on a VM (docs/performance.md). For 4 KiB pages
 * and for transparent huge pages it maps SIZE MiB, writes one byte per page
 * (every write a page fault that zeroes a page), then writes all of it
 * again with memset (no faults), and prints both rates.
 *
 *   memory_touch [SIZE_MIB]      (default 256)
 *
 * On a bare machine the first touch runs at several GB/s; a VM whose host
 * backs guest memory lazily can be ten times slower, and differ from one
 * run to the next. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_PAGE ((size_t)2 << 20)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int measure(size_t bytes, int huge) {
  char *map = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    perror("memory_touch: mmap");
    return 1;
  }
  char *p = (char *)(((uintptr_t)map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
  if (huge)
    madvise(p, bytes, MADV_HUGEPAGE);
  double t0 = now();
  for (size_t i = 0; i < bytes; i += 4096)
    p[i] = 1;
  double t1 = now();
  memset(p, 2, bytes);
  double t2 = now();
  printf("%-16s first touch %8.1f ms (%6.2f GB/s)   memset after %6.1f ms (%6.2f GB/s)\n",
         huge ? "huge pages" : "4 KiB pages", (t1 - t0) * 1e3, (double)bytes / (t1 - t0) / 1e9,
         (t2 - t1) * 1e3, (double)bytes / (t2 - t1) / 1e9);
  munmap(map, bytes + HUGE_PAGE);
  return 0;
}

int main(int argc, char **argv) {
  long mib = argc > 1 ? strtol(argv[1], NULL, 10) : 256;
  if (argc > 2 || mib < 1 || mib > 65536) {
    fprintf(stderr, "usage: memory_touch [SIZE_MIB]   (1 to 65536, default 256)\n");
    return 64;
  }
  printf("# memory_touch %ld MiB\n", mib);
  return measure((size_t)mib << 20, 0) || measure((size_t)mib << 20, 1);
}
