/* unused_alloc_fixed.c - omplens example: fixed twin of unused_alloc.c.
 *
 * Fix: the host-only post-processing stage is no longer wrapped in a
 * `target data` region, so z is never allocated on the device.
 * Same result as unused_alloc.c.
 *
 * Expected omplens findings (unused_alloc_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* elements per array: 8 MB of doubles */
#define STEPS 10

int main(void)
{
  double *a = malloc(N * sizeof *a);
  double *b = malloc(N * sizeof *b);
  double *z = malloc(N * sizeof *z);
  if (!a || !b || !z)
    return 1;
  for (int i = 0; i < N; i++)
    a[i] = (i % 19) * 0.0625;

  /* Compute stage: a and b stay on the device for all steps. */
#pragma omp target data map(to: a[0:N]) map(from: b[0:N])
  {
    for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(tofrom: b[0:N])
      for (int i = 0; i < N; i++)
        b[i] = (step == 0 ? 1.0 : b[i]) * 0.75 + a[i];
    }
  }

  /* Post-processing stage on the host: no device data needed. */
  for (int i = 0; i < N; i++)
    z[i] = b[i] * b[i] - a[i];

  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += z[i];
  printf("unused_alloc: checksum %.6f\n", sum);
  free(a);
  free(b);
  free(z);
  return 0;
}
