/* accumulate.c - fixture of the fix proof tests: `target update to`
 * resets an accumulator every step, and the kernel that follows adds to
 * it (`v[i] += weight(x[i])`), calling a function; the result comes back
 * once, after the loop. The trace sees the same zeros sent each step (a
 * duplicate: kernel writes are not in it); the update is needed, and the
 * reason names the kernel's write, not only its call. */
#include <stdio.h>

enum { N = 4096, STEPS = 5 };

#pragma omp declare target
static double weight(double x) { return 0.5 * x + 1.0; }
#pragma omp end declare target

int main(void)
{
  static double v[N], x[N];
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    x[i] = i % 13;
#pragma omp target data map(alloc: v[0:N]) map(to: x[0:N])
  {
    for (int s = 0; s < STEPS; s++) {
      for (int i = 0; i < N; i++)
        v[i] = 0.0;
#pragma omp target update to(v[0:N])
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        v[i] += weight(x[i]);
    }
#pragma omp target update from(v[0:N])
    sum += v[N - 1];
  }
  printf("accumulate: %.4f\n", sum);
  return 0;
}
