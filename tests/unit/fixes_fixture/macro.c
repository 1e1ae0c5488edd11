/* Fixture of test_fixes: a directive written in a macro (@MACRO_USE) next
 * to a plain one (@PLAIN). A fix may not edit the macro's text. */
#define N 1024
#define OFFLOAD_SCALE(p) \
  _Pragma("omp target teams distribute parallel for map(tofrom: p[0:N])") \
  for (int i = 0; i < N; i++)                                              \
    p[i] *= 2.0;

void scale(double *a)
{
  for (int it = 0; it < 4; it++) {
    OFFLOAD_SCALE(a) /* @MACRO_USE */
  }
#pragma omp target teams distribute parallel for map(tofrom: a[0:N]) /* @PLAIN */
  for (int i = 0; i < N; i++)
    a[i] += 1.0;
}
