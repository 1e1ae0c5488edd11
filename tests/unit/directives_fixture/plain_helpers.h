/* Fixture: a header with code and no OpenMP at all, included by
 * plain_user.c: a lookup of it must not parse it alone. */
#ifndef PLAIN_HELPERS_H
#define PLAIN_HELPERS_H

static inline double half(double v)
{
  return v * 0.5;
}

#endif
