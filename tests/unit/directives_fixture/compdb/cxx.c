/* Fixture: C++ in a .c file, built as its authors build it
 * (clang++ -std=c++11 -c cxx.c): parsed as C it has errors. */
template <typename T> static T twice(T x) { return x + x; }

void cxx_kernel(double *v, int n)
{
#pragma omp target teams distribute parallel for map(tofrom: v[0:n]) /* @cxx_kernel */
  for (int i = 0; i < n; i++)
    v[i] = twice(v[i]);
}
