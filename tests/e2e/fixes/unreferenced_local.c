// unreferenced_local.c: a step function whose kernel maps a local scalar
// (the time-step bound, as CloverLeaf's calc_dt maps dt_min_val) that its
// body never names, while the body calls math functions and reads and
// writes through pointers that the enclosing `target data` keeps mapped.
// A callee cannot name a local of the step function, and the trace shows
// where the pointers pointed: the fix removes the item.
#include <math.h>
#include <stdio.h>

#define N 4096
#define STEPS 12

static double u[N], out[N];

static double step(const double *pu, double *pout, double limit)
{
  double dt_min = limit;
#pragma omp target teams distribute parallel for map(tofrom: dt_min)
  for (int i = 0; i < N; i++)
    pout[i] = sqrt(fabs(pu[i])) + fmin(pu[i], 1.0);
  return dt_min;
}

int main(void)
{
  for (int i = 0; i < N; i++)
    u[i] = 0.001 * i - 1.0;
  double total = 0;
#pragma omp target data map(to: u) map(from: out)
  {
    for (int s = 0; s < STEPS; s++)
      total += step(u, out, 0.5 + s);
  }
  printf("unreferenced_local: %.3f %.6f %.6f\n", total, out[7], out[N - 1]);
  return 0;
}
