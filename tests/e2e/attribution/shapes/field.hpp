// The type smoother.hpp uses without including it.
#pragma once
#include <cstddef>

template <typename T>
struct Field {
  T *data;
  std::size_t n;
};
