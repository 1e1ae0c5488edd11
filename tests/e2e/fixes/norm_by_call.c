/* A field swept a few times a step on the device, and a host function
 * that takes it as a pointer to const sums its norm after every step, as
 * solvers check their residual. The call is a read: the region goes around
 * the step loop with a `target update from` right before the statement
 * that makes the call, and, that call being the step's last use of the
 * field, the region maps it `to`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#define N 4096
#define STEPS 6
static void relax(double *u, int n) {
#pragma omp target teams distribute parallel for map(tofrom: u[0:n])
  for (int i = 0; i < n; i++)
    u[i] = 0.5 * u[i] + 0.125;
}
static double norm_of(const double *u, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  return sqrt(s);
}
int main(void) {
  double *u = malloc(N * sizeof *u);
  if (!u)
    return 1;
  for (int i = 0; i < N; i++)
    u[i] = i % 7;
  for (int step = 0; step < STEPS; step++) {
    for (int it = 0; it < 3; it++)
      relax(u, N);
    double norm = norm_of(u, N);
    printf("%d %.6f\n", step, norm);
  }
  free(u);
  return 0;
}
