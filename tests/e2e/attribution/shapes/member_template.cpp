// Calls the class template's member three times: the target data region
// maps the same buffer again each time.
#include <cstdio>

#include "solver.hpp"

int main()
{
  Solver<double> s;
  s.x.assign(4096, 1.0);
  for (int r = 0; r < 3; r++)
    s.sweep(2);
  std::printf("x[7] = %.1f\n", s.x[7]);
  return 0;
}
