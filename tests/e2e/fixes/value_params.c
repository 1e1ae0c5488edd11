/* value_params.c - fixture of the fix tests: a kernel launcher that maps
 * its by-value scalar parameters `to` (HeCBench idivide's shape), called
 * in a loop: every call allocates and copies each scalar again. A region
 * around the caller's loop cannot keep them (the caller passes literals);
 * the fix writes them firstprivate instead. */
#include <stdio.h>

enum { N = 1 << 12 };

static double out[N];

static void scale(int n, double factor, double offset) {
#pragma omp target teams distribute parallel for map(to: n, factor, offset) map(tofrom: out[0:N])
  for (int i = 0; i < n; i++)
    out[i] = out[i] * factor + offset;
}

int main(void) {
  for (int i = 0; i < N; i++)
    out[i] = i % 5;
  for (int step = 0; step < 8; step++)
    scale(N, 0.5, 1.0);
  double sum = 0;
  for (int i = 0; i < N; i++)
    sum += out[i];
  printf("value_params: %.3f\n", sum);
  return 0;
}
