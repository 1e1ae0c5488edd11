// pointer_into.c: a kernel that never names the scalar it maps, but
// writes it through a pointer the body uses without a map. The runtime
// attaches the pointer to the mapped scalar; removing the item would
// leave the pointer on host memory. The trace's map arguments show the
// pointer's value inside the item at each launch: no diff.
#include <stdio.h>

#define STEPS 6

static double scale(double v)
{
  double result = 0;
  double *slot = &result;
#pragma omp target map(tofrom: result)
  *slot = 2.0 * v;
  return result;
}

int main(void)
{
  double sum = 0;
  for (int s = 0; s < STEPS; s++)
    sum += scale(s);
  printf("pointer_into: %.1f\n", sum);
  return 0;
}
