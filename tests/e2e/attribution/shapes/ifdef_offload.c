/* Offload code under #ifdef, the way codes switch it on (-DUSE_OFFLOAD):
 * parsed without the build's flags the branches are left out, yet the
 * runtime's lines name each directive. */
#include <stdio.h>

#define N 4096

static void scale(double *u, const double *coef, int n)
{
#ifdef USE_OFFLOAD
#pragma omp target teams distribute parallel for map(to: coef[0:n]) map(tofrom: u[0:n])
#endif
  for (int i = 0; i < n; i++)
    u[i] *= coef[i];
}

int main(void)
{
  static double u[N], coef[N], table[N];
  for (int i = 0; i < N; i++) {
    u[i] = 1.0;
    coef[i] = 1.0 + (i % 3) * 0.25;
    table[i] = i;
  }
  for (int s = 0; s < 4; s++) {
#ifdef USE_OFFLOAD
#pragma omp target enter data map(to: table[0:N])
#pragma omp target exit data map(delete: table[0:N])
#endif
    scale(u, coef, N);
  }
  printf("u[7] = %.4f\n", u[7]);
  return 0;
}
