/* Internal helpers shared by the renderers. */
#ifndef OMPLENS_REPORT_INTERNAL_H
#define OMPLENS_REPORT_INTERNAL_H

#include "omplens_report.h"
#include "omplens_trace.h"

#include <jansson.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

/* The last component of a path ("dir/" stays "dir/"). */
const char *omplens_report__base_name(const char *path);
/* A member of a document object as a string / integer (NULL / 0 when absent). */
const char *omplens_report__str_at(const json_t *o, const char *key);
/* Whether finding f is an unused transfer back to the host: a copy out of
 * device memory nothing wrote (its instances' kind, in findings.json's
 * object or the pages' document's first). */
bool omplens_report__copies_back_unwritten(const json_t *f);
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

/* The map item whose allocation leftover l of process proc is (a mapping
 * no exit data or free ended), into *v; false when none names it. */
bool omplens_report__leftover_variable(const omplens_report_input *in, size_t proc,
                                       const omplens_leftover *l, omplens_variable *v);

/* The call path most of f's operations came by: see
 * omplens_annotate_common_call_path(). */
size_t omplens_report__call_path(const omplens_report_input *in, size_t proc,
                                 const omplens_finding *f, omplens_call_site *out, size_t max,
                                 size_t *num_paths, size_t *num_top);

/* A rank stands far from the median of the job's ranks at this ratio,
 * either way (docs/report.md, "MPI jobs"). */
#define OMPLENS_REPORT_FAR_RATIO 1.5

/* The merged view of the processes that carry an MPI rank (findings.json's
 * "ranks"), or NULL when fewer than two do (or out of memory). Caller
 * frees with json_decref. */
json_t *omplens_report__ranks(const omplens_report_input *in);

/* What the merged view takes from one process: its rank, measures,
 * devices, and its directives and findings by their names (no events), so
 * that a process can be reduced to it and the trace freed before the view
 * is built (report_parts.c), here or in another process. Strings are
 * UTF-8 and owned by the record. */
typedef struct omplens_rank_directive {
  char *location; /* omplens_format_location() */
  uint64_t total_ns, bytes, executions;
} omplens_rank_directive;

typedef struct omplens_rank_finding {
  char *category, *location;
  char *item; /* the map item, or NULL */
  uint64_t bytes, count, total_bytes, savings_ns;
} omplens_rank_finding;

typedef struct omplens_rank_record {
  size_t process;           /* index into the report's processes */
  int32_t rank;             /* -1: no rank (the record takes no part) */
  int32_t pid, job_size;
  char *job;                /* the launcher's job id, or NULL */
  uint64_t device_ns, transfer_bytes, findings;
  int32_t *devices_used;
  size_t num_devices_used;
  omplens_rank_directive *directives;
  size_t num_directives;
  omplens_rank_finding *finding_list;
  size_t num_findings;
} omplens_rank_record;

/* The record of process proc of in (rank -1 when it has none): 0, or
 * OMPLENS_REPORT_ENOMEM. Free with omplens_report__rank_record_free(). */
int omplens_report__rank_record(const omplens_report_input *in, size_t proc,
                                omplens_rank_record *out);
void omplens_report__rank_record_free(omplens_rank_record *r);
/* The merged view of records[0..n) (as omplens_report__ranks()): the
 * ranks of the job of the first record with a rank; NULL when that job
 * has fewer than two. */
json_t *omplens_report__ranks_of(const omplens_rank_record *records, size_t n);
/* The same, one record at a time: a merge of `slots` records, each added
 * into its slot (records are not kept: their lists may be freed once
 * added), then the view (NULL as above); finish frees the merge. */
typedef struct omplens_report__merge omplens_report__merge;
omplens_report__merge *omplens_report__merge_new(size_t slots);
int omplens_report__merge_add(omplens_report__merge *m, const omplens_rank_record *r, size_t slot);
json_t *omplens_report__merge_finish(omplens_report__merge *m);
void omplens_report__merge_free(omplens_report__merge *m);
/* How many jobs the records with a rank belong to (a missing job id
 * counts as one job). */
size_t omplens_report__ranks_jobs(const omplens_rank_record *records, size_t n);

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

/* ---- The pieces of the outputs, one process at a time (report_parts.c) -- */

struct omplens_jout;
/* Writes process proc's object of findings.json into j, at element level
 * depth, exactly as omplens_report_stream_json() does. page: the same
 * process's page document (omplens_report__page_process), whose parts are
 * written rather than made again, or NULL. */
int omplens_report__stream_process(const omplens_report_input *in, size_t proc,
                                   const json_t *page, struct omplens_jout *j, int depth);
typedef int (*omplens_report__process_writer)(void *ctx, struct omplens_jout *j, size_t proc,
                                              int depth);
/* findings.json around num_procs process objects, each written by
 * write(ctx, j, proc, 2), then the merged view ranks_of(ctx) returns (a
 * new reference, or NULL: none; ranks_of may be NULL). */
int omplens_report__stream_json_frame(int program_exit_status, size_t num_procs,
                                      omplens_report__process_writer write,
                                      json_t *(*ranks_of)(void *ctx), void *ctx, FILE *out);
/* The document's members before "processes". */
json_t *omplens_report__root(int program_exit_status);
/* Process proc of omplens_report_document_limited() (page directives
 * included). */
json_t *omplens_report__page_process(const omplens_report_input *in, size_t proc,
                                     size_t max_findings, size_t max_instances);
/* The terminal summary of process proc (without the blank line that
 * separates processes), and of a merged view. */
int omplens_report__print_process_text(const omplens_report_input *in, size_t proc, FILE *out,
                                       size_t top);
void omplens_report__print_ranks_text(FILE *out, const json_t *ranks, size_t top);

struct omplens_render_options;
/* report.html: what comes before the processes (the page's head, the
 * merged view), one process's sections (as omplens_render_html() writes
 * process index of num_procs, from its document object, trace and
 * analysis), and what comes after them. */
int omplens_render__html_head(const json_t *doc, const struct omplens_render_options *opt,
                              FILE *out);
int omplens_render__html_process(const json_t *proc, size_t index, size_t num_procs,
                                 const omplens_trace *trace, const omplens_analysis *analysis,
                                 const struct omplens_render_options *opt, FILE *out);
int omplens_render__html_tail(const json_t *doc, const struct omplens_render_options *opt,
                              FILE *out);

/* timeline.json: its head; one trace's events (no separator before the
 * first; c->events 0 when it wrote none); the separator between two
 * traces' events; the tail, with the counts of all traces summed. */
typedef struct omplens_render__timeline_counts {
  uint64_t overflows, unmatched;
  int events;
} omplens_render__timeline_counts;
int omplens_render__timeline_head(FILE *out);
int omplens_render__timeline_trace(const json_t *doc_proc, const omplens_trace *t, size_t index,
                                   uint64_t origin, FILE *out, omplens_render__timeline_counts *c);
int omplens_render__timeline_separator(FILE *out);
int omplens_render__timeline_tail(const json_t *doc, const omplens_trace_info *const *infos,
                                  size_t n, uint64_t origin,
                                  const omplens_render__timeline_counts *sum, FILE *out);
/* The timeline's time zero: the earliest of the traces' start times (0:
 * unknown, skipped). */
uint64_t omplens_render__timeline_origin(const uint64_t *start_ns, size_t n);

#endif
