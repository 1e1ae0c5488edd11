/* repeated_alloc.c - omplens example: a scratch array allocated every step.
 *
 * Pattern: the scratch array tmp is only needed on the device, so it is
 * mapped with map(alloc:) (no copies) - but inside the step loop. Every step
 * allocates the same 8 MB for the same host address and frees it again.
 * Fix: repeated_alloc_fixed.c allocates tmp once, in the outer `target data`.
 *
 * Expected omplens findings (repeated_alloc.expected):
 *   repeated-alloc  line 33  device 0  9  tmp re-allocated in steps 2..10
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* elements per array: 8 MB of doubles */
#define STEPS 10

int main(void)
{
  double *a = malloc(N * sizeof *a);
  double *b = malloc(N * sizeof *b);
  double *tmp = malloc(N * sizeof *tmp); /* only used on the device */
  if (!a || !b || !tmp)
    return 1;
  for (int i = 0; i < N; i++)
    a[i] = (i % 11) * 0.125;

  /* a and b stay on the device for the whole loop (b is written by the first
   * step's kernel before it is read). */
#pragma omp target data map(to: a[0:N]) map(from: b[0:N])
  {
    for (int step = 0; step < STEPS; step++) {
      /* WASTE: allocates and frees tmp on every step. */
#pragma omp target data map(alloc: tmp[0:N])
      {
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(alloc: tmp[0:N])
        for (int i = 0; i < N; i++)
          tmp[i] = a[i] * (step + 1) + 0.5;
#pragma omp target teams distribute parallel for map(alloc: tmp[0:N]) map(tofrom: b[0:N])
        for (int i = 0; i < N; i++)
          b[i] = (step == 0 ? 0.0 : b[i]) + tmp[i] * tmp[i];
      }
    }
  }

  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += b[i];
  printf("repeated_alloc: checksum %.6f\n", sum);
  free(a);
  free(b);
  free(tmp);
  return 0;
}
