/* omplens renderers of the findings document: report.html, report.md,
 * findings.sarif and timeline.json. The document is the in-memory
 * findings.json (docs/findings-schema.md) built by omplens_report_document();
 * renderers never decide what is wasted, they only present the document.
 * Functions return 0 or a negative OMPLENS_REPORT_E* code (omplens_report.h). */
#ifndef OMPLENS_RENDER_H
#define OMPLENS_RENDER_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "omplens_report.h"
#include "omplens_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct omplens_render_options {
  const char *title;          /* page title; NULL: from the command line */
  const char *base_dir;       /* paths in SARIF are made relative to it; NULL: cwd */
  size_t max_instances;       /* instances listed per finding in HTML/MD (0: 50) */
  /* What the document was built from, or NULL. With it, report.html's
   * timeline marks every instance of every finding; without it, only the
   * instances the document lists (a limited document lists a few). */
  const omplens_report_input *input;
} omplens_render_options;

/* Builds the findings document (caller frees with json_decref). */
json_t *omplens_report_document(const omplens_report_input *in);
/* The same with at most max_findings of each process's detector findings
 * (those saving most) and max_instances listed per finding (0: the
 * defaults, all findings and OMPLENS_REPORT_MAX_INSTANCES). A process whose
 * findings were cut holds findings_omitted and findings_omitted_savings_ns.
 * The renderers work from this: a page lists a few hundred findings at most,
 * and findings.json, streamed, holds them all. */
json_t *omplens_report_document_limited(const omplens_report_input *in, size_t max_findings,
                                        size_t max_instances);
/* Writes findings.json as omplens_report_stream_json() does, beside doc,
 * the pages' document of the same input (NULL: none): each process's
 * directives and their locations are written from it rather than made a
 * second time. The output is the same. Other threads may read doc
 * meanwhile. */
int omplens_report_stream_json_beside(const omplens_report_input *in, const json_t *doc,
                                      FILE *out);
/* What omplens_render_timeline_begin() marks of the document that
 * omplens_report_document_limited() would build with the same limits, made
 * without the fixes (the fixer is not asked, so it may work meanwhile on
 * another thread): per process, where it ran, its directives' and leftover
 * mappings' locations and its findings' categories, locations and listed
 * instances, in the document's order. NULL without memory. */
json_t *omplens_report_timeline_marks(const omplens_report_input *in, size_t max_findings,
                                      size_t max_instances);
/* The limits `omplens report` renders its pages with. */
#define OMPLENS_RENDER_MAX_FINDINGS 250
#define OMPLENS_RENDER_MAX_INSTANCES 10

/* GitHub-flavoured Markdown for code review: summary table, top directives
 * with file:line, suggested fixes as ```diff blocks. */
int omplens_render_markdown(const json_t *doc, const omplens_render_options *opt, FILE *out);

/* One self-contained HTML page (inline CSS/JS, templates embedded at build
 * time). Reads the source files named in the document for the annotated
 * views; a missing source is shown as such. traces: for the timeline. */
int omplens_render_html(const json_t *doc, const omplens_trace *const *traces, size_t num_traces,
                        const omplens_render_options *opt, FILE *out);

/* SARIF 2.1.0: one rule per category, partialFingerprints, relative paths. */
int omplens_render_sarif(const json_t *doc, const omplens_render_options *opt, FILE *out);

/* Chrome trace-event JSON (Perfetto loads it): a process per device and one
 * for the host, a thread per host thread; findings highlighted. */
int omplens_render_timeline(const json_t *doc, const omplens_trace *const *traces,
                            size_t num_traces, FILE *out);
/* Told how many of the traces' events are written (done of total); called
 * every 64k events and once at the end, from the writing thread. */
typedef void (*omplens_render_progress)(void *ctx, uint64_t done, uint64_t total);
/* The same, telling progress (NULL: nothing). */
int omplens_render_timeline_with(const json_t *doc, const omplens_trace *const *traces,
                                 size_t num_traces, omplens_render_progress progress,
                                 void *progress_ctx, FILE *out);
/* The same in two steps, so that the file can be started before the
 * findings' texts exist: _begin writes every trace's constructs and
 * operations, marked from the findings of `marks` (the document, or
 * omplens_report_timeline_marks()'s list of the same findings), and keeps
 * what their instants need; _end writes the instants, with the texts of
 * doc's findings, and the file's end, and frees the timeline (always).
 * With one trace the file is the one-step file; with several, every
 * trace's instants come after all their operations, where the one-step
 * file has each trace's after its own.
 * Each step returns 0 or an OMPLENS_REPORT_E* code; _begin's *timeline is
 * NULL when it fails. marks may be released once _begin returns; the
 * traces stay unchanged until _end. */
typedef struct omplens_timeline omplens_timeline;
int omplens_render_timeline_begin(const json_t *marks, const omplens_trace *const *traces,
                                  size_t num_traces, omplens_render_progress progress,
                                  void *progress_ctx, FILE *out, omplens_timeline **timeline);
int omplens_render_timeline_end(omplens_timeline *timeline, const json_t *doc);

#ifdef __cplusplus
}
#endif
#endif
