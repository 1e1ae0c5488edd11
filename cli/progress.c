/* Progress line (progress.h). The work never waits for the terminal: it
 * only swaps in a new stage text or step, or bumps a count, and wakes a
 * thread, which prints the current line then and five times a second. */
#include "progress.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STAGE_BYTES 128
#define LINE_BYTES 512
#define TICK_NS 200000000L

/* ---- The share done --------------------------------------------------------
 * What each part of an analysis costs, in ms per million events of its
 * traces: bench/analysis_stages on gen_trace traces of 2M events, with and
 * without -c (as `omplens run` records), the least of 5 runs each on 2
 * CPUs, averaged and rounded (docs/performance.md, "The progress line").
 * Per trace, reading (160) and the detectors (167) dominate; attributing
 * takes a few ms without libclang parses (with them, what the sources
 * take, which no count here foresees: the line's text counts the compile
 * units read instead, omplens_progress_text). The report's parts add up with the
 * outputs asked: timeline.json (474) and findings.json (129) are its big
 * ones; the findings document (33) comes with the pages (sarif, timeline,
 * markdown, html). The report writes timeline.json and report.html on
 * threads of their own while the main one writes the rest, so its share
 * moves on as outputs end, and waits at the end for the last of them. */
static const struct {
  const char *part;
  unsigned cost;
} COSTS[] = {
    {"read", 160},    {"detect", 167},   {"attribute", 2},   {"document", 33},
    {"json", 129},    {"summary", 13},   {"sarif", 3},       {"timeline", 474},
    {"markdown", 2},  {"html", 84},      {"patch", 1},
};
#define UNKNOWN_COST 10

unsigned omplens_progress__cost(const char *part) {
  for (size_t i = 0; i < sizeof COSTS / sizeof *COSTS; i++)
    if (part && !strcmp(COSTS[i].part, part))
      return COSTS[i].cost;
  return UNKNOWN_COST;
}

double omplens_progress__share(const omplens_progress__figures *f) {
  double read = omplens_progress__cost("read"), detect = omplens_progress__cost("detect");
  double per_trace = read + detect + omplens_progress__cost("attribute");
  double whole = (double)f->all_bytes * (per_trace + f->report_cost);
  if (whole <= 0)
    return 0;
  double part = f->total ? (double)(f->done < f->total ? f->done : f->total) / (double)f->total : 0;
  double trace = (double)f->trace_bytes, work = (double)f->done_bytes * per_trace;
  switch (f->step) {
  case OMPLENS_PROGRESS_READ: work += trace * read * part; break;
  case OMPLENS_PROGRESS_DETECT: work += trace * (read + detect * part); break;
  case OMPLENS_PROGRESS_ATTRIBUTE: work += trace * (read + detect); break; /* no count */
  case OMPLENS_PROGRESS_REPORT: { /* the count is timeline.json's, until it is done */
    double done = f->report_done + omplens_progress__cost("timeline") * part;
    work += (double)f->all_bytes * (done < f->report_cost ? done : f->report_cost);
    break;
  }
  default: break;
  }
  return work < whole ? work / whole : 1.0;
}

double omplens_progress__left(double share, double seconds) {
  if (share < 0.05 || seconds < 1.0)
    return -1;
  double left = seconds * (1.0 - share) / share;
  return left > 0 ? left : 0;
}

/* "47%  (3.1 s, about 3 s left)"; minutes above 90 s. */
static void format_figures(char *buf, size_t size, double share, double seconds) {
  int percent = share >= 1.0 ? 100 : share > 0 ? (int)(share * 100.0) : 0;
  double left = omplens_progress__left(share, seconds);
  if (left < 0)
    snprintf(buf, size, "%d%%  (%.1f s)", percent, seconds);
  else if (left < 0.5)
    snprintf(buf, size, "%d%%  (%.1f s, almost done)", percent, seconds);
  else if (left <= 90)
    snprintf(buf, size, "%d%%  (%.1f s, about %d s left)", percent, seconds, (int)(left + 0.5));
  else
    snprintf(buf, size, "%d%%  (%.1f s, about %d min left)", percent, seconds,
             (int)(left / 60.0 + 0.5));
}

