/* Host waits (tests/e2e/waits.sh): a synchronous target blocks its host
 * thread for its whole duration; a `target nowait` runs as a task while the
 * host computes, and blocks nobody (the host waits at the taskwait, outside
 * any target construct). */
#include <stdio.h>
#define N (1 << 16)
static double a[N], b[N], host[N];

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = i, b[i] = 1.0;
#pragma omp target enter data map(to: a[0:N], b[0:N])
  for (int step = 0; step < 4; step++) {
#pragma omp target teams distribute parallel for /* SYNC */
    for (int i = 0; i < N; i++)
      a[i] = 0.5 * a[i] + b[i];
#pragma omp target teams distribute parallel for nowait /* NOWAIT */
    for (int i = 0; i < N; i++)
      b[i] = 0.25 * b[i] + 1.0;
    for (int i = 0; i < N; i++) /* host work overlapping the nowait target */
      host[i] = host[i] * 0.5 + (double)i;
#pragma omp taskwait
  }
#pragma omp target exit data map(from: a[0:N], b[0:N])
  printf("%g %g %g\n", a[N - 1], b[N - 1], host[N - 1]);
  return 0;
}
