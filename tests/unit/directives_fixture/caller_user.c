/* Fixture: a directive in scale(), called from plain_caller.h; the unit
 * also includes plain_helpers.h, which calls nothing of it. */
#include "plain_caller.h"
#include "plain_helpers.h"

void scale(double *x, int n)
{
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) /* @scale */
  for (int i = 0; i < n; i++)
    x[i] = half(x[i]) * 4.0;
}
