/* unused_transfer_fixed.c - omplens example: fixed twin of unused_transfer.c.
 *
 * Fix: the input is normalised before it is copied the first time, and the
 * next step's input is only prepared and sent when there is a next step.
 * Same result as unused_transfer.c.
 *
 * Expected omplens findings (unused_transfer_fixed.expected): none.
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
  normalise(in);
#pragma omp target enter data map(to: in[0:N]) map(alloc: out[0:N])

  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: in[0:N]) map(tofrom: out[0:N])
    for (int i = 0; i < N; i++)
      out[i] = (step == 0 ? 0.0 : out[i]) * 0.5 + in[i];
    if (step + 1 < STEPS) {
      make_input(in, step + 1);
#pragma omp target update to(in[0:N])
    }
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
