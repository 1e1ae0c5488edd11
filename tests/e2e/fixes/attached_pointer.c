/* attached_pointer.c - fixture of the fix proof tests: a pointer mapped
 * together with the array it points to, `map(p, p[0:n])`, every step of
 * a loop. Clang passes the runtime one argument for both items, which
 * begins at the array; the runtime allocates p on the device for it (and
 * LLVM 19 leaves that allocation mapped at exit). No map argument begins
 * at p, and the leftover's fix says it is the runtime's copy of the
 * pointer p, not that the trace lacks map names or that the directive is
 * unknown. */
#include <stdio.h>
#include <stdlib.h>

#define N 1024

int main(void)
{
  int n = N;
  double *p = malloc(sizeof *p * N);
  for (int i = 0; i < n; i++)
    p[i] = i;
  for (int step = 0; step < 4; step++) {
#pragma omp target map(p, p[0:n])
    for (int i = 0; i < n; i++)
      p[i] += 1.0;
  }
  printf("attached_pointer: %.1f\n", p[N - 1]);
  free(p);
  return 0;
}
