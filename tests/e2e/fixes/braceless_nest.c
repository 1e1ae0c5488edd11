/* Time-step loops whose body is another loop without braces, the shape
 * of many solvers: no line fits between the two loops, so the data
 * region goes around the outer loop, which holds nothing else. One nest
 * calls a function whose kernel maps its argument; the other runs the
 * kernel in main itself. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define SWEEPS 4

static void relax(double *x, int n) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] = x[i] + 1.0;
}

int main(void) {
  double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
  if (!u || !v)
    return 1;
  for (int i = 0; i < N; i++)
    u[i] = i, v[i] = -i;
  for (int step = 0; step < 10; step++)
    for (int s = 0; s < SWEEPS; s++)
      relax(u, N);
  for (int step = 0; step < 10; step++)
    for (int s = 0; s < SWEEPS; s++) {
#pragma omp target teams distribute parallel for map(tofrom: v[0:N])
      for (int i = 0; i < N; i++)
        v[i] = v[i] + 2.0;
    }
  double su = 0, sv = 0;
  for (int i = 0; i < N; i++) {
    su += u[i];
    sv += v[i];
  }
  printf("%.1f %.1f\n", su, sv);
  free(u);
  free(v);
  return 0;
}
