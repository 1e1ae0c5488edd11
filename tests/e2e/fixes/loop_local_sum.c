/* loop_local_sum.c - fixture of the fix proof tests: a norm computed in
 * each run of a repeat loop into `double sum = 0.0;` declared inside the
 * loop and mapped `tofrom` by the reduction's kernel (HeCBench norm2).
 * Each run maps a new variable: the recipe says to declare it before the
 * loop, not to wrap the loop with a variable that does not exist there. */
#include <stdio.h>

enum { N = 4096, REPEAT = 4 };

int main(void)
{
  static float a[N];
  double result[REPEAT];
  for (int i = 0; i < N; i++)
    a[i] = (float)((i + 1) % 7);
#pragma omp target data map(to: a[0:N])
  for (int r = 0; r < REPEAT; r++) {
    double sum = 0.0;
#pragma omp target teams distribute parallel for map(tofrom: sum) reduction(+: sum)
    for (int i = 0; i < N; i++)
      sum += a[i] * a[i];
    result[r] = sum / N;
  }
  printf("loop_local_sum: %.3f\n", result[REPEAT - 1]);
  return 0;
}
