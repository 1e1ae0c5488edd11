// memcpy_same_bytes.c: two device buffers made with omp_target_alloc and
// filled from two host arrays holding the same values, each with one
// omp_target_memcpy outside any loop (ParRes nstream-memcpy's B and C).
// The second copy sends bytes the device already received for the
// first: the recipe makes them on the device, not "move the call out of
// the loop".
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 50000

int main(void)
{
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double *h_first = malloc(N * sizeof(double)), *h_second = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++)
    h_first[i] = h_second[i] = 2.0;
  double *d_first = omp_target_alloc(N * sizeof(double), dev);
  double *d_second = omp_target_alloc(N * sizeof(double), dev);
  omp_target_memcpy(d_first, h_first, N * sizeof(double), 0, 0, dev, host);
  omp_target_memcpy(d_second, h_second, N * sizeof(double), 0, 0, dev, host);
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) is_device_ptr(d_first, d_second)
  for (int i = 0; i < N; i++)
    s += d_first[i] * d_second[i];
  printf("memcpy_same_bytes: %.1f\n", s);
  omp_target_free(d_first, dev);
  omp_target_free(d_second, dev);
  free(h_first);
  free(h_second);
  return 0;
}
