/* Fixture: a header that is not self-contained, like many real ones: Vec
 * comes from vec.hpp and std::cout from <iostream>, both included before
 * it by the sources. Parsed alone it has errors; parsed through a unit
 * that includes it, none. */
#pragma once

template <typename T> struct Scale {
  T factor;
  void operator()(Vec<T> &v) const
  {
#pragma omp target teams distribute parallel for map(tofrom: v.data[0:v.n]) /* @solver_kernel */
    for (std::size_t i = 0; i < v.n; i++)
      v.data[i] *= factor;
    std::cout << "scaled " << v.n << "\n";
  }
};
