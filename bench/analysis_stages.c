/* analysis_stages: where `omplens report` spends time and memory, stage by
 * stage, in one process. The stages call the library functions that
 * `omplens report` calls, in its order: read the trace, run the detectors,
 * create the annotator (source locations, map names) and the fixer, build
 * the pages' limited findings document, write each output (findings.json
 * streamed, summary.txt, findings.sarif, timeline.json, report.md,
 * report.html, fixes.patch), free them. Unlike `omplens report`, which
 * writes timeline.json on a second thread, every output is a stage here.
 *
 *   analysis_stages [-r | -d] TRACE OUTDIR
 *
 * -r stops after reading (for when the detectors cannot run), -d after the
 * detectors (to see their peak memory apart from the report's). For every
 * stage it prints the wall time, events per second where the work grows with
 * the events, the process's resident memory after the stage and its peak so
 * far (bytes and bytes per event). Outputs go to OUTDIR. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "omplens_annotate.h"
#include "omplens_detect.h"
#include "omplens_fix.h"
#include "omplens_render.h"
#include "omplens_report.h"
#include "omplens_trace.h"

enum exit_code { EXIT_OK = 0, EXIT_USAGE = 64, EXIT_DATAERR = 65, EXIT_SOFTWARE = 70,
                 EXIT_CANTCREAT = 73 };

typedef struct stage_clock {
  struct timespec start;
  size_t events;
} stage_clock;

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static uint64_t rss_now(void) {
  unsigned long pages_total = 0, pages_resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%lu %lu", &pages_total, &pages_resident) != 2)
      pages_resident = 0;
    fclose(f);
  }
  return (uint64_t)pages_resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t rss_peak(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (uint64_t)ru.ru_maxrss * 1024u;
}

static void stage_start(stage_clock *c) {
  clock_gettime(CLOCK_MONOTONIC, &c->start);
}

/* Prints a stage's figures; `rate` adds events per second, for the stages
 * whose work grows with the number of events. */
static void stage_print(const stage_clock *c, const char *name, int rate) {
  double s = seconds_since(&c->start);
  double ev = c->events ? (double)c->events : 1.0;
  uint64_t now = rss_now(), peak = rss_peak();
  char per_second[32] = "";
  if (rate)
    snprintf(per_second, sizeof per_second, "%10.2f M ev/s", s > 0 ? ev / s / 1e6 : 0.0);
  printf("%-9s %9.3f s %15s   rss %10" PRIu64 " B (%6.1f B/ev)   peak %10" PRIu64
         " B (%6.1f B/ev)\n",
         name, s, per_second, now, (double)now / ev, peak, (double)peak / ev);
}

/* ---- outputs, as cli/omplens.c writes them ------------------------------ */

typedef struct output_ctx {
  const omplens_report_input *in;
  const json_t *doc;
  const omplens_trace *const *traces;
  omplens_fixer *fixer; /* may be NULL */
} output_ctx;

static int write_json(const output_ctx *c, FILE *f) {
  return omplens_report_stream_json_beside(c->in, c->doc, f);
}

static int write_summary(const output_ctx *c, FILE *f) {
  return omplens_report_print_text(c->in, f, 10);
}

static int write_sarif(const output_ctx *c, FILE *f) {
  omplens_render_options ro = {0};
  return omplens_render_sarif(c->doc, &ro, f);
}

static int write_timeline(const output_ctx *c, FILE *f) {
  return omplens_render_timeline(c->doc, c->traces, 1, f);
}

static int write_markdown(const output_ctx *c, FILE *f) {
  omplens_render_options ro = {0};
  return omplens_render_markdown(c->doc, &ro, f);
}

static int write_html(const output_ctx *c, FILE *f) {
  omplens_render_options ro = {0};
  return omplens_render_html(c->doc, c->traces, 1, &ro, f);
}

static int write_patch(const output_ctx *c, FILE *f) {
  const char *patch = NULL, *skipped = NULL;
  if (!c->fixer || omplens_fix_patch(c->fixer, 1, &patch, &skipped))
    return 0;
  if (skipped && *skipped)
    fprintf(f, "# Not in this patch (see report.html for these):\n# %s\n", skipped);
  if (patch)
    fputs(patch, f);
  return ferror(f) ? OMPLENS_REPORT_EIO : 0;
}

typedef struct output {
  const char *stage, *file;
  int (*write)(const output_ctx *, FILE *);
} output;

static const output OUTPUTS[] = {
    {"json", "findings.json", write_json},       {"summary", "summary.txt", write_summary},
    {"sarif", "findings.sarif", write_sarif},    {"timeline", "timeline.json", write_timeline},
    {"markdown", "report.md", write_markdown},   {"html", "report.html", write_html},
    {"patch", "fixes.patch", write_patch},
};

