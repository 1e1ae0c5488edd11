/* loop_flag_fixed.c - twin of loop_flag.c: the kernel reduces the largest
 * relative change into a variable that stays on the device and is zeroed
 * there; only that change, different every sweep, is copied back.
 *
 * Expected omplens findings (loop_flag_fixed.expected): none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)

int main(void)
{
  double *a = malloc(N * sizeof *a);
  double *x = malloc(N * sizeof *x);
  if (!a || !x)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = 1.0 + (i % 1000) * 0.5;
    x[i] = 1.0 + (i % 1000) * 0.0625; /* a first guess of sqrt(a[i]) */
  }

  int done = 0, sweeps = 0;
  double change = 0.0;
#pragma omp target data map(to: a[0:N]) map(tofrom: x[0:N]) map(alloc: change)
  {
    while (!done) {
      /* change is present: neither construct copies it. */
#pragma omp target map(tofrom: change)
      change = 0.0;
#pragma omp target teams distribute parallel for reduction(max: change) map(to: a[0:N]) map(tofrom: x[0:N]) map(tofrom: change)
      for (int i = 0; i < N; i++) {
        double next = 0.5 * (x[i] + a[i] / x[i]);
        double moved = (next > x[i] ? next - x[i] : x[i] - next) / next;
        if (moved > change)
          change = moved;
        x[i] = next;
      }
#pragma omp target update from(change)
      done = !(change > 1e-12);
      sweeps++;
    }
  }
  double checksum = 0.0;
  for (int i = 0; i < N; i++)
    checksum += x[i];
  printf("loop_flag: %d sweeps, checksum %.9f\n", sweeps, checksum);
  free(a);
  free(x);
  return 0;
}
