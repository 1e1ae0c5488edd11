// One explicit step; coef goes to the device again every step.
static void step(double *state, const double *coef, int n, double d, double g)
{
#pragma omp target teams distribute parallel for map(to: coef[0:n]) map(tofrom: state[0:n])
  for (int i = 0; i < n; i++)
    state[i] += g * std::exp(-coef[i]) - d * coef[i] * state[i];
}
