/* two_inputs.c - fixture of the fix proof tests: two arrays filled from
 * one input (HeCBench fdtd3d's `memcpy` of the input into both) and both
 * sent by one `target data`. The second copy carries bytes the device
 * received for the first: the recipe names that array and says to copy
 * it on the device, not to add a `target data` region the maps are
 * already in. */
#include <stdio.h>
#include <string.h>

enum { N = 4096 };

int main(void)
{
  static float input[N], in[N], out[N];
  for (int i = 0; i < N; i++)
    input[i] = (float)(i % 11);
  memcpy(in, input, sizeof in);
  memcpy(out, input, sizeof out);
  float sum = 0.0f;
#pragma omp target data map(to: in[0:N]) map(tofrom: out[0:N])
  {
#pragma omp target teams distribute parallel for
    for (int i = 1; i < N - 1; i++)
      out[i] = 0.25f * (in[i - 1] + 2.0f * in[i] + in[i + 1]);
  }
  for (int i = 0; i < N; i++)
    sum += out[i];
  printf("two_inputs: %.1f\n", sum);
  return 0;
}
