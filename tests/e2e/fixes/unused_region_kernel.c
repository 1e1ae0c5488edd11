/* A target data region maps a field and its boundary values; the kernel
 * that applies the boundary runs only when the run asks for it (argc > 1),
 * the smoothing kernel every time. In a plain run the kernels that ran
 * were not given the boundary array: an unused allocation and copy. But
 * the region's other kernel names it, so removing the item would break the
 * runs that take that branch: the fix stays manual, and says why. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048

int main(int argc, char **argv) {
  (void)argv;
  double *f = malloc(N * sizeof *f), *edge = malloc(2 * sizeof *edge);
  if (!f || !edge)
    return 1;
  for (int i = 0; i < N; i++)
    f[i] = (i % 5) * 0.5;
  edge[0] = 1.0;
  edge[1] = -1.0;
  int fix_edges = argc > 1;
#pragma omp target data map(tofrom: f[0:N]) map(to: edge[0:2])
  {
    if (fix_edges) {
#pragma omp target
      {
        f[0] = edge[0];
        f[N - 1] = edge[1];
      }
    }
#pragma omp target teams distribute parallel for
    for (int i = 1; i < N - 1; i++)
      f[i] = 0.5 * f[i] + 0.25;
  }
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += f[i];
  printf("sum %.6f\n", s);
  free(f);
  free(edge);
  return 0;
}
