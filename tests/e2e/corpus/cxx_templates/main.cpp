#include <cstdio>

#include "field.hpp"

int main() {
  const std::size_t n = 1 << 12;
  Field<double> velocity(n, 1.0);
  const Field<double> force(n, 0.125); // read-only, re-sent by every axpy
  for (int step = 0; step < 6; step++)
    velocity.axpy(0.5, force);
  std::printf("checksum %.6f\n", velocity.sum());
  return 0;
}
