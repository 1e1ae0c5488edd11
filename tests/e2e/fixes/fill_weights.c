/* fill_weights.c - fixture of the fix proof tests: arrays that hold one
 * value in every element, sent by `target enter data`.
 *
 * A two-sided smoother fills its weights for each side with 1.0 and its
 * masks with -1 (int arrays) on the host, then maps them all `to`: the
 * right side's copies send the bytes the left side's already brought
 * (duplicate content). The fix maps the right side's arrays `alloc` and
 * fills them with a kernel after the enter data (the value the source
 * writes). The program must print the same lines before and after, and
 * record neither finding after.
 */
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 13 };

static double smooth(const double *u, double *v, double *wl, double *wr, int *ml, int *mr,
                     int n) {
  for (int i = 0; i < n; i++) {
    wl[i] = 1.0;
    wr[i] = 1.0;
    ml[i] = -1;
    mr[i] = -1;
  }
#pragma omp target enter data map(to: wl[0:n], ml[0:n], wr[0:n], mr[0:n])
#pragma omp target teams distribute parallel for map(to: u[0:n]) map(from: v[0:n])
  for (int i = 0; i < n; i++)
    v[i] = i == 0 || i == n - 1 ? u[i]
                                : (wl[i] * u[i - 1] + u[i] + wr[i] * u[i + 1]) / 3.0 +
                                      0.5 * (ml[i] - mr[i]);
#pragma omp target exit data map(release: wl[0:n], ml[0:n], wr[0:n], mr[0:n])
  return v[n / 2] + v[n / 3];
}

int main(void) {
  double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
  double *wl = malloc(N * sizeof *wl), *wr = malloc(N * sizeof *wr);
  int *ml = malloc(N * sizeof *ml), *mr = malloc(N * sizeof *mr);
  if (!u || !v || !wl || !wr || !ml || !mr)
    return 1;
  for (int i = 0; i < N; i++)
    u[i] = (double)(i % 19);
  printf("fill_weights: %.6f\n", smooth(u, v, wl, wr, ml, mr, N));
  free(u);
  free(v);
  free(wl);
  free(wr);
  free(ml);
  free(mr);
  return 0;
}
