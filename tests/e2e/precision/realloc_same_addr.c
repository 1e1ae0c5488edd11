/* realloc_same_addr.c - precision case: a scratch buffer malloc'ed, mapped
 * and freed by a helper called every step.
 *
 * Pattern: step_energy() gets a fresh work array from malloc, lets a kernel
 * fill it (map(from:)), sums it on the host and frees it. malloc hands back
 * the same address for the same size each call, so the device allocates the
 * same host buffer again every step after the first.
 * Fix: realloc_same_addr_fixed.c allocates the work array once, maps it once
 * and only copies each step's values back.
 *
 * Expected omplens findings (realloc_same_addr.expected), 6 steps:
 *   repeated-alloc  line 30  device 0  5  work, steps 2..6
 */
#include <stdio.h>
#include <stdlib.h>

/* 8 KB: libomptarget pools device blocks up to this size, so with the host
 * plugin the device copy does not come from the host heap either, and
 * malloc hands back the same address each step, as it would with a GPU. */
#define N (1 << 10)
#define STEPS 6

/* The energy of field at step `step`, through a scratch array. */
static double step_energy(const double *field, int step)
{
  double *work = malloc(N * sizeof *work);
  if (!work)
    return -1.0;
  /* WASTE from step 2 on: the same buffer is allocated on the device again. */
#pragma omp target teams distribute parallel for map(to: field[0:N]) map(from: work[0:N])
  for (int i = 0; i < N; i++)
    work[i] = field[i] * field[i] * (step + 1);
  double energy = 0.0;
  for (int i = 0; i < N; i++)
    energy += work[i];
  free(work);
  return energy;
}

int main(void)
{
  double *field = malloc(N * sizeof *field);
  if (!field)
    return 1;
  for (int i = 0; i < N; i++)
    field[i] = (i % 32) * 0.125;

  /* Printed first, so that stdout's buffer is not carved out of a freed
   * work array (which would move the next one). */
  printf("realloc_same_addr: %d steps of %d elements\n", STEPS, N);
  double checksum = 0.0;
#pragma omp target data map(to: field[0:N])
  {
    for (int step = 0; step < STEPS; step++) {
      double e = step_energy(field, step);
      printf("realloc_same_addr: step %d energy %.6f\n", step, e);
      checksum += e;
    }
  }
  printf("realloc_same_addr: checksum %.6f\n", checksum);
  free(field);
  return 0;
}
