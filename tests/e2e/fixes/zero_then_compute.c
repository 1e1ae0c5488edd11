/* zero_then_compute.c - fixture of the fix proof tests: each round zeroes
 * the output with one kernel, computes it with another (in a function of
 * its own, HeCBench bgmv's shape) and copies it back to check it. The
 * copies back bring the same values every round. The kernel right before
 * them is the computing one, whose writes cannot be followed here, so the
 * recipe must not say that the update already follows the zeroing kernel. */
#include <stdio.h>

enum { N = 4096, ROUNDS = 4 };

static void compute(double *out, const double *in, int n)
{
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    out[i] = 2.0 * in[i];
}

int main(void)
{
  static double in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = i % 7;
  int bad = 0;
#pragma omp target enter data map(to: in[0:N]) map(alloc: out[0:N])
  for (int r = 0; r < ROUNDS; r++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      out[i] = 0.0;
    compute(out, in, N);
#pragma omp target update from(out[0:N])
    for (int i = 0; i < N; i++)
      bad += out[i] != 2.0 * in[i];
  }
#pragma omp target exit data map(delete: in[0:N], out[0:N])
  printf("zero_then_compute: %d wrong\n", bad);
  return 0;
}
