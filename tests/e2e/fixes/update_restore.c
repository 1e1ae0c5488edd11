/* update_restore.c - fixture of the fix proof tests: a `target update to`
 * that restores what a kernel overwrote on the device.
 *
 * The kernel uses the device's copy of w as scratch space, and the update
 * sends the host's w again before the next step. No copy back shows the
 * kernel's change, so the trace sees the same bytes sent to a device that
 * still holds them (a duplicate). The source shows the kernel writing w:
 * removing the update would change the output, so the fix must stay manual
 * and say why.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define STEPS 5

int main(void)
{
  double *w = malloc(N * sizeof *w);
  double *y = malloc(N * sizeof *y);
  if (!w || !y)
    return 1;
  for (int i = 0; i < N; i++)
    w[i] = 1.0 + (i % 5) * 0.5;

  double total = 0.0;
#pragma omp target enter data map(to: w[0:N]) map(alloc: y[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++) {
      y[i] = w[i] * (step + 2);
      w[i] = y[i] - 1.0;
    }
#pragma omp target update from(y[0:N])
#pragma omp target update to(w[0:N])
    for (int i = 0; i < N; i++)
      total += y[i];
  }
#pragma omp target exit data map(delete: w[0:N], y[0:N])
  printf("update_restore: total %.3f\n", total);
  free(w);
  free(y);
  return 0;
}
