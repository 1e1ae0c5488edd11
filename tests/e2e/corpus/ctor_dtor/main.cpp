#include <cstdio>
#include <vector>

#include "mirror.hpp"

int main() {
  const std::size_t n = 1 << 12;
  std::vector<double> weights(n), out(n, 0.0);
  for (std::size_t i = 0; i < n; i++)
    weights[i] = 0.001 * static_cast<double>(i % 17);
  double *o = out.data();
#pragma omp target data map(tofrom: o[0:n])
  for (int step = 0; step < 5; step++) {
    DeviceMirror mirror(weights.data(), n); // mapped and unmapped every step
    mirror.scale_into(o, 1.0 + step);
  }
  double sum = 0.0;
  for (double v : out)
    sum += v;
  std::printf("checksum %.6f\n", sum);
  return 0;
}
