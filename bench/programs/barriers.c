/* A step of host work in a parallel loop (an implicit barrier), a
 * `target nowait` and a taskwait, STEPS times (bench/sync_wait_cost.sh):
 * every barrier and taskwait reports OMPT's sync_region_wait. */
#include <stdio.h>
#include <stdlib.h>
#define N 4096
static double a[N];

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20000;
  for (int s = 0; s < steps; s++) {
#pragma omp parallel for
    for (int i = 0; i < N; i++)
      a[i] = a[i] * 0.5 + i;
#pragma omp target nowait map(tofrom: a[0:1])
    a[0] += 1;
#pragma omp taskwait
  }
  printf("%g\n", a[N - 1]);
  return 0;
}
