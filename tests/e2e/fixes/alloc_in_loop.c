/* alloc_in_loop.c: each step of a repeat loop takes its arrays afresh
 * from an allocator through a macro that also fills them with one value
 * (as HeCBench wsm5's ALLOC does with malloc), maps them for one kernel
 * and gives them back. The allocator hands back the same blocks (an arena
 * here, so that the test does not hang on malloc's reuse, which ASan's
 * allocator does not do), so the copies look repeated, but no wrap of the
 * loop can keep memory that each step replaces: the result z, which only
 * an allocation-only wrap could take, must be refused too (a wrap would
 * map z before the loop assigns it), and the recipes must say to allocate
 * before the loop. The fill in the macro is not read: the reason for the
 * inputs' equal content must not claim the source has no fill. */
#include <stdio.h>

#define N 4096
#define STEPS 3
#define ALLOC(A, n)                                                                           \
  A = grab(n);                                                                                \
  for (int i_ = 0; i_ < (n); i_++)                                                            \
  A[i_] = 0.001

static double arena[3 * N];
static size_t used;

/* The next n elements of the arena; release() gives them all back. */
static double *grab(size_t n)
{
  double *p = arena + used;
  used += n;
  return p;
}

static void release(void) { used = 0; }

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
    release();
  }
  printf("alloc_in_loop: %.6f\n", sum);
  return 0;
}
