/* swap_from.c - fixture of the manual fix tests: a copy back that only
 * looks unneeded.
 *
 * A clamping sweep between two buffers that trade places every step (the
 * pointers swap on the host). The recorded input is already inside the
 * limits, so each kernel writes back the values it read, and the update
 * from(src) after the loop brings the bytes the host sent: a round trip,
 * in this run. The kernel writes dst, which is src's memory after a swap:
 * with other input the update brings the clamped results, so the fix must
 * stay manual and say that src is given another buffer.
 */
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 14, STEPS = 6 };

int main(int argc, char **argv) {
  double limit = argc > 1 ? 0.5 : 100.0;
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  if (!a || !b)
    return 1;
  for (int i = 0; i < N; i++)
    a[i] = b[i] = (double)(i % 13) * 0.25;
  double *src = a, *dst = b;
#pragma omp target data map(to: a[0:N], b[0:N])
  {
    for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        dst[i] = src[i] > limit ? limit : src[i];
      double *t = src;
      src = dst;
      dst = t;
    }
#pragma omp target update from(src[0:N])
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += src[i];
  printf("swap_from: %.3f\n", sum);
  free(a);
  free(b);
  return 0;
}
