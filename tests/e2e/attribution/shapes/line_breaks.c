/* Written with CRLF line ends and one lone CR (real_shapes.sh makes them):
 * clang counts the lone CR as a line break, and the runtime's lines with it. */
#include <stdio.h>

#define N 4096

int main(void)
{
  static double a[N];
  int sum = 0; /* LONE-CR */
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target data map(to: a[0:N])
  for (int r = 0; r < 3; r++) {
#pragma omp target update to(a[0:N])
#pragma omp target teams distribute parallel for reduction(+: sum)
    for (int i = 0; i < N; i++)
      sum += a[i] > 10.0;
  }
  printf("sum = %d\n", sum);
  return 0;
}
