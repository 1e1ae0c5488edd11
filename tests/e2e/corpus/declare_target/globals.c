#include <stdio.h>

enum { N = 1024, STEPS = 7 };

/* Device-resident tables, as physics codes keep their coefficients. */
#pragma omp declare target
double coef[N];
double state[N];
#pragma omp end declare target

int main(void) {
  for (int i = 0; i < N; i++) {
    coef[i] = 0.01 * (double)(i % 10);
    state[i] = 1.0;
  }
#pragma omp target update to(state)
  for (int t = 0; t < STEPS; t++) {
    /* coef never changes, yet it is sent again every step. */
#pragma omp target update to(coef)
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      state[i] += coef[i] * state[i];
  }
#pragma omp target update from(state)
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += state[i];
  printf("checksum %.6f\n", sum);
  return 0;
}
