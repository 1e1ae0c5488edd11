// two_sizes.c: an allocation helper that maps a zeroed buffer `to` and
// zeroes it again with the next kernel, called for buffers of two sizes,
// two of each: the second of each size repeats the first's bytes, one
// finding per size. Its fixes.patch maps the buffer alloc; `omplens diff`
// shows one line gone (one directive and variable), which holds the two
// findings.
#include <stdio.h>
#include <stdlib.h>

#define N 16384

static double *make(int n)
{
  double *p = calloc(n, sizeof *p);
#pragma omp target enter data map(to: p[0:n])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    p[i] = 0.0;
  return p;
}

static void drop(double *p, int n)
{
#pragma omp target exit data map(delete: p[0:n])
  free(p);
}

int main(void)
{
  double *a = make(N), *b = make(N);
  double *c = make(2 * N), *d = make(2 * N);
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s)
  for (int i = 0; i < N; i++)
    s += a[i] + b[i] + c[2 * i] + d[2 * i] + 1.0;
  drop(a, N);
  drop(b, N);
  drop(c, 2 * N);
  drop(d, 2 * N);
  printf("two_sizes: %.1f\n", s);
  return 0;
}
