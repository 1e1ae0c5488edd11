/* implicit_struct.c - fixture of the fix proof tests: a parameter structure
 * that a kernel maps implicitly and that comes back unchanged.
 *
 * The simulation's inputs travel by value into the function that launches
 * the kernel. The kernel reads in.lookups, in.grid and in.scale but no map
 * clause names `in`: a structure is mapped `tofrom` by default, so its
 * bytes go to the device and come back unchanged (one round trip). The fix
 * adds `map(to: in)` to the construct. The program must print the same
 * lines before and after, and record no finding after.
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct inputs {
  long lookups;  /* kernel iterations */
  long grid;     /* table entries */
  double scale;  /* applied to every lookup */
  unsigned seed; /* start of the pseudo-random walk */
} inputs;

static double simulate(inputs in, const double *table, double *out)
{
#pragma omp target teams distribute parallel for map(to: table[0:in.grid]) map(from: out[0:in.lookups])
  for (long i = 0; i < in.lookups; i++)
    out[i] = table[(i * 7919 + in.seed) % in.grid] * in.scale;
  double sum = 0.0;
  for (long i = 0; i < in.lookups; i++)
    sum += out[i];
  return sum;
}

int main(void)
{
  inputs in = {1 << 16, 4096, 0.5, 17u};
  double *table = malloc(in.grid * sizeof *table);
  double *out = malloc(in.lookups * sizeof *out);
  if (!table || !out)
    return 1;
  for (long i = 0; i < in.grid; i++)
    table[i] = (double)(i % 97) * 0.25;
  printf("implicit_struct: checksum %.3f\n", simulate(in, table, out));
  free(table);
  free(out);
  return 0;
}
