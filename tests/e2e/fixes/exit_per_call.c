/* A helper maps a fresh buffer with enter data and deletes the pointer,
 * not the section, so each call leaves its section mapped (two calls, two
 * mappings at exit). One exit data before the free ends both: the patch
 * adds that line once. */
#include <stdio.h>
#include <stdlib.h>

static double total(long n) {
  double *v = malloc(n * sizeof *v);
  if (!v)
    return 0;
  for (long i = 0; i < n; i++)
    v[i] = (double)(i % 5);
#pragma omp target enter data map(to: v[:n])
#pragma omp target teams distribute parallel for
  for (long i = 0; i < n; i++)
    v[i] = 2.0 * v[i] + 1.0;
#pragma omp target update from(v[:n])
  double s = 0;
  for (long i = 0; i < n; i++)
    s += v[i];
#pragma omp target exit data map(delete: v)
  free(v);
  return s;
}

int main(void) {
  printf("%.0f %.0f\n", total(4000), total(9000));
  return 0;
}
