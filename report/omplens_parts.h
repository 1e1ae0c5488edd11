/* A report over many traces, one trace at a time: each process of the
 * report is reduced to a *part*, the bytes its outputs take from it (its
 * object of findings.json, its summary, its sections of report.html, its
 * events of timeline.json, its fixes, its share of the merged view of an
 * MPI job), so that its trace and analysis can be freed before the next is
 * read; the outputs are then put together from the parts. A part is a
 * byte string (docs/report.md, "Parts"), written to a file, and read back
 * here or in another process (`mpirun omplens report`): the outputs are
 * the same bytes as the report made of all traces at once.
 * Functions return 0 or a negative OMPLENS_REPORT_E* code. */
#ifndef OMPLENS_PARTS_H
#define OMPLENS_PARTS_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "omplens_render.h"
#include "omplens_report.h"
#include "report_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a part holds besides its process's identity and merged-view
 * record: the pieces of the outputs asked for. */
enum omplens_part_pieces {
  OMPLENS_PART_JSON = 1,     /* findings.json's process object */
  OMPLENS_PART_SUMMARY = 2,  /* the summary's process text */
  OMPLENS_PART_DOC = 4,      /* the pages' document: process object (SARIF, report.md) */
  OMPLENS_PART_HTML = 8,     /* report.html's process sections */
  OMPLENS_PART_TIMELINE = 16,/* timeline.json's events of the trace */
  OMPLENS_PART_PATCH = 32,   /* the fixer's patch and its base directory */
};

typedef struct omplens_part_options {
  unsigned pieces;           /* enum omplens_part_pieces */
  size_t index, num_procs;   /* the process's place in the report */
  size_t top;                /* the summary's directives per process */
  uint64_t origin_ns;        /* timeline.json's time zero, over all traces */
  const char *warning;       /* a line for the reader about the process, or NULL */
  /* Called once the annotator and fixer are no longer used (the rest
   * reads the trace, the analysis and the document alone), or NULL. */
  void (*attributed)(void *ctx);
  void *ctx;
} omplens_part_options;

/* Writes process proc of in as one part at out's position (out must be a
 * seekable file open for writing: section lengths are patched in).
 * in->procs[proc].figures, when set, is filled. */
int omplens_part_write(const omplens_report_input *in, size_t proc, const omplens_part_options *o,
                       FILE *out);
/* A part that says the trace at index could not be analysed: the
 * report's exit code and the error line already printed. */
int omplens_part_write_error(size_t index, const char *trace, int exit_code, const char *message,
                             FILE *out);

/* Where parts are read from: a file (fd) or memory (mem). */
typedef struct omplens_part_source {
  int fd;
  const uint8_t *mem;
  uint64_t size;
} omplens_part_source;

/* A part read back. The large pieces stay in the source (offset, length);
 * the rest is in memory. */
typedef struct omplens_part_span {
  uint64_t offset, length;
} omplens_part_span;

typedef struct omplens_part {
  const omplens_part_source *src; /* the spans' */
  size_t index;
  unsigned pieces;          /* those present */
  int error;                /* an error part: the exit code (else 0) */
  char *message;            /* its error line, or NULL */
  char *trace, *exe, *cmdline, *warning; /* warning may be NULL */
  int32_t pid;
  int complete;
  uint64_t start_ns;
  omplens_rank_record record; /* rank -1 when the process has no rank; after
                                 omplens_parts_fold(), without its lists */
  int folded;                 /* its record is in the merged view's merge */
  omplens_part_span json, html, timeline;
  char *summary;
  size_t summary_len;
  json_t *doc;              /* the process object of the pages' document */
  omplens_render__timeline_counts counts;
  /* The fixer's patch (has_fixer 0: none); per relative = 0 and 1 the
   * return code of omplens_fix_patch(), the patch and the fixes left out. */
  int has_fixer, base_rc, base_under;
  char *base_dir;
  int patch_rc[2];
  char *patch[2], *skipped[2];
} omplens_part;

/* Reads the part at offset of src (at most src->size - offset bytes):
 * 0 and *p (free with omplens_part_free) and its length in *length, or
 * OMPLENS_REPORT_EINVAL for bytes that are not a whole part, never
 * reading outside the source. */
int omplens_part_read(const omplens_part_source *src, uint64_t offset, omplens_part *p,
                      uint64_t *length);
void omplens_part_free(omplens_part *p);

/* The parts of one report, by index, put together. */
typedef struct omplens_parts {
  omplens_part *parts;
  size_t n;
  int program_exit_status;  /* from `omplens run`; -1 when unknown */
  uint64_t origin_ns;       /* as given to the parts */
  json_t *ranks;            /* the merged view, or NULL (omplens_parts_prepare) */
  json_t *doc;              /* the pages' document, or NULL (omplens_parts_prepare) */
  struct omplens_report__merge *merge; /* the records folded so far, or NULL */
} omplens_parts;

/* Folds part i's merged-view record into the merge (for n parts) and
 * frees its lists of directives and findings: memory then holds each
 * distinct directive and finding once, with a value per rank, rather
 * than every rank's lists. */
int omplens_parts_fold(omplens_parts *ps, size_t i);
/* Builds the merged view (folding the parts not folded yet) and, when the
 * parts have their DOC pieces, the pages' document. */
int omplens_parts_prepare(omplens_parts *ps);
/* Frees what omplens_parts_prepare() and omplens_parts_fold() made. */
void omplens_parts_release(omplens_parts *ps);
int omplens_parts_write_json(const omplens_parts *ps, FILE *out);
int omplens_parts_write_summary(const omplens_parts *ps, size_t top, FILE *out);
int omplens_parts_write_html(const omplens_parts *ps, FILE *out);
int omplens_parts_write_timeline(const omplens_parts *ps, FILE *out);
/* How many MPI jobs the parts' ranks belong to (more than one: the merged
 * view covers the first one's). */
size_t omplens_parts_jobs(const omplens_parts *ps);

#ifdef __cplusplus
}
#endif
#endif
