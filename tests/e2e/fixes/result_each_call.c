/* result_each_call.c - fixture of the fix tests: a benchmark function that
 * allocates its result each call, computes it on the device, checks it and
 * frees it (HeCBench hexciton's shape, where 24 kernel variants compute
 * the same answer). The second call's copy back carries the bytes the
 * first call's buffer held: the "other buffer" is an earlier allocation of
 * the same variable, gone by then, so the recipe must not tell the host to
 * read it instead. */
#include <stdio.h>
#include <stdlib.h>

enum { N = 100 };

static int bench(int variant, const double *in) {
  double *out = malloc(N * sizeof *out);
  double *scratch = malloc(N * sizeof *scratch); /* freed last: the next out is elsewhere */
  if (!out || !scratch)
    return 1;
#pragma omp target data map(to: in[0:N]) map(from: out[0:N])
  {
    if (variant == 0) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        out[i] = 2.0 * in[i];
    } else {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        out[i] = in[i] + in[i];
    }
  }
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != 2.0 * in[i];
  free(out);
  free(scratch);
  return bad;
}

int main(void) {
  double in[N];
  for (int i = 0; i < N; i++)
    in[i] = i * 0.25;
  int bad = bench(0, in) + bench(1, in);
  printf("result_each_call: %s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
