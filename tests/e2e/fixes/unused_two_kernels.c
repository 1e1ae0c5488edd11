/* unused_two_kernels.c: two kernels of one file each map, every step, an
 * array their bodies never name (w by the first, z by the second); the
 * arrays they use stay on the device. Each item's fix reads its own
 * construct back from the file, which keeps the last one it read: the
 * second fix must not take the first construct's. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 5

int main(void)
{
  double *x = malloc(N * sizeof *x), *w = malloc(N * sizeof *w);
  double *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
  if (!x || !w || !y || !z)
    return 1;
  for (int i = 0; i < N; i++) {
    x[i] = i * 0.5;
    w[i] = 1.0;
    y[i] = (i % 3) * 2.0;
    z[i] = 4.0;
  }
#pragma omp target data map(tofrom: x[0:N], y[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: w[0:N]) map(tofrom: x[0:N])
    for (int i = 0; i < N; i++)
      x[i] = x[i] * 0.75 + step;
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) map(to: z[0:N])
    for (int i = 0; i < N; i++)
      y[i] = y[i] * 0.5 + 0.125;
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += x[i] + y[i];
  printf("unused_two_kernels: checksum %.6f\n", sum);
  free(x);
  free(w);
  free(y);
  free(z);
  return 0;
}
