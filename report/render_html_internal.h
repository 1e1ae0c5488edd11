/* Internal pieces of the report.html renderer (render_html*.c): escaping,
 * the template filler, Markdown through libcmark, the annotated source views
 * and the timeline data. Design: docs/report.md. */
#ifndef OMPLENS_RENDER_HTML_INTERNAL_H
#define OMPLENS_RENDER_HTML_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "omplens_trace.h"
#include "render_html_templates.h" /* generated: omplens_tpl__NAME[] per file in templates/ */
#include "render_md_internal.h"

/* ---- Escaping ------------------------------------------------------------ */

/* Appends s with &, <, >, " and ' replaced by entities. */
void omplens_html__escape(omplens_strbuf *b, const char *s, size_t n);
/* Appends a JSON string literal that is safe inside <script>: besides JSON's
 * own escapes, <, > and & are written as \u003c, \u003e, \u0026, so neither
 * "</script>" nor "<!--" can appear. Invalid UTF-8 bytes become U+FFFD. */
void omplens_html__json_string(omplens_strbuf *b, const char *s);

/* ---- Templates -------------------------------------------------------------
 * A template is text with placeholders: {{name}} is replaced by the value
 * HTML-escaped, {{{name}}} by the value as is (HTML the renderer built).
 * Templates only fill in values: every decision is made in C. */
typedef struct omplens_tpl_var {
  const char *name;
  const char *value; /* NULL is taken as "" */
} omplens_tpl_var;

/* Returns 0, or OMPLENS_REPORT_EINVAL when the template names a value that is
 * not given or is malformed (a bug: the unit tests render every template). */
int omplens_html__fill(omplens_strbuf *b, const char *tpl, const omplens_tpl_var *vars, size_t n);
/* The same, where {{{part}}} is written by write(b, ctx) in its place: a
 * long part (a source file's view) then goes straight to the page's sink,
 * not into a buffer of its own first. */
int omplens_html__fill_part(omplens_strbuf *b, const char *tpl, const omplens_tpl_var *vars,
                            size_t n, const char *part, void (*write)(omplens_strbuf *b, void *ctx),
                            void *ctx);

/* ---- Markdown --------------------------------------------------------------
 * Converts Markdown from render_markdown.c to HTML with libcmark's safe
 * defaults (raw HTML and javascript: links are dropped) and marks the lines
 * of ```diff blocks (d-add, d-del, d-hunk, d-file). */
void omplens_html__markdown(omplens_strbuf *b, const char *markdown);

/* ---- Source views --------------------------------------------------------- */

/* Lexer state carried from one line to the next. */
typedef struct omplens_c_lexer {
  int in_comment;   /* inside a block comment */
  int in_directive; /* preprocessor line continued with a backslash */
  int directive_omp;/* ... and it is an OpenMP pragma */
} omplens_c_lexer;

/* Appends one line of C or C++ (no newline) as escaped HTML with <span>s for
 * keywords (k), types (t), strings (s), comments (c), numbers (n),
 * preprocessor lines (p) and OpenMP pragmas (omp). */
void omplens_html__highlight_line(omplens_strbuf *b, const char *line, size_t n, omplens_c_lexer *lx);

/* One annotated line of a source view: its finding boxes and badge. */
typedef struct omplens_source_mark {
  unsigned line;
  const char *badge;  /* HTML for the line's badge, or NULL */
  const char *notes;  /* HTML of the finding boxes under the line, or NULL */
} omplens_source_mark;

/* Reads path and appends the annotated view, or a note when the file cannot
 * be read. marks are sorted by line. status: the document's sources[].status
 * or NULL. Big files show only the lines around the marks. */
int omplens_html__source_view(omplens_strbuf *b, const char *id, const char *path,
                              const char *shown_path, const char *status,
                              const omplens_source_mark *marks, size_t num_marks, int open);

/* ---- Timeline ------------------------------------------------------------- */

/* Items drawn per track at most, per event kind, before intervals are merged
 * into buckets of span / OMPLENS_TIMELINE_BUCKETS. */
#define OMPLENS_TIMELINE_EXACT 4000
#define OMPLENS_TIMELINE_BUCKETS 1200

/* Texts the timeline shows for the document's findings and directives. */
typedef struct omplens_timeline_labels {
  size_t num_findings;               /* findings with an id and a label: the
                                        first ones of the document */
  const char *const *finding_ids;    /* element id of finding i */
  const char *const *finding_labels; /* "Round trip · jacobi.c:37" */
  const char *const *site_labels;    /* location label of directive i */
  const json_t *directives;          /* those the labels name */
} omplens_timeline_labels;

/* What the timeline is drawn from: one trace's events and regions. */
typedef struct omplens_timeline_input {
  const omplens_event *events; /* sorted by begin_ns */
  size_t num_events;
  const omplens_region *regions;
  size_t num_regions;
  uint64_t duration_ns;        /* the trace's; the span also covers every event */
  const uint64_t *site_codeptrs; /* code address of each event site */
  size_t num_sites;
  const omplens_analysis *analysis; /* the findings behind the document's,
                                       or NULL: then only the instances the
                                       document lists are marked */
  const omplens_trace_wait *waits; /* host waits for nowait regions, or NULL */
  size_t num_waits;
} omplens_timeline_input;

/* Appends the timeline of one process as compact JSON (docs/report.md):
 * a lane per host thread (constructs, waits) and per device (kernels, data), with
 * the instances of the findings marked. Strings are written with
 * omplens_html__json_string, so the result can go into a <script> block. */
int omplens_html__timeline_json(omplens_strbuf *b, const omplens_timeline_input *in,
                                const json_t *proc, const omplens_timeline_labels *labels);

#endif
