/* lu_steps.c - fixture of the fix proof tests: an LU factorization whose
 * step loop runs two kernels, each mapping the whole matrix `tofrom`
 * (Rodinia lud's first offload level). The findings of both directives
 * belong to one region around the step loop. */
#include <stdio.h>

enum { N = 64 };

static void factor(float *a, int size)
{
  for (int i = 0; i < size; i++) {
#pragma omp target teams distribute parallel for map(to: size) map(tofrom: a[0:size * size])
    for (int j = i; j < size; j++) {
      float sum = a[i * size + j];
      for (int k = 0; k < i; k++)
        sum -= a[i * size + k] * a[k * size + j];
      a[i * size + j] = sum;
    }
#pragma omp target teams distribute parallel for map(to: size) map(tofrom: a[0:size * size])
    for (int j = i + 1; j < size; j++) {
      float sum = a[j * size + i];
      for (int k = 0; k < i; k++)
        sum -= a[j * size + k] * a[k * size + i];
      a[j * size + i] = sum / a[i * size + i];
    }
  }
}

int main(void)
{
  static float m[N * N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      m[i * N + j] = i == j ? (float)N : 1.0f / (float)(1 + i + j);
  factor(m, N);
  printf("lu_steps: %.5f %.5f\n", m[N + 1], m[N * N - 1]);
  return 0;
}
