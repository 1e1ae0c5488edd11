/* A kernel written in the loop over a field's blocks, mapping the block
 * its counter names, `u[b * width:width]`, for the interior blocks only
 * (the first and last stay as they are). The region around the step loop
 * maps the span of every block the counter reaches:
 * `u[1 * width:(nblocks - 1 - 1) * width + width - (1 * width)]`. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int nblocks = argc > 1 ? atoi(argv[1]) : 6, width = 512;
  double *u = malloc((size_t)nblocks * width * sizeof *u);
  if (!u)
    return 1;
  for (int i = 0; i < nblocks * width; i++)
    u[i] = (i / width) + 0.5 * (i % 4);
  for (int step = 0; step < 7; step++) {
    for (int b = 1; b < nblocks - 1; b++) {
#pragma omp target teams distribute parallel for map(tofrom: u[b * width:width])
      for (int i = b * width; i < (b + 1) * width; i++)
        u[i] = 0.5 * u[i] + 0.25;
    }
  }
  double s = 0;
  for (int i = 0; i < nblocks * width; i++)
    s += u[i] * (i % 7);
  printf("%.3f\n", s);
  free(u);
  return 0;
}
