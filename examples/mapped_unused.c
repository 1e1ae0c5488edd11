/* mapped_unused.c - omplens example: a map item the kernel never uses.
 *
 * The kernel maps `scratch` "in case it is needed" but never touches it: every
 * launch allocates it on the device and copies 8 MB in for nothing. The
 * runtime cannot tell (a kernel does run after the copy); only the source can.
 * Fix: mapped_unused_fixed.c drops the item.
 *
 * Expected omplens findings (mapped_unused.expected), all on scratch at line 36:
 *   mapped-but-unreferenced  10  (5 copies + 5 allocations; from the source)
 *   duplicate-transfer        4  (steps 2..5 re-send the same bytes)
 *   repeated-alloc            4  (steps 2..5 allocate it again)
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
    /* WASTE: scratch is mapped (allocated and copied) but the body never
     * names it. x is already present, so its map moves nothing. */
    int s = step;
    (void)s;
#pragma omp target teams distribute parallel for map(to: scratch[0:N]) map(tofrom: x[0:N])
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
