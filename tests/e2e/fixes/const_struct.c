/* A field passed as a const structure whose kernel writes through its
 * data pointer, rewriting values that happen to stay the same (a clamp
 * that never clamps here). The copy back brings what was sent, yet the
 * kernel writes the section: the structure is const, its data is not, so
 * the copy back must stay. A region around the caller's loop holds the
 * section: it goes through the pointer the caller's copy holds too. */
#include <stdio.h>
#include <stdlib.h>

#define N 1024

struct field {
  double *data;
  int n;
};

static void clamp(const struct field f, double hi)
{
#pragma omp target teams distribute parallel for map(tofrom: f.data[0:f.n])
  for (int i = 0; i < f.n; i++)
    f.data[i] = f.data[i] > hi ? hi : f.data[i];
}

int main(void)
{
  struct field f = {malloc(N * sizeof(double)), N};
  if (!f.data)
    return 1;
  for (int i = 0; i < N; i++)
    f.data[i] = (i % 7) * 0.5;
  for (int step = 0; step < 4; step++)
    clamp(f, 100.0);
  printf("const_struct: %.2f\n", f.data[N - 1]);
  free(f.data);
  return 0;
}
