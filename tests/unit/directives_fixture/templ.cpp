// Fixture: a C++ template and a member function holding target directives.
#include <cstddef>

template <typename T>
void scale(T *a, std::size_t n, T factor)
{
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) // @tmpl
  for (std::size_t i = 0; i < n; i++)
    a[i] *= factor;
}

struct Field {
  double *data;
  std::size_t size;
  void refresh()
  {
    double *d = data;
#pragma omp target update to(d[0:size]) // @method
  }
};

// Members of class templates: DWARF and the runtime name them
// "Box<double>::sum" and "ns::Apply<ns::Op<double, int>>::operator()".
template <typename T>
struct Box {
  T *v;
  std::size_t n;
  T sum() const
  {
    T s = 0;
    const T *w = v;
#pragma omp target teams distribute parallel for map(to: w[0:n]) reduction(+: s) // @box_sum
    for (std::size_t i = 0; i < n; i++)
      s += w[i];
    return s;
  }
};

namespace ns {
template <typename T, typename I> struct Op {
  T *v;
  I n;
};
template <typename O> struct Apply {
  void operator()(O &o)
  {
    auto *v = o.v;
    auto n = o.n;
#pragma omp target teams distribute parallel for map(tofrom: v[0:n]) // @apply_call
    for (decltype(n) i = 0; i < n; i++)
      v[i] += 1;
  }
};
} // namespace ns

void instantiate(double *x, float *y, std::size_t n)
{
  scale(x, n, 2.0);
  scale(y, n, 2.0f);
  Field f{x, n};
  f.refresh();
  Box<double> b{x, n};
  b.sum();
  ns::Op<double, int> o{x, (int)n};
  ns::Apply<ns::Op<double, int>>{}(o);
}
