/* update_skipped.c - fixture of the fix proof tests: one `target update to`
 * of a loop whose copy no kernel reads, in the middle of the run.
 *
 * Each step but the last sends the next step's input; step 4 runs no
 * kernel, so the copy made at the end of step 3 is overwritten unused by
 * the one at the end of step 4. One copy of the update is flagged
 * (unused-transfer), and copies of it come after: guarding the update to
 * skip its last run, as for an input sent after the last kernel, would
 * drop a needed copy. The fix must stay manual, saying which copies are
 * needed.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 14)
#define STEPS 8

static void make_input(double *in, int step)
{
  for (int i = 0; i < N; i++)
    in[i] = (double)((i * 3 + step * 11) % 17);
}

int main(void)
{
  double *in = malloc(N * sizeof *in);
  double *out = malloc(N * sizeof *out);
  if (!in || !out)
    return 1;
  make_input(in, 0);
#pragma omp target enter data map(to: in[0:N]) map(alloc: out[0:N])
  for (int step = 0; step < STEPS; step++) {
    if (step != 4) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++)
        out[i] = (step == 0 ? 0.0 : out[i]) * 0.5 + in[i];
    }
    if (step + 1 < STEPS) {
      make_input(in, step + 1);
#pragma omp target update to(in[0:N])
    }
  }
#pragma omp target exit data map(from: out[0:N]) map(delete: in[0:N])
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += out[i];
  printf("update_skipped: checksum %.6f\n", sum);
  free(in);
  free(out);
  return 0;
}
