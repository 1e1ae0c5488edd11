/* Set-up findings (tests/e2e/setup.sh): the one-time initialisation sends
 * the large `mesh` twice unchanged (a duplicate that saves more than any
 * other finding), and the time loop re-sends the small `coef` unchanged
 * every step. The set-up's finding is marked "set-up" and ranked last. */
#include <stdio.h>
#define BIG (1 << 20)
#define SMALL 256
#define STEPS 6
static double mesh[BIG], coef[SMALL], field[SMALL];

int main(void) {
  for (int i = 0; i < BIG; i++)
    mesh[i] = 1.0 / (i + 1);
  for (int i = 0; i < SMALL; i++)
    coef[i] = 0.5, field[i] = i;
#pragma omp target enter data map(to: mesh[0:BIG], field[0:SMALL])
#pragma omp target update to(mesh[0:BIG]) /* SETUP */
#pragma omp target /* INIT */
  for (int i = 0; i < SMALL; i++)
    field[i] += mesh[i];
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(to: coef[0:SMALL]) /* LOOP */
    for (int i = 0; i < SMALL; i++)
      field[i] = coef[i] * field[i] + mesh[i];
  }
#pragma omp target exit data map(from: field[0:SMALL]) map(delete: mesh[0:BIG])
  printf("%g\n", field[SMALL - 1]);
  return 0;
}
