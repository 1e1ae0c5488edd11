/* Fixture: the unit that includes solver.hpp (through driver.hpp). */
#include "driver.hpp"

int main()
{
  double x[4] = {1, 2, 3, 4};
  Vec<double> v = {x, 4};
  Scale<double>{2.0}(v);
  return 0;
}
