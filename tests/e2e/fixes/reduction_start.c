/* reduction_start.c - fixture of the fix proof tests: a reduction whose
 * start value the host resets before every kernel (a re-initialization)
 * that no diff may move.
 *
 * The kernel maps sum implicitly (the reduction on a combined construct
 * maps it tofrom). Setting sum on the device would need it mapped before
 * the kernel and a kernel launch of its own: the fix stays a recipe, and
 * that recipe must name the statement that resets sum and its line.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define STEPS 5

int main(void)
{
  double *x = malloc(N * sizeof *x);
  if (!x)
    return 1;
  for (int i = 0; i < N; i++)
    x[i] = 1.0 + (i % 11) * 0.125;

  double sum = 0.0, checksum = 0.0;
#pragma omp target data map(to: x[0:N])
  for (int step = 0; step < STEPS; step++) {
    sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum)
    for (int i = 0; i < N; i++)
      sum += x[i] * (step + 1);
    printf("reduction_start: step %d sum %.6f\n", step, sum);
    checksum += sum;
  }
  printf("reduction_start: checksum %.6f\n", checksum);
  free(x);
  return 0;
}
