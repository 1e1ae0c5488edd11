/* Fixture: parses cleanly only with the flags compile_commands.json gives
 * (-I include -DUSE_PULL); the test writes that database at run time. */
#include "config.h"

void app(real_t *v, int n)
{
#pragma omp target teams distribute parallel for map(tofrom: v[0:n]) /* @app_kernel */
  for (int i = 0; i < n; i++)
    v[i] = scale_of(v[i]);
#ifdef USE_PULL
#pragma omp target update from(v[0:n]) /* @app_pull */
#endif
}
