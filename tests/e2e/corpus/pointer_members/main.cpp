// Pointer shapes whose arrays the kernels reach without naming them in a
// map clause of their own: a struct mapped with its array attached (deep
// copy), a device address asked for with use_device_ptr and passed with
// is_device_ptr, a declare target pointer whose array enter data attaches,
// and the Field class (field.hpp). Only Field's history is unused.
#include <cstdio>
#include <cstdlib>

#include "field.hpp"

struct Grid {
  double *x;
  int n;
};

#pragma omp declare target
double *coef;
#pragma omp end declare target

static void scale_grid(Grid &g) {
#pragma omp target
  for (int i = 0; i < g.n; i++)
    g.x[i] *= 2.0;
}

static void offset_device(double *w, int n) {
#pragma omp target data use_device_ptr(w)
  {
#pragma omp target is_device_ptr(w)
    for (int i = 0; i < n; i++)
      w[i] += 1.0;
  }
}

static double weigh(double *v, int n) {
  double s = 0.0;
#pragma omp target teams distribute parallel for map(to: v[0:n]) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += coef[i] * v[i];
  return s;
}

int main() {
  const int n = 1024;
  Grid g{static_cast<double *>(std::malloc(n * sizeof(double))), n};
  double *w = static_cast<double *>(std::malloc(n * sizeof(double)));
  coef = static_cast<double *>(std::malloc(n * sizeof(double)));
  for (int i = 0; i < n; i++) {
    g.x[i] = i * 0.5;
    w[i] = 1.0 / (i + 1);
    coef[i] = (i % 3) + 1.0;
  }
#pragma omp target enter data map(to: g) map(to: g.x[0:g.n])
#pragma omp target enter data map(to: coef[0:n])
  for (int step = 0; step < 3; step++)
    scale_grid(g);
#pragma omp target exit data map(from: g.x[0:g.n]) map(release: g)

  double s;
#pragma omp target data map(tofrom: w[0:n])
  {
    offset_device(w, n);
    s = weigh(w, n);
  }
#pragma omp target exit data map(delete: coef[0:n])

  Field f(n);
  f.relax(4);
  std::printf("grid %.3f weighted %.6f field %.6f\n", g.x[n - 1], s, f.last());
  std::free(g.x);
  std::free(w);
  std::free(coef);
  return 0;
}
