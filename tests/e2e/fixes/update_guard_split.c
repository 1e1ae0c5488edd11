/* update_guard_split.c: two updates in a loop send, each iteration,
 * arrays the device already holds after the first. The first update sends
 * only two such arrays: one if clause on it guards both. The second sends
 * one such array beside one the host changes every iteration: an if
 * clause on that directive would hold back the changed one too, so the
 * array moves to an update of its own that has the clause. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 6

int main(void)
{
  double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
  double *p = malloc(N * sizeof *p), *q = malloc(N * sizeof *q), *y = malloc(N * sizeof *y);
  if (!u || !v || !p || !q || !y)
    return 1;
  for (int i = 0; i < N; i++) {
    u[i] = 1.5;
    v[i] = 2.5;
    p[i] = 0.5;
    q[i] = i * 0.125;
    y[i] = 0.0;
  }
#pragma omp target data map(alloc: u[0:N], v[0:N], p[0:N], q[0:N]) map(tofrom: y[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target update to(u[0:N], v[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      y[i] += u[i] * v[i];
    for (int i = 0; i < N; i++)
      q[i] += 1.0;
#pragma omp target update to(p[0:N], q[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      y[i] += p[i] * q[i];
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += y[i];
  printf("update_guard_split: checksum %.6f\n", sum);
  free(u);
  free(v);
  free(p);
  free(q);
  free(y);
  return 0;
}
