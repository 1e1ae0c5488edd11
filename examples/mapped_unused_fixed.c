/* mapped_unused_fixed.c - the twin of mapped_unused.c without the unused map item.
 *
 * The kernel maps `scratch` "in case it is needed" but never touches it: every
 * launch allocates it on the device and copies 8 MB in for nothing. The
 * runtime cannot tell (a kernel does run after the copy); only the source can.
 * Fix: mapped_unused_fixed.c drops the item.
 *
 * Expected omplens findings (mapped_unused.expected):
 *   mapped-but-unreferenced  line 34  device 0  10  scratch (5 copies + 5 allocations)
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)
#define STEPS 5

int main(void)
{
  double *x = malloc(N * sizeof *x);
  double *scratch = malloc(N * sizeof *scratch);
  if (!x || !scratch)
    return 1;
  for (int i = 0; i < N; i++) {
    x[i] = (i % 7) * 0.5;
    scratch[i] = 0.0;
  }

#pragma omp target enter data map(to: x[0:N])
  for (int step = 0; step < STEPS; step++) {
    /* FIXED: scratch is no longer mapped; x is already present, so its
     * map moves nothing. */
    int s = step;
    (void)s;
#pragma omp target teams distribute parallel for map(tofrom: x[0:N])
    for (int i = 0; i < N; i++)
      x[i] = x[i] * 0.5 + 1.0;
  }
#pragma omp target exit data map(from: x[0:N])

  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += x[i];
  printf("mapped_unused: checksum %.6f\n", sum);
  free(x);
  free(scratch);
  return 0;
}
