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

void instantiate(double *x, float *y, std::size_t n)
{
  scale(x, n, 2.0);
  scale(y, n, 2.0f);
  Field f{x, n};
  f.refresh();
}
