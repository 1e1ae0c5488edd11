/* repeated_alloc_fixed.c - omplens example: fixed twin of repeated_alloc.c.
 *
 * Fix: tmp is allocated once by the outer `target data` and reused by every
 * step. Same result as repeated_alloc.c.
 *
 * Expected omplens findings (repeated_alloc_fixed.expected): none.
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

  /* All three arrays stay on the device for the whole loop; tmp is never
   * copied in either direction. */
#pragma omp target data map(to: a[0:N]) map(from: b[0:N]) map(alloc: tmp[0:N])
  {
    for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(alloc: tmp[0:N])
      for (int i = 0; i < N; i++)
        tmp[i] = a[i] * (step + 1) + 0.5;
#pragma omp target teams distribute parallel for map(alloc: tmp[0:N]) map(tofrom: b[0:N])
      for (int i = 0; i < N; i++)
        b[i] = (step == 0 ? 0.0 : b[i]) + tmp[i] * tmp[i];
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
