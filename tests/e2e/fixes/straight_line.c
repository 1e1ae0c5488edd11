/* main's straight-line code: one kernel makes an array and brings it
 * back, the next sends it again. No loop and no caller: the recipe spans
 * the two constructs with one data region (never "the caller's loop"). */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1 << 16;
  double *grid = malloc(n * sizeof *grid), *out = malloc(n * sizeof *out);
#pragma omp target teams distribute parallel for map(from: grid[0:n])
  for (int i = 0; i < n; i++)
    grid[i] = 0.5 * (i % 9);
  double scale = 3.0;
#pragma omp target teams distribute parallel for map(to: grid[0:n]) map(from: out[0:n])
  for (int i = 0; i < n; i++)
    out[i] = scale * grid[i];
  printf("out[8] = %.2f\n", out[8]);
  free(grid);
  free(out);
  return 0;
}
