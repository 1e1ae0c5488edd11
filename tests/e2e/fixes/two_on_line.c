/* two_on_line.c - fixture of the fix proof tests: a function with a
 * kernel, called twice on one line of a loop's body, once for each of two
 * arrays. The findings of its item come by both calls; the call path's
 * columns tell the calls apart, and the fix keeps both arrays on the
 * device across the loop. */
#include <stdio.h>

enum { N = 4096, STEPS = 6 };

static void relax(double *x, int n)
{
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] = 0.5 * x[i] + 1.0;
}

int main(void)
{
  static double u[N], w[N];
  for (int i = 0; i < N; i++) {
    u[i] = i % 13;
    w[i] = 3.0 * (i % 7);
  }
  for (int s = 0; s < STEPS; s++) {
    relax(u, N); relax(w, N);
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += u[i] - w[i];
  printf("two_on_line: %.6f\n", sum);
  return 0;
}
