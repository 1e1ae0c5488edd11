/* A helper called once before a time loop (a warm-up step, on a line that
 * counts it first) and then in every step: its buffers are mapped at each
 * call. The fix maps them from the first call on: `target enter data`
 * before the warm-up call's line, `target exit data` after the loop. */
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096, STEPS = 8 };

static void smooth(const double *in, double *out, int n) {
#pragma omp target teams distribute parallel for map(to: in[0:n]) map(tofrom: out[0:n])
  for (int i = 0; i < n; i++)
    out[i] = 0.5 * out[i] + 0.25 * (in[i] + in[(i + 1) % n]);
}

int main(void) {
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  if (!a || !b)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = (double)(i % 11);
    b[i] = 1.0;
  }
  int calls = 0;
  calls++; smooth(a, b, N);
  for (int s = 0; s < STEPS; s++)
    smooth(a, b, N);
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += b[i];
  printf("sum %.6f after %d warm-up call\n", sum, calls);
  free(a);
  free(b);
  return 0;
}
