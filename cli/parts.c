/* A report one trace at a time (parts.h). */
#include "parts.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omplens_annotate.h"
#include "omplens_fix.h"
#include "progress.h"

enum { EXIT_SOFTWARE = 70, EXIT_CANTCREAT = 73 }; /* as cli/omplens.c */

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error(const char *fmt, ...) {
  va_list ap;
  char line[8192];
  omplens_progress_stop();
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "omplens: %s\n", line); /* one write: several threads */
}

FILE *omplens_cli_spool_open(const char *dir) {
  const char *tmp = getenv("TMPDIR");
  if (!dir)
    dir = tmp && *tmp ? tmp : "/tmp";
  /* Nameless where the file system can (O_TMPFILE), else named and
   * unlinked at once: never left behind. */
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/.omplens-spool-XXXXXX", dir) >= (int)sizeof path) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
      unlink(path);
  }
  FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
  if (!f && fd >= 0) {
    int saved = errno;
    close(fd);
    errno = saved;
  }
  return f;
}

typedef struct reduce_ctx {
  const omplens_cli_reduce *r;
  omplens_cli_reduced *out;
  atomic_size_t next, started;
  pthread_mutex_t attribution; /* annotators, fixers, libclang: one trace at a time */
  pthread_mutex_t lock;        /* failed, spools handed out */
  int failed;                  /* an exit code */
} reduce_ctx;

/* The annotator and fixer of the trace being reduced, given up when the
 * part no longer needs them (omplens_part_options.attributed). */
typedef struct attribution {
  reduce_ctx *c;
  omplens_annotator *annotator;
  omplens_fixer *fixer;
  int held;
} attribution;

static void release(void *p) {
  attribution *a = p;
  if (!a->held)
    return;
  omplens_fixer_destroy(a->fixer);
  omplens_annotator_destroy(a->annotator);
  a->fixer = NULL;
  a->annotator = NULL;
  a->held = 0;
  pthread_mutex_unlock(&a->c->attribution);
}

static void fail(reduce_ctx *c, int code) {
  pthread_mutex_lock(&c->lock);
  if (!c->failed)
    c->failed = code;
  pthread_mutex_unlock(&c->lock);
}

/* One trace into its part at the end of spool. */
static void reduce_one(reduce_ctx *c, size_t index, FILE *spool) {
  const omplens_cli_reduce *r = c->r;
  const char *path = r->names[index];
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  off_t at = ftello(spool);
  omplens_trace *t = NULL;
  omplens_analysis *an = NULL;
  int rc = r->read(r->ctx, path, &t, &an), prc;
  if (rc) {
    prc = omplens_part_write_error(index, path, rc, NULL, spool);
  } else {
    attribution a = {c, NULL, NULL, 1};
    pthread_mutex_lock(&c->attribution);
    omplens_progress_step(OMPLENS_PROGRESS_READ, path); /* its bytes count as done */
    omplens_progress_step(OMPLENS_PROGRESS_ATTRIBUTE, NULL);
    omplens_progress_stage("attributing %s to sources", name);
    /* As a report of all traces at once (cli/omplens.c, add_analysed). */
    omplens_annotate_options ao = {r->compile_commands};
    omplens_annotator_create(t, &ao, &a.annotator);
    omplens_fix_options fo = {0};
    fo.index = omplens_annotator_directives(a.annotator);
    fo.no_diff = r->no_diff;
    if (a.annotator)
      omplens_fixer_create(t, an, a.annotator, &fo, &a.fixer);
    omplens_annotate_prefetch(a.annotator, NULL, NULL);
    omplens_report_figures figures = {0};
    omplens_report_process proc = {t, an, a.annotator, a.fixer, &figures};
    omplens_report_input in = {&proc, 1, -1};
    omplens_part_options o = r->part;
    o.index = index;
    o.warning = r->warning ? r->warning(r->ctx, t) : NULL;
    o.attributed = release;
    o.ctx = &a;
    prc = omplens_part_write(&in, 0, &o, spool);
    release(&a);
  }
  omplens_analysis_free(an);
  omplens_trace_close(t);
  off_t end = ftello(spool);
  if (prc || at < 0 || end < at || fflush(spool)) {
    error("cannot keep the analysis of %s: %s", path,
          prc && prc != OMPLENS_REPORT_EIO ? omplens_report_strerror(prc) : strerror(errno));
    fail(c, prc == OMPLENS_REPORT_ENOMEM ? EXIT_SOFTWARE : EXIT_CANTCREAT);
    return;
  }
  c->out->at[index] = (omplens_cli_part_at){spool, (uint64_t)at, (uint64_t)(end - at)};
}

