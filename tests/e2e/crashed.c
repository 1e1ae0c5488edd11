/* crashed.c - a program that dies inside a target data region before the
 * kernel that would use its buffer, as one does when the runtime stops at
 * a mapping error. What it would have done next is unknown, so the buffer
 * mapped there is neither an unused allocation nor an unused transfer;
 * the region that completed without any kernel is. (crashed.sh) */
#include <stdio.h>
#include <stdlib.h>

#define N 4096

int main(void) {
  static double u[N], v[N], w[N];
  for (int i = 0; i < N; i++)
    u[i] = v[i] = w[i] = i;

#pragma omp target data map(alloc : u[0:N]) /* UNUSED: no kernel in it */
  { u[0] += 1; }

#pragma omp target map(tofrom : v[0:N])
  for (int i = 0; i < N; i++)
    v[i] *= 2;

#pragma omp target data map(to : w[0:N]) /* CRASHED: its kernel never ran */
  {
    printf("crashed: %g\n", v[N - 1]);
    fflush(stdout);
    abort();
#pragma omp target
    for (int i = 0; i < N; i++)
      w[i] += 1;
  }
  return 0;
}
