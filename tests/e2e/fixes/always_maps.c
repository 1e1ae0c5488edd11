/* A solver step whose kernel maps its arrays `always`, called in a loop
 * under an enter data that allocates them once: every call copies them
 * in and out although they stay mapped. A region around the loop removes
 * no copy (`always` copies anyway): no diff, and the recipe drops
 * `always` instead. */
#include <stdio.h>
#include <stdlib.h>

static void relax(int n, double w, double *src, double *dst) {
#pragma omp target teams distribute parallel for map(always, to: src[0:n]) map(always, from: dst[0:n])
  for (int i = 0; i < n; i++)
    dst[i] = (1.0 - w) * dst[i] + w * src[i];
}

int main(void) {
  int n = 20000;
  double *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
  for (int i = 0; i < n; i++) {
    src[i] = i % 17;
    dst[i] = 0.0;
  }
#pragma omp target enter data map(alloc: src[0:n], dst[0:n])
  double w = 0.5;
  for (int it = 0; it < 8; it++) {
    relax(n, w, src, dst);
  }
#pragma omp target exit data map(delete: src[0:n], dst[0:n])
  printf("dst[16] = %.4f\n", dst[16]);
  free(src);
  free(dst);
  return 0;
}
