#include "inputs.h"

/* Compiled for the device too (as codes that call helpers from kernels
 * do): its parameters are still the host function's own, mapped by the
 * construct like any local. */
#pragma omp declare target
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
#pragma omp end declare target
