/* omp_target_memcpy_async in a helper called every step: the runtime makes
 * the copy later, in a task, from its own code (the copy's code address is
 * libomptarget's). The collector's wrapper of the call ties the copy to
 * the call's own line (upload(), line 17), its argument d_table and its
 * call path (line 31, in the step loop). Every step re-sends the same
 * table: duplicate-transfer x3. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 4

/* Sends the table to the device and waits for the copy. */
static void upload(double *d_table, const double *table, int dev, int host) {
  /* the copy waits in a task until the taskwait */
  omp_target_memcpy_async(d_table, table, N * sizeof *table, 0, 0, dev, host, 0, NULL);
#pragma omp taskwait
}

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double *table = malloc(N * sizeof *table);
  if (!table)
    return 1;
  for (int i = 0; i < N; i++)
    table[i] = i * 0.25;
  double *d_table = omp_target_alloc(N * sizeof *table, dev);
  double sum = 0.0;
  for (int step = 0; step < STEPS; step++) {
    upload(d_table, table, dev, host);
#pragma omp target is_device_ptr(d_table) map(tofrom: sum) device(dev)
    for (int i = 0; i < N; i++)
      sum += d_table[i];
  }
  omp_target_free(d_table, dev);
  printf("sum %.1f\n", sum);
  free(table);
  return 0;
}
