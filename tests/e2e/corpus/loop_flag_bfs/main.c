/* Builds a W x H grid graph (4-neighbour, with a few cells walled off),
 * runs the BFS from the corner and prints a summary of the levels. */
#include <stdio.h>
#include <stdlib.h>

#include "graph.h"

enum { W = 24, H = 16 };

static int walled(int x, int y) { return x == W / 2 && y > 2 && y < H - 3; }

static void add_edge(graph *g, int x, int y)
{
  if (x >= 0 && x < W && y >= 0 && y < H && !walled(x, y))
    g->col[g->num_edges++] = y * W + x;
}

static int build_grid(graph *g)
{
  g->num_vertices = W * H;
  g->num_edges = 0;
  g->row = malloc((W * H + 1) * sizeof *g->row);
  g->col = malloc(4 * W * H * sizeof *g->col);
  if (!g->row || !g->col)
    return -1;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      g->row[y * W + x] = g->num_edges;
      if (walled(x, y))
        continue;
      add_edge(g, x + 1, y);
      add_edge(g, x - 1, y);
      add_edge(g, x, y + 1);
      add_edge(g, x, y - 1);
    }
  g->row[W * H] = g->num_edges;
  return 0;
}

int main(void)
{
  graph g;
  int *dist = malloc(W * H * sizeof *dist);
  if (!dist || build_grid(&g) != 0)
    return 1;
  int sweeps = bfs_levels(&g, 0, dist);
  int reached = 0, deepest = 0;
  long total = 0;
  for (int v = 0; v < W * H; v++) {
    if (dist[v] == UNREACHED)
      continue;
    reached++;
    total += dist[v];
    deepest = dist[v] > deepest ? dist[v] : deepest;
  }
  printf("sweeps %d reached %d deepest %d total %ld\n", sweeps, reached, deepest, total);
  free(g.row);
  free(g.col);
  free(dist);
  return 0;
}
