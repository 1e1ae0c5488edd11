#include <cstdio>

#include "field.hpp"

int main() {
  const std::size_t n = 1 << 12;
  Field<double> velocity(n, 1.0);
  const Field<double> force(n, 0.125); // read-only, re-sent by every axpy
  Buffer<double> gain{std::vector<double>(n, 0.25)}, total{std::vector<double>(n)};
  for (int step = 0; step < 6; step++) {
    velocity.axpy(0.5, force);
    accumulate(gain, total);
  }
  std::printf("checksum %.6f, total %.6f\n", velocity.sum(), total.items[n / 2]);
  return 0;
}
