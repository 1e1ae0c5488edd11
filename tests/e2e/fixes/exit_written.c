/* exit_written.c - fixture of the fix proof tests: a `target exit data
 * map(from:)` whose copy back brings the kernel's results.
 *
 * In this run the kernel writes the values the host had already, so the
 * copy back returns what was sent (a round trip), but the kernel of the
 * same function writes the array: the copy back is needed in any other
 * run, and the fix must stay manual. */
#include <stdio.h>

#define N 1024

int main(void)
{
  static int a[N];
  for (int i = 0; i < N; i++)
    a[i] = 1;
#pragma omp target enter data map(to: a[0:N])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++)
    a[i] = a[i] * a[i];
#pragma omp target exit data map(from: a[0:N])
  int sum = 0;
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("exit_written: sum %d\n", sum);
  return 0;
}
