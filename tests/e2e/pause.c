/* Regions of interest (tests/e2e/pause.sh): a set-up loop that re-sends
 * `grid` unchanged, run while the program has paused the tool with
 * omp_control_tool, then a measured loop after omp_control_tool_start that
 * re-sends `grid` unchanged again. Only the measured loop is analysed.
 * Both arrays are mapped during the pause and removed after the start:
 * memory allocated in a pause. Prints what omp_control_tool returned. */
#include <omp.h>
#include <stdio.h>
#define N (1 << 14)
static double grid[N], work[N];

int main(void) {
  for (int i = 0; i < N; i++)
    grid[i] = i, work[i] = 0.5 * i;
  /* LLVM answers omp_control_tool_notool until its runtime has started. */
  int procs = omp_get_num_procs();
  int paused = omp_control_tool(omp_control_tool_pause, 0, NULL);
#pragma omp target enter data map(to: grid[0:N], work[0:N])
  for (int r = 0; r < 4; r++) {
#pragma omp target update to(grid[0:N]) /* SETUP */
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      work[i] += 1e-3 * grid[i];
  }
  int started = omp_control_tool(omp_control_tool_start, 0, NULL);
  int flushed = omp_control_tool(omp_control_tool_flush, 0, NULL);
  fprintf(stderr, "pause.c: measured loop\n"); /* where the oracle's part begins */
  for (int r = 0; r < 3; r++) {
#pragma omp target update to(grid[0:N]) /* MEASURED */
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      work[i] += 1e-3 * grid[i];
  }
#pragma omp target exit data map(from: work[0:N]) map(delete: grid[0:N])
  fprintf(stderr, "control_tool pause=%d start=%d flush=%d procs>0=%d\n", paused, started, flushed,
          procs > 0);
  printf("sum=%g\n", work[N - 1] + grid[N - 1]);
  return 0;
}
