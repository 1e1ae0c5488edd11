/* dup_resend_fixed.c - omplens example: fixed twin of dup_resend.c.
 *
 * Fix: coef is mapped once by the enclosing `target data`, so it is
 * allocated and copied to the device a single time; the kernel's map(to:)
 * finds it present and copies nothing. Same result as dup_resend.c.
 *
 * Expected omplens findings (dup_resend_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* elements per array: 8 MB of doubles */
#define ITERS 10

int main(void)
{
  double *coef = malloc(N * sizeof *coef);
  double *x = malloc(N * sizeof *x);
  if (!coef || !x)
    return 1;
  for (int i = 0; i < N; i++) {
    coef[i] = 1.0 + (i % 7) * 0.125;
    x[i] = (i % 13) * 0.5;
  }

  /* Both arrays stay on the device for the whole loop. */
#pragma omp target data map(to: coef[0:N]) map(tofrom: x[0:N])
  {
    for (int it = 0; it < ITERS; it++) {
      /* coef and x are present: no allocation, no copy. */
#pragma omp target teams distribute parallel for map(to: coef[0:N]) map(tofrom: x[0:N])
      for (int i = 0; i < N; i++)
        x[i] = x[i] * 0.5 + coef[i];
    }
  }

  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += x[i];
  printf("dup_resend: checksum %.6f\n", sum);
  free(coef);
  free(x);
  return 0;
}
