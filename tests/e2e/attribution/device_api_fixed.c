/* device_api.c fixed: the table is allocated and uploaded once, before the
 * loop, and the result is downloaded once, after it. Nothing to report. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 4

int main(void) {
  int dev = omp_get_default_device();
  int host = omp_get_initial_device();
  double *h = malloc(N * sizeof *h);
  double *out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++)
    h[i] = i * 0.5;
  double *d_table = omp_target_alloc(N * sizeof *d_table, dev);
  double *d_result = omp_target_alloc(N * sizeof *d_result, dev);
  omp_target_memcpy(d_table, h, N * sizeof *h, 0, 0, dev, host);
  double sum = 0;
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for is_device_ptr(d_table, d_result) device(dev)
    for (int i = 0; i < N; i++)
      d_result[i] = 2.0 * d_table[i];
  }
  omp_target_memcpy(out, d_result, N * sizeof *out, 0, 0, host, dev);
  sum += STEPS * out[N - 1];
  omp_target_free(d_result, dev);
  omp_target_free(d_table, dev);
  printf("sum %.1f\n", sum);
  free(h);
  free(out);
  return 0;
}
