/* implicit_back.c - fixture of the fix proof tests: an array that no
 * clause maps, so a kernel that only reads it maps it `tofrom` and copies
 * back bytes the host already holds (a duplicate on the host). The fix
 * adds `map(to:)`; its summary names the device the copy came from, not
 * the host that received it. */
#include <stdio.h>

#define N 1024

int main(void)
{
  static double b[N], c[N];
  for (int i = 0; i < N; i++)
    b[i] = i;
#pragma omp target data map(tofrom: b[0:N])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      b[i] = b[i] + 1.0;
  }
#pragma omp target teams distribute parallel for map(from: c[0:N])
  for (int i = 0; i < N; i++)
    c[i] = 2.0 * b[i];
  printf("implicit_back: %.1f %.1f\n", b[N - 1], c[N - 1]);
  return 0;
}
