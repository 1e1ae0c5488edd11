/* copy_into.c - precision case: the host receives what it already holds.
 *
 * Pattern: a kernel copies the input array into an output array mapped
 * `from`, unchanged (a "copy then maybe modify" step that ends up not
 * modifying anything). The host sent `in` and gets the same bytes back
 * into `out`: a duplicate on the host, not a round trip through another
 * buffer (only a device takes its own result back that way).
 * Fix: copy_into_fixed.c reads `in` on the host and maps nothing back.
 *
 * Expected omplens findings (copy_into.expected):
 *   duplicate-content  line 30  host  1  out
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)

int main(void)
{
  double *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
  if (!in || !out)
    return 1;
  for (int i = 0; i < N; i++) {
    in[i] = (double)(i % 97) * 0.5;
    out[i] = -1.0;
  }
  double threshold = 100.0;
  /* WASTE: nothing exceeds the threshold, so out comes back equal to in,
   * which the host holds. */
#pragma omp target teams distribute parallel for map(to: in[0:N]) map(from: out[0:N])
  for (int i = 0; i < N; i++)
    out[i] = in[i] > threshold ? threshold : in[i];
  double sum = 0;
  for (int i = 0; i < N; i++)
    sum += out[i];
  printf("copy_into: sum %.1f\n", sum);
  free(in);
  free(out);
  return 0;
}
