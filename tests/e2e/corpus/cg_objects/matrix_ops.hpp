#ifndef MATRIX_OPS_HPP
#define MATRIX_OPS_HPP

#include "halo.hpp"
#include "structs.hpp"

/* The matrix-vector product as a function object, passed to the solver
 * (the solver's call names the object, not the function it runs). */
template <typename Mat, typename Vec> struct CsrMultiply {
  /* y <- A x */
  void operator()(const Mat &A, const Vec &x, Vec &y) const {
    exchange_halo(A, x);
    const int rows = A.rows();
    const int *start = &A.row_start[0];
    const int *col = &A.column[0];
    const double *val = &A.entry[0];
    const double *xv = &x.values[0];
    double *yv = &y.values[0];
#pragma omp target teams distribute parallel for map(to: start[0:A.row_start.size()], col[0:A.column.size()], val[0:A.entry.size()], xv[0:x.values.size()]) map(from: yv[0:rows])
    for (int r = 0; r < rows; r++) {
      double acc = 0.0;
      for (int k = start[r]; k < start[r + 1]; k++)
        acc += val[k] * xv[col[k]];
      yv[r] = acc;
    }
  }
};

#endif
