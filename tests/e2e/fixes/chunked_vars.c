/* Fields kept in chunks whose count and length the program works out at
 * run time. One phase relaxes every chunk of a field through the same
 * kernel, each chunk given as a pointer at its loop counter's offset;
 * another lifts every half row of a grid, given as the address of its
 * first element at an offset of two counters (rows, and halves counted up
 * to an inclusive bound). The region around each phase's step loop maps
 * the span of every section the counters reach, written with the same
 * variables. */
#include <stdio.h>
#include <stdlib.h>
static void relax(double *chunk, int n, double w) {
#pragma omp target teams distribute parallel for map(tofrom: chunk[0:n])
  for (int i = 0; i < n; i++)
    chunk[i] = chunk[i] * w + 1.0;
}
static void lift(double *row, int n) {
#pragma omp target teams distribute parallel for map(tofrom: row[0:n])
  for (int i = 0; i < n; i++)
    row[i] = row[i] * 0.75 + 0.125;
}
static void lift_grid(double *grid, int rows, int len, int steps) {
  for (int step = 0; step < steps; step++)
    for (int r = 0; r < rows; r++)
      for (int h = 0; h <= 1; h++)
        lift(&grid[(r * 2 + h) * len], len);
}
int main(int argc, char **argv) {
  int nchunks = argc > 1 ? atoi(argv[1]) : 5, len = 768, rows = 3;
  double *field = malloc((size_t)nchunks * len * sizeof *field);
  double *grid = malloc((size_t)rows * 2 * len * sizeof *grid);
  if (!field || !grid)
    return 1;
  for (int i = 0; i < nchunks * len; i++)
    field[i] = i / len + 0.25 * (i % 3);
  for (int i = 0; i < rows * 2 * len; i++)
    grid[i] = i / len + 0.5 * (i % 5);
  for (int step = 0; step < 6; step++) {
    for (int c = 0; c < nchunks; c++)
      relax(field + c * len, len, 0.5);
  }
  lift_grid(grid, rows, len, 4);
  double s = 0;
  for (int i = 0; i < nchunks * len; i++)
    s += field[i];
  for (int i = 0; i < rows * 2 * len; i++)
    s += grid[i];
  printf("%.3f\n", s);
  free(field);
  free(grid);
  return 0;
}
