/* Fixture: includes kernels.h, whose directive must be found in the
 * header with header_user.c as its unit. */
#include "kernels.h"

void use_axpy(double *x, double *y, int n)
{
  axpy(2.0, x, y, n);
}
