/* Progress line (progress.h). The work never waits for the terminal: it
 * only swaps in a new stage text and wakes a thread, which prints the
 * current one then and five times a second. */
#include "progress.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STAGE_BYTES 128
#define TICK_NS 200000000L

static struct {
  pthread_t thread;
  pthread_mutex_t lock; /* guards stage, stop */
  pthread_cond_t wake;
  char stage[STAGE_BYTES];
  int running, stop, shown;
  int pending; /* a stage not printed yet */
  struct timespec start;
  long after_ms;
} progress = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static double seconds_since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *update(void *arg) {
  (void)arg;
  pthread_mutex_lock(&progress.lock);
  while (!progress.stop) {
    /* A stage set before this thread first waited would otherwise wait
     * for the next tick, and a short run would end before it. */
    int due = progress.pending &&
              seconds_since(&progress.start) * 1000.0 >= (double)progress.after_ms;
    if (!due) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += TICK_NS;
      if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
      }
      pthread_cond_timedwait(&progress.wake, &progress.lock, &until);
    }
    double s = seconds_since(&progress.start);
    if (progress.stop || s * 1000.0 < (double)progress.after_ms || !progress.stage[0])
      continue;
    /* \033[K clears what a longer earlier stage left on the line. */
    fprintf(stderr, "\romplens: %s (%.1f s)\033[K", progress.stage, s);
    fflush(stderr);
    progress.shown = 1;
    progress.pending = 0;
  }
  pthread_mutex_unlock(&progress.lock);
  return NULL;
}

void omplens_progress_start(int quiet) {
  if (quiet || progress.running || !isatty(STDERR_FILENO))
    return;
  const char *env = getenv("OMPLENS_PROGRESS_AFTER_MS");
  progress.after_ms = env && *env ? atol(env) : 1000;
  clock_gettime(CLOCK_MONOTONIC, &progress.start);
  progress.stage[0] = 0;
  progress.stop = progress.shown = progress.pending = 0;
  if (!pthread_create(&progress.thread, NULL, update, NULL))
    progress.running = 1;
}

/* OMPLENS_STAGE_TIMES: read once, at the first stage or note, which also
 * starts its clock. */
static struct {
  pthread_once_t once;
  pthread_mutex_t lock; /* lines come out in the order of their times */
  int on;
  struct timespec start;
} times = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static void times_init(void) {
  const char *env = getenv("OMPLENS_STAGE_TIMES");
  times.on = env && *env;
  clock_gettime(CLOCK_MONOTONIC, &times.start);
}

/* A stage (stage set: also the progress line's new text) or a timed note;
 * formatted only when something shows it. */
static void vnote(int stage, const char *fmt, va_list ap) {
  pthread_once(&times.once, times_init);
  int line = stage && progress.running;
  if (!times.on && !line)
    return;
  char text[STAGE_BYTES];
  vsnprintf(text, sizeof text, fmt, ap);
  if (times.on) {
    pthread_mutex_lock(&times.lock);
    fprintf(stderr, "omplens: %8.3f s  %s\n", seconds_since(&times.start), text);
    pthread_mutex_unlock(&times.lock);
  }
  if (!line)
    return;
  pthread_mutex_lock(&progress.lock);
  memcpy(progress.stage, text, sizeof text);
  progress.pending = 1;
  pthread_cond_signal(&progress.wake); /* shown at once, once past the delay */
  pthread_mutex_unlock(&progress.lock);
}

void omplens_progress_time(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vnote(0, fmt, ap);
  va_end(ap);
}

void omplens_progress_stage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vnote(1, fmt, ap);
  va_end(ap);
}

void omplens_progress_stop(void) {
  if (!progress.running)
    return;
  pthread_mutex_lock(&progress.lock);
  progress.stop = 1;
  pthread_cond_signal(&progress.wake);
  pthread_mutex_unlock(&progress.lock);
  pthread_join(progress.thread, NULL);
  progress.running = 0;
  if (progress.shown) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
}
