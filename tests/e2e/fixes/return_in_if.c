/* return_in_if.c - fixture of the fix proof tests: early_return.c's time
 * loop, whose return is the body of an `if` on the same line (HeCBench
 * clenergy's shape). No exit data can go before that return, so there is
 * no diff, and the recipe must not be a `target data` region around the
 * loop, which a return cannot leave: it says to use enter and exit data,
 * with the exit data before the return, in braces with it. */
#include <stdio.h>
#include <stdlib.h>

enum { N = 8192, STEPS = 20, CHECKPOINT = 12 };

static void relax(const double *coef, double *u, int n) {
#pragma omp target teams distribute parallel for map(to: coef[0:n]) map(tofrom: u[0:n])
  for (int i = 0; i < n; i++)
    u[i] = 0.5 * (u[i] + coef[i]);
}

static int run(const double *coef, double *u, int n, int steps, int checkpoint) {
  for (int s = 0; s < steps; s++) {
    relax(coef, u, n);
    if (s == checkpoint) return s + 1;
  }
  return steps;
}

int main(void) {
  double *coef = malloc(N * sizeof *coef), *u = malloc(N * sizeof *u);
  if (!coef || !u)
    return 1;
  for (int i = 0; i < N; i++) {
    coef[i] = (double)(i % 13);
    u[i] = 0.0;
  }
  int done = run(coef, u, N, STEPS, CHECKPOINT);
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += u[i];
  printf("%d steps, sum %.6f\n", done, sum);
  free(coef);
  free(u);
  return 0;
}
