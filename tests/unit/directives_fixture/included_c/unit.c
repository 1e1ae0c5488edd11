/* One unit made of two .c files: part.c is #include'd after the type it
 * uses and is never compiled alone. */
#include <stddef.h>

typedef struct grid {
  double *cells;
  size_t n;
} grid;

#include "part.c"

int main(void)
{
  static double cells[64];
  grid g = {cells, 64};
  for (int step = 0; step < 4; step++)
    relax(&g);
  return cells[0] > 0.0;
}
