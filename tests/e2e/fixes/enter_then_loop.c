/* A loop right after a standalone directive (an enter data of other
 * arrays, then a blank line): that directive owns no statement, so the
 * region's line goes between it and the loop, not above it (where it
 * would make the enter data the region's statement, which clang rejects). */
#include <stdio.h>
#include <stdlib.h>

#define N 2048

int main(void) {
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *acc = malloc(N * sizeof *acc);
  if (!x || !y || !acc)
    return 1;
  for (int i = 0; i < N; i++) {
    x[i] = 1.0;
    y[i] = 0.5;
    acc[i] = i;
  }
#pragma omp target enter data map(to: x[0:N], \
    y[0:N])

  for (int it = 0; it < 10; it++) {
#pragma omp target teams distribute parallel for map(tofrom: acc[0:N])
    for (int i = 0; i < N; i++)
      acc[i] += x[i] * y[i] + it;
  }
#pragma omp target exit data map(delete: x[0:N], y[0:N])
  double sum = 0;
  for (int i = 0; i < N; i++)
    sum += acc[i];
  printf("%.1f\n", sum);
  free(x);
  free(y);
  free(acc);
  return 0;
}
