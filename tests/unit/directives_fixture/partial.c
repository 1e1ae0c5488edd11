/* Fixture: a missing header. libclang reports errors; the directives
 * must still be found, marked partial. */
#include "no_such_header.h"

void broken(vec_t *v, int n)
{
  prepare(v);
#pragma omp target data map(tofrom: v->data[0:n]) /* @partial_data */
  {
#pragma omp target teams distribute parallel for map(to: v->data[0:n]) /* @partial_inner */
    for (int i = 0; i < n; i++)
      v->data[i] = helper(v->data[i]);
  }
}
