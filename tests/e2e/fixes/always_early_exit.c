/* Buffers allocated on the device once, and a loop whose kernel maps them
 * `always`, so each step copies them anyway; the loop returns early when
 * a check on the host fails. No region helps an `always` map, however the
 * loop is left: the reason and the recipe say `always`, not how to leave
 * the loop by return. */
#include <stdio.h>
#include <stdlib.h>

static int run(long n) {
  double *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in);
  if (!out || !in)
    return 2;
  for (long i = 0; i < n; i++) {
    out[i] = 0;
    in[i] = (double)i;
  }
  int rc = 0;
#pragma omp target enter data map(alloc: out[:n], in[:n])
  for (int step = 0; step < 6 && !rc; step++) {
#pragma omp target teams distribute parallel for map(always, to: in[:n]) map(always, from: out[:n])
    for (long i = 0; i < n; i++)
      out[i] = 2.0 * in[i];
    for (long i = 0; i < n; i++)
      if (out[i] != 2.0 * i) return 1;
  }
#pragma omp target exit data map(delete: out[:n], in[:n])
  free(out);
  free(in);
  return rc;
}

int main(void) {
  int rc = run(40000);
  printf("rc = %d\n", rc);
  return rc;
}
