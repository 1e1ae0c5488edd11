/* Level-synchronous BFS: each sweep expands the current frontier on the
 * device. The host clears a flag, sends it, and reads it back after the
 * kernel to learn whether the frontier grew. */
#include "graph.h"

int bfs_levels(const graph *g, int source, int *dist)
{
  const int n = g->num_vertices, m = g->num_edges;
  const int *row = g->row, *col = g->col;
  for (int v = 0; v < n; v++)
    dist[v] = UNREACHED;
  dist[source] = 0;

  int changed = 1, level = 0, sweeps = 0;
#pragma omp target data map(to: row[0:n + 1], col[0:m]) map(tofrom: dist[0:n]) map(alloc: changed)
  while (changed) {
    changed = 0;
#pragma omp target update to(changed)
#pragma omp target teams distribute parallel for map(tofrom: changed)
    for (int v = 0; v < n; v++) {
      if (dist[v] != level)
        continue;
      for (int e = row[v]; e < row[v + 1]; e++) {
        int u = col[e];
        if (dist[u] == UNREACHED) {
#pragma omp atomic write
          dist[u] = level + 1;
#pragma omp atomic write
          changed = 1;
        }
      }
    }
#pragma omp target update from(changed)
    level++;
    sweeps++;
  }
  return sweeps;
}
