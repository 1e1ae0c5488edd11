#ifndef FIELD_HPP
#define FIELD_HPP

#include <cstddef>
#include <vector>

/* A header-only field of values with device kernels, in the style of small
 * C++ kernel libraries: every call maps its operands. */
template <typename T> class Field {
public:
  explicit Field(std::size_t n, T value = T()) : values_(n, value) {}

  std::size_t size() const { return values_.size(); }
  T *data() { return values_.data(); }
  const T *data() const { return values_.data(); }

  /* this <- this + a * x */
  void axpy(T a, const Field &x) {
    T *y = data();
    const T *xs = x.data();
    std::size_t n = size();
#pragma omp target teams distribute parallel for map(to: xs[0:n]) map(tofrom: y[0:n])
    for (std::size_t i = 0; i < n; i++)
      y[i] += a * xs[i];
  }

  T sum() const {
    T total = T();
    for (const T &v : values_)
      total += v;
    return total;
  }

private:
  std::vector<T> values_;
};

#endif
