/* A field relaxed chunk by chunk in an inner loop, and the host reads one
 * value of it after every step: the region goes around the step loop,
 * with a `target update from` of the field before the host's read; that
 * update, the step body's last, brings the field back for the last time,
 * so the region maps it `to`. */
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
  double watch = 0;
  for (int step = 0; step < 8; step++) {
    for (int c = 0; c < CHUNKS; c++)
      relax(field + c * LEN, LEN, 0.5);
    watch += field[0];
  }
  printf("%.3f\n", watch);
  free(field);
  return 0;
}
