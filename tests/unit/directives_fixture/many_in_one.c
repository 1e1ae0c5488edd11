/* Many directives in one file, some sharing a line, one over two lines:
 * the look-ups find each by its lines (tests/unit/test_directives.c,
 * test_many_in_one_file). */
#define TWICE(a) _Pragma("omp target map(tofrom: a[0:1])") { a[0]++; } _Pragma("omp target map(tofrom: a[0:1])") { a[0]--; }

void many(int *a, int n)
{
#pragma omp target map(tofrom: a[0:1]) /* @first */
  { a[0] = 1; }
#pragma omp target data map(tofrom: a[0:n]) /* @data */
  {
#pragma omp target map(tofrom: \
                       a[0:1]) /* @cont */
    { a[0] += 2; }
  } /* @close */
  TWICE(a) /* @twice */
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 3; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 4; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 5; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 6; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 7; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 8; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 9; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 10; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 11; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 12; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 13; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 14; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 15; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 16; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 17; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 18; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 19; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 20; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 21; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 22; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 23; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 24; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 25; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 26; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 27; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 28; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 29; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 30; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 31; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 32; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 33; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 34; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 35; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 36; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 37; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 38; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 39; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 40; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 41; }
#pragma omp target map(tofrom: a[0:1])
  { a[0] += 42; }
#pragma omp target map(tofrom: a[0:1]) /* @last */
  { a[0] = 0; }
}
