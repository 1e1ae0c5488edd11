/* enter_exit_loop.c: an enter data and an exit data around one kernel in
 * a time loop, which the host does not touch in between. a and b come back
 * as they went, c comes back with the kernel's result and is sent again
 * as it came back. Their copies are flagged by duplicates and round trips,
 * their allocations by repeated allocations, in separate groups; a wrap of
 * the loop keeps all three (the exit data only takes its reference back),
 * b's ones are filled on the device and a and b are released rather than
 * copied back. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 8

int main(void)
{
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
  if (!a || !b || !c)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 1;
    c[i] = 0;
  }
  for (int s = 0; s < STEPS; s++) {
#pragma omp target enter data map(to: a[0:N], b[0:N], c[0:N])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      c[i] = a[i] * b[i] + s + 1;
#pragma omp target exit data map(from: a[0:N], b[0:N], c[0:N])
  }
  printf("enter_exit_loop: %.1f\n", c[10]);
  free(a);
  free(b);
  free(c);
  return 0;
}
