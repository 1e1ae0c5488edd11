// halo_unused.c: a halo exchange that maps its send buffer with `target
// enter data` each call and packs and fetches it only where there is a
// neighbour, then releases it. With no neighbour (a single rank) the
// buffer is allocated and never used: an unused allocation in this run.
// Removing the enter data would leave the pack kernel and the update of a
// run with neighbours without a mapping: no diff, and the reason names
// the update that uses it.
#include <stdio.h>

#define N 2048
#define STEPS 8

static double field[N], send_buf[N];

static void exchange(int neighbours)
{
  double *snd = send_buf, *f = field;
#pragma omp target enter data map(alloc: snd[0:N])
  if (neighbours > 0) {
#pragma omp target teams distribute parallel for map(to: f[0:N])
    for (int i = 0; i < N; i++)
      snd[i] = f[i];
#pragma omp target update from(snd[0:N])
  }
#pragma omp target exit data map(release: snd[0:N])
}

int main(void)
{
  for (int i = 0; i < N; i++)
    field[i] = i;
  double total = 0;
  for (int step = 0; step < STEPS; step++) {
    exchange(0);
    total += field[step];
  }
  printf("halo_unused: %.1f %.1f\n", total, send_buf[1]);
  return 0;
}
