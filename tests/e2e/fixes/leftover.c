/* leftover.c - fixture of the fix proof tests: a mapping never deleted.
 *
 * `a` is mapped by `target enter data` and never unmapped: omplens lists it
 * among the mappings at exit (a leftover, not a finding). The fix adds
 * `target exit data map(delete: a[0:N])` before free(a). The program must
 * print the same line before and after, and record no leftover after.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)

int main(void)
{
  double *a = malloc(N * sizeof *a);
  if (!a)
    return 1;
  for (int i = 0; i < N; i++)
    a[i] = i * 0.5;

#pragma omp target enter data map(to: a[0:N])
#pragma omp target teams distribute parallel for map(tofrom: a[0:N])
  for (int i = 0; i < N; i++)
    a[i] = a[i] * 2.0 + 1.0;
#pragma omp target update from(a[0:N])

  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("leftover: checksum %.3f\n", sum);
  free(a);
  return 0;
}
