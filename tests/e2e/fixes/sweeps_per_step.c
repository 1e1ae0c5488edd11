/* Ten sweeps of one field a step, and a host function reads one value of
 * it after every step through a pointer that is not to const (so the
 * region cannot go around the step loop): the region goes around the
 * sweeps, which run once per step, and the fix says that its predicted
 * savings count the field's copies once over the whole run. */
#include <stdio.h>
#include <stdlib.h>
#define LEN 4096
static void sweep(double *f, int n, double w) {
#pragma omp target teams distribute parallel for map(tofrom: f[0:n])
  for (int i = 0; i < n; i++)
    f[i] = f[i] * w + 1.0;
}
static double first(double *f) { return f[0]; }
int main(void) {
  double *field = malloc(LEN * sizeof *field);
  if (!field)
    return 1;
  for (int i = 0; i < LEN; i++)
    field[i] = 0.25 * (i % 3);
  double watch = 0;
  for (int step = 0; step < 8; step++) {
    for (int it = 0; it < 10; it++)
      sweep(field, LEN, 0.5);
    watch += first(field);
  }
  printf("%.3f\n", watch);
  free(field);
  return 0;
}
