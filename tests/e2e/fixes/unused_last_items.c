/* unused_last_items.c: one kernel maps three arrays in one clause and uses
 * only the first; the data region keeps that one on the device. The two
 * unused items are the clause's last two: both removals must fit in one
 * patch (each item but the first goes with the comma before it). */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 5

int main(void)
{
  double *x = malloc(N * sizeof *x), *w = malloc(N * sizeof *w), *z = malloc(N * sizeof *z);
  if (!x || !w || !z)
    return 1;
  for (int i = 0; i < N; i++) {
    x[i] = i * 0.5;
    w[i] = 1.0;
    z[i] = 2.0;
  }
#pragma omp target data map(tofrom: x[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:N], w[0:N], z[0:N])
    for (int i = 0; i < N; i++)
      x[i] = x[i] * 0.75 + step;
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += x[i];
  printf("unused_last_items: checksum %.6f\n", sum);
  free(x);
  free(w);
  free(z);
  return 0;
}
