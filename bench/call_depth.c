/* call_depth: N small target constructs, each DEPTH calls below main, from
 * two callers in turn (two call paths per directive), for callpath_cost.sh.
 *
 *   call_depth N DEPTH */
#include <stdio.h>
#include <stdlib.h>

static double x[8];
static volatile int sink;

__attribute__((noinline)) static void leaf(int i) {
#pragma omp target update to(x[0:1])
  x[0] += i;
}

/* Recursion the compiler cannot turn into a loop or tail calls. */
__attribute__((noinline)) static void descend(int depth, int i) {
  if (depth > 0)
    descend(depth - 1, i);
  else
    leaf(i);
  sink += depth;
}

__attribute__((noinline)) static void caller_a(int depth, int i) {
  descend(depth, i);
  sink += 1;
}

__attribute__((noinline)) static void caller_b(int depth, int i) {
  descend(depth, i);
  sink += 2;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000, depth = argc > 2 ? atoi(argv[2]) : 4;
#pragma omp target enter data map(to: x[0:8])
  for (int i = 0; i < n; i++) {
    if (i % 2)
      caller_b(depth, i);
    else
      caller_a(depth, i);
  }
#pragma omp target exit data map(release: x[0:8])
  printf("%f\n", x[0]);
  return 0;
}
