/* Kernels given a pointer into a buffer rather than its start: the
 * interior of a field with a ghost cell at each end (`u + 1`), and the
 * second half of another (`&w[HALF]`). Around the caller's loop, each item
 * maps that part of the caller's buffer: u[1:N], w[HALF:HALF]. */
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define HALF 512

static void smooth(double *x, int n) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] = x[i] + 0.5;
}

static void shift(double *y) {
#pragma omp target teams distribute parallel for map(tofrom: y[:HALF])
  for (int i = 0; i < HALF; i++)
    y[i] = y[i] + 1.5;
}

int main(void) {
  double *u = malloc((N + 2) * sizeof *u), *w = malloc(2 * HALF * sizeof *w);
  if (!u || !w)
    return 1;
  for (int i = 0; i < N + 2; i++)
    u[i] = i;
  for (int i = 0; i < 2 * HALF; i++)
    w[i] = -i;
  for (int step = 0; step < 12; step++) {
    smooth(u + 1, N);
    shift(&w[HALF]);
  }
  double su = 0, sw = 0;
  for (int i = 0; i < N + 2; i++)
    su += u[i];
  for (int i = 0; i < 2 * HALF; i++)
    sw += w[i];
  printf("%.1f %.1f\n", su, sw);
  free(u);
  free(w);
  return 0;
}
