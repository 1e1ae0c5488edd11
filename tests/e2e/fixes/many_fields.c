/* A hydrodynamics-style state of ten fields in one allocation, each field
 * updated by its own kernel through a pointer into it, as codes that pack
 * their fields do. The region around the time loop maps the span of all
 * ten sections, however many there are, and keeps every field resident;
 * its summary names the first of the nine calls and counts the others. */
#include <stdio.h>
#include <stdlib.h>

#define N 512
enum { DENSITY, ENERGY, PRESSURE, SOUND, VISC, XVEL, YVEL, XFLUX, YFLUX, WORK, NFIELDS };

static void ideal_gas(double *p, const double *d, const double *e, int n) {
#pragma omp target teams distribute parallel for map(to: d[0:n], e[0:n]) map(tofrom: p[0:n])
  for (int i = 0; i < n; i++)
    p[i] = 0.4 * d[i] * e[i];
}

static void sound_speed(double *c, const double *p, int n) {
#pragma omp target teams distribute parallel for map(to: p[0:n]) map(tofrom: c[0:n])
  for (int i = 0; i < n; i++)
    c[i] = 0.5 * c[i] + 0.1 * p[i];
}

static void viscosity(double *q, int n) {
#pragma omp target teams distribute parallel for map(tofrom: q[0:n])
  for (int i = 0; i < n; i++)
    q[i] = 0.9 * q[i] + 0.01;
}

static void accelerate(double *u, double *v, const double *p, int n) {
#pragma omp target teams distribute parallel for map(to: p[0:n]) map(tofrom: u[0:n], v[0:n])
  for (int i = 0; i < n; i++) {
    u[i] -= 0.001 * p[i];
    v[i] += 0.002 * p[i];
  }
}

static void flux_x(double *f, const double *u, int n) {
#pragma omp target teams distribute parallel for map(to: u[0:n]) map(tofrom: f[0:n])
  for (int i = 0; i < n; i++)
    f[i] = 0.5 * f[i] + u[i];
}

static void flux_y(double *f, const double *v, int n) {
#pragma omp target teams distribute parallel for map(to: v[0:n]) map(tofrom: f[0:n])
  for (int i = 0; i < n; i++)
    f[i] = 0.5 * f[i] - v[i];
}

static void advect(double *d, const double *fx, const double *fy, int n) {
#pragma omp target teams distribute parallel for map(to: fx[0:n], fy[0:n]) map(tofrom: d[0:n])
  for (int i = 0; i < n; i++)
    d[i] += 0.0001 * (fx[i] + fy[i]);
}

static void heat(double *e, double *w, const double *q, int n) {
#pragma omp target teams distribute parallel for map(to: q[0:n]) map(tofrom: e[0:n], w[0:n])
  for (int i = 0; i < n; i++) {
    w[i] = 0.01 * q[i];
    e[i] += w[i];
  }
}

int main(void) {
  double *state = malloc((size_t)NFIELDS * N * sizeof *state);
  if (!state)
    return 1;
  for (int i = 0; i < NFIELDS * N; i++)
    state[i] = 1.0 + (i % 23) * 0.125;
  for (int step = 0; step < 6; step++) {
    ideal_gas(state + PRESSURE * N, state + DENSITY * N, state + ENERGY * N, N);
    sound_speed(state + SOUND * N, state + PRESSURE * N, N);
    viscosity(state + VISC * N, N);
    accelerate(state + XVEL * N, state + YVEL * N, state + PRESSURE * N, N);
    flux_x(state + XFLUX * N, state + XVEL * N, N);
    flux_y(state + YFLUX * N, state + YVEL * N, N);
    advect(state + DENSITY * N, state + XFLUX * N, state + YFLUX * N, N);
    heat(state + ENERGY * N, state + WORK * N, state + VISC * N, N);
    viscosity(state + WORK * N, N);
  }
  double sum = 0;
  for (int i = 0; i < NFIELDS * N; i++)
    sum += state[i] * (i % 7 + 1);
  printf("%.6f\n", sum);
  free(state);
  return 0;
}
