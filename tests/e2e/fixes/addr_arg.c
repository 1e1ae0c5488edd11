/* A cursor kept in a local of the caller and passed by address to a
 * function whose kernel advances it, every step of the caller's loop, as
 * deredundancy's clustering loop does (`updateRepresentative(h_cluster,
 * &r, n)`). The fix stays manual, and its reason says the argument is the
 * address of the caller's variable, not that it is no plain variable. */
#include <stdio.h>

#define N 64

static void advance(int *cursor, int *marks, int n)
{
#pragma omp target map(tofrom: cursor[0:1]) map(tofrom: marks[0:n])
  {
    cursor[0]++;
    while (cursor[0] < n) {
      if (marks[cursor[0]] < 0) {
        marks[cursor[0]] = cursor[0];
        break;
      }
      cursor[0]++;
    }
  }
}

int main(void)
{
  int marks[N];
  for (int i = 0; i < N; i++)
    marks[i] = i % 3 == 0 ? -1 : 1;
  int r = -1, found = 0;
  while (r < N) {
    advance(&r, marks, N);
    if (r >= N - 1)
      break;
    found++;
  }
  printf("addr_arg: %d found, last %d\n", found, r);
  return 0;
}
