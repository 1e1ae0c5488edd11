/* Values that are equal by chance: two sizes mapped `to` that hold the
 * same number, and two pointer members of a struct whose sections are
 * empty in this run (the runtime attaches both to the same device
 * address). None of it is data sent twice; the one finding is u, which
 * comes back unchanged. */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  double *grid;
  int *index;
  long grid_len, index_len;
} tables;

int main(void) {
  long nx = 4096, ny = 4096;
  tables t = {malloc(sizeof(double)), malloc(sizeof(int)), 0, 0};
  double *u = malloc(nx * sizeof *u), *v = malloc(ny * sizeof *v);
  for (long i = 0; i < nx; i++)
    u[i] = (double)i;
  for (long i = 0; i < ny; i++)
    v[i] = 2.0 * (double)i;
  long glen = t.grid_len, ilen = t.index_len;
  double sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to: nx, ny)             \
    map(to: t, t.grid[:glen], t.index[:ilen]) map(tofrom: u[0:nx]) map(to: v[0:ny])
  for (long i = 0; i < nx; i++)
    sum += u[i] * v[i % ny] + (glen ? t.grid[0] : 0.0) + (ilen ? t.index[0] : 0);
  printf("sum %.1f\n", sum);
  free(t.grid);
  free(t.index);
  free(u);
  free(v);
  return 0;
}
