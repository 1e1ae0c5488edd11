/* reduction_reset_fixed.c - twin of reduction_reset.c: sum stays on the
 * device for the whole loop and is zeroed there; only each step's result
 * travels, device -> host.
 *
 * Expected omplens findings (reduction_reset_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define STEPS 5

int main(void)
{
  double *x = malloc(N * sizeof *x);
  double *y = malloc(N * sizeof *y);
  if (!x || !y)
    return 1;
  for (int i = 0; i < N; i++) {
    x[i] = 1.0 + (i % 11) * 0.125;
    y[i] = (i % 7) * 0.25;
  }

  double sum = 0.0;
  double checksum = 0.0;
#pragma omp target data map(to: x[0:N]) map(tofrom: y[0:N]) map(alloc: sum)
  {
    for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(tofrom: y[0:N])
      for (int i = 0; i < N; i++)
        y[i] = 0.5 * y[i] + 0.25 * x[i];
      /* sum is present: neither construct copies it. */
#pragma omp target map(tofrom: sum)
      sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: x[0:N], y[0:N]) map(tofrom: sum)
      for (int i = 0; i < N; i++)
        sum += x[i] * y[i];
#pragma omp target update from(sum)
      printf("reduction_reset: step %d x.y = %.6f\n", step, sum);
      checksum += sum;
    }
  }
  printf("reduction_reset: checksum %.6f\n", checksum);
  free(x);
  free(y);
  return 0;
}
