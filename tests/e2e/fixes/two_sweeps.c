/* Each step relaxes one field a few times, then lifts another from it,
 * each in a loop of its own inside the step loop. The regions go around
 * the step loop, which the host leaves alone: one region holds both
 * fields across every step, not one per inner loop and step. */
#include <stdio.h>
#include <stdlib.h>
#define N 2048
static void relax(double *u, int n) {
#pragma omp target teams distribute parallel for map(tofrom: u[0:n])
  for (int i = 0; i < n; i++)
    u[i] = 0.5 * u[i] + 0.25;
}
static void lift(double *v, const double *u, int n) {
#pragma omp target teams distribute parallel for map(to: u[0:n]) map(tofrom: v[0:n])
  for (int i = 0; i < n; i++)
    v[i] = v[i] + u[i];
}
int main(void) {
  double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
  if (!u || !v)
    return 1;
  for (int i = 0; i < N; i++) {
    u[i] = i % 5;
    v[i] = 0;
  }
  for (int step = 0; step < 6; step++) {
    for (int it = 0; it < 4; it++)
      relax(u, N);
    for (int it = 0; it < 2; it++)
      lift(v, u, N);
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    s += u[i] + v[i];
  printf("%.3f\n", s);
  free(u);
  free(v);
  return 0;
}
