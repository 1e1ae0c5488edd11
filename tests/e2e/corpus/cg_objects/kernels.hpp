#ifndef KERNELS_HPP
#define KERNELS_HPP

#include "structs.hpp"

/* Helper kernels, each mapping its own operands on every call. */

template <typename Vec> double inner(const Vec &a, const Vec &b) {
  const int n = a.values.size();
  const double *av = &a.values[0];
  const double *bv = &b.values[0];
  double sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: av[0:n], bv[0:n]) map(tofrom: sum)
  for (int i = 0; i < n; i++)
    sum += av[i] * bv[i];
  return sum;
}

/* y <- y + alpha * x */
template <typename Vec> void update(double alpha, const Vec &x, Vec &y) {
  const int n = y.values.size();
  const double *xv = &x.values[0];
  double *yv = &y.values[0];
#pragma omp target teams distribute parallel for map(to: xv[0:n]) map(tofrom: yv[0:n])
  for (int i = 0; i < n; i++)
    yv[i] += alpha * xv[i];
}

#endif
