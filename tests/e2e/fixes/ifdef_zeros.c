/* ifdef_zeros.c - fixture of the fix proof tests: zero-filled work arrays
 * sent to the device, in code that only exists under `#ifdef OMP_OFFLOAD`.
 *
 * The offload path is compiled with -DOMP_OFFLOAD (its compile database
 * says so). The solver's work arrays r and w and its history h start as
 * zeros (calloc) and `target enter data map(to:)` sends them all: the zeros
 * of w and h are bytes r already brought to the device (duplicate content).
 * The fix maps w and h `alloc` and zeroes them with kernels; deriving it
 * needs the parse to see the `#ifdef` branch, i.e. the build's -D flags.
 * h's length is a member of the settings structure, which the zeroing
 * kernel must read on the host (else the kernel maps the structure). The
 * program must print the same lines before and after, and record no
 * finding after.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 15)

typedef struct chunk {
  double *u; /* the field */
  double *r; /* residual, starts at zero */
  double *w; /* work vector, starts at zero */
  double *h; /* history of the residual, starts at zero */
} chunk;

typedef struct settings {
  int steps; /* entries of the history */
  double tolerance;
} settings;

#ifdef OMP_OFFLOAD
static double smooth(chunk *ch, int n, settings set)
{
  double *u = ch->u;
  double *r = ch->r;
  double *w = ch->w;
  double *h = ch->h;
#pragma omp target enter data map(to: r[:n], w[:n], u[:n], h[:set.steps])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++) {
    r[i] += 0.5 * u[i];
    w[i] += r[i] - 0.25 * u[i];
  }
#pragma omp target
  for (int s = 1; s < 4; s++)
    h[s] = h[s - 1] + r[s];
#pragma omp target exit data map(delete: u[:n]) map(from: r[:n], w[:n], h[:set.steps])
  return r[n / 2] + w[n / 3] + h[3];
}
#else
static double smooth(chunk *ch, int n, settings set)
{
  for (int i = 0; i < n; i++) {
    ch->r[i] += 0.5 * ch->u[i];
    ch->w[i] += ch->r[i] - 0.25 * ch->u[i];
  }
  for (int s = 1; s < 4 && s < set.steps; s++)
    ch->h[s] = ch->h[s - 1] + ch->r[s];
  return ch->r[n / 2] + ch->w[n / 3] + ch->h[3];
}
#endif

int main(void)
{
  settings set = {N, 1e-8};
  chunk ch = {malloc(N * sizeof(double)), calloc(N, sizeof(double)), calloc(N, sizeof(double)),
              calloc(set.steps, sizeof(double))};
  if (!ch.u || !ch.r || !ch.w || !ch.h)
    return 1;
  for (int i = 0; i < N; i++)
    ch.u[i] = 1.0 + (i % 29) * 0.125;
  printf("ifdef_zeros: %.4f\n", smooth(&ch, N, set));
  free(ch.u);
  free(ch.r);
  free(ch.w);
  free(ch.h);
  return 0;
}
