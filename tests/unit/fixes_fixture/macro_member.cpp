// Members named inside a macro's arguments, in a template, where libclang
// spells no name for them (dependent member expressions).
#include <cstddef>

#define PAIR_MIN(a, b) ((a) < (b) ? (a) : (b))

template <typename V> std::size_t common_length(const V &x, const V &y) {
  return PAIR_MIN(x.items.size(), y.items.size());
}
