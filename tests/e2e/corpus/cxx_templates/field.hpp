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

#define FIELD_MIN(a, b) ((a) < (b) ? (a) : (b))

/* A plain buffer of the kind solvers pass around. */
template <typename T> struct Buffer {
  std::vector<T> items;
};

/* y <- y + x over the length both have, for any buffer type: its bound
 * is a macro of calls on dependent members. */
template <typename V> void accumulate(const V &x, V &y) {
  const std::size_t n = FIELD_MIN(x.items.size(), y.items.size());
  const auto *xs = &x.items[0];
  auto *ys = &y.items[0];
#pragma omp target teams distribute parallel for map(to: xs[0:n]) map(tofrom: ys[0:n])
  for (std::size_t i = 0; i < n; i++)
    ys[i] += xs[i];
}

#endif
