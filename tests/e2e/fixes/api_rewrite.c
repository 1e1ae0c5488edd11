/* api_rewrite.c - fixture of the fix proof tests: omp_target_memcpy sends
 * the same host array to a device buffer every step, and a kernel that
 * takes the buffer with is_device_ptr scales it in place. The trace sees a
 * duplicate (kernel writes are not in it); the recipe says to check that
 * kernel before dropping the copy, and names it. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 2048, STEPS = 4 };

int main(void)
{
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double *h = malloc(N * sizeof *h), sum = 0.0;
  double *d = omp_target_alloc(N * sizeof *d, dev);
  if (!h || !d)
    return 1;
  for (int i = 0; i < N; i++)
    h[i] = i % 9;
  for (int s = 0; s < STEPS; s++) {
    omp_target_memcpy(d, h, N * sizeof *d, 0, 0, dev, host);
#pragma omp target teams distribute parallel for is_device_ptr(d) reduction(+: sum)
    for (int i = 0; i < N; i++) {
      d[i] *= 2.0;
      sum += d[i];
    }
  }
  printf("api_rewrite: %.1f\n", sum);
  omp_target_free(d, dev);
  free(h);
  return 0;
}
