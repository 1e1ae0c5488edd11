// alloc_then_zero.c: an allocation helper that copies a fresh host
// buffer to the device with `target enter data map(to:)` and zeroes it
// there with the very next kernel (UoB-HPC arch's allocate_data). The
// host's bytes are whatever malloc left (here a fixed pattern, so that
// the run does not depend on the allocator: ASan's malloc fills memory
// too). The copies repeat the same bytes, but no kernel ever reads them:
// the kernel sets every element first. The fix maps the buffer `alloc`
// and adds no kernel of its own.
#include <stdio.h>
#include <stdlib.h>

#define FIELDS 6
#define LEN 20000

static void allocate_field(double **buf, size_t len)
{
  *buf = malloc(sizeof(double) * len);
  double *local = *buf;
  for (size_t ii = 0; ii < len; ++ii)
    local[ii] = -1.0; /* stands for malloc's leftovers */
#pragma omp target enter data map(to: local[0:len])

#pragma omp target teams distribute parallel for
  for (size_t ii = 0; ii < len; ++ii) {
    local[ii] = 0.0;
  }
}

static void release_field(double *buf, size_t len)
{
#pragma omp target exit data map(delete: buf[0:len])
  free(buf);
}

int main(void)
{
  double *fields[FIELDS];
  for (int f = 0; f < FIELDS; f++)
    allocate_field(&fields[f], LEN);
  double sum = 0;
  for (int f = 0; f < FIELDS; f++) {
    double *x = fields[f];
#pragma omp target teams distribute parallel for map(from: x[0:LEN])
    for (int i = 0; i < LEN; i++)
      x[i] += f + 0.5 * i;
    sum += x[LEN - 1];
  }
  for (int f = 0; f < FIELDS; f++)
    release_field(fields[f], LEN);
  printf("alloc_then_zero: %.1f\n", sum);
  return 0;
}
