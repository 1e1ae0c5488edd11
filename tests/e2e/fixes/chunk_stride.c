/* Chunks at the offset of a counter that steps by two: the span from the
 * counter's bounds would not be the chunks the loop reaches, so the fix
 * stays manual and says which offsets a region can span. */
#include <stdio.h>
#include <stdlib.h>
#define CHUNKS 6
#define LEN 1024
static void relax(double *chunk, int n) {
#pragma omp target teams distribute parallel for map(tofrom: chunk[0:n])
  for (int i = 0; i < n; i++)
    chunk[i] = chunk[i] * 0.5 + 1.0;
}
int main(void) {
  double *field = malloc(CHUNKS * LEN * sizeof *field);
  if (!field)
    return 1;
  for (int i = 0; i < CHUNKS * LEN; i++)
    field[i] = i % 9;
  for (int step = 0; step < 8; step++)
    for (int c = 0; c < CHUNKS; c += 2)
      relax(field + c * LEN, LEN);
  double s = 0;
  for (int i = 0; i < CHUNKS * LEN; i++)
    s += field[i];
  printf("%.3f\n", s);
  free(field);
  return 0;
}
