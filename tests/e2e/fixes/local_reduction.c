// local_reduction.c: a conservation check that reduces into a local
// scalar mapped tofrom, in a function that main's time loop calls
// (UoB-HPC flow's print_conservation). The wrap in the caller cannot name
// the local: the reason says so, not that the kernel's own reduction
// statement changes it.
#include <stdio.h>

#define N 8192
#define STEPS 6

static double cells[N];

static double total_mass(const double *m)
{
  double mass = 0.0;
#pragma omp target teams distribute parallel for map(to: m[0:N]) map(tofrom: mass) reduction(+: mass)
  for (int i = 0; i < N; i++)
    mass += m[i];
  return mass;
}

int main(void)
{
  for (int i = 0; i < N; i++)
    cells[i] = 1.0 / (i + 1);
  double drift = 0;
  for (int step = 0; step < STEPS; step++) {
    cells[step] += 0.5;
    drift += total_mass(cells);
  }
  printf("local_reduction: %.6f\n", drift);
  return 0;
}
