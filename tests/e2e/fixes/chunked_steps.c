/* A field kept in chunks: each step relaxes every chunk of one array
 * through the same kernel, one chunk per call, the chunk given as a
 * pointer at the loop counter's offset. The region around the step loop
 * maps the span of every chunk the counter reaches. */
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
  for (int step = 0; step < 8; step++)
    for (int c = 0; c < CHUNKS; c++)
      relax(field + c * LEN, LEN, 0.5);
  double s = 0;
  for (int i = 0; i < CHUNKS * LEN; i++)
    s += field[i];
  printf("%.3f\n", s);
  free(field);
  return 0;
}
