/* update_from_unchanged.c: a loop's `target update from(a, c)` brings
 * back, each step, the result its kernel computes and an input the data
 * region sent once and no kernel writes. The input's copies carry the
 * bytes the region sent (a round trip the first time, duplicates of what
 * the host holds after that): it leaves the update, though the copy in
 * was the region's and not the update's own; the result stays. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 6

int main(void)
{
  double *a = malloc(N * sizeof *a), *c = malloc(N * sizeof *c);
  if (!a || !c)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = i * 0.5 + 1.0;
    c[i] = 0.0;
  }
  double sum = 0.0;
#pragma omp target data map(to: a[0:N]) map(tofrom: c[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      c[i] += a[i] * a[i] + step;
#pragma omp target update from(a[0:N], c[0:N])
    sum += a[step] + c[step];
  }
  printf("update_from_unchanged: checksum %.6f\n", sum);
  free(a);
  free(c);
  return 0;
}
