/* Attribution test: a directive in a header re-sends coef each call
 * (duplicate-transfer at stencil.h:6, variable coef). */
#include <stdio.h>
#include <stdlib.h>
#include "stencil.h"

int main(void)
{
  int n = 1 << 16;
  double *a = malloc(n * sizeof *a), *coef = malloc(n * sizeof *coef);
  for (int i = 0; i < n; i++) {
    a[i] = 1.0;
    coef[i] = 1.0 + (i % 3) * 0.5;
  }
#pragma omp target data map(tofrom: a[0:n])
  for (int it = 0; it < 4; it++)
    scale(a, coef, n);
  printf("a[7] = %.3f\n", a[7]);
  free(a);
  free(coef);
  return 0;
}
