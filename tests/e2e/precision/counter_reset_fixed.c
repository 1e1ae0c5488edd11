/* counter_reset_fixed.c - twin of counter_reset.c: the device zeroes its own
 * counter, so count only ever travels device -> host, with a new value each
 * pass.
 *
 * Expected omplens findings (counter_reset_fixed.expected): none.
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
    v[i] = (double)((i * 37) % 1000) / 1000.0;

  int count = 0;
  long checksum = 0;
#pragma omp target data map(to: v[0:N]) map(alloc: count)
  {
    for (int pass = 0; pass < PASSES; pass++) {
      double threshold = 0.15 * (pass + 1);
      /* count is present: this copies nothing. */
#pragma omp target map(tofrom: count)
      count = 0;
#pragma omp target teams distribute parallel for map(to: v[0:N]) map(tofrom: count)
      for (int i = 0; i < N; i++)
        if (v[i] > threshold) {
#pragma omp atomic update
          count++;
        }
#pragma omp target update from(count)
      printf("counter_reset: pass %d above %.2f: %d\n", pass, threshold, count);
      checksum += (long)count * (pass + 1);
    }
  }
  printf("counter_reset: checksum %ld\n", checksum);
  free(v);
  return 0;
}
