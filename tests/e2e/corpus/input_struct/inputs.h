#ifndef INPUTS_H
#define INPUTS_H

/* Sizes and parameters of a run, passed around by value as XSBench does. */
typedef struct {
  int n_points;
  int n_lookups;
  int window;
  double scale;
} Inputs;

/* One batch of lookups on the device; grid and res stay resident. */
void lookups(Inputs in, const double *grid, double *res, int batch);

#endif
