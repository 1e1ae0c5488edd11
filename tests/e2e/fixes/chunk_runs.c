/* A field relaxed chunk by chunk in an inner loop, and the host changes one
 * value of it after every step: the step loop cannot be kept on the device
 * whole, and a region around the inner loop would copy each chunk in and
 * back at each step, as the kernel's own map does now. The fix stays
 * manual and says so, rather than claim the steps' round trips. */
#include <stdio.h>
#include <stdlib.h>
#define CHUNKS 6
#define LEN 1024
static void relax(double *chunk, int n, double w) {
#pragma omp target teams distribute parallel for map(tofrom: chunk[0:n])
  for (int i = 0; i < n; i++)
    chunk[i] = chunk[i] * w + 1.0;
}
int main(void) {
  double *field = malloc(CHUNKS * LEN * sizeof *field);
  if (!field)
    return 1;
  for (int i = 0; i < CHUNKS * LEN; i++)
    field[i] = i / LEN + 0.25 * (i % 3);
  for (int step = 0; step < 8; step++) {
    for (int c = 0; c < CHUNKS; c++)
      relax(field + c * LEN, LEN, 0.5);
    field[CHUNKS * LEN - 1] += 1.0;
  }
  double s = 0;
  for (int i = 0; i < CHUNKS * LEN; i++)
    s += field[i];
  printf("%.3f\n", s);
  free(field);
  return 0;
}
