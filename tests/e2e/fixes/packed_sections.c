/* One allocation holding three arrays back to back (positions, velocities,
 * forces), each passed to its own kernel as a pointer into it. One
 * construct maps one section of a base, so the region around the loop
 * maps their span: from the first one's start to the last one's end. */
#include <stdio.h>
#include <stdlib.h>

#define N 1024

static void push(double *x, const double *v, int n) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) map(to: v[0:n])
  for (int i = 0; i < n; i++)
    x[i] += 0.5 * v[i];
}

static void accelerate(double *v, int n) {
#pragma omp target teams distribute parallel for map(tofrom: v[0:n])
  for (int i = 0; i < n; i++)
    v[i] += 1.0;
}

static void count(double *f, int n) {
#pragma omp target teams distribute parallel for map(tofrom: f[0:n])
  for (int i = 0; i < n; i++)
    f[i] += 2.0;
}

int main(void) {
  double *state = malloc(3 * N * sizeof *state);
  if (!state)
    return 1;
  for (int i = 0; i < 3 * N; i++)
    state[i] = i % 17;
  for (int step = 0; step < 8; step++) {
    push(state, state + N, N);
    accelerate(state + N, N);
    count(state + 2 * N, N);
  }
  double sum = 0;
  for (int i = 0; i < 3 * N; i++)
    sum += state[i] * (i % 3 + 1);
  printf("%.1f\n", sum);
  free(state);
  return 0;
}
