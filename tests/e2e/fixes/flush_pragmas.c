// flush_pragmas.c: a code base that writes its pragmas in column 0 within
// indented code (UoB-HPC arch). Its buffer is mapped with `target enter
// data` and freed without an exit data: the exit data the fix inserts
// before free() goes to column 0 too, as the file's other pragmas.
#include <stdio.h>
#include <stdlib.h>

#define LEN 8192

int main(void)
{
  double *buf = malloc(LEN * sizeof *buf);
  for (int i = 0; i < LEN; i++)
    buf[i] = 0.25 * i;
#pragma omp target enter data map(to: buf[0:LEN])
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s)
  for (int i = 0; i < LEN; i++)
    s += buf[i];
  printf("flush_pragmas: %.2f\n", s);
  free(buf);
  return 0;
}
