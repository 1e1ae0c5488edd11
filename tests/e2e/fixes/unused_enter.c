/* A solver's set-up maps its state and a table of host-side diagnostics
 * with one enter data; the time loop's kernels use the state alone, and
 * only the host reads the table (minifmm's M2L lists, HPC Jacobi's mesh).
 * Kernels run while the table is on the device, but none is given it: the
 * table's allocation and its copy serve no kernel, and the item goes.
 * The target data region around the second phase does the same with its
 * own host-only array (minmax), beside the array its kernel fills. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 4

static double norm_of(const double *v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return s;
}

int main(void) {
  double *u = malloc(N * sizeof *u);
  double *table = malloc(N * sizeof *table);
  double *v = malloc(N * sizeof *v);
  double *minmax = malloc(2 * sizeof *minmax);
  if (!u || !table || !v || !minmax)
    return 1;
  for (int i = 0; i < N; i++) {
    u[i] = (i % 7) * 0.25;
    table[i] = 1.0 / (1 + i);
  }
  minmax[0] = 0.0;
  minmax[1] = 1.0;

#pragma omp target enter data map(to: u[0:N], table[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      u[i] = 0.5 * u[i] + 0.25;
  }
  double weighted = 0.0;
  for (int i = 0; i < N; i++) /* the host's own use of the table */
    weighted += table[i];
#pragma omp target exit data map(from: u[0:N]) map(delete: table[0:N])

#pragma omp target data map(from: v[0:N]) map(to: minmax[0:2])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      v[i] = i * 0.5;
    weighted += minmax[1] - minmax[0];
  }
  printf("norm %.6f %.6f weighted %.6f\n", norm_of(u, N), norm_of(v, N), weighted);
  free(u);
  free(v);
  free(table);
  free(minmax);
  return 0;
}
