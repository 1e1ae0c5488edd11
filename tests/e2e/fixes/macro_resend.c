/* macro_resend.c - fixture of the fix proof tests: a waste the fixer must
 * not patch. The kernel re-sends the read-only coef in every iteration (a
 * duplicate transfer and a repeated allocation, as in dup_resend.c), but its
 * directive is written in a macro: editing the macro would change every use
 * of it, so the fix must be a manual recipe that says why, with no diff.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
#define ITERS 4
/* The directive as a macro (names cannot be macro parameters: _Pragma's
 * string is not substituted). */
#define OFFLOAD_AXPY \
  _Pragma("omp target teams distribute parallel for map(to: coef[0:N]) map(tofrom: x[0:N])")

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
  for (int it = 0; it < ITERS; it++) {
    OFFLOAD_AXPY
    for (int i = 0; i < N; i++)
      x[i] = x[i] * 0.5 + coef[i];
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += x[i];
  printf("macro_resend: checksum %.6f\n", sum);
  free(coef);
  free(x);
  return 0;
}
