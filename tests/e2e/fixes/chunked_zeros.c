/* A zeroed field relaxed chunk by chunk, each chunk with its own weight:
 * at the first step every chunk sends the same zeros, a duplicate of the
 * first chunk's. The region around the step loop sends the whole field
 * once, so those first copies go into its one copy with the round trips
 * it removes, and the region's fix takes their findings too. */
#include <stdio.h>
#include <stdlib.h>
#define CHUNKS 6
#define LEN 1024
static void relax(double *chunk, int n, double w) {
#pragma omp target teams distribute parallel for map(tofrom: chunk[0:n])
  for (int i = 0; i < n; i++)
    chunk[i] = chunk[i] * w + w;
}
int main(void) {
  double *field = calloc(CHUNKS * LEN, sizeof *field);
  if (!field)
    return 1;
  for (int step = 0; step < 8; step++)
    for (int c = 0; c < CHUNKS; c++)
      relax(field + c * LEN, LEN, 0.5 + 0.0625 * c);
  double s = 0;
  for (int i = 0; i < CHUNKS * LEN; i++)
    s += field[i] * (i % 5);
  printf("%.3f\n", s);
  free(field);
  return 0;
}
