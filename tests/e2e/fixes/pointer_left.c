/* Global arrays mapped through their pointers for the whole run, as
 * simulation codes keep their state: each section `cells[:n]` goes through
 * the global pointer `cells`, so LLVM's runtime allocates the device's
 * copy of that pointer to attach the section and keeps it after the region
 * ends. Those copies are still mapped when the program ends; the fix must
 * say they are the runtime's, not offer to delete a buffer of the program. */
#include <stdio.h>
#include <stdlib.h>

static double *cells;
static double *flux;
static int num_cells = 4096;

static void setup(void) {
  cells = malloc(num_cells * sizeof *cells);
  flux = malloc(num_cells * sizeof *flux);
  for (int i = 0; i < num_cells; i++)
    cells[i] = (double)(i % 17);
}

int main(void) {
  setup();
#pragma omp target data map(tofrom: cells[:num_cells]) map(alloc: flux[:num_cells])
  {
    for (int step = 0; step < 20; step++) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < num_cells; i++)
        flux[i] = 0.25 * cells[i];
#pragma omp target teams distribute parallel for
      for (int i = 0; i < num_cells; i++)
        cells[i] -= flux[i];
    }
  }
  double sum = 0.0;
  for (int i = 0; i < num_cells; i++)
    sum += cells[i];
  printf("sum %.6f\n", sum);
  free(cells);
  free(flux);
  return 0;
}
