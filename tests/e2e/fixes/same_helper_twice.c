// same_helper_twice.c: a helper that moves a host table to the device
// with `target enter data map(to:)`, called for two tables of equal
// content (UoB-HPC neutral's cross sections). The second copy repeats the
// bytes the first call sent for the other table, through the same
// directive and the same name: the recipe says so, rather than "copy
// src[0:n] into src[0:n]".
#include <stdio.h>
#include <stdlib.h>

#define LEN 30000

static void to_device(double *src, int n)
{
#pragma omp target enter data map(to: src[0:n])
}

static void release(double *buf, int n)
{
#pragma omp target exit data map(delete: buf[0:n])
}

int main(void)
{
  double *elastic = malloc(LEN * sizeof(double)), *capture = malloc(LEN * sizeof(double));
  for (int i = 0; i < LEN; i++)
    elastic[i] = capture[i] = 1.0 / (i + 1);
  to_device(elastic, LEN);
  to_device(capture, LEN);
  double s = 0;
#pragma omp target teams distribute parallel for map(present, to: elastic[0:LEN], capture[0:LEN]) reduction(+: s)
  for (int i = 0; i < LEN; i++)
    s += elastic[i] - 0.5 * capture[i];
  release(elastic, LEN);
  release(capture, LEN);
  free(elastic);
  free(capture);
  printf("same_helper_twice: %.6f\n", s);
  return 0;
}