/* Writes every output as its own stage; returns 0 or the first failure. */
static int write_outputs(const output_ctx *oc, const char *outdir, stage_clock *c) {
  for (size_t i = 0; i < sizeof OUTPUTS / sizeof *OUTPUTS; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, OUTPUTS[i].file);
    stage_start(c);
    FILE *f = fopen(path, "w");
    int rc = f ? OUTPUTS[i].write(oc, f) : OMPLENS_REPORT_EIO;
    if (f && fclose(f))
      rc = OMPLENS_REPORT_EIO;
    stage_print(c, OUTPUTS[i].stage, 1);
    if (rc) {
      fprintf(stderr, "analysis_stages: %s: %s\n", path, omplens_report_strerror(rc));
      return rc;
    }
  }
  return 0;
}

/* ---- stages ---------------------------------------------------------------- */

/* Stages to run: all of them, or up to read or detect. */
enum last_stage { UP_TO_READ, UP_TO_DETECT, ALL_STAGES };

/* Annotator, fixer, document, outputs; returns an exit code. */
static int report(omplens_trace *t, const omplens_analysis *a, const char *outdir,
                  stage_clock *c) {
  omplens_annotator *at = NULL;
  stage_start(c);
  omplens_annotator_create(t, NULL, &at); /* as omplens report: NULL is fine */
  stage_print(c, "annotate", 0);
  omplens_fixer *fx = NULL;
  omplens_fix_options fo = {0};
  stage_start(c);
  fo.index = omplens_annotator_directives(at); /* share the annotator's parses */
  if (at)
    omplens_fixer_create(t, a, at, &fo, &fx);
  omplens_annotate_prefetch(at, NULL, NULL); /* as omplens report */
  stage_print(c, "fixer", 0);
  omplens_report_process proc = {.trace = t, .analysis = a, .annotator = at, .fixer = fx};
  omplens_report_input in = {.procs = &proc, .num_procs = 1, .program_exit_status = -1};
  stage_start(c);
  json_t *doc = omplens_report_document_limited(&in, OMPLENS_RENDER_MAX_FINDINGS,
                                                OMPLENS_RENDER_MAX_INSTANCES);
  stage_print(c, "document", 1);
  const omplens_trace *traces[1] = {t};
  output_ctx oc = {&in, doc, traces, fx};
  int rc = doc ? write_outputs(&oc, outdir, c) : OMPLENS_REPORT_ENOMEM;
  stage_start(c);
  json_decref(doc);
  omplens_fixer_destroy(fx);
  omplens_annotator_destroy(at);
  stage_print(c, "free", 1);
  return rc ? EXIT_SOFTWARE : EXIT_OK;
}

/* Detect, then report unless told to stop; returns an exit code. */
static int analyse(omplens_trace *t, const char *outdir, enum last_stage last, stage_clock *c) {
  omplens_analysis *a;
  stage_start(c);
  int rc = omplens_detect_trace(t, &a);
  if (rc) {
    fprintf(stderr, "analysis_stages: detect: %s\n", omplens_detect_strerror(rc));
    return EXIT_SOFTWARE;
  }
  stage_print(c, "detect", 1);
  size_t findings, instances = 0;
  const omplens_finding *f = omplens_analysis_findings(a, &findings);
  for (size_t i = 0; i < findings; i++)
    instances += f[i].num_instances;
  rc = last == UP_TO_DETECT ? EXIT_OK : report(t, a, outdir, c);
  printf("findings %zu, instances %zu\n", findings, instances);
  omplens_analysis_free(a);
  return rc;
}

int main(int argc, char **argv) {
  enum last_stage last = ALL_STAGES;
  int opt = argc > 1 && (!strcmp(argv[1], "-r") || !strcmp(argv[1], "-d"));
  if (opt)
    last = argv[1][1] == 'r' ? UP_TO_READ : UP_TO_DETECT;
  if (argc != 3 + opt) {
    fprintf(stderr, "usage: analysis_stages [-r | -d] TRACE OUTDIR\n");
    return EXIT_USAGE;
  }
  const char *trace_path = argv[1 + opt], *outdir = argv[2 + opt];
  if (mkdir(outdir, 0777) && errno != EEXIST) {
    fprintf(stderr, "analysis_stages: cannot create %s: %s\n", outdir, strerror(errno));
    return EXIT_CANTCREAT;
  }
  stage_clock c = {0};
  omplens_trace *t;
  stage_start(&c);
  int rc = omplens_trace_open(trace_path, &t);
  if (rc) {
    fprintf(stderr, "analysis_stages: %s: %s\n", trace_path, omplens_trace_strerror(rc));
    return EXIT_DATAERR;
  }
  omplens_trace_events(t, &c.events);
  stage_print(&c, "read", 1);
  rc = last == UP_TO_READ ? EXIT_OK : analyse(t, outdir, last, &c);
  omplens_trace_close(t);
  return rc;
}
