/* One wasteful target region in a long loop: every iteration maps a[] to the
 * device again (its content never changes) and b[] there and back. Used by
 * bench/real_traces.sh for a real trace with few findings and very many
 * instances (8 events per iteration). usage: loop_waste [ITERATIONS] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 100000;
  enum { N = 256 };
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  if (!a || !b)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 0;
  }
  for (int it = 0; it < iters; it++) {
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(tofrom: b[0:N])
    for (int i = 0; i < N; i++)
      b[i] += a[i];
  }
  printf("%f\n", b[N - 1]);
  free(a);
  free(b);
  return 0;
}
