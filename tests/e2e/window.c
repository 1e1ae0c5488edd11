/* A set-up phase that re-sends `setup` unchanged, a pause, then a main
 * phase that re-sends `work` unchanged: two duplicate-transfer findings,
 * one per phase (tests/e2e/window.sh). */
#include <stdio.h>
#include <unistd.h>
#define N (1 << 16)
static double setup[N], work[N];

int main(void) {
  for (int i = 0; i < N; i++)
    setup[i] = i, work[i] = 2.0 * i;
#pragma omp target enter data map(to: setup[0:N])
  for (int r = 0; r < 3; r++) {
#pragma omp target update to(setup[0:N]) /* SETUP */
  }
#pragma omp target exit data map(delete: setup[0:N])
  usleep(300000); /* the gap that --window starts in */
#pragma omp target enter data map(to: work[0:N])
  for (int r = 0; r < 3; r++) {
#pragma omp target update to(work[0:N]) /* MAIN */
  }
#pragma omp target exit data map(from: work[0:N])
  printf("%g\n", work[N - 1]);
  return 0;
}
