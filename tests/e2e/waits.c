/* Host waits (tests/e2e/waits.sh): a synchronous target blocks its host
 * thread for its whole duration; a `target nowait` runs as a task and
 * blocks its thread only where the thread waits for it. OVERLAP's task is
 * done long before its taskwait (the host computes meanwhile): no wait.
 * WAITED's taskwait follows at once: the thread waits until its region
 * ends. WARMUP starts the runtime's helper threads first. */
#include <stdio.h>
#include <time.h>
#define N (1 << 16)
static double a[N], b[N], c[N], host[N], overlap_wait_ms;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = i, b[i] = 1.0, c[i] = 2.0;
#pragma omp target enter data map(to: a[0:N], b[0:N], c[0:N])
#pragma omp target nowait /* WARMUP */
  a[0] += 1.0;
#pragma omp taskwait
  for (int step = 0; step < 4; step++) {
#pragma omp target teams distribute parallel for /* SYNC */
    for (int i = 0; i < N; i++)
      a[i] = 0.5 * a[i] + b[i];
#pragma omp target teams distribute parallel for nowait /* OVERLAP */
    for (int i = 0; i < N; i++)
      b[i] = 0.25 * b[i] + 1.0;
    /* host work overlapping the nowait target, far longer than it */
    for (double end = now_ms() + 60; now_ms() < end;)
      for (int i = 0; i < N; i++)
        host[i] = host[i] * 0.5 + (double)i;
    /* how long this taskwait blocked: on a loaded machine the task may
     * not have run yet (waits.sh allows that much) */
    double before = now_ms();
#pragma omp taskwait
    overlap_wait_ms += now_ms() - before;
#pragma omp target teams distribute parallel for nowait /* WAITED */
    for (int i = 0; i < N; i++)
      for (int k = 0; k < 32; k++)
        c[i] = 0.5 * c[i] + 1.0;
#pragma omp taskwait
  }
#pragma omp target exit data map(from: a[0:N], b[0:N], c[0:N])
  printf("%g %g %g %g\n", a[N - 1], b[N - 1], c[N - 1], host[N - 1]);
  fprintf(stderr, "overlap taskwait ns %.0f\n", overlap_wait_ms * 1e6);
  return 0;
}
