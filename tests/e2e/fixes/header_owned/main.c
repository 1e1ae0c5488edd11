/* A program whose offload directive lives in its own header, smooth.h,
 * included by this file and by relax.c. */
#include <stdio.h>
#include <stdlib.h>

#include "smooth.h"

#define N (1 << 18)

int main(void) {
  double *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w);
  if (!v || !w)
    return 1;
  for (int i = 0; i < N; i++) {
    v[i] = (double)(i % 97);
    w[i] = (double)(i % 13) * 4.0;
  }
  smooth(v, w, N, 4);
  printf("after smooth: v[5] = %.6f, v[N-1] = %.6f\n", v[5], v[N - 1]);
  printf("left after relax: %.6f\n", relax(v, N));
  free(v);
  free(w);
  return 0;
}
