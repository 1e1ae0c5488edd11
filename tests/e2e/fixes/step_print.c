/* A relaxation loop whose kernel maps the grid every step, and the host
 * prints a value of the grid every few steps, as solvers print progress:
 * the region goes around the step loop itself (the loop that holds the
 * kernel), with a `target update from` before the statement that prints,
 * in the steps that print. The last steps print nothing, so the region's
 * copy back at its end brings their work. */
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
    if (step % 4 == 3) {
      printf("step %d: %.6f %.6f\n", step, grid[0], grid[N - 1]);
    }
  }
  printf("end: %.6f\n", grid[N / 2]);
  free(grid);
  return 0;
}
