#include <stdio.h>
#include <stdlib.h>

#include "assemble.h"

enum { N = 1 << 11, PASSES = 5 };

int main(void) {
  double *u = malloc(N * sizeof *u), *out = calloc(N, sizeof *out);
  Workspace w = {malloc(N * sizeof(double)), malloc(N * sizeof(double)), malloc(N * sizeof(int))};
  if (!u || !out || !w.flux || !w.grad || !w.count)
    return 1;
  for (int i = 0; i < N; i++)
    u[i] = (double)(i % 9);
  double sum = 0.0;
  for (int p = 0; p < PASSES; p++) {
    assemble(u, out, &w, N, p);
    for (int i = 0; i < N; i++) {
      sum += out[i];
      u[i] += out[i] * 0.125;
    }
  }
  printf("checksum %.3f\n", sum);
  free(w.flux), free(w.grad), free(w.count);
  free(u), free(out);
  return 0;
}
