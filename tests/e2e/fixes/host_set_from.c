/* A data region maps `from` a timestamp that only the host sets inside it
 * (a timing pattern of training examples): no kernel is given it and no
 * copy goes into it, so the region's end copies uninitialized device
 * memory over the host's value. The copy back is an unused transfer, the
 * allocation unused, and the region calls only the OpenMP API
 * (omp_get_wtime), which launches no kernel: the item is removed. */
#include <omp.h>
#include <stdio.h>

#define LEN 30000

int main(void) {
  static float u[LEN], v[LEN];
  double started = 0.0, norm = 0.0;
#pragma omp target data map(alloc: u[0:LEN], v[0:LEN]) map(from: norm, started)
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < LEN; i++) {
      u[i] = (float)(i % 11);
      v[i] = 0.5f;
    }
    started = omp_get_wtime();
#pragma omp target teams distribute parallel for reduction(+: norm)
    for (int i = 0; i < LEN; i++)
      norm += u[i] * v[i];
  }
  printf("norm %.1f\n", norm);
  return 0; /* started is not printed: the copy back makes it garbage */
}
