/* Fixture of test_fixes: a kernel that only exists under `#ifdef
 * OMP_OFFLOAD` (the build passes -DOMP_OFFLOAD, as its compile database
 * says). The fixer must parse it with that flag to see w (@ENTER). */
#ifdef OMP_OFFLOAD
double smooth(double *u, int n)
{
  double *w = u + n;
#pragma omp target enter data map(to: w[:n]) /* @ENTER */
  return w[0];
}
#else
double smooth(double *u, int n)
{
  return u[n];
}
#endif
