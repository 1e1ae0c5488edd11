/* unused_alloc.c - omplens example: a device allocation no kernel can use.
 *
 * Pattern: the post-processing stage runs on the host, but it is still
 * wrapped in a `target data` region (left over from an offloaded version).
 * The region allocates 8 MB for z on the device and frees it again without
 * any kernel running in between: pure overhead.
 * Fix: unused_alloc_fixed.c drops the data region. (If the stage was meant to
 * run on the device, the fix is to offload its loop instead.)
 *
 * Expected omplens findings (unused_alloc.expected):
 *   unused-alloc  line 42  device 0  1  z allocated around host-only code
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

  /* Post-processing stage on the host.
   * WASTE: z is allocated on the device and freed again, and no kernel runs
   * while it exists. */
#pragma omp target data map(alloc: z[0:N])
  {
    for (int i = 0; i < N; i++)
      z[i] = b[i] * b[i] - a[i];
  }

  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += z[i];
  printf("unused_alloc: checksum %.6f\n", sum);
  free(a);
  free(b);
  free(z);
  return 0;
}
