/* loop_local_norm.c - fixture of the fix proof tests: a residual norm
 * declared with its start value in each run of the step loop, `double
 * norm = 0.0;`, a kernel that does not use it, then a reduction into it
 * with no map clause (mapped `tofrom` implicitly), read by the host for
 * the stop test (HeCBench laplace). Each run maps a new variable: the
 * recipes of its repeated allocation and of its start value say to
 * declare it before the loop, not to map it across a loop where it does
 * not exist. */
#include <stdio.h>

enum { N = 4096, STEPS = 20 };

int main(void)
{
  static double u[N], r[N];
  for (int i = 0; i < N; i++)
    u[i] = (double)(i % 5);
#pragma omp target data map(tofrom: u[0:N]) map(alloc: r[0:N])
  for (int step = 0; step < STEPS; step++) {
    double norm = 0.0;
#pragma omp target teams distribute parallel for
    for (int i = 1; i < N - 1; i++)
      r[i] = 0.5 * (u[i - 1] + u[i + 1]) - u[i];
#pragma omp target teams distribute parallel for reduction(+ : norm)
    for (int i = 1; i < N - 1; i++) {
      u[i] += 0.5 * r[i];
      norm += r[i] * r[i];
    }
    if (norm < 1e-20)
      break;
  }
  printf("loop_local_norm: %.6f\n", u[N / 2]);
  return 0;
}
