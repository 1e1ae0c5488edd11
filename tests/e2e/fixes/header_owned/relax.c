/* The second unit that includes smooth.h. */
#include <stdlib.h>

#include "smooth.h"

/* Smooths a quarter of v towards its own ramp and returns the sum of what
 * is left to move (buffers of its own: nothing is shared with main's call). */
double relax(const double *v, int n) {
  double *t = malloc(n * sizeof *t), *ramp = malloc(n * sizeof *ramp);
  double left = 0;
  if (t && ramp) {
    for (int i = 0; i < n; i++) {
      t[i] = 0.25 * v[i];
      ramp[i] = (double)(i % 29);
    }
    smooth(t, ramp, n, 6);
    for (int i = 0; i < n; i++)
      left += ramp[i] - t[i];
  }
  free(t);
  free(ramp);
  return left;
}
