#include <stdio.h>
#include <stdlib.h>

#include "ops.h"

enum { N = 64, ITERS = 4 };

int main(void) {
  double *A = malloc(N * N * sizeof *A);
  double *b = malloc(N * sizeof *b), *x = calloc(N, sizeof *x);
  double *r = malloc(N * sizeof *r), *p = malloc(N * sizeof *p), *q = malloc(N * sizeof *q);
  if (!A || !b || !x || !r || !p || !q)
    return 1;
  /* Symmetric, diagonally dominant: 4 on the diagonal, -1 beside it. */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i * N + j] = i == j ? 4.0 : (i - j == 1 || j - i == 1) ? -1.0 : 0.0;
  for (int i = 0; i < N; i++)
    b[i] = r[i] = p[i] = (double)(1 + i % 5);
  double rr = dot(r, r, N);
  for (int k = 0; k < ITERS; k++) {
    matvec(A, p, q, N);
    double alpha = rr / dot(p, q, N);
    axpy(x, alpha, p, N);
    axpy(r, -alpha, q, N);
    double rr_new = dot(r, r, N);
    for (int i = 0; i < N; i++)
      p[i] = r[i] + rr_new / rr * p[i];
    rr = rr_new;
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += x[i];
  printf("checksum %.6e\n", sum);
  free(A), free(b), free(x), free(r), free(p), free(q);
  return 0;
}
