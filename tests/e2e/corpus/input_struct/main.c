#include <stdio.h>
#include <stdlib.h>

#include "inputs.h"

enum { BATCHES = 6 };

int main(void) {
  Inputs in = {.n_points = 1 << 12, .n_lookups = 1 << 10, .window = 8, .scale = 0.25};
  double *grid = malloc(in.n_points * sizeof *grid);
  double *res = calloc(in.n_lookups, sizeof *res);
  if (!grid || !res)
    return 1;
  for (int i = 0; i < in.n_points; i++)
    grid[i] = (double)(i % 29);
#pragma omp target data map(to: grid[0:in.n_points]) map(tofrom: res[0:in.n_lookups])
  for (int b = 0; b < BATCHES; b++)
    lookups(in, grid, res, b);
  double sum = 0.0;
  for (int i = 0; i < in.n_lookups; i++)
    sum += res[i];
  printf("checksum %.3f\n", sum);
  free(grid);
  free(res);
  return 0;
}
