/* One helper called twice per step with its operands swapped (a
 * ping-pong between two buffers): each call maps its own input and
 * output, so every step sends both buffers out and back. The findings of
 * blur()'s items come by two calls; the fix keeps both buffers on the
 * device across the loop that makes them. */
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096, STEPS = 8 };

static void blur(const double *in, double *out, int n) {
#pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
  for (int i = 0; i < n; i++)
    out[i] = 0.5 * (in[i] + in[(i + 1) % n]);
}

int main(void) {
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  if (!a || !b)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = (double)(i % 17);
    b[i] = 0.0;
  }
  for (int s = 0; s < STEPS; s++) {
    blur(a, b, N);
    blur(b, a, N);
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("sum %.6f\n", sum);
  free(a);
  free(b);
  return 0;
}
