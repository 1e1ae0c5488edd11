/* copy_into_fixed.c - the twin of copy_into.c: the host clamps the values
 * it holds itself (nothing exceeds the threshold, and the host can see that
 * on its own data), so no copy comes back. Same output. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)

int main(void)
{
  double *in = malloc(N * sizeof *in);
  if (!in)
    return 1;
  for (int i = 0; i < N; i++)
    in[i] = (double)(i % 97) * 0.5;
  double threshold = 100.0, sum = 0;
#pragma omp target teams distribute parallel for map(to: in[0:N]) map(tofrom: sum) \
    reduction(+: sum)
  for (int i = 0; i < N; i++)
    sum += in[i] > threshold ? threshold : in[i];
  printf("copy_into: sum %.1f\n", sum);
  free(in);
  return 0;
}
