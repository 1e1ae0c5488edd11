/* unused_items.c: two kernels in a loop map arrays "in case they are
 * needed". The first maps a, b and c and uses only a; the second maps d
 * and e and uses only d. a and d stay on the device (target data), so only
 * the unused items move: each step allocates and sends b, c and e again.
 * Only the source shows that the kernels never name them.
 * Fix: unused_items_fixed.c drops the three items. */
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
    /* WASTE: b and c are allocated and sent each step; the body uses a. */
#pragma omp target teams distribute parallel for map(to: b[0:N], c[0:N]) map(tofrom: a[0:N])
    for (int i = 0; i < N; i++)
      a[i] = a[i] * 0.5 + step;
    /* WASTE: e is allocated and sent each step; the body uses d. */
#pragma omp target teams distribute parallel for map(to: e[0:N]) map(tofrom: d[0:N])
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
