/* Attribution test: the source includes a header that only the build's flags
 * (-Iinc) can find. With compile_commands.json libclang parses it fully. */
#include <stdio.h>
#include "sizes.h"

static double a[LEN], coef[LEN];

int main(void)
{
  for (int i = 0; i < LEN; i++) {
    a[i] = 1.0;
    coef[i] = 1.0 + (i % 3) * 0.5;
  }
#pragma omp target data map(tofrom: a[0:LEN])
  for (int it = 0; it < 3; it++) {
#pragma omp target teams distribute parallel for map(to: coef[0:LEN])
    for (int i = 0; i < LEN; i++)
      a[i] *= coef[i];
  }
  printf("a[7] = %.3f\n", a[7]);
  return 0;
}
