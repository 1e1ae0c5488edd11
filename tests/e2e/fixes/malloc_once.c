/* malloc_once.c - fixture of the fix proof tests: weights allocated once
 * by an assignment (`w = (double *)malloc(...)`), kept mapped, and sent
 * again unchanged by a `target update to` every step before a kernel that
 * only reads them. The assignment of a fresh allocation aliases no other
 * buffer, so the update can go: the fix removes it. */
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096, STEPS = 6 };

int main(void)
{
  double *w, *out = malloc(N * sizeof *out), sum = 0.0;
  w = (double *)malloc(N * sizeof *w);
  if (!w || !out)
    return 1;
  for (int i = 0; i < N; i++)
    w[i] = 1.0 / (1 + i % 5);
#pragma omp target data map(to: w[0:N]) map(alloc: out[0:N])
  for (int s = 0; s < STEPS; s++) {
#pragma omp target update to(w[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      out[i] = w[i] * (s + 2) + 1.0;
#pragma omp target update from(out[0:N])
    sum += out[N - 1];
  }
  printf("malloc_once: %.4f\n", sum);
  free(w);
  free(out);
  return 0;
}
