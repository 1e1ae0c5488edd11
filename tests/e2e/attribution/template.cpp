// Attribution test: a directive in a C++ function template re-sends coef on
// every call (duplicate-transfer inside scale<double>).
#include <cstdio>
#include <vector>

template <typename T>
void scale(T *a, const T *coef, int n)
{
#pragma omp target teams distribute parallel for map(to: coef[0:n]) map(tofrom: a[0:n])
  for (int i = 0; i < n; i++)
    a[i] *= coef[i];
}

int main()
{
  const int n = 1 << 16;
  std::vector<double> a(n, 1.0), coef(n);
  for (int i = 0; i < n; i++)
    coef[i] = 1.0 + (i % 3) * 0.5;
  double *pa = a.data();
#pragma omp target data map(tofrom: pa[0:n])
  for (int it = 0; it < 4; it++)
    scale(pa, coef.data(), n);
  std::printf("a[7] = %.3f\n", a[7]);
  return 0;
}