static void *worker(void *p) {
  reduce_ctx *c = p;
  size_t k = atomic_fetch_add(&c->started, 1);
  FILE *spool = c->out->spools[k];
  size_t count = c->r->mine ? c->r->num_mine : c->r->n;
  for (size_t j; (j = atomic_fetch_add(&c->next, 1)) < count;) {
    pthread_mutex_lock(&c->lock);
    int failed = c->failed;
    pthread_mutex_unlock(&c->lock);
    if (failed)
      break;
    reduce_one(c, c->r->mine ? c->r->mine[j] : j, spool);
  }
  return NULL;
}

int omplens_cli_reduce_traces(const omplens_cli_reduce *r, omplens_cli_reduced *out) {
  memset(out, 0, sizeof *out);
  size_t count = r->mine ? r->num_mine : r->n, threads = r->threads ? r->threads : 1;
  if (threads > count)
    threads = count ? count : 1;
  out->at = calloc(r->n ? r->n : 1, sizeof *out->at);
  out->spools = calloc(threads, sizeof *out->spools);
  if (!out->at || !out->spools) {
    error("out of memory");
    return EXIT_SOFTWARE;
  }
  for (; out->num_spools < threads; out->num_spools++)
    if (!(out->spools[out->num_spools] = omplens_cli_spool_open(r->spool_dir))) {
      error("cannot make a spool file in %s: %s", r->spool_dir ? r->spool_dir : "$TMPDIR",
            strerror(errno));
      return EXIT_CANTCREAT;
    }
  reduce_ctx c = {.r = r, .out = out};
  atomic_init(&c.next, 0);
  atomic_init(&c.started, 0);
  pthread_mutex_init(&c.attribution, NULL);
  pthread_mutex_init(&c.lock, NULL);
  omplens_progress_stage("reading and analysing %zu traces on %zu threads", count, threads);
  pthread_t *tid = calloc(threads, sizeof *tid);
  size_t started = 0;
  while (tid && started + 1 < threads && !pthread_create(&tid[started], NULL, worker, &c))
    started++;
  worker(&c); /* this thread too (and alone, if none started) */
  for (size_t i = 0; i < started; i++)
    pthread_join(tid[i], NULL);
  free(tid);
  pthread_mutex_destroy(&c.attribution);
  pthread_mutex_destroy(&c.lock);
  return c.failed;
}

void omplens_cli_reduced_free(omplens_cli_reduced *out) {
  for (size_t i = 0; i < out->num_spools; i++)
    if (out->spools[i])
      fclose(out->spools[i]);
  free(out->spools);
  free(out->at);
  memset(out, 0, sizeof *out);
}

int omplens_cli_parts_load(const omplens_cli_part_at *at, size_t n, omplens_parts *ps) {
  ps->parts = calloc(n ? n : 1, sizeof *ps->parts);
  omplens_part_source *src = calloc(n ? n : 1, sizeof *src);
  ps->n = 0;
  if (!ps->parts || !src) {
    free(ps->parts);
    free(src);
    ps->parts = NULL;
    error("out of memory");
    return EXIT_SOFTWARE;
  }
  int rc = 0;
  ps->n = n;
  for (size_t i = 0; i < n; i++) {
    ps->parts[i].src = &src[i]; /* parts[0].src is the array: freed with them */
    ps->parts[i].record.rank = -1;
    struct stat st;
    if (!at[i].spool || fflush(at[i].spool) || fstat(fileno(at[i].spool), &st)) {
      if (!rc)
        error("the analysis of trace %zu of %zu is missing", i + 1, n);
      rc = rc ? rc : EXIT_SOFTWARE;
      continue;
    }
    src[i] = (omplens_part_source){fileno(at[i].spool), NULL, (uint64_t)st.st_size};
    uint64_t length;
    if (omplens_part_read(&src[i], at[i].offset, &ps->parts[i], &length) ||
        length != at[i].length || ps->parts[i].index != i) {
      omplens_part_free(&ps->parts[i]);
      ps->parts[i].src = &src[i];
      if (!rc)
        error("the analysis of trace %zu of %zu is damaged", i + 1, n);
      rc = rc ? rc : EXIT_SOFTWARE;
      continue;
    }
    ps->parts[i].src = &src[i];
    if (ps->parts[i].error && !rc)
      rc = ps->parts[i].error; /* its line is out already */
    /* The merged view takes its record now: memory keeps the job's
     * distinct directives and findings, not every rank's. */
    if (!ps->parts[i].error && omplens_parts_fold(ps, i) && !rc) {
      error("out of memory");
      rc = EXIT_SOFTWARE;
    }
  }
  return rc;
}

void omplens_cli_parts_free(omplens_parts *ps) {
  void *src = ps->n && ps->parts ? (void *)ps->parts[0].src : NULL;
  for (size_t i = 0; i < ps->n; i++)
    omplens_part_free(&ps->parts[i]);
  free(src);
  free(ps->parts);
  omplens_parts_release(ps);
  ps->parts = NULL;
  ps->n = 0;
}
