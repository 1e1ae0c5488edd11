/* A header of the program, included by main.c and relax.c: its kernel
 * re-sends the fixed weights and the values it just copied back on every
 * sweep. */
#ifndef SMOOTH_H
#define SMOOTH_H

/* Moves v towards w, steps sweeps of v[i] = (v[i] + w[i]) / 2. */
static inline void smooth(double *v, const double *w, int n, int steps) {
  for (int s = 0; s < steps; s++) {
#pragma omp target teams distribute parallel for map(to: w[0:n]) map(tofrom: v[0:n])
    for (int i = 0; i < n; i++)
      v[i] = 0.5 * (v[i] + w[i]);
  }
}

double relax(const double *v, int n);

#endif
