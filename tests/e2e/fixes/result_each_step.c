/* result_each_step.c - fixture of the fix proof tests: a kernel in a
 * repeat loop maps its input `to` and its result `from` (HeCBench
 * stencil1d's shape). Each run sends the same input, allocates both
 * arrays again and brings back the same result, which the host reads only
 * after the loop. One wrap around the loop removes all of it: the input
 * goes once, the result comes back once, and, as each run's kernel never
 * got the host's result values, the wrap maps the result `from`. */
#include <stdio.h>

enum { N = 8192, REPEAT = 5 };

int main(void)
{
  static float a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = (float)(i % 9);
  for (int r = 0; r < REPEAT; r++) {
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(from: b[0:N])
    for (int i = 0; i < N; i++)
      b[i] = 2.0f * a[i] + 1.0f;
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += b[i];
  printf("result_each_step: %.1f\n", sum);
  return 0;
}
