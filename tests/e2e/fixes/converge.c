/* converge.c - fixture of the fix proof tests: a relaxation loop whose
 * kernel keeps, per element, the largest change seen so far, and whose
 * `target update from` brings that array back every step for the host to
 * test convergence. From the second step on the largest changes stay the
 * same, so the copies bring back what the host holds, though they follow
 * the kernel that writes the array: the recipe says to make the test on
 * the device. */
#include <math.h>
#include <stdio.h>

enum { N = 1024, ITER = 6 };

int main(void)
{
  static float r[N], d[N];
  for (int i = 0; i < N; i++)
    r[i] = (float)(i % 7);
  float maxd = 1.0f;
  int t;
#pragma omp target data map(to: r[0:N], d[0:N])
  for (t = 0; t < ITER && maxd > 1e-12f; t++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++) {
      float next = 0.5f * r[i] + 1.0f;
      d[i] = fmaxf(fabsf(next - r[i]), d[i]);
      r[i] = next;
    }
#pragma omp target update from(d[0:N])
    maxd = 0.0f;
    for (int i = 0; i < N; i++)
      maxd = fmaxf(maxd, d[i]);
  }
  printf("converge: %d steps, %.3f\n", t, maxd);
  return 0;
}
