/* crash.c - hardening: a program that dies after REGIONS target regions.
 *
 * usage: crash abort|segv|exit
 *   abort  calls abort()              (omplens run exits 128 + SIGABRT = 134)
 *   segv   writes through NULL        (128 + SIGSEGV = 139)
 *   exit   calls _exit(3)             (3; no atexit handler, no OMPT finalize)
 *
 * Each region maps a fresh buffer and ends before the crash, so the trace
 * must hold exactly REGIONS allocs, h2d, kernels, d2h and deletes, and no
 * end chunk. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REGIONS 3
#define N 1024

static void die(const char *how) {
  if (!strcmp(how, "abort"))
    abort();
  if (!strcmp(how, "segv")) {
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
    raise(SIGSEGV); /* in case the store was somehow survived */
  }
  _exit(3);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: crash abort|segv|exit\n");
    return 2;
  }
  static double a[N];
  for (int r = 0; r < REGIONS; r++) {
#pragma omp target map(tofrom : a[0:N])
    for (int i = 0; i < N; i++)
      a[i] += r;
  }
  printf("crash: %s after %d regions\n", argv[1], REGIONS);
  fflush(stdout);
  die(argv[1]);
  return 0;
}
