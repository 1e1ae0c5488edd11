// A time loop that damps a field; the profile is pushed to the device at
// the start of every step "in case it changed", though nothing changes it.
#include <cstdio>
#include <vector>

#include "profile.hpp"

int main() {
  const std::size_t n = 1 << 12;
  const int steps = 8;
  DampingProfile profile(n);
  std::vector<double> field(n);
  for (std::size_t i = 0; i < n; i++)
    field[i] = 1.0 + static_cast<double>(i % 7);
  double *u = field.data();
#pragma omp target data map(tofrom: u[0:n])
  for (int step = 0; step < steps; step++) {
    profile.push();
    profile.apply(u);
  }
  double sum = 0.0;
  for (double x : field)
    sum += x;
  std::printf("steps %d checksum %.9e\n", steps, sum);
  return 0;
}
