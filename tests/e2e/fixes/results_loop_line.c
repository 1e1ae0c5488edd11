/* results_loop_line.c - fixture of the fix proof tests: a function whose
 * target maps three results `from`, called in a loop written on one line,
 * so every step allocates them again. No diff wraps a loop that does not
 * start its line; the recipe names every result of the directive,
 * not only the first one's. */
#include <stdio.h>

#define N 2048

static void fill(double *x, double *y, double *z, int n, int step)
{
#pragma omp target teams distribute parallel for map(from: x[0:n], y[0:n], z[0:n])
  for (int i = 0; i < n; i++) {
    x[i] = i + step;
    y[i] = 2.0 * i + step;
    z[i] = 3.0 * i + step;
  }
}

int main(void)
{
  static double x[N], y[N], z[N];
  int s; for (s = 0; s < 6; s++) fill(x, y, z, N, s);
  double sum = x[1] + y[1] + z[1];
  printf("results_loop_line: %.1f\n", sum);
  return 0;
}
