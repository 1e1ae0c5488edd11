/* api_unused.c - fixture of the manual fix tests: device memory the
 * program allocates with omp_target_alloc and never uses. Before the time
 * loop it checks that the device has room for the work arrays by
 * allocating a block of their size and freeing it at once (as some codes
 * do); no kernel runs while the block lives. The recipe must name the call
 * and its argument and say to remove the call with its free, not to hoist
 * it out of a loop.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 12, STEPS = 4 };

static int device_has_room(size_t bytes, int dev) {
  void *probe = omp_target_alloc(bytes, dev);
  if (!probe)
    return 0;
  omp_target_free(probe, dev);
  return 1;
}

int main(void) {
  int dev = omp_get_default_device();
  double *x = malloc(N * sizeof *x);
  if (!x || !device_has_room(N * sizeof *x, dev))
    return 1;
  for (int i = 0; i < N; i++)
    x[i] = i;
#pragma omp target data map(tofrom: x[0:N])
  for (int s = 0; s < STEPS; s++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      x[i] = 0.5 * x[i] + 1.0;
  }
  printf("api_unused: %.3f\n", x[N / 2]);
  free(x);
  return 0;
}
