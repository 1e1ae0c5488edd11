/* two_callers.c - fixture of the report's call paths: one function whose
 * kernel maps its argument tofrom, called once before a time loop and
 * then from two lines of the loop with the same array. The first call's
 * copies and allocation are no waste; each call in the loop brings half of
 * the findings' operations, so the report shows one of them as one of two
 * paths, each as frequent, not as the most frequent. */
#include <stdio.h>

enum { N = 2048, STEPS = 4 };

static void scale(double *a, double f)
{
#pragma omp target teams distribute parallel for map(tofrom: a[0:N])
  for (int i = 0; i < N; i++)
    a[i] *= f;
}

int main(void)
{
  static double a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  scale(a, 1.0);
  for (int s = 0; s < STEPS; s++) {
    scale(a, 2.0);
    scale(a, 0.5);
  }
  printf("two_callers: %.1f\n", a[N - 1]);
  return 0;
}
