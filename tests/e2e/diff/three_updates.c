/* three_updates.c - fixture of e2e_diff_moved_directive: three stages of
 * one function each send v, run a kernel that only reads it, and copy v
 * back: three round trips of one variable, in one function, on three
 * lines. The test removes the first stage's copy back (the line marked
 * DROP, as omplens's own fix does), which moves the other two up one
 * line: `omplens diff` must call the first gone and pair the other two
 * with their own moved lines. */
#include <stdio.h>

enum { N = 4096 };

static double v[N], w[N];

static void fill(int stage, int round) {
  for (int i = 0; i < N; i++)
    v[i] = stage * 1000.0 + round * 10.0 + i % 7;
}

static double total(void) {
  double s = 0;
  for (int i = 0; i < N; i++)
    s += v[i] + w[i];
  return s;
}

int main(void) {
  double sum = 0;
#pragma omp target data map(alloc: v[0:N]) map(from: w[0:N])
  {
    for (int round = 0; round < 3; round++) {
      fill(1, round);
#pragma omp target update to(v[0:N])
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        w[i] = 2 * v[i];
#pragma omp target update from(v[0:N]) /* DROP */
      sum += total();

      fill(2, round);
#pragma omp target update to(v[0:N])
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        w[i] = 3 * v[i];
#pragma omp target update from(v[0:N])
      sum += total();

      fill(3, round);
#pragma omp target update to(v[0:N])
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        w[i] = 4 * v[i];
#pragma omp target update from(v[0:N])
      sum += total();
    }
  }
  printf("three_updates: %.1f\n", sum);
  return 0;
}
