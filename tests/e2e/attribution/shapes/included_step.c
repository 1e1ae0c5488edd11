/* One step of the solver, a .c file that is C++ (it includes <cmath>) and
 * is only ever #include'd: rates go to the device again every step. */
#include <cmath>

static void step(double *state, const double *rates, int n)
{
#pragma omp target teams distribute parallel for map(to: rates[0:n]) map(tofrom: state[0:n])
  for (int i = 0; i < n; i++)
    state[i] += std::exp(-rates[i]) * 0.5;
}
