/* region_call.c - fixture of the fix proof tests: a target data region
 * whose body is a call of a function with a kernel, and whose input is
 * sent again, unchanged, every time the region is entered. The body is
 * host code passing the input on to a parameter that is no pointer to
 * const: the reason for making no diff names that call, not "the
 * kernel", which is elsewhere. */
#include <stdio.h>

#define N 4096

static void scale(float *out, float *in, int n)
{
#pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
  for (int i = 0; i < n; i++)
    out[i] = 2.0f * in[i];
}

static void step(float *out, float *in, int n)
{
#pragma omp target data map(to: in[0:n]) map(from: out[0:n])
  {
    scale(out, in, n);
  }
}

int main(void)
{
  static float in[N], out[N];
  float sum = 0;
  for (int i = 0; i < N; i++)
    in[i] = i;
  for (int s = 0; s < 5; s++) {
    step(out, in, N);
    sum += out[1];
  }
  printf("region_call: %.1f\n", sum);
  return 0;
}
