/* `omplens report` over several traces (an MPI job's ranks), one trace at a
 * time: each trace is read, analysed, attributed to sources and reduced to
 * its part (report/omplens_parts.h) on one of a thread per CPU, and freed
 * before its thread takes the next; the parts wait in spool files, and the
 * outputs are put together from them. Memory holds a trace per thread and
 * the parts' small pieces (summaries, merged-view records, the pages'
 * findings), not the job's events (docs/performance.md, "MPI jobs"). */
#ifndef OMPLENS_CLI_PARTS_H
#define OMPLENS_CLI_PARTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "omplens_detect.h"
#include "omplens_parts.h"
#include "omplens_trace.h"

/* Where a part lies: spool file and bytes. */
typedef struct omplens_cli_part_at {
  FILE *spool;       /* NULL: not made (yet) */
  uint64_t offset, length;
} omplens_cli_part_at;

/* What to reduce, and how. */
typedef struct omplens_cli_reduce {
  char *const *names;    /* the report's traces, in report order */
  size_t n;
  const size_t *mine;    /* the indexes this process reduces (NULL: all) */
  size_t num_mine;
  size_t threads;        /* at most this many at once (0: 1) */
  const char *spool_dir; /* the spool files' directory (NULL: $TMPDIR) */
  const char *compile_commands;
  const char *no_diff;   /* the fixers' (omplens_fix_options), or NULL */
  omplens_part_options part; /* pieces, num_procs, top, origin (index set per trace) */
  /* Reads and analyses a trace (the error line printed): 0, or an exit
   * code. Called on several threads at once. */
  int (*read)(void *ctx, const char *path, omplens_trace **t, omplens_analysis **a);
  /* A line for the reader about the process (nothing reached a device), or
   * NULL; called with the attribution lock held. */
  const char *(*warning)(void *ctx, const omplens_trace *t);
  void *ctx;
} omplens_cli_reduce;

/* The parts made: at[i] for index i (spool NULL for the others), in the
 * spool files (one per thread), which the caller closes with
 * omplens_cli_reduced_free. */
typedef struct omplens_cli_reduced {
  omplens_cli_part_at *at; /* n entries */
  FILE **spools;
  size_t num_spools;
} omplens_cli_reduced;

/* A spool file in dir (NULL: $TMPDIR), removed when closed (and by the
 * system if omplens dies): read-write, seekable. NULL and errno on failure. */
FILE *omplens_cli_spool_open(const char *dir);

/* Reduces the traces of r: 0, or an exit code after its error line (out of
 * memory, a spool that cannot be written). A trace that cannot be read
 * gets an error part: the report's exit code comes from the parts. */
int omplens_cli_reduce_traces(const omplens_cli_reduce *r, omplens_cli_reduced *out);
void omplens_cli_reduced_free(omplens_cli_reduced *out);

/* Reads the parts at[0..n) back into ps->parts (ps->n set; free with
 * omplens_cli_parts_free): 0, or an exit code after its error line. A
 * part of an unreadable trace gives its exit code, the first in report
 * order; its error line was printed where it was read. */
int omplens_cli_parts_load(const omplens_cli_part_at *at, size_t n, omplens_parts *ps);
void omplens_cli_parts_free(omplens_parts *ps);

#endif
