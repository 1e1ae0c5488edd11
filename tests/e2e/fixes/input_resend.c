/* input_resend.c - fixture of the fix proof tests: an input array that a
 * helper's kernel maps `to`, sent again at every call from the time loop.
 *
 * The caller passes an element of a table of inputs (inputs[0]), not a
 * plain variable, so no diff can wrap its loop: the fix is manual. Its recipe must keep the
 * input's map: `map(to:)`, with no copy back. The result, which the host
 * reads after each call, gets a region of its own and an update before
 * the read. */
#include <stdio.h>

#define N 2048
#define STEPS 5

static void scale(const double *in, double *out, int n, int step)
{
#pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
  for (int i = 0; i < n; i++)
    out[i] = in[i] * step;
}

int main(void)
{
  static double coef[N], res[N];
  const double *inputs[1] = {coef};
  double total = 0.0;
  for (int i = 0; i < N; i++)
    coef[i] = 1.0 + (i % 7);
  for (int step = 1; step <= STEPS; step++) {
    scale(inputs[0], res, N, step);
    total += res[step];
  }
  printf("input_resend: total %.1f\n", total);
  return 0;
}
