/* resend_three.c - precision case: a device result sent back to the device
 * three times.
 *
 * Pattern: a first kernel builds a profile x on the device; the host needs it
 * (it is printed), so it is copied back once and the device copy is
 * released. Three later analysis kernels then each map x with map(to:).
 * The first of them returns the device's own result unchanged: a round trip
 * (device -> host -> device). The device then holds x again, so the two
 * later copies are duplicates. Each of the three kernels also allocates x
 * again after the enter data's allocation.
 * Fix: resend_three_fixed.c keeps x on the device until the analyses are
 * done; only the copy back remains.
 *
 * Expected omplens findings (resend_three.expected):
 *   round-trip          line 48  device 0  1  x
 *   duplicate-transfer  line 51  device 0  1  x
 *   duplicate-transfer  line 54  device 0  1  x
 *   repeated-alloc      lines 48, 51, 54  device 0  1 each  x
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

#pragma omp target enter data map(alloc: x[0:N])
#pragma omp target teams distribute parallel for map(alloc: x[0:N])
  for (int i = 0; i < N; i++)
    x[i] = (double)((i * 29) % 512) / 64.0;
  /* Needed: the host reads the profile. */
#pragma omp target update from(x[0:N])
#pragma omp target exit data map(delete: x[0:N])
  double profile = 0.0;
  for (int i = 0; i < N; i++)
    profile += x[i];
  printf("resend_three: profile %.6f\n", profile);

  /* WASTE: the device produced x and nothing changed it since; the first
   * kernel returns it unchanged, the two others send it once more each. */
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(from: scaled[0:N])
  for (int i = 0; i < N; i++)
    scaled[i] = 3.0 * x[i];
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(from: squared[0:N])
  for (int i = 0; i < N; i++)
    squared[i] = x[i] * x[i];
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(from: shifted[0:N])
  for (int i = 0; i < N; i++)
    shifted[i] = x[i] - 1.0;

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
