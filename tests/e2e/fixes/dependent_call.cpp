// dependent_call.cpp - fixture of the fix proof tests: a kernel in a
// class template's method, called through an object whose type is a
// template parameter (`k.axpy(x, y, n)` in `run<K, T>`, as BabelStream
// calls its stream's methods). The parse leaves such a call unresolved,
// with no name: the call is found by its text, and the caller's loop gets
// the region.
#include <cstdio>

template <class T> struct Kernels {
  void axpy(const T *x, T *y, int n) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
    for (int i = 0; i < n; i++)
      y[i] += 0.5 * x[i];
  }
};

template <class K, class T> void run(K &k, const T *in, T *out, int len, int steps) {
  for (int s = 0; s < steps; s++)
    k.axpy(in, out, len);
}

int main() {
  enum { N = 4096 };
  static double x[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = i % 7, y[i] = 1;
  Kernels<double> k;
  run(k, x, y, N, 10);
  std::printf("dependent_call: %.1f %.1f\n", y[1], y[N - 1]);
  return 0;
}
