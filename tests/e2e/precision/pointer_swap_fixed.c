/* pointer_swap_fixed.c - twin of pointer_swap.c: both grids are sent once
 * and stay on the device; the kernel finds whichever buffer u and unew
 * point to present, and the result is copied back once.
 *
 * Expected omplens findings (pointer_swap_fixed.expected): none.
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

#pragma omp target enter data map(to: u[0:N], unew[0:N])
  for (int sweep = 0; sweep < SWEEPS; sweep++) {
    /* Both grids are present: the kernel copies nothing. */
#pragma omp target teams distribute parallel for map(to: u[0:N]) map(tofrom: unew[0:N])
    for (int i = 1; i < N - 1; i++)
      unew[i] = 0.5 * (u[i - 1] + u[i + 1]);
    double *tmp = u;
    u = unew;
    unew = tmp;
  }
#pragma omp target update from(u[0:N])
#pragma omp target exit data map(delete: u[0:N], unew[0:N])

  double checksum = 0.0;
  for (int i = 0; i < N; i++)
    checksum += u[i] * (1 + i % 5);
  printf("pointer_swap: checksum %.6f\n", checksum);
  free(u);
  free(unew);
  return 0;
}
