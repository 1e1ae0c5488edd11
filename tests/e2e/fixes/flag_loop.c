/* flag_loop.c - fixture of the fix proof tests: a frontier loop that runs
 * until a kernel leaves its flag unset (Rodinia's bfs): the host sets
 * `stop = 0` in each run, the kernel sets it when it found work, and the
 * host reads it for the loop's test. Only the last run's copy back brings
 * the host's 0 back unchanged: a round trip, whose recipe says that
 * nothing is to change, never to stop copying the flag back. */
#include <stdio.h>

enum { N = 48 };

int main(void)
{
  static int level[N];
  for (int i = 0; i < N; i++)
    level[i] = i ? -1 : 0;
  int stop, depth = 0;
#pragma omp target data map(tofrom: level[0:N])
  do {
    stop = 0;
#pragma omp target teams distribute parallel for map(tofrom: stop)
    for (int i = 1; i < N; i++)
      if (level[i] < 0 && level[i - 1] == depth) {
        level[i] = depth + 1;
        stop = 1;
      }
    depth++;
  } while (stop);
  printf("flag_loop: %d levels, last %d\n", depth, level[N - 1]);
  return 0;
}
