/* host_copy_resend.c - precision case: a result copied on the host and sent
 * back through another buffer.
 *
 * Pattern: a smoothing filter keeps its old and new grids on the device.
 * Each step the kernel computes newg from oldg; the host copies newg back
 * (needed: it reads it), then memcpy's it into oldg and sends oldg to the
 * device for the next step. The device sent exactly this content out of
 * newg and still holds it there: a round trip through another host buffer,
 * every step (the last one also arrives after the last kernel, but the
 * round trip takes precedence over unused-transfer).
 * Fix: host_copy_resend_fixed.c copies newg into oldg on the device.
 *
 * Expected omplens findings (host_copy_resend.expected):
 *   round-trip-other-buffer  line 45  device 0  6  oldg, steps 1..6
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
      /* WASTE: the device has this very content in newg already. */
      memcpy(oldg, newg, N * sizeof *oldg);
#pragma omp target update to(oldg[0:N])
    }
  }
  for (int i = 0; i < N; i++)
    checksum += newg[i] * (i % 3);
  printf("host_copy_resend: checksum %.6f\n", checksum);
  free(oldg);
  free(newg);
  return 0;
}
