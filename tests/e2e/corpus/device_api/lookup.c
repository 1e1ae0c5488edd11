#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 12, STEPS = 6 };

int main(void) {
  int dev = omp_get_default_device();
  int host = omp_get_initial_device();
  size_t bytes = N * sizeof(double);
  double *table = malloc(bytes);
  double *out = malloc(bytes);
  if (!table || !out)
    return 1;
  for (int i = 0; i < N; i++)
    table[i] = (double)(i % 17) * 0.5;
  double total = 0.0;
  for (int t = 0; t < STEPS; t++) {
    /* A fresh device copy of the same table every step. */
    double *d = omp_target_alloc(bytes, dev);
    if (!d)
      return 1;
    omp_target_memcpy(d, table, bytes, 0, 0, dev, host);
#pragma omp target teams distribute parallel for is_device_ptr(d)
    for (int i = 0; i < N; i++)
      d[i] = d[i] * 2.0 + (double)t;
    omp_target_memcpy(out, d, bytes, 0, 0, host, dev);
    omp_target_free(d, dev);
    for (int i = 0; i < N; i++)
      total += out[i];
  }
  printf("checksum %.3f\n", total);
  free(table);
  free(out);
  return 0;
}
