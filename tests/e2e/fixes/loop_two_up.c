// loop_two_up.c: a kernel in relax(), which advance() calls, which main's
// time loop calls (UoB-HPC flow's set_timestep, reached through
// solve_hydro_2d). The direct caller has no loop: no region is derived
// there, and the reason names the loop further up that repeats the
// kernel, rather than saying there is none.
#include <stdio.h>
#include <stdlib.h>

#define N 65536
#define STEPS 12

static void relax(double *field, int n)
{
#pragma omp target teams distribute parallel for map(tofrom: field[0:n])
  for (int i = 0; i < n; i++)
    field[i] = 0.5 * field[i] + 1.0;
}

static void advance(double *field, int n)
{
  relax(field, n);
}

int main(void)
{
  double *field = malloc(N * sizeof *field);
  for (int i = 0; i < N; i++)
    field[i] = i;
  for (int step = 0; step < STEPS; step++)
    advance(field, N);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += field[i];
  printf("loop_two_up: %.3f\n", s);
  free(field);
  return 0;
}
