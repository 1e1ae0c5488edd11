/* region_zeros.c - fixture of the fix proof tests: zero-filled work arrays
 * sent by a `target data` region.
 *
 * A tree search in the shape of a B+-tree query kernel: per query, the
 * current node and an offset start at zero (calloc) and the region maps
 * them `to` with the tree and the queries, then a kernel walks the levels.
 * Every copy of cur and off is zeros, so the fix maps them `alloc` and
 * zeroes them with one kernel placed as the region block's first
 * statement. The program must print the same lines before and after, and
 * record neither finding after.
 */
#include <stdio.h>
#include <stdlib.h>

enum { NODES = 1 << 12, QUERIES = 512, LEVELS = 6 };

static long walk(const int *tree, const int *queries, int *cur, int *off, int count) {
  long sum = 0;
#pragma omp target data map(to: tree[0:NODES], queries[0:count], cur[0:count], off[0:count]) \
    map(tofrom: sum)
  {
#pragma omp target teams distribute parallel for reduction(+: sum)
    for (int q = 0; q < count; q++) {
      for (int l = 0; l < LEVELS; l++) {
        off[q] += tree[(cur[q] + queries[q]) % NODES] & 1;
        cur[q] = (2 * cur[q] + 1 + off[q]) % NODES;
      }
      sum += cur[q];
    }
  }
  return sum;
}

int main(void) {
  int *tree = malloc(NODES * sizeof *tree), *queries = malloc(QUERIES * sizeof *queries);
  int *cur = calloc(QUERIES, sizeof *cur), *off = calloc(QUERIES, sizeof *off);
  if (!tree || !queries || !cur || !off)
    return 1;
  for (int i = 0; i < NODES; i++)
    tree[i] = (i * 7919) % 1009;
  for (int q = 0; q < QUERIES; q++)
    queries[q] = q * 3;
  printf("region_zeros: %ld\n", walk(tree, queries, cur, off, QUERIES));
  free(tree);
  free(queries);
  free(cur);
  free(off);
  return 0;
}
