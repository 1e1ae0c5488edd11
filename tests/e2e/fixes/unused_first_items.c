/* unused_first_items.c: one kernel maps three arrays in one clause and
 * uses only the last; the data region keeps that one on the device. The
 * two unused items are the clause's first two, side by side: removed one
 * by one, each would take the comma between them, and a patch could hold
 * only one. Removed as one change, both go. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 5

int main(void)
{
  double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v), *y = malloc(N * sizeof *y);
  if (!u || !v || !y)
    return 1;
  for (int i = 0; i < N; i++) {
    u[i] = 3.0;
    v[i] = 4.0;
    y[i] = i * 0.25;
  }
#pragma omp target data map(tofrom: y[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: u[0:N], v[0:N], y[0:N])
    for (int i = 0; i < N; i++)
      y[i] = y[i] * 0.5 + step;
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += y[i];
  printf("unused_first_items: checksum %.6f\n", sum);
  free(u);
  free(v);
  free(y);
  return 0;
}
