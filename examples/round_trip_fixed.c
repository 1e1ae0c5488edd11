/* round_trip_fixed.c - omplens example: fixed twin of round_trip.c.
 *
 * Fix: x is copied to the device once, before the loop, and stays there;
 * each step only copies it back for the diagnostic (changed data). The
 * read-only weights w are deleted at the end instead of copied back.
 * Same output as round_trip.c.
 *
 * Expected omplens findings (round_trip_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* elements per array: 8 MB of doubles */
#define STEPS 10

int main(void)
{
  double *x = malloc(N * sizeof *x);
  double *w = malloc(N * sizeof *w);
  if (!x || !w)
    return 1;
  for (int i = 0; i < N; i++) {
    x[i] = (i % 17) * 0.25;
    w[i] = 0.5 + (i % 5) * 0.0625;
  }

#pragma omp target enter data map(to: w[0:N], x[0:N])
  for (int step = 0; step < STEPS; step++) {
    /* w and x are present: the kernel itself copies nothing. */
#pragma omp target teams distribute parallel for map(to: w[0:N]) map(tofrom: x[0:N])
    for (int i = 0; i < N; i++)
      x[i] = x[i] * w[i] + 1.0;
    /* The host reads x for the per-step diagnostic; it does not modify it,
     * so the device copy stays valid and nothing is sent back. */
#pragma omp target update from(x[0:N])
    double sum = 0.0;
    for (int i = 0; i < N; i++)
      sum += x[i];
    printf("round_trip: step %d sum %.6f\n", step, sum);
  }
#pragma omp target exit data map(delete: w[0:N], x[0:N])

  free(x);
  free(w);
  return 0;
}
