/* Running sums of two evolving fields, kept on the device across the time
 * loop. At the first step a sum, zero until then, comes back equal to its
 * field: a copy back of content the host holds in another array, left
 * manual by its own rule (when kernels write the data cannot be told), but
 * one the region around the loop removes with the others. */
#include <stdio.h>
#include <stdlib.h>
#define N 2048
static void add(double *acc, const double *x, int n) {
#pragma omp target teams distribute parallel for map(tofrom: acc[0:n]) map(to: x[0:n])
  for (int i = 0; i < n; i++)
    acc[i] += x[i];
}
static void evolve(double *x, double rate, int n) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] = x[i] * rate + 1.0;
}
int main(void) {
  double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
  double *su = calloc(N, sizeof *su), *sv = malloc(N * sizeof *sv);
  if (!u || !v || !su || !sv)
    return 1;
  for (int i = 0; i < N; i++) {
    u[i] = i % 3;
    v[i] = i % 7;
    sv[i] = 1.0;
  }
  for (int step = 0; step < 10; step++) {
    evolve(u, 0.5, N);
    evolve(v, 0.25, N);
    add(su, u, N);
    add(sv, v, N);
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    s += su[i] + 2 * sv[i];
  printf("%.3f\n", s);
  free(u);
  free(v);
  free(su);
  free(sv);
  return 0;
}
