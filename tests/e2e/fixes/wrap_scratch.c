/* wrap_scratch.c: a time loop runs a kernel that maps its state `tofrom`
 * and two scratch arrays `alloc`: every step copies the state both ways
 * and allocates the scratch anew. One `target data` around the loop keeps
 * the state and takes in the scratch arrays (`map(alloc:)`): hoisting
 * their allocations with enter and exit data of their own would put a
 * second change before the same loop, and a patch could hold only one. */
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 8

int main(void)
{
  double *state = malloc(N * sizeof *state);
  double *t1 = malloc(N * sizeof *t1), *t2 = malloc(N * sizeof *t2);
  if (!state || !t1 || !t2)
    return 1;
  for (int i = 0; i < N; i++)
    state[i] = i * 0.25;
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(tofrom: state[0:N]) map(alloc: t1[0:N], t2[0:N])
    for (int i = 0; i < N; i++) {
      t1[i] = state[i] * 2.0;
      t2[i] = t1[i] + 1.0;
      state[i] = t2[i] * 0.5;
    }
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += state[i];
  printf("wrap_scratch: checksum %.6f\n", sum);
  free(state);
  free(t1);
  free(t2);
  return 0;
}
