// Integrates a small system of rate equations and prints its final state.
#include <cstdio>

#include "kernel/wrapper.h"

int main()
{
  double state[STATES];
  double sum = integrate(state, 8);
  std::printf("checksum %.6f\n", sum);
  return 0;
}
