#ifndef OPS_H
#define OPS_H

/* Each helper maps its own operands: nothing stays on the device. */
double dot(const double *a, const double *b, int n);
void axpy(double *y, double alpha, const double *x, int n);
void matvec(const double *A, const double *x, double *y, int n);

#endif
