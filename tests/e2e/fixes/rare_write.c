/* rare_write.c - fixture of the manual fix tests: a round trip the code
 * can break.
 *
 * A batch of range queries: found[] starts at -1 and the kernel stores a
 * record's index in it only when the record's key equals the query's. The
 * recorded queries match nothing, so every copy of found back brings the
 * -1s that were sent: a round trip, in this run. With other queries the
 * kernel writes found (as a search kernel does on most inputs), and
 * mapping it `to` would lose the results: the fix must stay manual and say
 * that the region's code writes it. The same shape in a kernel of its own
 * (`target` with the map) and in a data region around it.
 */
#include <stdio.h>
#include <stdlib.h>

enum { RECORDS = 4096, QUERIES = 256 };

static void search(const int *keys, const int *queries, int *found, int n, int q) {
#pragma omp target teams distribute parallel for map(to: keys[0:n], queries[0:q]) \
    map(tofrom: found[0:q])
  for (int j = 0; j < q; j++)
    for (int i = 0; i < n; i++)
      if (keys[i] == queries[j])
        found[j] = i;
}

static void search_region(const int *keys, const int *queries, int *found, int n, int q) {
#pragma omp target data map(to: keys[0:n], queries[0:q]) map(tofrom: found[0:q])
  {
#pragma omp target teams distribute parallel for
    for (int j = 0; j < q; j++)
      for (int i = 0; i < n; i++)
        if (keys[i] == queries[j])
          found[j] = i;
  }
}

int main(int argc, char **argv) {
  int *keys = malloc(2 * RECORDS * sizeof *keys), *queries = malloc(2 * QUERIES * sizeof *queries);
  int *found = malloc(2 * QUERIES * sizeof *found);
  if (!keys || !queries || !found)
    return 1;
  /* Even keys; the queries are odd unless an argument asks for hits. The
   * second halves, for the data region, hold other values: nothing there
   * repeats what the first search sent. */
  int odd = argc < 2;
  for (int i = 0; i < 2 * RECORDS; i++)
    keys[i] = 2 * i;
  for (int j = 0; j < 2 * QUERIES; j++) {
    queries[j] = 4 * j + odd;
    found[j] = j < QUERIES ? -1 : -2;
  }
  search(keys, queries, found, RECORDS, QUERIES);
  search_region(keys + RECORDS, queries + QUERIES, found + QUERIES, RECORDS, QUERIES);
  int hits = 0;
  for (int j = 0; j < 2 * QUERIES; j++)
    hits += found[j] >= 0;
  printf("rare_write: %d hits\n", hits);
  free(keys);
  free(queries);
  free(found);
  return 0;
}
