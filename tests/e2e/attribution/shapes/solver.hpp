// A member of a class template in a header the build finds through -I.
// (the runtime then names it "./solver.hpp"): the directive is exact and
// the source unchanged, whatever the names and the directory omplens runs in.
#include <cstddef>
#include <vector>

template <typename T>
struct Solver {
  std::vector<T> x;
  void sweep(int steps)
  {
    T *p = x.data();
    std::size_t n = x.size();
#pragma omp target data map(tofrom: p[0:n])
    {
      for (int s = 0; s < steps; s++) {
#pragma omp target teams distribute parallel for map(to: p[0:n])
        for (std::size_t i = 0; i < n; i++)
          p[i] += 1;
      }
    }
  }
};
