/* A relaxation loop whose kernel maps the grid every step, and the host
 * prints a value of it every few steps in a braceless `if`, as solvers
 * print progress: the update before the `if` repeats its condition
 * (`target update from(...) if(step % 4 == 3)`), so that only the steps
 * that print copy the grid back, and the region around the step loop
 * keeps copying the grid back at its end. */
#include <stdio.h>
#include <stdlib.h>

#define N 8192
#define STEPS 14

int main(void)
{
  double *grid = malloc(N * sizeof *grid);
  if (!grid)
    return 1;
  for (int i = 0; i < N; i++)
    grid[i] = (i % 11) * 0.5;
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(tofrom: grid[0:N])
    for (int i = 0; i < N; i++)
      grid[i] = 0.75 * grid[i] + 0.25;
    if (step % 4 == 3)
      printf("step %d: %.6f %.6f\n", step, grid[0], grid[N - 1]);
  }
  printf("end: %.6f\n", grid[N / 2]);
  free(grid);
  return 0;
}
