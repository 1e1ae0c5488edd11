#ifndef STRUCTS_HPP
#define STRUCTS_HPP

#include <vector>

/* Vectors and a sparse matrix that own their storage: the kernels take
 * pointers into it (&v.values[0]) and map those. */
struct DenseVector {
  explicit DenseVector(std::size_t n, double v = 0.0) : values(n, v) {}
  std::vector<double> values;
};

struct CsrMatrix {
  std::vector<int> row_start; /* rows + 1 entries */
  std::vector<int> column;
  std::vector<double> entry;
  int rows() const { return (int)row_start.size() - 1; }
};

#endif
