// tile_once.c: a summary function whose kernel sits in a loop over tiles
// that runs once per call (one tile, CloverLeaf's field_summary), called
// each step of the main loop between the steps' other kernels. Its
// repeated allocations come from the calls, not from the tile loop: a
// region around the tile loop would keep nothing, so the array goes into
// the wrap of the main loop, with the other kernel's, and the reduction's
// local gets no diff.
#include <stdio.h>

#define N 4096
#define STEPS 6

static double density[N], energy[N];
static int tiles = 1;

static void advance(double dt)
{
  double *d = density, *e = energy;
#pragma omp target teams distribute parallel for map(tofrom: d[0:N]) map(to: e[0:N])
  for (int i = 0; i < N; i++)
    d[i] += dt * e[i];
}

static double summary(void)
{
  double mass = 0.0;
  for (int t = 0; t < tiles; t++) {
    double *d = density;
#pragma omp target teams distribute parallel for map(to: d[0:N]) map(tofrom: mass) \
    reduction(+: mass)
    for (int i = 0; i < N; i++)
      mass += d[i];
  }
  return mass;
}

int main(void)
{
  for (int i = 0; i < N; i++)
    density[i] = 1.0, energy[i] = 0.001 * (i % 10);
  double total = 0;
  for (int step = 0; step < STEPS; step++) {
    advance(0.5);
    total += summary();
  }
  printf("tile_once: %.3f\n", total);
  return 0;
}
