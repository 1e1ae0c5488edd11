/* devices.c - hardening: one program that uses the 4 host-offload devices.
 *
 * Every device d gets a result array `res` once (enter data) and runs the
 * kernel below. On devices 1 and 3 only, the kernel runs 3 times, and each
 * run re-maps the unchanged input `in` with map(to:): 2 duplicate transfers
 * and 2 repeated allocations there. Devices 0 and 2 run it once and must
 * come out clean. `res` differs per device when copied back, so no device-
 * to-host copy repeats content. Expected findings: devices.expected. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define DEVICES 4
#define N 65536

int main(void) {
  if (omp_get_num_devices() < DEVICES) {
    fprintf(stderr, "devices: needs %d offload devices, found %d\n", DEVICES,
            omp_get_num_devices());
    return 1;
  }
  double *in = malloc(N * sizeof *in);
  double res[DEVICES] = {0};
  if (!in)
    return 1;
  for (int i = 0; i < N; i++)
    in[i] = (i % 11) * 0.5;

  for (int d = 0; d < DEVICES; d++) {
#pragma omp target enter data map(to : res[0:DEVICES]) device(d)
    int runs = d % 2 ? 3 : 1;
    for (int r = 0; r < runs; r++) {
      /* WASTE on devices 1 and 3: `in` is re-sent unchanged by runs 2 and 3. */
#pragma omp target map(to : in[0:N]) map(tofrom : res[0:DEVICES]) device(d)
      for (int i = 0; i < N; i++)
        res[d] += in[i] * (d + 1);
    }
#pragma omp target exit data map(from : res[0:DEVICES]) device(d)
  }

  double sum = 0.0;
  for (int d = 0; d < DEVICES; d++)
    sum += res[d];
  printf("devices: checksum %.3f\n", sum);
  free(in);
  return 0;
}
