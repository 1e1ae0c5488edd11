/* host_copy_resend_fixed.c - twin of host_copy_resend.c: the step's copy
 * newg -> oldg happens on the device, where both grids live; the host only
 * reads newg.
 *
 * Expected omplens findings (host_copy_resend_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define STEPS 6

int main(void)
{
  double *oldg = malloc(N * sizeof *oldg);
  double *newg = malloc(N * sizeof *newg);
  if (!oldg || !newg)
    return 1;
  for (int i = 0; i < N; i++)
    oldg[i] = (i % 64 == 0) ? 64.0 : 0.0;

  double checksum = 0.0;
#pragma omp target data map(to: oldg[0:N]) map(alloc: newg[0:N])
  {
    for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: oldg[0:N]) map(from: newg[0:N])
      for (int i = 0; i < N; i++) {
        double left = oldg[i > 0 ? i - 1 : i], right = oldg[i < N - 1 ? i + 1 : i];
        newg[i] = 0.25 * left + 0.5 * oldg[i] + 0.25 * right;
      }
#pragma omp target update from(newg[0:N])
      checksum += newg[step * 7] * (step + 1);
      /* Both grids are present: a device-side copy, nothing travels. */
#pragma omp target teams distribute parallel for map(to: newg[0:N]) map(from: oldg[0:N])
      for (int i = 0; i < N; i++)
        oldg[i] = newg[i];
    }
  }
  for (int i = 0; i < N; i++)
    checksum += newg[i] * (i % 3);
  printf("host_copy_resend: checksum %.6f\n", checksum);
  free(oldg);
  free(newg);
  return 0;
}
