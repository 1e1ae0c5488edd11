/* counter_init.c - fixture of the fix proof tests: a counter the host resets
 * and sends before every pass (a re-initialization).
 *
 * The device counts the elements above a threshold into `hits`, which stays
 * mapped for the whole loop. Before each pass the host sets hits = 0 and
 * sends it with `target update to`: after the first pass the device's copy
 * holds the last count, so every later send carries a reset. The fix sets
 * hits on the device instead: the update becomes a one-statement target
 * region that assigns the same constant. The program must print the same
 * lines before and after, and record no finding after.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define PASSES 5

int main(void)
{
  double *v = malloc(N * sizeof *v);
  if (!v)
    return 1;
  for (int i = 0; i < N; i++)
    v[i] = (double)((i * 53) % 1000) / 1000.0;

  int hits = 0;
  long checksum = 0;
#pragma omp target data map(to: v[0:N]) map(alloc: hits)
  {
    for (int pass = 0; pass < PASSES; pass++) {
      double threshold = 0.15 * (pass + 1);
      hits = 0;
#pragma omp target update to(hits)
#pragma omp target teams distribute parallel for map(to: v[0:N]) map(tofrom: hits)
      for (int i = 0; i < N; i++)
        if (v[i] > threshold) {
#pragma omp atomic update
          hits++;
        }
#pragma omp target update from(hits)
      printf("counter_init: pass %d above %.2f: %d\n", pass, threshold, hits);
      checksum += (long)hits * (pass + 1);
    }
  }
  printf("counter_init: checksum %ld\n", checksum);
  free(v);
  return 0;
}
