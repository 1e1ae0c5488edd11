/* Fixture: directives in preprocessor branches. The build defines
 * USE_OFFLOAD; a parse without its flags leaves that branch out, yet the
 * runtime's line names the directive. The `#if 0` branch is out for
 * everyone. */
void step(double *u, int n)
{
#ifdef USE_OFFLOAD
#pragma omp target teams distribute parallel for map(tofrom: u[0:n]) /* @ifdef_kernel */
#endif
  for (int i = 0; i < n; i++) /* @ifdef_loop */
    u[i] += 1.0;
#if 0
#pragma omp target update from(u[0:n]) /* @if_zero */
#endif
}
