/* jacobi_fixed.c - omplens example: fixed twin of jacobi.c.
 *
 * Fix: one `target data` region keeps both grids on the device for all
 * sweeps. The sweeps alternate between the two device grids (u -> unew, then
 * unew -> u), so nothing moves between sweeps; the start grid is copied in
 * once and the final grid copied out once. ITERS is even, so the final grid
 * is back in u. Same output as jacobi.c.
 *
 * Expected omplens findings (jacobi_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 512 /* grid points per side: 2 MB of doubles per grid */
#define ITERS 200
_Static_assert(ITERS % 2 == 0, "the sweeps alternate in pairs");

/* One Jacobi sweep: interior points get the mean of their four neighbours,
 * boundary points are copied. The whole of `out` is written. Both grids are
 * present on the device, so the map clauses copy nothing. */
static void sweep(const double *in, double *out)
{
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
  double *u = malloc(N * N * sizeof *u);
  double *unew = malloc(N * N * sizeof *u);
  if (!u || !unew)
    return 1;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      u[i * N + j] = (i == 0) ? 100.0 : 0.0;

  /* u in once and out once; unew only ever lives on the device. */
#pragma omp target data map(tofrom: u[0:N * N]) map(alloc: unew[0:N * N])
  {
    for (int it = 0; it < ITERS; it += 2) {
      sweep(u, unew);
      sweep(unew, u);
    }
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
