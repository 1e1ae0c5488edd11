/* update_resend.c - fixture of the fix proof tests: `target update to` in a
 * time loop re-sending what the device still holds.
 *
 * x and c live on the device for the whole run (enter data before the loop,
 * exit data after it). The device computes x once and the host takes a copy
 * (`update from`). In every step the loop sends both again:
 *   - x: the first re-send brings the returned copy back unchanged (a round
 *     trip), every later one is a duplicate: all of them can go, so the fix
 *     removes the directive;
 *   - c: the first send is needed (the device buffer is fresh), every later
 *     one is a duplicate: the fix runs it only when step == 0.
 * The program must print the same lines before and after, and record no
 * finding after.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define STEPS 6

int main(void)
{
  double *x = malloc(N * sizeof *x);
  double *c = malloc(N * sizeof *c);
  double *y = malloc(N * sizeof *y);
  if (!x || !c || !y)
    return 1;
  for (int i = 0; i < N; i++)
    c[i] = 0.5 + (i % 9) * 0.125;

#pragma omp target enter data map(alloc: x[0:N], c[0:N], y[0:N])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++)
    x[i] = 1.0 + (i % 13) * 0.5;
#pragma omp target update from(x[0:N])

  double total = 0.0;
  for (int step = 0; step < STEPS; step++) {
#pragma omp target update to(c[0:N])
#pragma omp target update to(x[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      y[i] = x[i] * c[i] + step;
#pragma omp target update from(y[0:N])
    for (int i = 0; i < N; i++)
      total += y[i];
    printf("update_resend: step %d y[7] = %.3f\n", step, y[7]);
  }
#pragma omp target exit data map(delete: x[0:N], c[0:N], y[0:N])

  printf("update_resend: total %.3f x[5] = %.3f\n", total, x[5]);
  free(x);
  free(c);
  free(y);
  return 0;
}
