/* unused_items_fixed.c: unused_items.c with the three unused items
 * dropped from the kernels' maps; a and d stay on the device for the loop,
 * so nothing moves but their first copy in and last copy out. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 4

int main(void)
{
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
  double *d = malloc(N * sizeof *d), *e = malloc(N * sizeof *e);
  if (!a || !b || !c || !d || !e)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = i * 0.25;
    b[i] = 1.0;
    c[i] = 2.0;
    d[i] = (i % 5) * 0.5;
    e[i] = 3.0;
  }
#pragma omp target data map(tofrom: a[0:N], d[0:N])
  for (int step = 0; step < STEPS; step++) {
    /* Only what the body uses: a is already on the device. */
#pragma omp target teams distribute parallel for map(tofrom: a[0:N])
    for (int i = 0; i < N; i++)
      a[i] = a[i] * 0.5 + step;
    /* Only d, already on the device. */
#pragma omp target teams distribute parallel for map(tofrom: d[0:N])
    for (int i = 0; i < N; i++)
      d[i] = d[i] + 1.0;
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += a[i] + d[i];
  printf("unused_items: checksum %.6f\n", sum);
  free(a);
  free(b);
  free(c);
  free(d);
  free(e);
  return 0;
}
