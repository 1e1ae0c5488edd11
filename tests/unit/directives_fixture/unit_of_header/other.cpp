/* Fixture: another unit that includes solver.hpp, with an error of its
 * own. The error is other.cpp's: solver.hpp read through this unit is
 * not partial. */
#include <iostream>
#include "vec.hpp"
#include "solver.hpp"

void other(Vec<float> &v)
{
  Scale<float>{0.5f}(v);
  undeclared_helper(v); /* @other_error */
}
