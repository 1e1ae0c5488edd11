// A kernel helper inlined into a solver, both in a namespace, as C++
// libraries write them: the call path must go through the inlined call
// (line 24), with the functions' names.
#include <cstdio>
#include <vector>

namespace lab {

template <typename V>
inline __attribute__((always_inline)) double norm2(const V &x) {
  const double *c = x.data();
  int n = static_cast<int>(x.size());
  double r = 0.0;
#pragma omp target teams distribute parallel for reduction(+ : r) map(to : c[0:n])
  for (int i = 0; i < n; i++)
    r += c[i] * c[i];
  return r;
}

// Re-sends x, which no step changes, in every step.
template <typename V> __attribute__((noinline)) double solve(const V &x, int steps) {
  double total = 0.0;
  for (int k = 0; k < steps; k++)
    total += norm2(x);
  return total;
}

} // namespace lab

int main() {
  std::vector<double> v(4096, 0.5);
  double t = lab::solve(v, 4);
  std::printf("total %.3f\n", t);
  return 0;
}
