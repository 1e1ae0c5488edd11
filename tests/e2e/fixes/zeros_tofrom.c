/* zeros_tofrom.c - fixture of the fix proof tests: two zero-filled arrays
 * that one `target data` maps `tofrom`.
 *
 * The second array's zeros are the first's content (a duplicate of another
 * buffer's content). The zeros of a `map(to:)` would be made on the device;
 * these come back too, so the fix stays manual, and the reason must name
 * the map the directive has. */
#include <stdio.h>

#define N 4096

int main(void)
{
  static double u[N], v[N];
#pragma omp target data map(tofrom: u[0:N], v[0:N])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      u[i] = 0.25 * i;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      v[i] = u[i] + 1.0;
  }
  printf("zeros_tofrom: %.2f %.2f\n", u[N - 1], v[N - 1]);
  return 0;
}
