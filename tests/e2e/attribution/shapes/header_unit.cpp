// Applies the header's kernel every step: coef is sent again each time.
#include <cstdio>
#include <vector>

#include "field.hpp"
#include "smoother.hpp"

int main()
{
  std::vector<double> data(4096, 1.0), coef(4096, 0.5);
  Field<double> f = {data.data(), data.size()};
  Smoother<double> s = {2.0};
  for (int step = 0; step < 3; step++)
    s.apply(f, coef.data());
  std::printf("data[7] = %.2f\n", data[7]);
  return 0;
}
