/* Fixture: a directive inside a header, parsed through header_user.c. */
#ifndef KERNELS_H
#define KERNELS_H

static inline void axpy(double alpha, const double *x, double *y, int n)
{
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n]) /* @axpy */
  for (int i = 0; i < n; i++)
    y[i] += alpha * x[i];
}

#endif
