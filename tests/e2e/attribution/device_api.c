/* The device memory API in a time loop: every step allocates the table on
 * the device, uploads the same content, runs a kernel on it, downloads the
 * same result and frees it. Each event carries the API call's own code
 * address, so each finding is at the call's line, named after the routine,
 * with the argument as written (d_table). Fixed twin: device_api_fixed.c. */
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
  double *d_table;
  double sum = 0;
  for (int step = 0; step < STEPS; step++) {
    d_table = omp_target_alloc(N * sizeof *d_table, dev);
    omp_target_memcpy(d_table, h, N * sizeof *h, 0, 0, dev, host);
#pragma omp target teams distribute parallel for is_device_ptr(d_table) device(dev)
    for (int i = 0; i < N; i++)
      d_table[i] = 2.0 * d_table[i];
    omp_target_memcpy(out, d_table, N * sizeof *out, 0, 0, host, dev);
    sum += out[N - 1];
    omp_target_free(d_table, dev);
  }
  printf("sum %.1f\n", sum);
  free(h);
  free(out);
  return 0;
}
