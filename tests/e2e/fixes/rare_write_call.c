/* rare_write_call.c - fixture of the manual fix tests: rare_write.c's
 * round trip where the data region's code hands the results array to a
 * function of the same file, whose kernel stores into it on a match only
 * (HeCBench stencil3d's shape: there the store's condition never held
 * with two threads a team). The recorded queries match nothing, so the
 * copy back brings what was sent; mapping it `to` would lose the results
 * of any run with hits: the fix stays manual, names the call and the
 * store, and keeps the copy back. */
#include <stdio.h>
#include <stdlib.h>

enum { RECORDS = 4096, QUERIES = 256 };

static void search(const int *keys, const int *queries, int *found, int n, int q) {
#pragma omp target teams distribute parallel for
  for (int j = 0; j < q; j++)
    for (int i = 0; i < n; i++)
      if (keys[i] == queries[j])
        found[j] = i;
}

int main(int argc, char **argv) {
  int *keys = malloc(RECORDS * sizeof *keys), *queries = malloc(QUERIES * sizeof *queries);
  int *found = malloc(QUERIES * sizeof *found);
  if (!keys || !queries || !found)
    return 1;
  int odd = argc < 2; /* even keys, odd queries: no hits unless asked */
  for (int i = 0; i < RECORDS; i++)
    keys[i] = 2 * i;
  for (int j = 0; j < QUERIES; j++) {
    queries[j] = 4 * j + odd;
    found[j] = -1;
  }
#pragma omp target data map(to: keys[0:RECORDS], queries[0:QUERIES]) map(tofrom: found[0:QUERIES])
  {
    search(keys, queries, found, RECORDS, QUERIES);
  }
  int hits = 0;
  for (int j = 0; j < QUERIES; j++)
    hits += found[j] >= 0;
  printf("rare_write_call: %d hits\n", hits);
  free(keys);
  free(queries);
  free(found);
  return 0;
}
