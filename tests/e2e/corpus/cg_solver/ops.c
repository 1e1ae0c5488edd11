#include "ops.h"

double dot(const double *a, const double *b, int n) {
  double s = 0.0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: a[0:n], b[0:n]) map(tofrom: s)
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

void axpy(double *y, double alpha, const double *x, int n) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++)
    y[i] += alpha * x[i];
}

void matvec(const double *A, const double *x, double *y, int n) {
#pragma omp target teams distribute parallel for map(to: A[0:n * n], x[0:n]) map(from: y[0:n])
  for (int i = 0; i < n; i++) {
    double acc = 0.0;
    for (int j = 0; j < n; j++)
      acc += A[i * n + j] * x[j];
    y[i] = acc;
  }
}
