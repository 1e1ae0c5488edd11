/* round_trip.c - omplens example: data that travels out and back unchanged.
 *
 * Pattern 1 (device -> host -> device): every step copies the state x back
 * for a host-side diagnostic (needed), and the next step copies it to the
 * device again "to be safe" (not needed): the host only read x, so the device
 * still holds exactly these bytes.
 * Pattern 2 (host -> device -> host): the weights w are only read by the
 * kernel, yet the exit data copies them back with map(from:).
 * Fix: round_trip_fixed.c sends x once before the loop and deletes w at the
 * end instead of copying it back.
 *
 * Expected omplens findings (round_trip.expected):
 *   round-trip  line 37  device 0  9  x re-sent in steps 2..10 (D->H->D)
 *   round-trip  line 51  device 0  1  w copied back unchanged (H->D->H)
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

#pragma omp target enter data map(to: w[0:N]) map(alloc: x[0:N])
  for (int step = 0; step < STEPS; step++) {
    /* WASTE from step 2 on: x came back with the `update from` below and the
     * host only read it; this copies the device's own data back to it. */
#pragma omp target update to(x[0:N])
    /* w and x are present: the kernel itself copies nothing. */
#pragma omp target teams distribute parallel for map(to: w[0:N]) map(tofrom: x[0:N])
    for (int i = 0; i < N; i++)
      x[i] = x[i] * w[i] + 1.0;
    /* Needed: the host reads x for the per-step diagnostic. */
#pragma omp target update from(x[0:N])
    double sum = 0.0;
    for (int i = 0; i < N; i++)
      sum += x[i];
    printf("round_trip: step %d sum %.6f\n", step, sum);
  }
  /* WASTE: w was only read on the device; this copies back bytes the host
   * already has. */
#pragma omp target exit data map(from: w[0:N]) map(delete: x[0:N])

  free(x);
  free(w);
  return 0;
}
