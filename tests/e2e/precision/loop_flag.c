/* loop_flag.c - precision case: a convergence flag reset on the host.
 *
 * Pattern: Newton's iteration for square roots, element by element, until
 * no element moves any more. Each sweep the host sets done = 1 and sends
 * it; the kernel clears it while some element still moves; the host reads
 * it back. From sweep 2 on, the 1 the host sends is content the device held
 * before (sweep 1) and then replaced with 0: a re-initialization. In the
 * last sweep nothing clears the flag, so the 1 the host sent comes back
 * unchanged: one round trip.
 * Fix: loop_flag_fixed.c reduces the largest relative change on the
 * device, zeroed there, and copies only that back.
 *
 * Expected omplens findings (loop_flag.expected), 7 sweeps:
 *   reinitialization  line 40  device 0  6  done = 1 sent in sweeps 2..7
 *   round-trip        line 50  device 0  1  done = 1 back unchanged in sweep 7
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
#pragma omp target data map(to: a[0:N]) map(tofrom: x[0:N]) map(alloc: done)
  {
    while (!done) {
      /* WASTE from sweep 2 on: the device turned done into 0; the host
       * sets it to 1 again and sends it. */
      done = 1;
#pragma omp target update to(done)
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(tofrom: x[0:N]) map(tofrom: done)
      for (int i = 0; i < N; i++) {
        double next = 0.5 * (x[i] + a[i] / x[i]);
        if (next - x[i] > 1e-12 * next || x[i] - next > 1e-12 * next) {
#pragma omp atomic write
          done = 0;
        }
        x[i] = next;
      }
#pragma omp target update from(done)
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
