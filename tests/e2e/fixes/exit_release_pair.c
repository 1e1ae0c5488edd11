/* exit_release_pair.c: each step maps three arrays with `target enter
 * data`, a kernel computes one of them from the other two, and `target
 * exit data` copies all three back. The two inputs come back with the
 * bytes the enter data sent (a round trip the first time, duplicates of
 * what the host holds after that): `release` instead of `from` drops
 * those copies, for both items in one change, though the copies in were
 * the enter data's, not the exit data's own; the result keeps `from`. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 6

int main(void)
{
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
  if (!a || !b || !c)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = i * 0.5;
    b[i] = (N - i) * 0.25;
    c[i] = 0.0;
  }
  double sum = 0.0;
  for (int step = 0; step < STEPS; step++) {
#pragma omp target enter data map(to: a[0:N], b[0:N], c[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      c[i] = a[i] * b[i] + step;
#pragma omp target exit data map(from: a[0:N], b[0:N], c[0:N])
    sum += c[step];
  }
  printf("exit_release_pair: checksum %.6f\n", sum);
  free(a);
  free(b);
  free(c);
  return 0;
}
