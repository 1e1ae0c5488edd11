/* pointer_swap.c - precision case: findings follow variables, not host
 * buffers, when the host swaps pointers.
 *
 * Pattern: a 1-D Jacobi sweep maps the old grid u with map(to:) and the new
 * grid unew with map(tofrom:) (as if the kernel read it), and the host swaps
 * the pointers after each sweep, so u and unew alternate between buffers A
 * and B. From sweep 2 on:
 *   - u is what the previous sweep copied out of the device, unchanged: a
 *     round trip (device -> host -> device);
 *   - unew is the buffer the previous sweep sent as u, which the device
 *     still holds: a duplicate;
 *   - both grids are allocated again.
 * Each category is one finding per variable, over both host buffers.
 * Fix: pointer_swap_fixed.c keeps both grids on the device and copies the
 * result back once.
 *
 * Expected omplens findings (pointer_swap.expected), 8 sweeps:
 *   round-trip          line 44  device 0  7  u
 *   duplicate-transfer  line 44  device 0  7  unew
 *   repeated-alloc      line 44  device 0  7  u
 *   repeated-alloc      line 44  device 0  7  unew
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define SWEEPS 8

int main(void)
{
  double *u = malloc(N * sizeof *u);
  double *unew = malloc(N * sizeof *unew);
  if (!u || !unew)
    return 1;
  for (int i = 0; i < N; i++) {
    u[i] = (i % 128) * 0.5; /* first guess */
    unew[i] = 0.0;
  }
  u[0] = unew[0] = 100.0; /* fixed boundary values */
  u[N - 1] = unew[N - 1] = -100.0;

  for (int sweep = 0; sweep < SWEEPS; sweep++) {
    /* WASTE from sweep 2 on: both grids are sent and allocated again. */
#pragma omp target teams distribute parallel for map(to: u[0:N]) map(tofrom: unew[0:N])
    for (int i = 1; i < N - 1; i++)
      unew[i] = 0.5 * (u[i - 1] + u[i + 1]);
    double *tmp = u;
    u = unew;
    unew = tmp;
  }

  double checksum = 0.0;
  for (int i = 0; i < N; i++)
    checksum += u[i] * (1 + i % 5);
  printf("pointer_swap: checksum %.6f\n", checksum);
  free(u);
  free(unew);
  return 0;
}
