// reduction_pair.c: a summary kernel that reduces into several scalars,
// each zeroed by the host before each call and mapped tofrom (the shape
// of CloverLeaf's field_summary). The scalars' start values are the same
// bytes, but two scalars that hold one value are equal by chance: each
// copy in is its own scalar's reset (a re-initialization, e as well as
// m), never a duplicate of the other's content to fill on the device.
#include <stdio.h>

#define N 4096
#define STEPS 5

static double density[N], energy[N];

static void summary(double *mass, double *ie)
{
  double m = 0.0, e = 0.0;
  double *d = density, *en = energy;
#pragma omp target teams distribute parallel for map(to: d[0:N], en[0:N]) \
    map(tofrom: m, e) reduction(+: m, e)
  for (int i = 0; i < N; i++) {
    m += d[i];
    e += d[i] * en[i];
  }
  *mass = m;
  *ie = e;
}

int main(void)
{
  for (int i = 0; i < N; i++) {
    density[i] = 1.0 + i % 7;
    energy[i] = 0.5 * (i % 3);
  }
  double mass = 0, ie = 0;
  for (int step = 0; step < STEPS; step++) {
    summary(&mass, &ie);
    density[step] += 1.0;
  }
  printf("reduction_pair: %.1f %.1f\n", mass, ie);
  return 0;
}
