/* profile_info.c - omplens e2e test: every kind of data directive, no waste.
 *
 * Data enters once, kernels update it on the device, the host reads it back
 * with `target update from`, changes it and sends it with `target update
 * to`, and `target exit data` brings the result home: each copy carries
 * content its receiver does not hold. tests/e2e/profile_info.sh compares
 * omplens's per-directive profile with what LIBOMPTARGET_INFO prints. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 6

int main(void)
{
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  double sum = 0;
  if (!a || !b)
    return 1;
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target enter data map(to: a[0:N]) map(alloc: b[0:N])
  for (int s = 0; s < STEPS; s++) {
    if (s % 2 == 1) {
#pragma omp target update from(a[0:N])
      for (int i = 0; i < N; i++)
        a[i] = a[i] / 3.0;
#pragma omp target update to(a[0:N])
    }
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++) {
      b[i] = 2.0 * a[i];
      a[i] = b[i] + 1.0;
    }
  }
#pragma omp target data map(tofrom: sum)
  {
#pragma omp target teams distribute parallel for reduction(+: sum)
    for (int i = 0; i < N; i++)
      sum += b[i];
  }
#pragma omp target exit data map(from: a[0:N]) map(delete: b[0:N])
  printf("%.1f %.1f\n", a[N - 1], sum);
  free(a);
  free(b);
  return 0;
}
