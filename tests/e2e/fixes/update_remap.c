/* update_remap.c - fixture of the fix proof tests: a `target update to`
 * that looks like a re-send but fills a fresh device buffer each time.
 *
 * Every step maps c anew (`target enter data map(alloc:)`), sends it with
 * `target update to`, runs a kernel and deletes the mapping. The trace
 * shows the same bytes going to the device again (a duplicate: freeing the
 * device buffer does not make the device forget), yet removing or guarding
 * the update would leave the fresh buffer unset. The fix must stay manual,
 * saying that the device buffer is freed or mapped anew between the copies.
 * (The result y, which the host sums after each kernel, gets a region
 * around the loop and an update before the sum.)
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define STEPS 5

int main(void)
{
  double *c = malloc(N * sizeof *c);
  double *y = malloc(N * sizeof *y);
  if (!c || !y)
    return 1;
  for (int i = 0; i < N; i++)
    c[i] = 0.25 + (i % 7) * 0.5;

  double total = 0.0;
  for (int step = 0; step < STEPS; step++) {
#pragma omp target enter data map(alloc: c[0:N])
#pragma omp target update to(c[0:N])
#pragma omp target teams distribute parallel for map(from: y[0:N])
    for (int i = 0; i < N; i++)
      y[i] = c[i] * (step + 2);
#pragma omp target exit data map(delete: c[0:N])
    for (int i = 0; i < N; i++)
      total += y[i];
  }
  printf("update_remap: total %.3f\n", total);
  free(c);
  free(y);
  return 0;
}
