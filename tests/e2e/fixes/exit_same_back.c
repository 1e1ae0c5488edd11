/* A small record mapped in and out around one kernel each step, by enter
 * and exit data: the kernel changes it in a few steps only, so most exit
 * datas bring back what the host already holds. Copying it back once
 * after the last writer means `release` on the exit data (an exit data
 * takes no `alloc`). */
#include <stdio.h>

typedef struct {
  long hits;
  long last;
} record;

#pragma omp declare target
static void mark(record *r, int step) {
  if (step % 4 == 0) {
    r->hits++;
    r->last = step;
  }
}
#pragma omp end declare target

int main(void) {
  record rec = {0, -1};
  record *p = &rec;
  long total = 0;
  for (int step = 0; step < 10; step++) {
#pragma omp target enter data map(to: p[0:1])
#pragma omp target firstprivate(step)
    mark(p, step);
#pragma omp target exit data map(from: p[0:1])
    total += p->hits;
  }
  printf("hits %ld last %ld total %ld\n", rec.hits, rec.last, total);
  return 0;
}
