/* dup_content.c - omplens example: identical content sent from two buffers.
 *
 * Pattern: the accumulators sum and sumsq are zero-filled on the host
 * (calloc) and copied to the device: the same 8 MB of zeros crosses twice,
 * from two different host buffers (omplens reports the second copy). Neither
 * copy is needed: the device can produce zeros itself.
 * Fix: dup_content_fixed.c maps them with map(alloc:) and zeroes them with a
 * kernel on the device.
 *
 * Expected omplens findings (dup_content.expected):
 *   duplicate-content  line 31  device 0  1  sumsq: same zeros as sum
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* elements per array: 8 MB of doubles */
#define STEPS 10

int main(void)
{
  double *a = malloc(N * sizeof *a);
  double *sum = calloc(N, sizeof *sum);
  double *sumsq = calloc(N, sizeof *sumsq);
  if (!a || !sum || !sumsq)
    return 1;
  for (int i = 0; i < N; i++)
    a[i] = (i % 23) * 0.125 - 1.0;

  /* WASTE: sum and sumsq are both 8 MB of zeros: the same content is sent
   * twice from two host buffers. */
#pragma omp target enter data map(to: a[0:N], sum[0:N], sumsq[0:N])
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
