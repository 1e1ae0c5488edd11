/* Included by included_unit.c, never compiled alone: it relies on the
 * <cstdio> its includer brought in, and includes the step in turn. */
#include "included_step.c"

static void solve(double *state, const double *rates, int n, int steps)
{
  for (int s = 0; s < steps; s++)
    step(state, rates, n);
  std::printf("solved %d steps\n", steps);
}
