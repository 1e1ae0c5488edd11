/* A progress line for long analyses: on a terminal, once an analysis has
 * run for about a second, stderr shows what omplens is doing and for how
 * long, updated in place, and the line is cleared when the work ends.
 * Nothing is printed when stderr is not a terminal (logs, CI, pipes) or
 * when quiet. OMPLENS_PROGRESS_AFTER_MS overrides the one-second delay
 * (the tests use 0). */
#ifndef OMPLENS_CLI_PROGRESS_H
#define OMPLENS_CLI_PROGRESS_H

/* Starts the clock and the updating thread; does nothing when quiet or
 * when stderr is not a terminal. */
void omplens_progress_start(int quiet);
/* What is being done now, e.g. "reading app.trace": printf-style, kept
 * short (at most about 100 characters are shown). */
void omplens_progress_stage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Clears the line and stops the thread; safe to call when never started. */
void omplens_progress_stop(void);

/* With OMPLENS_STAGE_TIMES set (non-empty), every stage, and every note
 * of this function from any thread, is also printed on stderr as a line
 * of its own: seconds since the first stage, then the text. For measuring
 * where an analysis spends its time (docs/performance.md); quiet or not,
 * terminal or not. */
void omplens_progress_time(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
