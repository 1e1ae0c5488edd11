/* update_pair.c: a loop sends, with `target update to`, arrays the data
 * region already holds on the device and the host never changes. The
 * first update sends only those two: both go, and with them the
 * directive. The second sends them beside one the host does change each
 * step, first in its clause: both leave the clause in one change (removed
 * one by one, each would take the comma between them, and a patch could
 * hold only one), and the changed one stays. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 6

int main(void)
{
  double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  if (!u || !v || !x || !y)
    return 1;
  for (int i = 0; i < N; i++) {
    u[i] = 1.5;
    v[i] = 2.5;
    x[i] = i * 0.125;
    y[i] = 0.0;
  }
#pragma omp target data map(to: u[0:N], v[0:N], x[0:N]) map(tofrom: y[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target update to(u[0:N], v[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      y[i] += u[i] * v[i];
    for (int i = 0; i < N; i++)
      x[i] += 1.0;
#pragma omp target update to(u[0:N], v[0:N], x[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      y[i] += x[i] - u[i] + v[i];
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += y[i];
  printf("update_pair: checksum %.6f\n", sum);
  free(u);
  free(v);
  free(x);
  free(y);
  return 0;
}
