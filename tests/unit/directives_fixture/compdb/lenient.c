/* Fixture: C that clang 19 rejects by default (a call of an undeclared
 * function) and that its authors build with -Wno-implicit-function-declaration:
 * parsed without that flag it has errors. */
void lenient_kernel(double *v, int n)
{
  scale_init(v, n);
#pragma omp target teams distribute parallel for map(tofrom: v[0:n]) /* @lenient_kernel */
  for (int i = 0; i < n; i++)
    v[i] = 2 * v[i];
}
