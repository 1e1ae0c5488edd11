/* reset_always.c - fixture of the fix proof tests: a convergence loop
 * whose error stays mapped in a region around it while the kernel maps it
 * `always, tofrom` (the shape omplens's own wrap leaves, HeCBench jacobi
 * after its patch). Each step sets `error = 0.f;` and the `always` sends
 * it: the recipe names the `always` rather than asking for a region that
 * is there already. */
#include <stdio.h>

enum { N = 2048, MAX_STEPS = 40 };

int main(void)
{
  static float f[N], g[N];
  for (int i = 0; i < N; i++)
    f[i] = g[i] = (float)(i % 9);
  float error = 1.f;
  int steps = 0;
#pragma omp target data map(tofrom: f[0:N]) map(to: g[0:N])
#pragma omp target data map(alloc: error)
  while (error > 1e-6f && steps < MAX_STEPS) {
    error = 0.f;
#pragma omp target teams distribute parallel for reduction(+ : error) map(always, tofrom: error)
    for (int i = 1; i < N - 1; i++) {
      float t = 0.5f * (g[i - 1] + g[i + 1]);
      error += (t - g[i]) * (t - g[i]);
      f[i] = t;
    }
#pragma omp target teams distribute parallel for
    for (int i = 1; i < N - 1; i++)
      g[i] = f[i];
    steps++;
  }
  printf("reset_always: %d steps, %.4f\n", steps, f[N / 2]);
  return 0;
}
