/* A kernel in a small function that -O3 inlines into its caller's time
 * loop, as cfd's compute_flux and time_step are: clang leaves the launch
 * outside the inlined instance (line 0), and the call path must still
 * name the call at line 21, in the loop at line 20. */
#include <stdio.h>

struct coef { float x, y, z; };

void scale(int n, float *a, struct coef c)
{
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 0.5f + c.x + c.y + c.z;
}

int main(void)
{
  static float a[4096];
  struct coef c = {1, 2, 3};
  for (int step = 0; step < 6; step++)
    scale(4096, a, c);
  printf("a[7] = %.2f\n", a[7]);
  return 0;
}
