// ref_param.cpp: a kernel function that takes its result by reference
// (`double &dt`), called once from a function that a loop calls, sets
// it, and maps it tofrom beside a reduction into a local copy
// (CloverLeaf's calc_dt). The reference is the caller's
// variable, not a copy of each call's argument: no recipe may say so.
// The body reads it as a cap, so the item stays.
#include <cmath>
#include <cstdio>

#define N 2048
#define STEPS 6

static double speed[N];

static void min_step(double &dt, double scale)
{
  dt = 1e30;
  double dt0 = dt;
  double *s = speed;
#pragma omp target teams distribute parallel for map(to: s[0:N]) map(tofrom: dt) \
    reduction(min: dt0)
  for (int i = 0; i < N; i++)
    dt0 = std::fmin(dt0, std::fmin(dt, scale / s[i]));
  dt = dt0;
}

static double timestep(double scale)
{
  double dt = 0;
  min_step(dt, scale);
  return dt;
}

int main()
{
  for (int i = 0; i < N; i++)
    speed[i] = 1.0 + i % 13;
  double total = 0;
  for (int step = 0; step < STEPS; step++)
    total += timestep(0.5 + step);
  std::printf("ref_param: %.4f\n", total);
  return 0;
}
