/* Attribution test: the directive comes from a _Pragma inside a macro; the
 * finding points at the line where the macro is used. */
#include <stdio.h>
#include <stdlib.h>

/* _Pragma text is not macro-substituted, so the macro names the variables. */
#define OFFLOAD_SCALE \
  _Pragma("omp target teams distribute parallel for map(to: coef[0:n]) map(tofrom: a[0:n])") \
  for (int i = 0; i < n; i++) a[i] *= coef[i];

int main(void)
{
  int n = 1 << 16;
  double *a = malloc(n * sizeof *a), *coef = malloc(n * sizeof *coef);
  for (int i = 0; i < n; i++) {
    a[i] = 1.0;
    coef[i] = 1.0 + (i % 3) * 0.5;
  }
#pragma omp target data map(tofrom: a[0:n])
  for (int it = 0; it < 4; it++) {
    OFFLOAD_SCALE
  }
  printf("a[7] = %.3f\n", a[7]);
  free(a);
  free(coef);
  return 0;
}
