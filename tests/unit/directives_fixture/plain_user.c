/* Fixture: a target region that calls a helper from plain_helpers.h. */
#include "plain_helpers.h"

void halve(double *x, int n)
{
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) /* @halve */
  for (int i = 0; i < n; i++)
    x[i] = half(x[i]);
}
