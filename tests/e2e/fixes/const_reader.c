// const_reader.c: a lookup table of names that the host fills again each
// step and sends with `target update to`, and a kernel that only reads it
// through a declare-target function taking `const char *` (UoB-HPC arch's
// device_strmatch). The function cannot store through its parameter: the
// kernel leaves the table alone, and the reason the update stays is the
// host's own rewrite, not the kernel.
#include <stdio.h>
#include <string.h>

#define KEYS 64
#define STEPS 5

#pragma omp declare target
static int same_name(const char *a, const char *b)
{
  int i = 0;
  for (; a[i]; ++i)
    if (a[i] != b[i])
      return 0;
  return a[i] == b[i];
}
#pragma omp end declare target

int main(void)
{
  char keys[KEYS];
  int hits = 0;
#pragma omp target enter data map(alloc: keys[0:KEYS])
  for (int step = 0; step < STEPS; step++) {
    strcpy(keys, "density");
#pragma omp target update to(keys[0:KEYS])
    int found = 0;
#pragma omp target teams distribute parallel for map(tofrom: found) reduction(+: found)
    for (int i = 0; i < 100; i++)
      found += same_name(keys, "density");
    hits += found;
  }
#pragma omp target exit data map(delete: keys[0:KEYS])
  printf("const_reader: %d\n", hits);
  return 0;
}
