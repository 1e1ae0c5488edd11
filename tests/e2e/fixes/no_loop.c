/* no_loop.c - fixture of the fix proof tests: a function with a kernel
 * run twice in straight-line code, once directly and once through another
 * function, with no loop anywhere. No diff is made (there is no loop to
 * wrap), and the recipe speaks of the code between the runs, not of a
 * loop the reason has just said is not there. */
#include <stdio.h>

#define N 4096

static void bump(double *x, int n)
{
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] += 1.0;
}

static void second_stage(double *x) { bump(x, N); }

int main(void)
{
  static double a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  bump(a, N);
  second_stage(a);
  printf("no_loop: %.1f\n", a[N - 1]);
  return 0;
}
