// The time loop: one step per iteration, the coefficients unchanged.
#include "step.c"

static void solve(double *state, const double *coef, int n, int steps)
{
  for (int s = 0; s < steps; s++)
    step(state, coef, n, decay, gain);
}
