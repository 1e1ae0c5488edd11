/* update_call_writes.c - fixture of the manual fix tests: a `target
 * update from` after a call of a function of the same file whose kernel
 * stores into the array only when one of its samples is out of range
 * (HeCBench atomicPerf's shape, where the store's condition never held).
 * The recorded samples are all in range, so the update brings back what
 * the host sent; removing it would lose the clipped values of any run with
 * an outlier: the fix stays manual, names the call and the store, and
 * keeps the copy back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SAMPLES = 2048 };

static void clip(float *v, int n, float limit) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    if (v[i] > limit)
      v[i] = limit;
}

int main(int argc, char **argv) {
  float *v = malloc(SAMPLES * sizeof *v), *ref = malloc(SAMPLES * sizeof *ref);
  if (!v || !ref)
    return 1;
  float limit = argc > 1 ? (float)atof(argv[1]) : 1e9f;
  int clipped = 0;
#pragma omp target data map(alloc: v[0:SAMPLES])
  {
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < SAMPLES; i++)
        ref[i] = (float)(i % 97) * (float)(round + 1);
      memcpy(v, ref, SAMPLES * sizeof *v);
#pragma omp target update to(v[0:SAMPLES])
      clip(v, SAMPLES, limit);
#pragma omp target update from(v[0:SAMPLES])
      clipped += memcmp(v, ref, SAMPLES * sizeof *v) != 0;
    }
  }
  printf("update_call_writes: %d rounds clipped\n", clipped);
  free(v);
  free(ref);
  return 0;
}
