/* dup_resend.c - omplens example: a read-only array re-sent to every kernel.
 *
 * Pattern: `coef` never changes, but the kernel inside the loop maps it with
 * map(to:). Each iteration therefore allocates coef on the device, copies the
 * same 8 MB into it again and frees it. Only the first copy is needed.
 * Fix: dup_resend_fixed.c maps coef once, in the enclosing `target data`.
 *
 * Expected omplens findings (dup_resend.expected):
 *   duplicate-transfer  line 36  device 0  9  coef re-sent in iterations 2..10
 *   repeated-alloc      line 36  device 0  9  coef re-allocated in iterations 2..10
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

  /* x stays on the device for the whole loop: copied in once, out once.
   * The kernel's map(tofrom: x) finds it present and copies nothing. */
#pragma omp target data map(tofrom: x[0:N])
  {
    for (int it = 0; it < ITERS; it++) {
      /* WASTE: coef is not present, so this map(to:) allocates, copies and
       * frees it on every iteration although its content never changes. */
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
