/* threads.c - hardening: target regions launched from 8 host threads at once.
 *
 * Part 1: `omp parallel` around `target`: every thread maps its own buffer
 * ROUNDS times, so 8 streams of the collector write concurrently.
 * Part 2: `target nowait` with `depend`: CHAINS independent chains of
 * TASKS_PER_CHAIN deferred targets each, run by the runtime's helper threads.
 *
 * Every target maps a buffer that is not present, so each one records
 * exactly: 1 alloc, 1 h2d, 1 kernel, 1 d2h, 1 delete. Totals per kind:
 * THREADS * ROUNDS + CHAINS * TASKS_PER_CHAIN = 32 + 16 = 48
 * (check_threads.sh asserts these numbers). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 8
#define ROUNDS 4
#define CHAINS 4
#define TASKS_PER_CHAIN 4
#define N 4096

static double *buf[THREADS];
static double *chain[CHAINS];

static int parallel_targets(void) {
  int ok = 1;
#pragma omp parallel num_threads(THREADS) reduction(&& : ok)
  {
    int me = omp_get_thread_num();
    double *b = buf[me];
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp target map(tofrom : b[0:N])
      for (int i = 0; i < N; i++)
        b[i] += 1.0;
    }
    ok = b[0] == ROUNDS + me;
  }
  return ok;
}

static void nowait_chains(void) {
#pragma omp parallel num_threads(THREADS)
#pragma omp single
  {
    for (int t = 0; t < TASKS_PER_CHAIN; t++) {
      for (int c = 0; c < CHAINS; c++) {
        double *b = chain[c];
#pragma omp target nowait depend(inout : b[0]) map(tofrom : b[0:N])
        for (int i = 0; i < N; i++)
          b[i] = b[i] * 2.0 + 1.0;
      }
    }
#pragma omp taskwait
  }
}

int main(void) {
  for (int t = 0; t < THREADS; t++) {
    buf[t] = malloc(N * sizeof(double));
    if (!buf[t])
      return 1;
    for (int i = 0; i < N; i++)
      buf[t][i] = t;
  }
  for (int c = 0; c < CHAINS; c++) {
    chain[c] = malloc(N * sizeof(double));
    if (!chain[c])
      return 1;
    for (int i = 0; i < N; i++)
      chain[c][i] = c;
  }
  int ok = parallel_targets();
  nowait_chains();
  /* x -> 2x + 1, TASKS_PER_CHAIN times, in order: chain c ends at (c+1)*16 - 1. */
  for (int c = 0; c < CHAINS; c++)
    ok = ok && chain[c][N - 1] == (c + 1) * 16.0 - 1.0;
  printf("threads: %s\n", ok ? "ok" : "WRONG RESULT");
  return ok ? 0 : 1;
}
