/* Uses grid from the unit that includes it: alone, it does not parse. */
static void relax(grid *g)
{
  double *c = g->cells;
#pragma omp target teams distribute parallel for map(tofrom: c[0:g->n]) /* @part_kernel */
  for (size_t i = 0; i < g->n; i++)
    c[i] = 0.5 * c[i];
}
