/* Fixture for tests/unit/test_directives.c: every target directive kind,
 * combined forms, multi-line pragmas, map modifiers, motion clauses,
 * implicit maps and mapped-but-unreferenced items. The tests find lines by
 * their @markers; kinds.expected is the golden dump of this file. It
 * compiles: clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c */
#include <stddef.h>

#define N 1024

static double table[N];
#pragma omp declare target
static double coeffs[8];
#pragma omp end declare target

struct grid {
  double *cells;
  int n;
};

void every_kind(double *a, double *b, double *c, int n, double s)
{
  double local[16] = {0}; /* @decl */
  int count = 0;

#pragma omp target enter data map(to: a[0:n]) map(alloc: b[0:n]) /* @enter */

#pragma omp target map(to: a[0:n]) map(from: b[0:n]) /* @target */
  for (int i = 0; i < n; i++)
    b[i] = a[i] * s;

#pragma omp target teams distribute parallel for /* @combined */ \
    map(always, to: a[0:n])                                       \
    map(close, tofrom: c[0:n]) /* inputs and outputs */           \
    nowait device(0)
  for (int i = 0; i < n; i++) /* @combined_loop */
    c[i] += a[i] + local[i % 16] + table[i % N] + coeffs[i % 8];

#pragma omp target data map(present, to: a[0:n]) map(tofrom: b[0:n], c[0:n]) /* @data */
  {
#pragma omp target teams distribute parallel for reduction(+: count) /* @inner */
    for (int i = 0; i < n; i++) {
      b[i] += a[i];
      count++;
    }
    count *= 2; /* @data_body */
#pragma omp target update from(b[0:n]) to(present: a[0:n]) depend(inout: b[0]) /* @update */
  } /* @data_end */

#pragma omp target exit data map(from: b[0:n]) map(release: a[0:n]) /* @exit */
#pragma omp target exit data map(delete: a[0:n]) /* @exit_delete */
}

/* A comment line in no directive: @nothing */

void unused_map(double *x, double *y, struct grid *g, int n)
{
#pragma omp target map(to: x[0:n]) map(tofrom: y[0:n]) map(tofrom: g->cells[0:g->n]) /* @unused */
  for (int i = 0; i < n; i++)
    y[i] = 2.0 * y[i];
}

double other_forms(double *d, double *e, int n)
{
  double sum = 0.0;
#pragma omp target parallel for map(tofrom: d[0:n]) /* @tpf */
  for (int i = 0; i < n; i++)
    d[i] += 1.0;
#pragma omp target simd map(tofrom: d[0:n]) /* @tsimd */
  for (int i = 0; i < n; i++)
    d[i] *= 0.5;
#pragma omp target teams loop map(to: d[0:n]) defaultmap(tofrom: scalar) /* @tloop */
  for (int i = 0; i < n; i++)
    sum += d[i];
#pragma omp target teams /* @tteams */
#pragma omp distribute parallel for
  for (int i = 0; i < n; i++)
    e[i] = 0.0;
#pragma omp target parallel is_device_ptr(e) firstprivate(sum) /* @tpar */
  {
    e[0] = sum;
  }
#pragma omp target map(e[0:n]) /* @implied */
  e[1] = e[0];
  return sum;
}
