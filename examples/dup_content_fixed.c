/* dup_content_fixed.c - omplens example: fixed twin of dup_content.c.
 *
 * Fix: the accumulators are only allocated on the device (map(alloc:)) and
 * zeroed there by a kernel, so no zeros cross the bus. The host buffers need
 * no initialisation at all. Same result as dup_content.c.
 *
 * Expected omplens findings (dup_content_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* elements per array: 8 MB of doubles */
#define STEPS 10

int main(void)
{
  double *a = malloc(N * sizeof *a);
  double *sum = malloc(N * sizeof *sum);
  double *sumsq = malloc(N * sizeof *sumsq);
  if (!a || !sum || !sumsq)
    return 1;
  for (int i = 0; i < N; i++)
    a[i] = (i % 23) * 0.125 - 1.0;

#pragma omp target enter data map(to: a[0:N]) map(alloc: sum[0:N], sumsq[0:N])
  /* Zero the accumulators where they live. */
#pragma omp target teams distribute parallel for map(alloc: sum[0:N], sumsq[0:N])
  for (int i = 0; i < N; i++) {
    sum[i] = 0.0;
    sumsq[i] = 0.0;
  }
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(tofrom: sum[0:N], sumsq[0:N])
    for (int i = 0; i < N; i++) {
      double v = a[i] * (step + 1) * 0.5;
      sum[i] += v;
      sumsq[i] += v * v;
    }
  }
#pragma omp target exit data map(from: sum[0:N], sumsq[0:N]) map(delete: a[0:N])

  double s = 0.0, q = 0.0;
  for (int i = 0; i < N; i++) {
    s += sum[i];
    q += sumsq[i];
  }
  printf("dup_content: sum %.6f sumsq %.6f\n", s, q);
  free(a);
  free(sum);
  free(sumsq);
  return 0;
}
