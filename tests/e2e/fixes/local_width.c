/* local_width.c - fixture of the fix proof tests: a function's map item
 * bounded by a local set from a macro (`int width = WIDTH;`), the function
 * called every step of a loop. Kept resident around the caller's loop, the
 * item is written in the caller's terms: the local becomes the macro. */
#include <stdio.h>

#define WIDTH 64
enum { ROWS = 32, STEPS = 5 };

static void halve(float grid[][WIDTH], int rows)
{
  int width = WIDTH;
#pragma omp target teams distribute parallel for map(tofrom: grid[0:rows][0:width])
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < width; j++)
      grid[i][j] = 0.5f * grid[i][j] + 1.0f;
}

int main(void)
{
  static float g[ROWS][WIDTH];
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < WIDTH; j++)
      g[i][j] = (float)((i * 7 + j * 3) % 11);
  for (int s = 0; s < STEPS; s++)
    halve(g, ROWS);
  double sum = 0.0;
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < WIDTH; j++)
      sum += g[i][j];
  printf("local_width: %.4f\n", sum);
  return 0;
}
