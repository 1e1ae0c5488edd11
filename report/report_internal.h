/* Internal helpers shared by the renderers. */
#ifndef OMPLENS_REPORT_INTERNAL_H
#define OMPLENS_REPORT_INTERNAL_H

#include "omplens_report.h"
#include "omplens_trace.h"

#include <jansson.h>
#include <stdint.h>
#include <string.h>

/* The last component of a path ("dir/" stays "dir/"). */
const char *omplens_report__base_name(const char *path);
/* A member of a document object as a string / integer (NULL / 0 when absent). */
const char *omplens_report__str_at(const json_t *o, const char *key);
json_int_t omplens_report__int_at(const json_t *o, const char *key);

/* The devices below limit that had a kernel, a transfer (either end of a
 * device-to-device copy) or an allocation among the trace's events (its
 * window's, with one): used[d] set to 1 for each (the caller zeroes used);
 * returns how many. */
int omplens_report__devices_used(const omplens_trace *t, unsigned char *used, int limit);

/* The figures of process proc (in->procs[proc].figures when filled, else
 * worked out into *scratch, and kept in figures when there is one). */
const omplens_report_figures *omplens_report__figures(const omplens_report_input *in, size_t proc,
                                                      omplens_report_figures *scratch);

/* The call path most of f's operations came by: see
 * omplens_annotate_common_call_path(). */
size_t omplens_report__call_path(const omplens_report_input *in, size_t proc,
                                 const omplens_finding *f, omplens_call_site *out, size_t max,
                                 size_t *num_paths);

/* A rank stands far from the median of the job's ranks at this ratio,
 * either way (docs/report.md, "MPI jobs"). */
#define OMPLENS_REPORT_FAR_RATIO 1.5

/* The merged view of the processes that carry an MPI rank (findings.json's
 * "ranks"), or NULL when fewer than two do (or out of memory). Caller
 * frees with json_decref. */
json_t *omplens_report__ranks(const omplens_report_input *in);

int omplens_report__locate(const omplens_report_input *in, size_t proc, uint64_t codeptr,
                           omplens_location *loc);

/* Number formatting for the writers of large outputs (findings.json,
 * timeline.json), where numbers are most of the text: inline, two digits
 * a step, no printf. Each writes at d and returns the end. */

/* The decimal digits of v (20 bytes at most). */
static inline char *omplens_report__format_u64(char *d, uint64_t v) {
  static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                              "31323334353637383940414243444546474849505152535455565758596061"
                              "62636465666768697071727374757677787980818283848586878889909192"
                              "939495969798" "99";
  static const uint64_t pow10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
                                     1000000ull, 10000000ull, 100000000ull, 1000000000ull,
                                     10000000000ull, 100000000000ull, 1000000000000ull,
                                     10000000000000ull, 100000000000000ull,
                                     1000000000000000ull, 10000000000000000ull,
                                     100000000000000000ull, 1000000000000000000ull,
                                     10000000000000000000ull};
  /* The digits from the bit length (log10(2) is about 1233 / 4096), which
   * one comparison settles: no loop over the powers of ten. */
  int bits = 64 - __builtin_clzll(v | 1);
  int t10 = (bits * 1233) >> 12;
  int n = t10 + (v >= pow10[t10]);
  n += !n; /* 0 has one digit */
  char *end = d + n, *t = end;
  while (v >= 100) {
    t -= 2;
    memcpy(t, pairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10)
    memcpy(t - 2, pairs + 2 * v, 2);
  else
    t[-1] = (char)('0' + v);
  return end;
}

/* "0x1f" with its quotes: lowercase, no leading zeros (20 bytes at most). */
static inline char *omplens_report__format_hex(char *d, uint64_t v) {
  static const char hex[] = "0123456789abcdef";
  size_t digits = (size_t)(67 - __builtin_clzll(v | 1)) / 4;
  memcpy(d, "\"0x", 3);
  char *t = d + 3 + digits;
  for (; t - 2 >= d + 3; v >>= 8) { /* two digits a step */
    t -= 2;
    t[0] = hex[(v >> 4) & 15];
    t[1] = hex[v & 15];
  }
  if (t > d + 3)
    t[-1] = hex[v & 15];
  d[3 + digits] = '"';
  return d + digits + 4;
}

/* The pages' list of a process's directives with findings, by savings
 * (render_md_util.c): a new array referencing proc's directive objects.
 * omplens_report_document_limited() keeps it in each process under this
 * key, which findings.json does not have. */
#define OMPLENS_REPORT__PAGE_DIRECTIVES "page_directives"
json_t *omplens_report__page_directives(const json_t *proc);

#endif
