/* include_body.c: each round zeroes the output with one kernel, computes it
 * with another whose body is an #include (HeCBench streamcluster includes
 * its kernel's body from kernel.h; here the file includes itself, its
 * body part selected by a macro) and copies it back to check it. The
 * copies back bring the same values every round. The parse does not read
 * the included code, so the computing kernel cannot be shown to leave the
 * output: the recipe must not say that the update follows the zeroing
 * kernel as the one that writes it. */
#ifdef INCLUDE_BODY_KERNEL
out[i] = 2.0 * in[i];
#else
#include <stdio.h>

enum { N = 4096, ROUNDS = 4 };

int main(void)
{
  static double in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = i % 7;
  int bad = 0;
#pragma omp target enter data map(to: in[0:N]) map(alloc: out[0:N])
  for (int r = 0; r < ROUNDS; r++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      out[i] = 0.0;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++) {
#define INCLUDE_BODY_KERNEL
#include "include_body.c"
#undef INCLUDE_BODY_KERNEL
    }
#pragma omp target update from(out[0:N])
    for (int i = 0; i < N; i++)
      bad += out[i] != 2.0 * in[i];
  }
#pragma omp target exit data map(delete: in[0:N], out[0:N])
  printf("include_body: %d wrong\n", bad);
  return 0;
}
#endif
