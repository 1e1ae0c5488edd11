/* A relaxation loop whose kernel maps the field every step, and the host
 * sums the field in a loop of its own after each step to watch the mass:
 * the region goes around the step loop, and the update goes once before
 * the host's summing loop (line 25), not before the statement in its body,
 * where it would copy the field back once per element. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 5

int main(void)
{
  double *field = malloc(N * sizeof *field);
  double *mass = malloc(STEPS * sizeof *mass);
  if (!field || !mass)
    return 1;
  for (int i = 0; i < N; i++)
    field[i] = (i % 13) * 0.25;
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(tofrom: field[0:N])
    for (int i = 0; i < N; i++)
      field[i] = 0.5 * field[i] + 0.125 * (i % 5);
    double total = 0.0;
    for (int i = 0; i < N; i++)
      total += field[i];
    mass[step] = total;
  }
  for (int step = 0; step < STEPS; step++)
    printf("%d %.6f\n", step, mass[step]);
  free(field);
  free(mass);
  return 0;
}
