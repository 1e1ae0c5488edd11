/* resend_three_fixed.c - twin of resend_three.c: x stays on the device until
 * the three analyses are done; the host still gets its copy once.
 *
 * Expected omplens findings (resend_three_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)

int main(void)
{
  double *x = malloc(N * sizeof *x);
  double *scaled = malloc(N * sizeof *scaled);
  double *squared = malloc(N * sizeof *squared);
  double *shifted = malloc(N * sizeof *shifted);
  if (!x || !scaled || !squared || !shifted)
    return 1;

#pragma omp target data map(alloc: x[0:N])
  {
#pragma omp target teams distribute parallel for map(alloc: x[0:N])
    for (int i = 0; i < N; i++)
      x[i] = (double)((i * 29) % 512) / 64.0;
#pragma omp target update from(x[0:N])
    double profile = 0.0;
    for (int i = 0; i < N; i++)
      profile += x[i];
    printf("resend_three: profile %.6f\n", profile);

    /* x is present: these kernels copy only their results. */
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(from: scaled[0:N])
    for (int i = 0; i < N; i++)
      scaled[i] = 3.0 * x[i];
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(from: squared[0:N])
    for (int i = 0; i < N; i++)
      squared[i] = x[i] * x[i];
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(from: shifted[0:N])
    for (int i = 0; i < N; i++)
      shifted[i] = x[i] - 1.0;
  }

  double checksum = 0.0;
  for (int i = 0; i < N; i++)
    checksum += scaled[i] + squared[i] + shifted[i];
  printf("resend_three: checksum %.6f\n", checksum);
  free(x);
  free(scaled);
  free(squared);
  free(shifted);
  return 0;
}
