#ifndef STENCIL_H
#define STENCIL_H

/* One relaxation step of u towards the fixed source term, on the device. */
void step(double *u, int n);

#endif
