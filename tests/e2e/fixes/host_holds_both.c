/* host_holds_both.c - fixture of the fix proof tests: one `target update
 * from` whose copies bring back, in each step, first bytes the host
 * already holds in another array (a kernel computes b as another kernel
 * computed a) and then bytes it holds in b itself (nothing changed b on
 * the device since). The recipe speaks to both kinds of copies. */
#include <stdio.h>

enum { N = 2048, STEPS = 3 };

int main(void)
{
  static double a[N], b[N];
  double sum = 0.0;
#pragma omp target data map(alloc: a[0:N], b[0:N])
  for (int s = 0; s < STEPS; s++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      a[i] = 0.5 * i + s;
#pragma omp target update from(a[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      b[i] = 0.5 * i + s;
    for (int k = 0; k < 2; k++) {
#pragma omp target update from(b[0:N])
      sum += b[k] - a[k];
    }
  }
  printf("host_holds_both: %.1f\n", sum);
  return 0;
}
