/* host_recompute.c - fixture of the fix proof tests: a loop that computes
 * an array on the device in some steps and on the host in others, sending
 * the host's result with `target update to`. Both compute the same values,
 * so in the recorded run the update sends what the device already holds;
 * with other inputs it would not. The update stays: the host writes the
 * array before it. */
#include <stdio.h>

enum { N = 4096, STEPS = 6 };

int main(void)
{
  static double x[N];
  double sum = 0.0;
#pragma omp target data map(alloc: x[0:N])
  for (int s = 0; s < STEPS; s++) {
    if (s % 2 == 0) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        x[i] = 0.5 * i + 1.0;
#pragma omp target update from(x[0:N])
    } else {
      for (int i = 0; i < N; i++)
        x[i] = 0.5 * i + 1.0;
#pragma omp target update to(x[0:N])
    }
    sum += x[N - 1];
  }
  printf("host_recompute: %.1f\n", sum);
  return 0;
}
