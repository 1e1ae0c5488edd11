/* An enter data maps a field and a correction; the time loop's kernels
 * use the field alone, and the correction reaches a kernel only through
 * a helper's parameter, in runs that ask for it (argc > 1). This run's
 * kernels were not given the correction: unused, but removing the item
 * would break the other runs, so the fix stays manual and names the call. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static void correct(double *f, const double *by, int n) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    f[i] -= by[i];
}

int main(int argc, char **argv) {
  (void)argv;
  double *f = malloc(N * sizeof *f), *corr = malloc(N * sizeof *corr);
  if (!f || !corr)
    return 1;
  for (int i = 0; i < N; i++) {
    f[i] = (i % 7) * 0.5;
    corr[i] = 0.001 * i;
  }
#pragma omp target enter data map(to: f[0:N], corr[0:N])
  for (int s = 0; s < 3; s++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      f[i] = 0.5 * f[i] + 1.0;
  }
  if (argc > 1)
    correct(f, corr, N);
#pragma omp target exit data map(from: f[0:N]) map(delete: corr[0:N])
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += f[i];
  printf("sum %.6f\n", s);
  free(f);
  free(corr);
  return 0;
}
