/* alloc_in_loop.c: each step of a repeat loop allocates its arrays afresh
 * through a macro that also fills them with one value (as HeCBench wsm5's
 * ALLOC does), maps them for one kernel and frees them. malloc hands back
 * the same addresses, so the copies look repeated, but no wrap of the
 * loop can keep memory that each step replaces: the result z, which only
 * an allocation-only wrap could take, must be refused too (a wrap would
 * map z before the loop assigns it), and the recipes must say to allocate
 * before the loop. The fill in the macro is not read: the reason for the
 * inputs' equal content must not claim the source has no fill. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 3
#define ALLOC(A, n)                                                                           \
  A = malloc((n) * sizeof *(A));                                                              \
  for (int i_ = 0; i_ < (n); i_++)                                                            \
  A[i_] = 0.001

int main(void)
{
  double *x, *y, *z;
  double sum = 0;
  for (int r = 0; r < STEPS; r++) {
    ALLOC(x, N);
    ALLOC(y, N);
    ALLOC(z, N);
#pragma omp target data map(to: x[0:N], y[0:N]) map(tofrom: z[0:N])
    {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        z[i] = x[i] + y[i];
    }
    sum += z[7];
    free(x);
    free(y);
    free(z);
  }
  printf("alloc_in_loop: %.6f\n", sum);
  return 0;
}
