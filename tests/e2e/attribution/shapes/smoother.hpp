// A header that does not compile alone, as in miniFE: Field comes from
// field.hpp and std::printf from <cstdio>, which the source includes
// first. It is parsed through the unit that holds its code (DWARF's
// compile unit, header_unit.cpp), so it parses fully.
#pragma once

template <typename T>
struct Smoother {
  T weight;
  void apply(Field<T> &f, const T *coef) const
  {
#pragma omp target teams distribute parallel for map(to: coef[0:f.n]) map(tofrom: f.data[0:f.n])
    for (std::size_t i = 0; i < f.n; i++)
      f.data[i] = weight * coef[i] * f.data[i];
    if (f.n == 0)
      std::printf("empty field\n");
  }
};
