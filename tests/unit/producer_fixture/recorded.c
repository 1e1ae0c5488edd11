/* Fixture of tests/unit/test_producer.c, built by tests/CMakeLists.txt in
 * this directory with -grecord-command-line -DRECORDED_OFFLOAD -Iinc: the
 * header is found only through -Iinc, the directive only with the -D. */
#include "recorded.h"

int main(void)
{
  double a[RECORDED_N];
#ifdef RECORDED_OFFLOAD
#pragma omp target map(tofrom: a) /* @recorded */
#endif
  for (int i = 0; i < RECORDED_N; i++)
    a[i] = i;
  return (int)a[1] - 1;
}
