/* Fixture for tests/unit/test_symbolize.c: prints real return addresses
 * taken on known lines, and this process's load map, so that the test can
 * symbolize addresses without the collector.
 *
 * Lines the test looks up carry a marker comment: "@NAME". The test finds
 * the marker's line in this file, so the code may move freely.
 *
 * Output, one record a line:
 *   probe NAME 0xRETADDR          return address of a call to probe()
 *   target KIND 0xRETADDR         return address of a libomptarget call:
 *                                 KIND is kernel, begin, update or end
 *                                 (__tgt_target_data_*_mapper), in the
 *                                 order they ran
 *   symbol NAME 0xADDR            run-time address of a function
 *   module 0xBASE 0xLOW 0xHIGH BUILDID|- PATH
 */
#include <stdio.h>

#include "fixture.h"

#ifndef FIXTURE_VARIANT
#define FIXTURE_VARIANT 1
#endif

volatile int fixture_sink;

/* noinline and a use of the result keep each probe() a real call whose
 * return address stays in the caller, at -O2 too. */
__attribute__((noinline)) int probe(const char *name)
{
  printf("probe %s %p\n", name, __builtin_return_address(0));
  return fixture_sink;
}

/* Always inlined, so that both its probe and its target region sit in an
 * inlined frame of main at every optimization level. */
static inline __attribute__((always_inline)) int helper(int *a)
{
  fixture_sink += probe("inlined"); /* @inlined-call */
#pragma omp target map(tofrom : a[0:64]) /* @inlined-target */
  for (int i = 0; i < 64; i++)
    a[i] += 1;
  return a[0] + fixture_sink;
}

int main(void)
{
  int a[64];
  for (int i = 0; i < 64; i++)
    a[i] = i;

  fixture_sink += probe("direct"); /* @direct-call */

#pragma omp target map(tofrom : a) /* @target */
  for (int i = 0; i < 64; i++)
    a[i] *= 2;

#pragma omp target enter data map(to : a) /* @enter-data */
  fixture_sink += a[1];
#pragma omp target update to(a) /* @update */
#pragma omp target teams distribute parallel for /* @teams */
  for (int i = 0; i < 64; i++)
    a[i] += 1;
#pragma omp target exit data map(from : a) /* @exit-data */

  fixture_sink += a[2]; /* @before-data */
#pragma omp target data map(tofrom : a) /* @target-data */
  {
    fixture_sink += a[3];
    fixture_sink += a[4]; /* @last-in-data */
  }

  /* Launched from a task that clang outlines: another function. */
#pragma omp target map(tofrom : a) nowait /* @target-nowait */
  for (int i = 0; i < 64; i++)
    a[i] -= 1;
#pragma omp taskwait

  fixture_sink += helper(a); /* @inline-site */
  printf("variant %d\n", FIXTURE_VARIANT);
  printf("symbol main %p\n", (void *)main);
  printf("symbol printf %p\n", (void *)printf);
  fixture_print_modules();
  return a[7] == 2 * 7 + 1 ? 0 : 1;
}
