/* unused_transfer.c - omplens example: copies that no kernel ever reads.
 *
 * Pattern 1 (overwritten): the input is sent by `target enter data`, then
 * normalised on the host and sent again with `target update` before any
 * kernel ran: the first 8 MB copy is overwritten unused.
 * Pattern 2 (too late): each step prepares and sends the next step's input
 * at the end of the loop body, so the last step sends an input that no kernel
 * will ever read.
 * Fix: unused_transfer_fixed.c normalises before the first copy and skips
 * the update after the last step.
 *
 * Expected omplens findings (unused_transfer.expected):
 *   unused-transfer  line 45  device 0  1  in, overwritten by line 47
 *   unused-transfer  line 55  device 0  1  in, sent after the last kernel
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* elements per array: 8 MB of doubles */
#define STEPS 10

/* Input of one step (a different pattern for every step). */
static void make_input(double *in, int step)
{
  for (int i = 0; i < N; i++)
    in[i] = (double)((i * 7 + step * 13) % 101);
}

static void normalise(double *in)
{
  for (int i = 0; i < N; i++)
    in[i] *= 1.0 / 128.0;
}

int main(void)
{
  double *in = malloc(N * sizeof *in);
  double *out = malloc(N * sizeof *out);
  if (!in || !out)
    return 1;

  make_input(in, 0);
  /* WASTE: in is copied here, but replaced by the `update` below before any
   * kernel has used it. */
#pragma omp target enter data map(to: in[0:N]) map(alloc: out[0:N])
  normalise(in);
#pragma omp target update to(in[0:N])

  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: in[0:N]) map(tofrom: out[0:N])
    for (int i = 0; i < N; i++)
      out[i] = (step == 0 ? 0.0 : out[i]) * 0.5 + in[i];
    make_input(in, step + 1);
    /* WASTE in the last step: no kernel runs after this copy. */
#pragma omp target update to(in[0:N])
  }
#pragma omp target exit data map(from: out[0:N]) map(delete: in[0:N])

  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += out[i];
  printf("unused_transfer: checksum %.6f\n", sum);
  free(in);
  free(out);
  return 0;
}
