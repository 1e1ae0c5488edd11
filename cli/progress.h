/* A progress line for long analyses: on a terminal, once an analysis has
 * run for about a second, stderr shows what omplens is doing, the share of
 * the whole analysis done, how long it has run and, once that can be
 * told, about how long is left, on one line updated in place:
 *
 *   omplens: finding wasted data movement in app.trace  47%  (3.1 s, about 3 s left)
 *
 * and the line is cleared when the work ends. The share comes from counts:
 * the trace reader's bytes and the detectors' events (their progress
 * hooks), the outputs written; each part weighted by what it costs
 * (progress.c). Nothing is printed when stderr is not a terminal (logs, CI,
 * pipes) or when quiet. OMPLENS_PROGRESS_AFTER_MS overrides the one-second
 * delay (the tests use 0). */
#ifndef OMPLENS_CLI_PROGRESS_H
#define OMPLENS_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* Starts the clock and the updating thread; does nothing when quiet or
 * when stderr is not a terminal. */
void omplens_progress_start(int quiet);

/* The work ahead, told before the first trace is read: each trace file
 * (its size weighs its stages and its part of the report), and each
 * output by its --outputs name, or "document" for the pages' findings
 * document. */
void omplens_progress_expect_trace(const char *path);
void omplens_progress_expect_output(const char *name);

/* The parts of an analysis, in their order: each trace is read, searched
 * and attributed; then the report on all of them is built and written. */
enum omplens_progress_step {
  OMPLENS_PROGRESS_READ,
  OMPLENS_PROGRESS_DETECT,
  OMPLENS_PROGRESS_ATTRIBUTE,
  OMPLENS_PROGRESS_REPORT,
};
/* Moves on to step. READ starts the trace at path (the one before it is
 * then done); path is NULL for the other steps. */
void omplens_progress_step(enum omplens_progress_step step, const char *path);
/* The hook for omplens_trace_open_with() and omplens_detect_trace_with()
 * (omplens_progress_fn): how far the step in progress is; in REPORT, for
 * omplens_render_timeline_with(): how far timeline.json, the longest
 * output, is, until it is done. ctx is unused. Lock-free, from any thread. */
void omplens_progress_count(void *ctx, uint64_t done, uint64_t total);
/* An expected output (or "document") is written, or failed; any thread. */
void omplens_progress_output_done(const char *name);

/* What is being done now, e.g. "reading app.trace": printf-style, kept
 * short (at most about 100 characters are shown, fewer on a narrow
 * terminal: the stage text is cut, not the figures). */
void omplens_progress_stage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The text of the stage going on, with how far it is ("reading sources: 3
 * of 13 compile units"): the progress line only, not a stage of the stage
 * times. */
void omplens_progress_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Clears the line and stops the thread; safe to call when never started. */
void omplens_progress_stop(void);

/* With OMPLENS_STAGE_TIMES set (non-empty), every stage, and every note
 * of this function from any thread, is also printed on stderr as a line
 * of its own: seconds since the first stage, the text, then the process's
 * resident memory and its peak so far (MB of 2^20 bytes). For measuring
 * where an analysis spends its time (docs/performance.md); quiet or not,
 * terminal or not. */
void omplens_progress_time(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- The line's arithmetic (pure; tests/unit/test_progress.c) ---------- */

/* Where an analysis stands. Costs are in ms per million events
 * (omplens_progress__cost); traces weigh by their bytes. */
typedef struct omplens_progress__figures {
  uint64_t all_bytes;   /* the traces expected */
  uint64_t done_bytes;  /* those analysed */
  uint64_t trace_bytes; /* the trace in progress; 0 in REPORT */
  int step;             /* enum omplens_progress_step; -1 before the first */
  uint64_t done, total; /* the step's count (its hook), 0 of 0 when none */
  unsigned report_cost; /* of the outputs expected, and of those done */
  unsigned report_done;
} omplens_progress__figures;

/* The cost of a part: "read", "detect", "attribute", "document" or an
 * output's --outputs name; an unknown name costs as much as a small
 * output. */
unsigned omplens_progress__cost(const char *part);
/* The share of the whole analysis done, 0 to 1. */
double omplens_progress__share(const omplens_progress__figures *f);
/* Seconds left after `seconds` with `share` done, or -1 while too early to
 * tell (under 5 % done, or under a second run). Never negative otherwise. */
double omplens_progress__left(double share, double seconds);
/* The line without its "\r" and clearing: "omplens: STAGE  P%  (S s)", and
 * once the time left is told ", about N s left" (N min above 90 s; "almost
 * done" under half a second) inside the parentheses; at most columns - 1
 * characters (0 columns: 80), the stage text cut first. Returns its
 * length; buf holds size bytes. */
size_t omplens_progress__line(char *buf, size_t size, const char *stage, double share,
                              double seconds, unsigned columns);

#endif
