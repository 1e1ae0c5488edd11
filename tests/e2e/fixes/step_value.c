/* A time-step loop whose kernel reads the step number, mapped `to` by
 * name: each step allocates and sends a new value. No region around the
 * loop can keep it (it would keep the first step's value); the fix
 * passes it firstprivate. */
#include <stdio.h>

#define N 4096

int main(void) {
  static double field[N];
  for (int i = 0; i < N; i++)
    field[i] = 1.0;
#pragma omp target enter data map(to: field[0:N])
  for (int step = 0; step < 6; step++) {
#pragma omp target teams distribute parallel for map(to: step)
    for (int i = 0; i < N; i++)
      field[i] += (double)(step % 3) * 0.25;
  }
#pragma omp target exit data map(from: field[0:N])
  printf("field[7] = %.3f\n", field[7]);
  return 0;
}
