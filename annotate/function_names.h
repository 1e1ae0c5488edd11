/* Function names as DWARF and the runtime spell them, reduced to what the
 * source calls the function. Shared by the directive index (which
 * directive a function holds) and the symbolizer (where a function was
 * inlined). */
#ifndef OMPLENS_FUNCTION_NAMES_H
#define OMPLENS_FUNCTION_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* The bare name of f: "run" in "ns::S<T>::run(int)", "scale" in
 * "scale<double>", "operator()" in "matvec<A<int>>::operator()" (the last
 * component outside template arguments and parameters). Sets *begin
 * (inside f) and *len and returns true; false when the name says nothing
 * about the source (NULL, empty, mangled, a function clang made for a
 * target region). */
bool omplens_bare_function_name(const char *f, const char **begin, size_t *len);

#endif
