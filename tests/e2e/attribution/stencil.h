/* A directive inside a header: the finding must point here, not at the .c. */
#ifndef STENCIL_H
#define STENCIL_H
static inline void scale(double *a, const double *coef, int n)
{
#pragma omp target teams distribute parallel for map(to: coef[0:n]) map(tofrom: a[0:n])
  for (int i = 0; i < n; i++)
    a[i] *= coef[i];
}
#endif
