/* own_buffer.c - fixture of the fix proof tests: a function that
 * allocates and fills its own input and output arrays, maps them in a
 * `target data` region of its own (no loop around it there), and is
 * called from a loop of main. Each call sends the same input into a new
 * device buffer: no region outside the function can keep it, and the
 * recipe says to allocate it once in the caller and pass it in. */
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096, CALLS = 3 };

static float run(int n)
{
  float *a = malloc(n * sizeof *a);
  float *b = malloc(n * sizeof *b);
  for (int i = 0; i < n; i++)
    a[i] = (float)(i % 5);
#pragma omp target data map(to: a[0:n]) map(from: b[0:n])
  for (int r = 0; r < 2; r++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      b[i] = 2.0f * a[i] + (float)r;
  }
  float last = b[n - 1];
  free(a);
  free(b);
  return last;
}

int main(void)
{
  float sum = 0.0f;
  for (int k = 0; k < CALLS; k++)
    sum += run(N);
  printf("own_buffer: %.1f\n", sum);
  return 0;
}
