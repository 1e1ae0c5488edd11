/* An MPI job for omplens's rank tests: each rank offloads to device
 * rank % devices, and the last rank does twice the iterations of the
 * others (argv[1] iterations, default 4). Per iteration: `a` goes to the device and back (a round trip
 * every iteration after the first) and the unchanged `b` is sent again (a
 * duplicate transfer). Rank 0 prints the job's checksum. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 15)

static void step(double *a, const double *b, int dev) {
#pragma omp target teams distribute parallel for map(tofrom : a[0:N]) map(to : b[0:N]) device(dev)
  for (int i = 0; i < N; i++)
    a[i] += b[i];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int devices = omp_get_num_devices();
  int dev = devices > 0 ? rank % devices : omp_get_initial_device();
  int iterations = argc > 1 ? atoi(argv[1]) : 4;
  if (rank == size - 1)
    iterations *= 2; /* the rank that does more */
  double *a = calloc(N, sizeof *a), *b = malloc(N * sizeof *b);
  for (int i = 0; i < N; i++)
    b[i] = i % 7;
  for (int it = 0; it < iterations; it++)
    step(a, b, dev);
  double local = 0, total = 0;
  for (int i = 0; i < N; i++)
    local += a[i];
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("ranks %d checksum %.0f\n", size, total);
  free(a);
  free(b);
  MPI_Finalize();
  /* A status of its own (argv[2]), to see it passed through. */
  return rank == 0 && argc > 2 ? atoi(argv[2]) : 0;
}
