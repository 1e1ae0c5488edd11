/* realloc_same_addr_fixed.c - twin of realloc_same_addr.c: the work array is
 * allocated and mapped once by the caller; each step only copies its values
 * back.
 *
 * Expected omplens findings (realloc_same_addr_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 10)
#define STEPS 6

/* The energy of field at step `step`, through work (mapped by the caller). */
static double step_energy(const double *field, double *work, int step)
{
  /* work is present: the kernel copies nothing. */
#pragma omp target teams distribute parallel for map(to: field[0:N]) map(from: work[0:N])
  for (int i = 0; i < N; i++)
    work[i] = field[i] * field[i] * (step + 1);
#pragma omp target update from(work[0:N])
  double energy = 0.0;
  for (int i = 0; i < N; i++)
    energy += work[i];
  return energy;
}

int main(void)
{
  double *field = malloc(N * sizeof *field);
  double *work = malloc(N * sizeof *work);
  if (!field || !work)
    return 1;
  for (int i = 0; i < N; i++)
    field[i] = (i % 32) * 0.125;

  printf("realloc_same_addr: %d steps of %d elements\n", STEPS, N);
  double checksum = 0.0;
#pragma omp target data map(to: field[0:N]) map(alloc: work[0:N])
  {
    for (int step = 0; step < STEPS; step++) {
      double e = step_energy(field, work, step);
      printf("realloc_same_addr: step %d energy %.6f\n", step, e);
      checksum += e;
    }
  }
  printf("realloc_same_addr: checksum %.6f\n", checksum);
  free(field);
  free(work);
  return 0;
}
