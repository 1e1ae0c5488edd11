/* Fixture: the type solver.hpp uses without including it. */
#pragma once
#include <cstddef>

template <typename T> struct Vec {
  T *data;
  std::size_t n;
};
