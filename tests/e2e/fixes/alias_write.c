/* alias_write.c: a kernel writes its result through a pointer into it
 * (`int *slot = &ind[i]; slot[0] = ...;`, as HeCBench knn's kernels do),
 * another kernel then scales the other array (calling a function, as
 * knn's `sqrtf`), and a `target update from` brings the result back each
 * step. The result is the same every step,
 * so the copies back are duplicates; the recipe must see that a kernel
 * before the update writes ind (through slot, and not the last kernel),
 * not ask to move the update after such a kernel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 5

int main(void)
{
  int *ind = malloc(N * sizeof *ind);
  float *dist = malloc(N * sizeof *dist);
  long total = 0;
  if (!ind || !dist)
    return 1;
  for (int i = 0; i < N; i++)
    dist[i] = (float)(i % 11);
#pragma omp target data map(to: dist[0:N]) map(alloc: ind[0:N])
  for (int s = 0; s < STEPS; s++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++) {
      int *slot = &ind[i];
      slot[0] = dist[i] > 5.0f ? 1 : 0;
    }
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      dist[i] = fabsf(dist[i] * 0.5f) + 2.0f;
#pragma omp target update from(ind[0:N])
    total += ind[N - 1];
  }
  printf("alias_write: %ld\n", total);
  free(ind);
  free(dist);
  return 0;
}
