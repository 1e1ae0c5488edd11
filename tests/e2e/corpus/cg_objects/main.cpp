#include <cstdio>

#include "solver.hpp"

/* A 1D Laplacian in CSR form: 2 on the diagonal, -1 beside it. */
static CsrMatrix laplacian(int n) {
  CsrMatrix A;
  A.row_start.push_back(0);
  for (int i = 0; i < n; i++) {
    for (int j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < n) {
        A.column.push_back(j);
        A.entry.push_back(i == j ? 2.0 : -1.0);
      }
    A.row_start.push_back((int)A.column.size());
  }
  return A;
}

int main() {
  const int n = 512;
  CsrMatrix A = laplacian(n);
  DenseVector b(n, 1.0), x(n);
  int iters = solve(A, b, x, CsrMultiply<CsrMatrix, DenseVector>(), 12, 1e-12);
  double sum = 0.0;
  for (double v : x.values)
    sum += v;
  std::printf("%d iterations, checksum %.6e\n", iters, sum);
  return 0;
}
