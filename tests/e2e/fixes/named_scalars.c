/* named_scalars.c - fixture of the fix proof tests: scalar parameters
 * whose types are named by a macro and a typedef (miniFE's MINIFE_SCALAR,
 * set with -D), mapped `to` by name at each call. Both are numbers: the
 * fix writes them firstprivate, which LLVM passes with the launch. */
#include <stdio.h>

#define SCALAR double
typedef SCALAR weight_t;

enum { N = 4096, STEPS = 8 };

static void axpby(const SCALAR alpha, const double *x, const weight_t beta, double *y, int n)
{
#pragma omp target teams distribute parallel for map(to: x[0:n], alpha, beta) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = alpha * x[i] + beta * y[i];
}

int main(void)
{
  static double x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = (double)(i % 13);
    y[i] = 1.0;
  }
#pragma omp target data map(to: x[0:N]) map(tofrom: y[0:N])
  for (int s = 0; s < STEPS; s++)
    axpby(0.5 + s, x, 0.25, y, N);
  printf("named_scalars: %.3f\n", y[1]);
  return 0;
}
