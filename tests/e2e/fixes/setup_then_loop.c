/* A solver in the shape of miniFE's cg_solve() and Rodinia's kmeans:
 * residual() runs once before the loop and in every step; norm() runs
 * once, between them, and re-sends the x that residual() just sent; each
 * step's weights are recomputed on the host and read by the kernel
 * through a pointer taken in the loop (float *w = weights[0]), so only
 * their allocation repeats. The fix keeps x and r on the device from the
 * first residual() on, and keeps the weights allocated while still
 * copying them each step (`always`). */
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096, STEPS = 6 };

static void residual(const double *x, double *r, int n) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: r[0:n])
  for (int i = 0; i < n; i++)
    r[i] = 0.5 * r[i] + 0.25 * x[i];
}

static double norm(const double *x, int n) {
  double s = 0.0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: x[0:n]) map(tofrom: s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

int main(void) {
  double *x = malloc(N * sizeof *x), *r = malloc(N * sizeof *r);
  double **weights = malloc(sizeof *weights);
  if (!x || !r || !weights || !(weights[0] = malloc(3 * sizeof **weights)))
    return 1;
  for (int i = 0; i < N; i++) {
    x[i] = (double)(i % 7);
    r[i] = 1.0;
  }
  residual(x, r, N);
  double xx = norm(x, N);
  for (int s = 0; s < STEPS; s++) {
    weights[0][0] = 0.5 / (s + 1);
    weights[0][1] = 1.0 - weights[0][0];
    weights[0][2] = 0.125 * s;
    double *w = weights[0];
#pragma omp target teams distribute parallel for map(to: w[0:3]) map(tofrom: r[0:N])
    for (int i = 0; i < N; i++)
      r[i] = w[0] * r[i] + w[1] + w[2];
    residual(x, r, N);
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += r[i];
  printf("x.x %.1f, sum %.6f\n", xx, sum);
  free(weights[0]);
  free(weights);
  free(x);
  free(r);
  return 0;
}
