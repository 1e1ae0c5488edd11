/* The one source the build compiles (clang++, as C++): the solver and its
 * step are .c files #include'd here, as in codes that split one unit into
 * several .c files. Neither is compiled alone, so neither is parsed alone. */
#include <cstdio>

#include "included_solver.c"

int main()
{
  static double state[2048], rates[2048];
  for (int i = 0; i < 2048; i++)
    rates[i] = 0.001 * (i % 7);
  solve(state, rates, 2048, 4);
  std::printf("state[7] = %.4f\n", state[7]);
  return 0;
}
