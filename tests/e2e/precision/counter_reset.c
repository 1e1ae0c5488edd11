/* counter_reset.c - precision case: a device counter reset on the host.
 *
 * Pattern: each pass counts the samples above a rising threshold with an
 * atomic counter that lives on the device for the whole run. The host sets
 * count = 0 and sends it, although the device's copy only changed because
 * the kernel incremented it (and the host saw that value come back).
 * From the second pass on, the update to(count) re-sends content (0) that
 * the device held before: a re-initialization, not a duplicate, since the
 * device's copy has changed since.
 * Fix: counter_reset_fixed.c zeroes the counter with a device-side target.
 *
 * Expected omplens findings (counter_reset.expected):
 *   reinitialization  line 38  device 0  4  count reset in passes 2..5
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
      /* WASTE from pass 2 on: the device made count non-zero, the host
       * zeroes it and sends the zero again. */
      count = 0;
#pragma omp target update to(count)
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
