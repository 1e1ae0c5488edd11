/* reduction_reset.c - precision case: a reduction variable zeroed on the host.
 *
 * Pattern: a relaxation loop measures its progress with a dot product each
 * step. The kernel maps its reduction variable tofrom, so every step
 * allocates sum on the device, sends the host's 0.0 into it, and copies the
 * result back. From step 2 on the zero is content the device held before
 * (step 1's zero) and then replaced with a result: a re-initialization, not
 * a duplicate. The 8-byte allocation is also repeated.
 * Fix: reduction_reset_fixed.c keeps sum on the device, zeroes it there and
 * only copies the result back.
 *
 * Expected omplens findings (reduction_reset.expected):
 *   reinitialization  line 44  device 0  4  sum sent as 0.0 in steps 2..5
 *   repeated-alloc    line 44  device 0  4  sum allocated again in steps 2..5
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
#pragma omp target data map(to: x[0:N]) map(tofrom: y[0:N])
  {
    for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(tofrom: y[0:N])
      for (int i = 0; i < N; i++)
        y[i] = 0.5 * y[i] + 0.25 * x[i];
      /* WASTE from step 2 on: sum = 0.0 is sent again after the device
       * replaced it with the previous step's result. */
      sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: x[0:N], y[0:N]) map(tofrom: sum)
      for (int i = 0; i < N; i++)
        sum += x[i] * y[i];
      printf("reduction_reset: step %d x.y = %.6f\n", step, sum);
      checksum += sum;
    }
  }
  printf("reduction_reset: checksum %.6f\n", checksum);
  free(x);
  free(y);
  return 0;
}
