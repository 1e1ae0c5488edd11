/* update_from_again.c - fixture of the fix proof tests: a `target update
 * from` that brings back, every step, a result no kernel changed since.
 *
 * The host receives the same bytes into r again (duplicates on the host).
 * Whether a kernel could have changed r between the copies is not in the
 * trace, so the fix is manual; its recipe must fit the directive: a
 * `target update from` has no map type to change, it is run less often. */
#include <stdio.h>

#define N 2048
#define STEPS 5

int main(void)
{
  static double r[N];
  double total = 0.0;
#pragma omp target data map(from: r[0:N])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      r[i] = 0.5 * i;
    for (int step = 0; step < STEPS; step++) {
#pragma omp target update from(r[0:N])
      total += r[step] * step;
    }
  }
  printf("update_from_again: total %.1f\n", total);
  return 0;
}
