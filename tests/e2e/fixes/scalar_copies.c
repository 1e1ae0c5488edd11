/* Scalars a data region maps though no kernel can use the mapping: the
 * helper gets them by value (its kernel maps its own parameters of the
 * same names), and the kernel in smooth() names its scalar without a map
 * clause (firstprivate: a copy as the kernel's argument). The kernels ran
 * and were given none of them: the items go (and the enter data of the
 * scalar alone). */
#include <stdio.h>
#include <stdlib.h>

static void step(float *a, const float *b, size_t n, size_t m) {
#pragma omp target teams distribute parallel for
  for (size_t i = 0; i < n * m; i++)
    a[i] = 0.5f * a[i] + b[i];
}

static void solve(float *a, float *b, size_t n, size_t m, int iters) {
#pragma omp target data map(tofrom: a[0:n * m]) map(to: b[0:n * m]) map(to: n, m)
  for (int it = 0; it < iters; it++)
    step(a, b, n, m);
}

static double smooth(float *a, size_t len) {
  double w = 0.25;
#pragma omp target enter data map(to: w)
#pragma omp target teams distribute parallel for map(tofrom: a[0:len])
  for (size_t i = 0; i < len; i++)
    a[i] = (float)(a[i] * w);
#pragma omp target exit data map(delete: w)
  return w;
}

int main(void) {
  size_t n = 64, m = 32;
  float *a = malloc(n * m * sizeof *a), *b = malloc(n * m * sizeof *b), *c = malloc(n * sizeof *c);
  if (!a || !b || !c)
    return 1;
  for (size_t i = 0; i < n * m; i++) {
    a[i] = (float)i;
    b[i] = 1.0f;
  }
  for (size_t i = 0; i < n; i++)
    c[i] = (float)(i % 9);
  solve(a, b, n, m, 5);
  double w = smooth(c, n);
  double s = 0;
  for (size_t i = 0; i < n * m; i++)
    s += a[i];
  for (size_t i = 0; i < n; i++)
    s += c[i];
  printf("sum %.3f w %.2f\n", s, w);
  free(a);
  free(b);
  free(c);
  return 0;
}
