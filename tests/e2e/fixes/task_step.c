/* task_step.c - fixture of the fix proof tests: a function whose kernel
 * runs in a task it waits for, called every step of a loop. The call path
 * of the kernel's operations starts in the function itself (where the task
 * was made or waited for) before it reaches the calls, a first one and one
 * in the loop; the fix looks past those frames to the calls, and keeps
 * the array on the device from the first call to the end of the loop. */
#include <stdio.h>

enum { N = 4096, STEPS = 6 };

static void advance(double *x, int n)
{
#pragma omp task firstprivate(x, n)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] = 0.25 * x[i] + 2.0;
#pragma omp taskwait
}

int main(void)
{
  static double v[N];
  for (int i = 0; i < N; i++)
    v[i] = i % 11;
  advance(v, N); /* a first step */
  for (int s = 1; s < STEPS; s++)
    advance(v, N);
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += v[i];
  printf("task_step: %.6f\n", sum);
  return 0;
}
