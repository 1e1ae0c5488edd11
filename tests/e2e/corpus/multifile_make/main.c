#include <stdio.h>
#include <stdlib.h>

#include "stencil.h"

enum { N = 1 << 12, STEPS = 8 };

int main(void) {
  double *u = malloc(N * sizeof *u);
  if (!u)
    return 1;
  for (int i = 0; i < N; i++)
    u[i] = (double)(i % 13);
  for (int t = 0; t < STEPS; t++)
    step(u, N);
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += u[i];
  printf("checksum %.6f\n", sum);
  free(u);
  return 0;
}
