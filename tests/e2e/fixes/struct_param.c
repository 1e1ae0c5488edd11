/* A structure of coefficients passed by value to a function whose kernel
 * maps it `to`, called every step, as cfd's compute_flux passes its Float3
 * flux contributions: each call's copy is a new allocation and copy. The
 * recipe must not promise that `firstprivate` sends nothing: LLVM still
 * allocates and copies a firstprivate structure at each launch. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048

struct coeffs {
  double a, b, c;
};

static void apply(double *x, int n, struct coeffs k)
{
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) map(to: k)
  for (int i = 0; i < n; i++)
    x[i] = k.a * x[i] * x[i] + k.b * x[i] + k.c;
}

int main(void)
{
  double *x = malloc(N * sizeof *x);
  if (!x)
    return 1;
  for (int i = 0; i < N; i++)
    x[i] = (i % 10) * 0.01;
  struct coeffs k = {0.25, 0.5, 0.125};
  for (int step = 0; step < 6; step++) {
    apply(x, N, k);
    printf("%d %.6f\n", step, x[N - 1]);
  }
  free(x);
  return 0;
}
