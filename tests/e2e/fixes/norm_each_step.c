/* A field swept a few times a step on the device, then its norm summed on
 * the host by a parallel loop, each step's norm kept for the end. The
 * region goes around the step loop; the field's update goes before the
 * host's parallel loop, not into its body, where every thread would make
 * it; and, that loop being the step's last work, the region maps it `to`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#define N 4096
#define STEPS 6
static void sweep(double *u, int n) {
#pragma omp target teams distribute parallel for map(tofrom: u[0:n])
  for (int i = 0; i < n; i++)
    u[i] = 0.5 * u[i] + 0.125;
}
int main(void) {
  double *u = malloc(N * sizeof *u), norms[STEPS];
  if (!u)
    return 1;
  for (int i = 0; i < N; i++)
    u[i] = i % 9;
  for (int step = 0; step < STEPS; step++) {
    for (int it = 0; it < 3; it++)
      sweep(u, N);
    double s = 0;
#pragma omp parallel for reduction(+: s)
    for (int i = 0; i < N; i++) {
      s += u[i] * u[i];
    }
    norms[step] = sqrt(s);
  }
  for (int step = 0; step < STEPS; step++)
    printf("%d %.6f\n", step, norms[step]);
  free(u);
  return 0;
}
