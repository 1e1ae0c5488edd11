/* jacobi.c - omplens example: 2-D heat equation (Jacobi) with poor mappings.
 *
 * A 512x512 plate, top edge held at 100 degrees, the other edges at 0,
 * relaxed by ITERS Jacobi sweeps. Each sweep is one target region that maps
 * the old grid in and the new grid out; the host swaps the two pointers.
 *
 * Why it wastes data: every sweep allocates both 2 MB grids on the device
 * and frees them again, and copies in a grid that came back from the device
 * in the previous sweep and was not touched by the host since. The copy back
 * of each new grid is only needed because the next sweep starts from the
 * host again.
 * Fix: jacobi_fixed.c keeps both grids on the device for all sweeps (one
 * `target data` region), alternates them on the device, and copies the
 * final grid back once. Same output.
 *
 * Expected omplens findings (jacobi.expected), all at the sweep directive
 * (line 37), device 0. The two grids alternate as "old" grid (A in odd-
 * numbered sweeps 1,3,..., B in even-numbered sweeps 2,4,...):
 *   round-trip      line 37  device 0  100  B re-sent, sweeps 2,4,...,200
 *   round-trip      line 37  device 0   99  A re-sent, sweeps 3,5,...,199
 *   repeated-alloc  line 37  device 0  199  A re-allocated, sweeps 2..200
 *   repeated-alloc  line 37  device 0  199  B re-allocated, sweeps 2..200
 */
#include <stdio.h>
#include <stdlib.h>

#define N 512 /* grid points per side: 2 MB of doubles per grid */
#define ITERS 200

/* One Jacobi sweep: interior points get the mean of their four neighbours,
 * boundary points are copied. The whole of `out` is written. */
static void sweep(const double *in, double *out)
{
  /* WASTE: `in` is allocated and copied to the device on every sweep,
   * although the device produced exactly these bytes in the previous sweep;
   * `out` is allocated on every sweep. */
#pragma omp target teams distribute parallel for collapse(2) map(to: in[0:N * N]) map(from: out[0:N * N])
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      if (i == 0 || j == 0 || i == N - 1 || j == N - 1)
        out[i * N + j] = in[i * N + j];
      else
        out[i * N + j] = 0.25 * (in[(i - 1) * N + j] + in[(i + 1) * N + j] +
                                 in[i * N + j - 1] + in[i * N + j + 1]);
    }
}

int main(void)
{
  double *u = malloc(N * N * sizeof *u);    /* grid A */
  double *unew = malloc(N * N * sizeof *u); /* grid B */
  if (!u || !unew)
    return 1;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      u[i * N + j] = (i == 0) ? 100.0 : 0.0;

  for (int it = 0; it < ITERS; it++) {
    sweep(u, unew);
    double *t = u; /* the new grid is the next sweep's old grid */
    u = unew;
    unew = t;
  }

  double sum = 0.0;
  for (int i = 0; i < N * N; i++)
    sum += u[i];
  printf("jacobi: %dx%d, %d sweeps, checksum %.6f, u[16][%d] %.6f\n", N, N,
         ITERS, sum, N / 2, u[16 * N + N / 2]);
  free(u);
  free(unew);
  return 0;
}
