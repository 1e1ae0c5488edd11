#ifndef GRAPH_H
#define GRAPH_H

/* A graph in compressed sparse rows: the neighbours of vertex v are
 * col[row[v]] .. col[row[v + 1] - 1]. */
typedef struct graph {
  int num_vertices;
  int num_edges;
  int *row; /* num_vertices + 1 offsets */
  int *col; /* num_edges targets */
} graph;

#define UNREACHED (-1)

/* Levels from source into dist (UNREACHED where no path leads); returns
 * the number of sweeps made. */
int bfs_levels(const graph *g, int source, int *dist);

#endif
