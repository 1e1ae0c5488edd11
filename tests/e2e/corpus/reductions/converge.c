#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 12, MAX_ITERS = 8 };

int main(void) {
  double *v = malloc(N * sizeof *v);
  if (!v)
    return 1;
  /* Small integers: every sum below is exact, whatever the order. */
  for (int i = 0; i < N; i++)
    v[i] = (double)(i % 11 + 1) * 8.0;
  int done = 0, iters = 0;
  double sum = 0.0, m = 0.0;
#pragma omp target data map(tofrom: v[0:N])
  while (!done && iters < MAX_ITERS) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      v[i] = v[i] * 0.5;
    sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+: sum) map(tofrom: sum)
    for (int i = 0; i < N; i++)
      sum += v[i] * v[i];
    m = 0.0;
#pragma omp target teams distribute parallel for reduction(max: m) map(tofrom: m)
    for (int i = 0; i < N; i++)
      m = v[i] > m ? v[i] : m;
    iters++;
    done = m < 2.0;
  }
  printf("iterations %d sum %.3f max %.3f\n", iters, sum, m);
  free(v);
  return 0;
}
