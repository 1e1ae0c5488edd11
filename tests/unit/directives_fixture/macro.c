/* Fixture: directives written with _Pragma, in macros and directly. */
#define PRAGMA(x) _Pragma(#x)
#define OFFLOAD_SCALE(v, n, f)                                           \
  PRAGMA(omp target teams distribute parallel for map(tofrom: v[0:n])) \
  for (int i = 0; i < (n); i++)                                          \
    (v)[i] *= (f);
#define PULL(v, n) _Pragma("omp target update from(v[0:n])")

void scale_all(double *p, double *q, int n)
{
  OFFLOAD_SCALE(p, n, 2.0) /* @macro_scale */
#pragma omp target data map(tofrom: q[0:n]) /* @macro_data */
  {
    OFFLOAD_SCALE(q, n, 0.5) /* @macro_nested */
  }
  _Pragma("omp target map(tofrom: p[0:1])") /* @operator */
  p[0] = 1.0;
}

void pull(double *v, int n)
{
#pragma omp target enter data map(to: v[0:n])
  PULL(v, n) /* @macro_pull */
#pragma omp target exit data map(delete: v[0:n])
}
