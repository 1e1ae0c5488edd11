/* reduction_reset.c - fixture of the fix proof tests: a scalar that each
 * step resets on the host and sends again, for a kernel that sums into it.
 *
 * `sum` stays mapped (map(alloc:)) across the steps; every step sets it to
 * zero, `target update to` sends the zero, and the kernel's reduction
 * writes the device's copy. Only the last step's result comes back, so the
 * trace sees the same four zero bytes sent to a device that still holds
 * them (duplicates). The source shows the kernel changing sum: the update
 * restores what the kernel changed, and the fix must stay manual. The
 * reset `sum = 0;` gives the scalar no other buffer: the reason must not
 * say so (only a pointer can be given another buffer).
 */
#include <stdio.h>

#define N 4096
#define STEPS 6

int main(void)
{
  static int values[N];
  for (int i = 0; i < N; i++)
    values[i] = i % 3;

  int sum = 0, total = 0;
#pragma omp target data map(to: values[0:N]) map(alloc: sum)
  {
    for (int step = 0; step < STEPS; step++) {
      sum = 0;
#pragma omp target update to(sum)
#pragma omp target teams distribute parallel for reduction(+:sum)
      for (int i = 0; i < N; i++)
        sum += values[i] * (step + 1);
    }
#pragma omp target update from(sum)
    total = sum;
  }
  printf("reduction_reset: last sum %d\n", total);
  return 0;
}
