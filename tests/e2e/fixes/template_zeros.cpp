// template_zeros.cpp: a function template, instantiated for float, that
// maps two zero-initialized accumulators `to` with `target enter data`
// and adds into them on the device (UoB-HPC minifmm's traversal). The
// element type is the template's parameter: `= 0` compiles for the
// instantiation, which the check of the changed file proves, so the zeros
// are made on the device.
#include <cstdio>
#include <cstdlib>

template <class T>
static void accumulate(const T *x, T *first, T *second, size_t n)
{
#pragma omp target enter data map(to: x[:n], first[:n], second[:n])
#pragma omp target teams distribute parallel for
  for (size_t i = 0; i < n; ++i) {
    first[i] += x[i];
    second[i] += 3 * x[i];
  }
#pragma omp target exit data map(from: first[:n], second[:n]) map(delete: x[:n])
}

int main()
{
  const size_t n = 40000;
  float *x = static_cast<float *>(malloc(n * sizeof(float)));
  float *first = static_cast<float *>(calloc(n, sizeof(float)));
  float *second = static_cast<float *>(calloc(n, sizeof(float)));
  for (size_t i = 0; i < n; ++i)
    x[i] = 0.5f * static_cast<float>(i % 97);
  accumulate(x, first, second, n);
  double s = 0;
  for (size_t i = 0; i < n; ++i)
    s += first[i] + second[i];
  std::printf("template_zeros: %.1f\n", s);
  free(x);
  free(first);
  free(second);
  return 0;
}
