/* A solver's target data maps its field and the halo buffers through
 * global pointers (miniWeather's sendbuf_l/recvbuf_l); only a run with
 * neighbours packs the halo, in a kernel of exchange(), which a run
 * alone never calls. The kernels that ran were not given the buffers:
 * unused, but the kernel that names them did not run this time, so the
 * fix stays manual and says which kernel. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define H 64

double *field, *halo_out, *halo_in;

static void exchange(void) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < H; i++) {
    halo_out[i] = field[i];
    field[N - H + i] = halo_in[i];
  }
}

static void step(int neighbours) {
  if (neighbours)
    exchange();
#pragma omp target teams distribute parallel for
  for (int i = 1; i < N - 1; i++)
    field[i] = 0.5 * field[i] + 0.25;
}

int main(int argc, char **argv) {
  (void)argv;
  field = malloc(N * sizeof *field);
  halo_out = malloc(H * sizeof *halo_out);
  halo_in = malloc(H * sizeof *halo_in);
  if (!field || !halo_out || !halo_in)
    return 1;
  for (int i = 0; i < N; i++)
    field[i] = (i % 9) * 0.5;
#pragma omp target data map(tofrom: field[0:N]) map(alloc: halo_out[0:H], halo_in[0:H])
  {
    for (int s = 0; s < 3; s++)
      step(argc > 1);
  }
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += field[i];
  printf("sum %.6f\n", sum);
  free(field);
  free(halo_out);
  free(halo_in);
  return 0;
}
