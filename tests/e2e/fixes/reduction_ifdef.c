// reduction_ifdef.c: a dot product whose kernel has two spellings, one
// per compiler, chosen by the preprocessor (UoB-HPC hot's calculate_pAp),
// and whose reduction scalar is a local of the function, which a loop in
// main calls. The start value `double s = 0.0;` is the statement right
// before the pragma that was compiled: the #ifdef branch between them
// was not. No region in main can name s: the recipe reduces into a
// variable that outlives the calls.
#include <stdio.h>

#define N 1024
#define STEPS 5

static double dot(const double *p, const double *q)
{
  double s = 0.0;
#ifdef OTHER_COMPILER
#pragma omp target teams distribute parallel for map(tofrom: s) reduction(+: s)
#else
#pragma omp target teams distribute parallel for reduction(+: s)
#endif
  for (int i = 0; i < N; i++)
    s += p[i] * q[i];
  return s;
}

int main(void)
{
  static double p[N], q[N];
  for (int i = 0; i < N; i++) {
    p[i] = 0.5 * i;
    q[i] = 1.0 / (i + 1);
  }
  double total = 0;
#pragma omp target data map(to: p, q)
  for (int step = 0; step < STEPS; step++)
    total += dot(p, q) * (step + 1);
  printf("reduction_ifdef: %.6f\n", total);
  return 0;
}
