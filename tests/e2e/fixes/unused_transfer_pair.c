/* unused_transfer_pair.c: `target enter data` sends three arrays, then the
 * host scales the first two and sends them again before any kernel ran:
 * their first copies are never read. The two items are side by side in
 * one clause: given `alloc` one by one, each would move into a clause of
 * its own after that one and the patch could hold only one; given `alloc`
 * together, both go into one new clause. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 3

static void scale(double *v)
{
  for (int i = 0; i < N; i++)
    v[i] *= 0.5;
}

int main(void)
{
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c),
         *r = malloc(N * sizeof *r);
  if (!a || !b || !c || !r)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = i % 7;
    b[i] = i % 11;
    c[i] = i % 13;
  }
#pragma omp target enter data map(to: a[0:N], b[0:N], c[0:N]) map(alloc: r[0:N])
  scale(a);
  scale(b);
#pragma omp target update to(a[0:N], b[0:N])
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: a[0:N], b[0:N], c[0:N]) map(tofrom: r[0:N])
    for (int i = 0; i < N; i++)
      r[i] = (step == 0 ? 0.0 : r[i]) + a[i] * b[i] + c[i];
  }
#pragma omp target exit data map(from: r[0:N]) map(delete: a[0:N], b[0:N], c[0:N])
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += r[i];
  printf("unused_transfer_pair: checksum %.6f\n", sum);
  free(a);
  free(b);
  free(c);
  free(r);
  return 0;
}
