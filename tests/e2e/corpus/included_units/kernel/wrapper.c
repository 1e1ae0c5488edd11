// The one unit of the integrator: the solver and its step are .c files
// included here, after what they use, and never compiled alone.
#include <cmath>
#include <vector>

#include "wrapper.h"

static const double decay = 0.5, gain = 0.25;

#include "solver.c"

double integrate(double *state, int steps)
{
  std::vector<double> coef(STATES);
  for (int i = 0; i < STATES; i++) {
    state[i] = 1.0;
    coef[i] = 0.001 * (i % 11);
  }
  solve(state, coef.data(), STATES, steps);
  double sum = 0.0;
  for (int i = 0; i < STATES; i++)
    sum += state[i];
  return sum;
}
