/* A time loop that a return can leave: run() stops at a checkpoint step
 * and returns from inside its loop, so a `target data` region cannot wrap
 * the loop. relax() maps its buffers on every call; the fix maps them with
 * `target enter data` before the loop and unmaps them (`target exit
 * data`) after it and before the return. */
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
    if (s == checkpoint) {
      printf("checkpoint at step %d\n", s);
      return s + 1;
    }
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
