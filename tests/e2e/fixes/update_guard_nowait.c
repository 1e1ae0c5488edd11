/* update_guard_nowait.c: a `target update to(u, v) nowait` in a loop,
 * whose u re-sends what the device holds after the first step while the
 * host changes v every step. An if clause on the directive would hold
 * back v too, and an update of u's own would have to repeat `nowait`
 * (and the taskwait that goes with it): the guard is refused, and says
 * why. */
#include <stdio.h>

#define N 2048
#define STEPS 12

static double u[N], v[N], w[N];

int main(void)
{
  for (int i = 0; i < N; i++) {
    u[i] = i * 0.5;
    v[i] = 1.0;
    w[i] = 0.0;
  }
#pragma omp target data map(alloc: u, v) map(tofrom: w)
  for (int s = 0; s < STEPS; s++) {
    for (int i = 0; i < N; i++)
      v[i] += 1.0;
#pragma omp target update to(u, v) nowait
#pragma omp taskwait
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      w[i] += u[i] + v[i];
  }
  printf("update_guard_nowait: %.3f\n", w[N - 1]);
  return 0;
}
