// Pointer shapes whose arrays the kernels reach without naming them in a
// map clause of their own: a struct mapped with its array attached (deep
// copy), used by value and through a pointer to it (its array a member
// after the first), rows of a jagged array attached through the array of
// row pointers, a device address asked for with use_device_ptr or
// omp_get_mapped_ptr and passed with is_device_ptr, a declare target
// pointer whose array enter data attaches, and the Field class
// (field.hpp). Only Field's history is unused.
#include <cstdio>
#include <cstdlib>
#include <omp.h>

#include "field.hpp"

struct Grid {
  double *x;
  int n;
};

struct Bins { // the array after the count: at an offset in the struct
  int n;
  double *w;
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

static void halve(Bins *b) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < b->n; i++)
    b->w[i] *= 0.5;
}

static void shift_rows(double **rows, int nrows, int n) {
#pragma omp target teams distribute parallel for
  for (int r = 0; r < nrows; r++)
    for (int i = 0; i < n; i++)
      rows[r][i] += r + 1;
}

static void negate_mapped(double *host, int n) {
  double *d = static_cast<double *>(omp_get_mapped_ptr(host, omp_get_default_device()));
#pragma omp target teams distribute parallel for is_device_ptr(d)
  for (int i = 0; i < n; i++)
    d[i] = -d[i];
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
  Bins b{n, static_cast<double *>(std::malloc(n * sizeof(double)))};
  const int nrows = 3;
  double *rows[nrows];
  double *m = static_cast<double *>(std::malloc(n * sizeof(double)));
  for (int i = 0; i < n; i++) {
    g.x[i] = i * 0.5;
    w[i] = 1.0 / (i + 1);
    coef[i] = (i % 3) + 1.0;
    b.w[i] = 2.0;
    m[i] = i + 0.25;
  }
  for (int r = 0; r < nrows; r++) {
    rows[r] = static_cast<double *>(std::malloc(n * sizeof(double)));
    for (int i = 0; i < n; i++)
      rows[r][i] = r * n + i;
  }
  // The kernels given addresses as values run first (any allocation of
  // their time may be theirs); then every mapping stays until the end, so
  // that no attached pointer repeats an address the device held before.
#pragma omp target enter data map(to: coef[0:n])
#pragma omp target enter data map(to: m[0:n])
  negate_mapped(m, n);
  double s;
#pragma omp target data map(tofrom: w[0:n])
  {
    offset_device(w, n);
    s = weigh(w, n);
  }
#pragma omp target enter data map(to: g) map(to: g.x[0:g.n])
  for (int step = 0; step < 3; step++)
    scale_grid(g);
#pragma omp target enter data map(to: b) map(to: b.w[0:b.n])
  halve(&b);
#pragma omp target enter data map(to: rows[0:nrows])
  for (int r = 0; r < nrows; r++) {
#pragma omp target enter data map(to: rows[r][0:n])
  }
  shift_rows(rows, nrows, n);

  Field f(n);
  f.relax(4);

#pragma omp target exit data map(from: m[0:n])
  for (int r = 0; r < nrows; r++) {
#pragma omp target exit data map(from: rows[r][0:n])
  }
#pragma omp target exit data map(delete: rows[0:nrows])
#pragma omp target exit data map(from: b.w[0:b.n]) map(release: b)
#pragma omp target exit data map(delete: coef[0:n])
#pragma omp target exit data map(from: g.x[0:g.n]) map(release: g)
  std::printf("grid %.3f weighted %.6f bins %.2f rows %.1f mapped %.1f field %.6f\n",
              g.x[n - 1], s, b.w[0], rows[nrows - 1][0], m[n - 1], f.last());
  for (int r = 0; r < nrows; r++)
    std::free(rows[r]);
  std::free(m);
  std::free(b.w);
  std::free(g.x);
  std::free(w);
  std::free(coef);
  return 0;
}
