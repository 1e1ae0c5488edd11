#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 12, SWEEPS = 6 };

/* x <- x + w * (b - x), with b never changed on either side. */
static void sweep(double *x, const double *b, double w, int n) {
#ifdef USE_OFFLOAD
#pragma omp target teams distribute parallel for map(to: b[0:n]) map(tofrom: x[0:n])
#else
#pragma omp parallel for
#endif
  for (int i = 0; i < n; i++)
    x[i] += w * (b[i] - x[i]);
}

int main(void) {
  double *x = calloc(N, sizeof *x);
  double *b = malloc(N * sizeof *b);
  if (!x || !b)
    return 1;
  for (int i = 0; i < N; i++)
    b[i] = 1.0 + (double)(i % 5);
  for (int s = 0; s < SWEEPS; s++)
    sweep(x, b, 0.5, N);
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += x[i];
  printf("checksum %.6f\n", sum);
  free(x);
  free(b);
  return 0;
}
