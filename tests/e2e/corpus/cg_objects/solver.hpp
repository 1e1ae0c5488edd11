#ifndef SOLVER_HPP
#define SOLVER_HPP

#include <cmath>
#include <cstdio>

#include "kernels.hpp"
#include "matrix_ops.hpp"

/* Conjugate gradients whose loop stops by returning: on a breakdown it
 * reports and returns from inside the loop. */
template <typename Mat, typename Vec, typename Multiply>
int solve(const Mat &A, const Vec &b, Vec &x, Multiply multiply, int max_iters, double tolerance) {
  const std::size_t n = b.values.size();
  Vec r(n), p(n), Ap(n);
  r.values = b.values;
  p.values = b.values;
  double rr = inner(r, r);
  int iters = 0;
  for (int k = 0; k < max_iters && std::sqrt(rr) > tolerance; k++) {
    multiply(A, p, Ap);
    double pAp = inner(p, Ap);
    if (pAp <= 0.0) {
      std::printf("breakdown at iteration %d\n", k);
      return -1;
    }
    double alpha = rr / pAp;
    update(alpha, p, x);
    update(-alpha, Ap, r);
    double rr_new = inner(r, r);
    for (std::size_t i = 0; i < n; i++)
      p.values[i] = r.values[i] + rr_new / rr * p.values[i];
    rr = rr_new;
    iters = k + 1;
  }
  return iters;
}

#endif