/* The length of s cut to at most n bytes, not inside a UTF-8 character. */
static size_t cut_utf8(const char *s, size_t n) {
  size_t len = strlen(s);
  if (len <= n)
    return len;
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
    n--;
  return n;
}

size_t omplens_progress__line(char *buf, size_t size, const char *stage, double share,
                              double seconds, unsigned columns) {
  static const char prefix[] = "omplens: ", gap[] = "  ", more[] = "...";
  char figures[96];
  format_figures(figures, sizeof figures, share, seconds);
  size_t width = (columns ? columns : 80) - 1; /* the last column would wrap on some terminals */
  size_t fixed = strlen(prefix) + strlen(gap) + strlen(figures);
  size_t room = width > fixed ? width - fixed : 0;
  size_t keep = cut_utf8(stage, room);
  const char *tail = "";
  if (keep < strlen(stage)) { /* cut: say so where there is room for it */
    keep = room > strlen(more) ? cut_utf8(stage, room - strlen(more)) : 0;
    tail = keep ? more : "";
  }
  int n = keep ? snprintf(buf, size, "%s%.*s%s%s%s", prefix, (int)keep, stage, tail, gap, figures)
               : snprintf(buf, size, "%s%s", prefix, figures);
  size_t len = n < 0 ? 0 : (size_t)n < size ? (size_t)n : size ? size - 1 : 0;
  if (len > width && width < size) { /* narrower than the figures: cut them last */
    buf[width] = 0;
    len = width;
  }
  return len;
}

/* ---- The line ---------------------------------------------------------------- */

static struct {
  pthread_t thread;
  pthread_mutex_t lock; /* guards all but the counts */
  pthread_cond_t wake;
  char stage[STAGE_BYTES];
  int running, stop, shown;
  int pending; /* a stage not printed yet */
  struct timespec start;
  long after_ms;
  omplens_progress__figures at; /* but its done and total: the counts */
  double shown_share;           /* the largest shown: the line never goes back */
  /* The step's count, from its hook: lock-free, as the hook runs inside
   * the reader's and the detectors' loops. */
  _Atomic uint64_t done, total;
} progress = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* Columns of the terminal on stderr, 80 when it does not say. */
static unsigned terminal_columns(void) {
  struct winsize ws;
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col)
    return 80;
  return ws.ws_col;
}

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
    omplens_progress__figures f = progress.at;
    f.done = atomic_load(&progress.done); /* before total: see omplens_progress_count */
    f.total = atomic_load(&progress.total);
    double share = omplens_progress__share(&f);
    if (share > progress.shown_share)
      progress.shown_share = share;
    char line[LINE_BYTES];
    omplens_progress__line(line, sizeof line, progress.stage, progress.shown_share, s,
                           terminal_columns());
    /* \033[K clears what a longer earlier line left. */
    fprintf(stderr, "\r%s\033[K", line);
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
  progress.at = (omplens_progress__figures){.step = -1};
  progress.shown_share = 0;
  atomic_store(&progress.done, 0);
  atomic_store(&progress.total, 0);
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
  size_t peak; /* the largest peak printed: the kernel's VmHWM, from
                  approximate per-CPU counters, has read 151 MB after 152
                  (an ASan run of cli_progress, kernel 6.18) */
} times = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static void times_init(void) {
  const char *env = getenv("OMPLENS_STAGE_TIMES");
  times.on = env && *env;
  clock_gettime(CLOCK_MONOTONIC, &times.start);
}

/* The process's resident memory now and its peak so far, in MB (of 2^20
 * bytes), read in one pass of /proc/self/status (two reads could see the
 * memory grow in between: a peak below the resident figure); 0 where that
 * is not readable. */
static void resident_mb(size_t *now, size_t *peak) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[128];
  size_t rss = 0, hwm = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6))
      rss = strtoull(line + 6, NULL, 10);
    else if (!strncmp(line, "VmHWM:", 6))
      hwm = strtoull(line + 6, NULL, 10);
  if (f)
    fclose(f);
  *now = rss / 1024;
  *peak = (hwm > rss ? hwm : rss) / 1024;
}

