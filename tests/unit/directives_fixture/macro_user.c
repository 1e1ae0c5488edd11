/* Fixture: the only `_Pragma`s of this unit are in pragma_macros.h, and
 * the directives they build are inside a function body. */
#include "pragma_macros.h"

void refresh(double *v, int n)
{
#pragma omp target enter data map(to: v[0:n])
  OMP(omp target update from(v[0:n])) /* @hdr_pull */
  OMP_DEEP(omp target update to(v[0:n])) /* @hdr_push */
#pragma omp target exit data map(delete: v[0:n])
}
