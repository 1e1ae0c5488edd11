/* hoist_no_loop.c - fixture of the fix proof tests: a function whose
 * `target data` allocates a scratch array on the device (`map(alloc:)`),
 * called twice in a row from main, in no loop. The second call allocates
 * it again; the recipe names the loop that would run the directive each
 * time, not a loop around it that does not exist. */
#include <stdio.h>

enum { N = 4096 };

static double scratch[N];

static double pass(const double *x, int n)
{
  double sum = 0.0;
#pragma omp target data map(alloc: scratch[0:n]) map(to: x[0:n])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      scratch[i] = 2.0 * x[i];
#pragma omp target teams distribute parallel for reduction(+: sum)
    for (int i = 0; i < n; i++)
      sum += scratch[i];
  }
  return sum;
}

int main(void)
{
  static double x[N];
  for (int i = 0; i < N; i++)
    x[i] = i % 4;
  double a = pass(x, N);
  double b = pass(x, N);
  printf("hoist_no_loop: %.1f\n", a + b);
  return 0;
}
