/* api_fetch.c - fixture of the fix proof tests: omp_target_memcpy fetching,
 * at every step, a device buffer no kernel changed since the last fetch.
 *
 * The host receives the same bytes into out again (a duplicate on the
 * host). The fix is a recipe about the call; it must speak of what the
 * host keeps, as the copy goes to the host. */
#include <omp.h>
#include <stdio.h>

#define N 1024
#define STEPS 4

int main(void)
{
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  static int src[N], out[N];
  for (int i = 0; i < N; i++)
    src[i] = i % 13;
  int *d = omp_target_alloc(N * sizeof(int), dev);
  if (!d)
    return 1;
  omp_target_memcpy(d, src, N * sizeof(int), 0, 0, dev, host);
  long total = 0;
  for (int step = 0; step < STEPS; step++) {
    omp_target_memcpy(out, d, N * sizeof(int), 0, 0, host, dev);
    total += out[step];
  }
  omp_target_free(d, dev);
  printf("api_fetch: total %ld\n", total);
  return 0;
}
