/* Fixture: a header with no OpenMP that calls scale(), whose directive is
 * in caller_user.c: the plain parse of that unit shows it to the hook. */
#ifndef PLAIN_CALLER_H
#define PLAIN_CALLER_H

void scale(double *x, int n);

static inline void scale_twice(double *x, int n)
{
  scale(x, n);
  scale(x, n);
}

#endif