/* What a note is: a stage (the progress line's new text, and a line of
 * the stage times), a timed note (the stage times only), or the text of
 * the stage going on (the progress line only). */
enum note { NOTE_TIME, NOTE_STAGE, NOTE_TEXT };

/* Formatted only when something shows it. */
static void vnote(enum note kind, const char *fmt, va_list ap) {
  pthread_once(&times.once, times_init);
  int line = kind != NOTE_TIME && progress.running, timed = kind != NOTE_TEXT && times.on;
  if (!timed && !line)
    return;
  char text[STAGE_BYTES];
  vsnprintf(text, sizeof text, fmt, ap);
  if (timed) {
    size_t now, peak;
    pthread_mutex_lock(&times.lock);
    resident_mb(&now, &peak);
    if (peak < times.peak) /* a peak so far never goes down */
      peak = times.peak;
    times.peak = peak;
    fprintf(stderr, "omplens: %8.3f s  %s  [resident %zu MB, peak %zu MB]\n",
            seconds_since(&times.start), text, now, peak);
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
  vnote(NOTE_TIME, fmt, ap);
  va_end(ap);
}

void omplens_progress_stage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vnote(NOTE_STAGE, fmt, ap);
  va_end(ap);
}

void omplens_progress_text(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vnote(NOTE_TEXT, fmt, ap);
  va_end(ap);
}

/* A file's size, at least 1: every trace weighs something. */
static uint64_t file_bytes(const char *path) {
  struct stat st;
  return path && !stat(path, &st) && st.st_size > 0 ? (uint64_t)st.st_size : 1;
}

void omplens_progress_expect_trace(const char *path) {
  if (!progress.running)
    return;
  uint64_t bytes = file_bytes(path);
  pthread_mutex_lock(&progress.lock);
  progress.at.all_bytes += bytes;
  pthread_mutex_unlock(&progress.lock);
}

void omplens_progress_expect_output(const char *name) {
  if (!progress.running)
    return;
  pthread_mutex_lock(&progress.lock);
  progress.at.report_cost += omplens_progress__cost(name);
  pthread_mutex_unlock(&progress.lock);
}

void omplens_progress_output_done(const char *name) {
  if (!progress.running)
    return;
  pthread_mutex_lock(&progress.lock);
  progress.at.report_done += omplens_progress__cost(name);
  if (!strcmp(name, "timeline")) { /* its count is in report_done now */
    atomic_store(&progress.total, 0);
    atomic_store(&progress.done, 0);
  }
  pthread_mutex_unlock(&progress.lock);
}

void omplens_progress_step(enum omplens_progress_step step, const char *path) {
  if (!progress.running)
    return;
  uint64_t bytes = step == OMPLENS_PROGRESS_READ ? file_bytes(path) : 0;
  pthread_mutex_lock(&progress.lock);
  omplens_progress__figures *f = &progress.at;
  if (step == OMPLENS_PROGRESS_READ || step == OMPLENS_PROGRESS_REPORT) {
    f->done_bytes += f->trace_bytes; /* the trace before is done */
    f->trace_bytes = bytes;
    if (f->all_bytes < f->done_bytes + bytes) /* a trace not expected */
      f->all_bytes = f->done_bytes + bytes;
  }
  /* The hooks of the step before have returned: nothing counts meanwhile. */
  atomic_store(&progress.done, 0);
  atomic_store(&progress.total, 0);
  f->step = (int)step;
  pthread_mutex_unlock(&progress.lock);
}

/* The hook stores total before done, and the line reads done before total:
 * a done it reads belongs to a total it reads too. Figures of two threads
 * may come out of order: done only grows. */
void omplens_progress_count(void *ctx, uint64_t done, uint64_t total) {
  (void)ctx;
  if (atomic_load_explicit(&progress.total, memory_order_relaxed) != total)
    atomic_store(&progress.total, total);
  uint64_t seen = atomic_load(&progress.done);
  while (done > seen && !atomic_compare_exchange_weak(&progress.done, &seen, done))
    ;
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
