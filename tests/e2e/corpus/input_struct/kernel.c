#include "inputs.h"

void lookups(Inputs in, const double *grid, double *res, int batch) {
  /* in is named without a map clause: an implicit map(tofrom: in). */
#pragma omp target teams distribute parallel for
  for (int i = 0; i < in.n_lookups; i++) {
    int k = (i * 7 + batch * 13) % (in.n_points - in.window);
    double acc = 0.0;
    for (int w = 0; w < in.window; w++)
      acc += grid[k + w];
    res[i] += acc * in.scale;
  }
}
