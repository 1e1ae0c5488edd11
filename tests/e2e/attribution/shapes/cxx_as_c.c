/* C++ in a .c file, built the way its authors build it:
 * clang++ -std=c++11 -c cxx_as_c.c. Parsed as C, it has errors. */
#include <cstdio>

template <typename T> static T twice(T x) { return x + x; }

int main()
{
  static double v[4096];
  for (int r = 0; r < 3; r++) {
#pragma omp target teams distribute parallel for map(tofrom: v[0:4096])
    for (int i = 0; i < 4096; i++)
      v[i] = twice(v[i]) + 1.0;
  }
  std::printf("v[7] = %.1f\n", v[7]);
  return 0;
}
