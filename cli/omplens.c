/* omplens command line: run a program under the collector, report on traces,
 * dump a trace's events. See `omplens --help` and the README's "Use". */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"
#include "distribute.h"
#include "job.h"
#include "parse_helper.h"
#include "parts.h"
#include "omplens_config.h"
#include "omplens_detect.h"
#include "omplens_directives.h"
#include "omplens_render.h"
#include "omplens_report.h"
#include "omplens_trace.h"
#include "progress.h"
#include "trace_dir.h"

extern char **environ;

/* Exit codes (sysexits.h values, so scripts can tell causes apart). `run`
 * otherwise exits with the profiled program's own status. */
enum exit_code {
  EXIT_OK = 0,
  EXIT_USAGE = 64,    /* bad command line */
  EXIT_DATAERR = 65,  /* a trace is unreadable or damaged beyond use */
  EXIT_NOINPUT = 66,  /* a trace or the program does not exist */
  EXIT_NOTHING = 69,  /* report: no target construct reached a device */
  EXIT_SOFTWARE = 70, /* internal error, out of memory */
  EXIT_CANTCREAT = 73,/* cannot write the output directory */
};

#define DEFAULT_OUTPUT_DIR "omplens-out"
#define DEFAULT_TOP 10

/* Options shared by `run` and `report`. */
typedef struct options {
  const char *output_dir; /* -o: where reports (and run's traces) go */
  size_t top;             /* --top: directives in the terminal summary */
  int quiet;              /* -q: no terminal summary */
  int no_preload;         /* --no-preload: OMP_TOOL_LIBRARIES only (no names) */
  unsigned outputs;       /* --outputs: bit set over OUTPUTS */
  const char *compile_commands; /* --compile-commands: the sources' build flags */
  int windowed;           /* --window (report): analyse only [begin, end) */
  uint64_t window_begin, window_end; /* ns from the trace's start; end may be UINT64_MAX */
} options;

static const char *progname = "omplens";
/* A rank but 0 of a distributed report: the command line's errors are
 * rank 0's to print (one line for the job, not one per rank). */
static int silent_errors;

/* The options of report, and of run with --no-preload: one text for the
 * global help and each command's. */
#define OPTIONS_HELP \
          "  -o, --output DIR   write reports into DIR (default: " DEFAULT_OUTPUT_DIR "),\n" \
          "                     made with its parents; `run` keeps its traces in\n" \
          "                     DIR/traces/RUN-ID/\n" \
          "      --top N        list N directives in the summary (default: %d)\n" \
          "      --outputs LIST which files to write, comma-separated from json,\n" \
          "                     summary, sarif, timeline, markdown, html, patch\n" \
          "                     (default: all)\n" \
          "  -q, --quiet        do not print the summary, nor the progress line that\n" \
          "                     a long analysis shows on a terminal\n" \
          "      --compile-commands FILE\n" \
          "                     compile_commands.json (or its directory) with the flags\n" \
          "                     the sources were built with, for libclang; default:\n" \
          "                     looked for next to each source and in build/ above it\n"
#define WINDOW_HELP \
          "      --window START:END\n" \
          "                     (report) analyse only the operations that begin in\n" \
          "                     this window, in seconds from the start of the run;\n" \
          "                     either side may be empty (2:, :5.5)\n"
#define NO_PRELOAD_HELP \
          "      --no-preload   load the collector through OMP_TOOL_LIBRARIES only, not\n" \
          "                     LD_PRELOAD: directives are then located through debug\n" \
          "                     info alone, and map-item names are not recorded\n"

static void print_usage(FILE *out) {
  fprintf(out,
          "Usage: omplens run [OPTIONS] -- PROGRAM [ARGS...]\n"
          "       omplens report [OPTIONS] TRACE|DIR...\n"
          "       omplens dump TRACE\n"
          OMPLENS_DIFF_USAGE
          "       omplens --help | --version\n"
          "\n"
          "Finds wasted data movement in OpenMP offload programs: duplicate transfers,\n"
          "round trips (also through another host buffer), re-initializations of data\n"
          "the device changed, repeated allocations, unused allocations and unused\n"
          "transfers, and map items the code never uses. Each finding names its\n"
          "directive, map item and variable, the time it costs, and a suggested fix.\n"
          "\n"
          "Commands:\n"
          "  run       run PROGRAM under the omplens collector, then report on its traces\n"
          "  report    report on traces already recorded (a DIR means its *.trace files)\n"
          "  dump      print a trace's events, one per line (tab-separated)\n"
          OMPLENS_DIFF_COMMAND_HELP
          "\n"
          "Options:\n"
          OPTIONS_HELP
          WINDOW_HELP
          NO_PRELOAD_HELP
          "  -h, --help         show this help\n"
          "  -V, --version      show the version\n"
          "\n"
          "Outputs in DIR: report.html (open it in a browser), report.md (for code\n"
          "review), findings.json (docs/findings-schema.md), findings.sarif (SARIF\n"
          "2.1.0), timeline.json (Perfetto), fixes.patch (the suggested diffs that\n"
          "apply together; the summary prints the command that applies it from any\n"
          "directory, when it holds one), summary.txt; .omplens-cache/ keeps what\n"
          "libclang's parses told, for the next report into DIR (safe to delete).\n"
          "`run` prints its summary on stderr so the program's stdout is unchanged,\n"
          "and exits with the program's status; `report` prints on stdout.\n"
          "MPI jobs: either `omplens run -- mpirun -np N PROGRAM` or `mpirun -np N\n"
          "omplens run -- PROGRAM` gives one report, with the ranks merged and the\n"
          "ranks far from the median named (see 'omplens run --help'); `mpirun -np K\n"
          "omplens report DIR` spreads the analysis of its traces over K processes\n"
          "(see 'omplens report --help').\n"
          "Exit codes: 64 usage, 65 unreadable trace, 66 missing input, 69 (report)\n"
          "nothing reached a device, 70 internal error, 73 cannot write output.\n"
          "\n"
          "Environment: OMPLENS_COLLECTOR overrides the collector library path;\n"
          "OMPLENS_LIBOMP_DIR (default " OMPLENS_LLVM_DIR "/lib) is appended to\n"
          "LD_LIBRARY_PATH, because libomptarget finds OMPT through libomp.so there;\n"
          "OMPLENS_LIBCLANG names the libclang to load for reading sources;\n"
          "OMPLENS_STAGE_TIMES=1 prints when each stage starts and ends, on stderr;\n"
          "OMPLENS_MPI=0 keeps `omplens report` from using MPI under a launcher;\n"
          "OMPLENS_MPI_PLUGIN names the MPI plugin (default: ../lib/libomplens-mpi.so\n"
          "next to omplens); OMPLENS_REPORT_AT_ONCE=1 keeps every trace in memory\n"
          "until the outputs are written (a test of the one-at-a-time report).\n",
          DEFAULT_TOP);
}


/* `omplens run --help`, `omplens report --help`: the command's own usage. */
static void print_command_usage(FILE *out, const char *cmd) {
  bool run = !strcmp(cmd, "run");
  fprintf(out,
          "%s\n%s\nOptions:\n" OPTIONS_HELP "%s"
          "  -h, --help         show this help\n"
          "\nSee 'omplens --help' for the files written, exit codes and environment.\n",
          run ? "Usage: omplens run [OPTIONS] -- PROGRAM [ARGS...]"
              : "Usage: omplens report [OPTIONS] TRACE|DIR...",
          run ? "\nRuns PROGRAM under the omplens collector, keeps its traces in\n"
                "DIR/traces/RUN-ID/, then reports on them. The summary goes to stderr, so\n"
                "PROGRAM's stdout is unchanged; omplens exits with PROGRAM's status.\n"
                "A PROGRAM killed by a signal is reported from what was recorded, with\n"
                "no diff: the run may not show what its code does.\n"
                "MPI: `omplens run -- mpirun -np N PROGRAM` traces every rank; under\n"
                "`mpirun -np N omplens run -- PROGRAM` the ranks share DIR/traces/job-ID/\n"
                "and the last rank to finish writes the one report of the job.\n"
              : "\nReports on traces already recorded (a DIR means its *.trace files; a\n"
                "`run` output directory, the traces of its latest run), as `run` does\n"
                "after the program ends; the summary goes to stdout. Several\n"
                "traces (an MPI job's ranks) are analysed a thread per CPU, each reduced\n"
                "to its share of the outputs before the next is read, so memory holds a\n"
                "trace per thread, not the job.\n"
                "MPI: `mpirun -np K omplens report -o DIR TRACES...` spreads the traces\n"
                "over K processes (each on its CPUs), which send their shares to rank 0;\n"
                "rank 0 writes the same outputs as one process would. The traces must be\n"
                "readable by every process (a shared file system). Needs the plugin\n"
                "libomplens-mpi.so, built when CMake finds MPI.\n",
          DEFAULT_TOP, run ? NO_PRELOAD_HELP : WINDOW_HELP);
}

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error(const char *fmt, ...) {
  va_list ap;
  char line[8192];
  if (silent_errors)
    return;
  omplens_progress_stop(); /* the message gets a line of its own */
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s: %s\n", progname, line); /* one write: traces load on several threads */
}

/* snprintf that fails (with a message) instead of cutting a path short. */
static int format_path(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int format_path(char *out, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, size, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= size) {
    error("path too long: %.60s...", out);
    return -1;
  }
  return 0;
}

/* ---- options ---------------------------------------------------------- */

static int parse_outputs(const char *list, unsigned *mask);
static int parse_window(const char *arg, options *o);

/* Results of parse_options besides the index of the first operand. */
enum { PARSED_HELP = -1, PARSED_BAD = -2 };

static int parse_options(int argc, char **argv, options *o) {
  static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                           {"top", required_argument, NULL, 't'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"no-preload", no_argument, NULL, 'P'},
                                           {"outputs", required_argument, NULL, 'O'},
                                           {"compile-commands", required_argument, NULL, 'C'},
                                           {"window", required_argument, NULL, 'W'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int c;
  optind = 1;
  opterr = 0; /* our own one-line messages, named after omplens */
  while ((c = getopt_long(argc, argv, "+:o:qh", longopts, NULL)) != -1) {
    switch (c) {
    case 'o':
      o->output_dir = optarg;
      break;
    case 't': {
      char *end;
      unsigned long v = strtoul(optarg, &end, 10);
      if (*end || !*optarg || v > 100000) {
        error("--top wants a number from 0 to 100000, not '%s'", optarg);
        return PARSED_BAD;
      }
      o->top = v;
      break;
    }
    case 'q':
      o->quiet = 1;
      break;
    case 'P':
      o->no_preload = 1;
      break;
    case 'O':
      if (parse_outputs(optarg, &o->outputs))
        return PARSED_BAD;
      break;
    case 'W':
      if (strcmp(argv[0], "report")) {
        error("--window is an option of report; try 'omplens report --help'");
        return PARSED_BAD;
      }
      if (parse_window(optarg, o))
        return PARSED_BAD;
      break;
    case 'C':
      if (access(optarg, R_OK)) {
        error("cannot read %s: %s", optarg, strerror(errno));
        return PARSED_BAD;
      }
      o->compile_commands = optarg;
      break;
    case 'h':
      print_command_usage(stdout, argv[0]);
      return PARSED_HELP;
    case ':':
      error("option %s needs a value; try 'omplens --help'", argv[optind - 1]);
      return PARSED_BAD;
    default:
      error("unknown option %s; try 'omplens --help'", argv[optind - 1]);
      return PARSED_BAD;
    }
  }
  return optind;
}

/* One side of --window: seconds (empty: *ns unchanged). 0, or -1 when it
 * is not a number of seconds from 0 to about 500 years. */
static int parse_window_side(const char *s, size_t len, uint64_t *ns) {
  char buf[64], *end;
  if (!len)
    return 0;
  if (len >= sizeof buf)
    return -1;
  memcpy(buf, s, len);
  buf[len] = 0;
  errno = 0;
  double v = strtod(buf, &end);
  if (*end || errno || !(v >= 0) || v > 1.5e10 || buf[0] == '-' || buf[0] == '+' ||
      buf[0] == ' ' || buf[0] == '\t' || strchr(buf, 'x') || strchr(buf, 'X'))
    return -1;
  *ns = (uint64_t)(v * 1e9 + 0.5);
  return 0;
}

/* --window START:END, seconds, either side may be empty. */
static int parse_window(const char *arg, options *o) {
  const char *colon = strchr(arg, ':');
  uint64_t begin = 0, end = UINT64_MAX;
  if (!colon || parse_window_side(arg, (size_t)(colon - arg), &begin) ||
      parse_window_side(colon + 1, strlen(colon + 1), &end)) {
    error("--window wants START:END in seconds (2:5.5, 2:, :5.5), not '%s'", arg);
    return -1;
  }
  if (begin >= end) {
    error("--window %s: the start must come before the end", arg);
    return -1;
  }
  o->windowed = 1;
  o->window_begin = begin;
  o->window_end = end;
  return 0;
}

/* ---- output directory -------------------------------------------------- */

/* path with the parents it lacks, as mkdir -p makes them; *made (when
 * given, size bytes) is the topmost directory made here, "" when none. One
 * line when it cannot be done, naming the directory that failed. */
static int make_dirs(const char *path, char *made, size_t size) {
  char dir[PATH_MAX];
  if (made)
    made[0] = 0;
  if (format_path(dir, sizeof dir, "%s", path))
    return -1;
  for (char *end = dir + 1;; end++) {
    if (*end != '/' && *end)
      continue;
    char c = *end;
    *end = 0;
    int failed = mkdir(dir, 0755) ? errno : 0;
    if (!failed && made && !made[0] && format_path(made, size, "%s", dir))
      return -1;
    if (failed && failed != EEXIST) {
      if (strcmp(dir, path))
        error("cannot create directory %s: %s: %s", path, dir, strerror(failed));
      else
        error("cannot create directory %s: %s", path, strerror(failed));
      return -1;
    }
    *end = c;
    if (!c)
      break;
  }
  struct stat st;
  if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
    error("%s exists and is not a directory", path);
    return -1;
  }
  if (access(path, W_OK | X_OK)) {
    error("cannot write to %s: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

static int make_dir(const char *path) {
  return make_dirs(path, NULL, 0);
}

/* Whether the output directory can be made or written, said in one line
 * before any work: the directory itself when it exists, else the nearest
 * existing directory above it, where it would be made. */
static int check_output_dir(const char *path) {
  char dir[PATH_MAX];
  if (format_path(dir, sizeof dir, "%s", path))
    return -1;
  struct stat st;
  while (stat(dir, &st)) {
    char *slash = strrchr(dir, '/');
    while (slash && slash > dir && slash[1] == 0) { /* "a/b/" */
      *slash = 0;
      slash = strrchr(dir, '/');
    }
    if (!slash) {
      strcpy(dir, ".");
    } else if (slash == dir) {
      dir[1] = 0;
    } else {
      *slash = 0;
    }
    if (!strcmp(dir, ".") || !strcmp(dir, "/"))
      break;
  }
  if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
    error("%s exists and is not a directory", dir);
    return -1;
  }
  if (access(dir, W_OK | X_OK)) {
    if (strcmp(dir, path))
      error("cannot create directory %s: %s: %s", path, dir, strerror(errno));
    else
      error("cannot write to %s: %s", path, strerror(errno));
    return -1;
  }
  /* access() lets root through where writing still fails (a read-only
   * file system, sysfs): an existing directory is tried for real. */
  char probe[PATH_MAX];
  if (!strcmp(dir, path) &&
      !format_path(probe, sizeof probe, "%s/.omplens-probe-%d", dir, (int)getpid())) {
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
      error("cannot write to %s: %s", path, strerror(errno));
      return -1;
    }
    close(fd);
    unlink(probe);
  }
  return 0;
}

/* ---- reporting ----------------------------------------------------------- */

typedef struct loaded {
  omplens_trace **traces;
  omplens_analysis **analyses;
  omplens_annotator **annotators;
  omplens_fixer **fixers;
  const char *compile_commands; /* for the annotators' libclang parses */
  const char *no_diff;          /* the fixers' no_diff: run saw the program die */
  const options *window;        /* --window, when windowed */
  const options *o;             /* the command's options */
  omplens_report_process *procs;
  omplens_report_figures *figures; /* per process, shared by the outputs */
  size_t n, cap;
  /* A report made one trace at a time (cli/parts.h): the parts, and where
   * they wait. Then n is 0 and the arrays above are unused. */
  int in_parts;
  omplens_parts parts;
  omplens_cli_reduced reduced;
} loaded;

static void loaded_free(loaded *l) {
  for (size_t i = 0; i < l->n; i++) {
    omplens_fixer_destroy(l->fixers[i]);
    omplens_annotator_destroy(l->annotators[i]);
    omplens_analysis_free(l->analyses[i]);
    omplens_trace_close(l->traces[i]);
  }
  free(l->traces);
  free(l->analyses);
  free(l->annotators);
  free(l->fixers);
  free(l->procs);
  free(l->figures);
  omplens_cli_parts_free(&l->parts);
  omplens_cli_reduced_free(&l->reduced);
  memset(l, 0, sizeof *l);
}

/* The last component of path, as the progress line names a trace. */
static const char *file_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Reads one trace: *t, or an exit code after one error line. `progress`
 * NULL: the progress line is not told (another thread). */
static int read_trace(const char *path, const options *window, omplens_progress_fn *progress,
                      omplens_trace **t) {
  const char *name = file_name(path);
  if (progress) {
    omplens_progress_step(OMPLENS_PROGRESS_READ, path);
    omplens_progress_stage("reading %s", name);
  }
  omplens_trace_open_options to = {progress, NULL};
  int rc = omplens_trace_open_with(path, &to, t), err = errno;
  if (rc) {
    error("cannot read trace %s: %s", path, omplens_cli_trace_error(path, rc, err));
    if (rc == OMPLENS_TRACE_EIO)
      return err == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR;
    return rc == OMPLENS_TRACE_ENOMEM ? EXIT_SOFTWARE : EXIT_DATAERR;
  }
  if (window && window->windowed)
    omplens_trace_set_window(*t, window->window_begin, window->window_end);
  return 0;
}

/* The detectors on trace t, read from path. */
static int detect(const char *path, omplens_progress_fn *progress, const omplens_trace *t,
                  omplens_analysis **a) {
  const char *name = file_name(path);
  size_t n;
  omplens_trace_events(t, &n);
  if (progress) {
    omplens_progress_step(OMPLENS_PROGRESS_DETECT, NULL);
    omplens_progress_stage("finding wasted data movement in %s (%zu events)", name, n);
  }
  omplens_detect_options dopts = {progress, NULL};
  int rc = omplens_detect_trace_with(t, &dopts, a);
  if (rc) {
    error("cannot analyse %s: %s", path, omplens_detect_strerror(rc));
    return EXIT_SOFTWARE;
  }
  return 0;
}

/* Reads and analyses one trace: *t and *a, or an exit code after one error
 * line (then *t is closed). */
static int read_and_detect(const char *path, const options *window, omplens_progress_fn *progress,
                           omplens_trace **t, omplens_analysis **a) {
  int rc = read_trace(path, window, progress, t);
  if (!rc && (rc = detect(path, progress, *t, a))) {
    omplens_trace_close(*t);
    *t = NULL;
  }
  return rc;
}

/* The attribution's progress text: the compile units of the trace's
 * directives read so far (libclang's parses, which no count of events
 * foresees). ctx: the trace's name. */
static void units_read(void *name, uint64_t done, uint64_t total) {
  omplens_progress_text("reading sources: %llu of %llu compile units (%s)", (unsigned long long)done,
                        (unsigned long long)total, (const char *)name);
}

/* Trace t's annotator, with the compile units of its directives read ahead
 * (libclang's parses, which the fixer made later shares); NULL when none
 * can be made: the report still works, with module+offset. */
static omplens_annotator *attribute(const loaded *l, const char *path, const omplens_trace *t) {
  const char *name = file_name(path);
  omplens_progress_stage("attributing %s to sources", name);
  omplens_annotator *at = NULL;
  omplens_annotate_options ao = {l->compile_commands};
  omplens_annotator_create(t, &ao, &at);
  omplens_fix_share_parses(omplens_annotator_directives(at));
  omplens_annotate_prefetch(at, units_read, (void *)name); /* every directive's unit */
  return at;
}

/* Adds an analysed trace to l, with its annotator (at, or made here when
 * NULL) and fixer; l owns t, a and at from here on (also when this
 * fails). */
static int add_analysed(loaded *l, const char *path, omplens_trace *t, omplens_analysis *a,
                        omplens_annotator *at) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 8;
    omplens_trace **tr = realloc(l->traces, cap * sizeof *tr);
    if (tr)
      l->traces = tr;
    omplens_analysis **an = realloc(l->analyses, cap * sizeof *an);
    if (an)
      l->analyses = an;
    omplens_annotator **ats = realloc(l->annotators, cap * sizeof *ats);
    if (ats)
      l->annotators = ats;
    omplens_fixer **fx = realloc(l->fixers, cap * sizeof *fx);
    if (fx)
      l->fixers = fx;
    if (!tr || !an || !ats || !fx) {
      omplens_annotator_destroy(at);
      omplens_analysis_free(a);
      omplens_trace_close(t);
      error("out of memory");
      return EXIT_SOFTWARE;
    }
    l->cap = cap;
  }
  omplens_progress_step(OMPLENS_PROGRESS_ATTRIBUTE, NULL);
  if (!at)
    at = attribute(l, path, t);
  /* Without a fixer the report still works: findings then carry no
   * suggested change. The fixer reads the annotator's parses rather than
   * parsing again. */
  omplens_fixer *fx = NULL;
  omplens_fix_options fo = {0};
  fo.index = omplens_annotator_directives(at);
  fo.no_diff = l->no_diff;
  if (at)
    omplens_fixer_create(t, a, at, &fo, &fx);
  l->traces[l->n] = t;
  l->annotators[l->n] = at;
  l->fixers[l->n] = fx;
  l->analyses[l->n++] = a;
  return 0;
}

/* One trace: read, attributed, then searched. Attribution needs only the
 * trace; its parses run in helper processes (parse_helper.h), which hold
 * libclang while this process holds the trace. */
static int handle_trace_file(loaded *l, const char *path) {
  omplens_trace *t;
  omplens_analysis *a;
  int rc = read_trace(path, l->window, omplens_progress_count, &t);
  if (rc)
    return rc;
  omplens_annotator *at = attribute(l, path, t);
  rc = detect(path, omplens_progress_count, t, &a);
  if (rc) {
    omplens_annotator_destroy(at);
    omplens_trace_close(t);
    return rc;
  }
  return add_analysed(l, path, t, a, at);
}

/* Several traces (an MPI job's ranks) are read and analysed on all CPUs,
 * a trace per thread at a time; attribution to sources then runs in name
 * order on this thread (libclang's parses are shared through a cache). */
typedef struct parallel_load {
  char **names;
  size_t n;
  const options *window;
  omplens_trace **traces;
  omplens_analysis **analyses;
  int *rc;
  atomic_size_t next;
} parallel_load;

static void *load_worker(void *arg) {
  parallel_load *p = arg;
  size_t i;
  while ((i = atomic_fetch_add(&p->next, 1)) < p->n)
    p->rc[i] = read_and_detect(p->names[i], p->window, NULL, &p->traces[i], &p->analyses[i]);
  return NULL;
}

/* How many threads read an MPI job's traces: the CPUs this process may
 * run on (taskset, cpusets), at most one a trace. */
static size_t load_threads(size_t traces) {
  cpu_set_t set;
  long cpus = sched_getaffinity(0, sizeof set, &set) ? sysconf(_SC_NPROCESSORS_ONLN) : CPU_COUNT(&set);
  size_t n = cpus > 1 ? (size_t)cpus : 1;
  return n < traces ? n : traces;
}

static int load_parallel(loaded *l, char **names, size_t n) {
  size_t threads = load_threads(n);
  parallel_load p = {names, n, l->window, calloc(n, sizeof *p.traces),
                     calloc(n, sizeof *p.analyses), calloc(n, sizeof *p.rc), 0};
  pthread_t *tid = calloc(threads, sizeof *tid);
  if (!p.traces || !p.analyses || !p.rc || !tid) {
    free(p.traces), free(p.analyses), free(p.rc), free(tid);
    error("out of memory");
    return EXIT_SOFTWARE;
  }
  omplens_progress_stage("reading and analysing %zu traces on %zu threads", n, threads);
  size_t started = 0;
  while (started < threads && !pthread_create(&tid[started], NULL, load_worker, &p))
    started++;
  load_worker(&p); /* this thread too (and alone, if none started) */
  for (size_t i = 0; i < started; i++)
    pthread_join(tid[i], NULL);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    if (!rc && !p.rc[i]) {
      omplens_progress_step(OMPLENS_PROGRESS_READ, names[i]); /* its bytes count as done */
      rc = add_analysed(l, names[i], p.traces[i], p.analyses[i], NULL);
    }
    else if (!p.rc[i]) { /* an earlier trace failed: the report stops there */
      omplens_analysis_free(p.analyses[i]);
      omplens_trace_close(p.traces[i]);
    }
    if (!rc)
      rc = p.rc[i];
  }
  free(p.traces), free(p.analyses), free(p.rc), free(tid);
  return rc;
}

/* ---- One trace at a time (cli/parts.h) ----------------------------------- */

static const char *nothing_measured(const omplens_trace *t, bool killed);

/* Whether a report of several traces is made one trace at a time (it is,
 * unless OMPLENS_REPORT_AT_ONCE is set: then every trace stays loaded, as
 * the tests that compare both ways want). */
static int in_parts_allowed(void) {
  const char *v = getenv("OMPLENS_REPORT_AT_ONCE");
  return !v || !*v;
}

static int read_for_part(void *ctx, const char *path, omplens_trace **t, omplens_analysis **a) {
  const loaded *l = ctx;
  return read_and_detect(path, l->window, NULL, t, a);
}

static const char *warning_for_part(void *ctx, const omplens_trace *t) {
  (void)ctx;
  return nothing_measured(t, false);
}

static unsigned part_pieces(const options *o);

/* timeline.json's time zero: the earliest start among the traces, from
 * their headers (a trace whose header fails says so when it is read). */
static uint64_t traces_origin(char *const *names, size_t n) {
  uint64_t *start = calloc(n ? n : 1, sizeof *start);
  if (!start)
    return 0;
  for (size_t i = 0; i < n; i++) {
    omplens_trace *t;
    if (!omplens_trace_open_header(names[i], &t)) {
      start[i] = omplens_trace_get_info(t)->start_realtime_ns;
      omplens_trace_close(t);
    }
  }
  uint64_t origin = omplens_render__timeline_origin(start, n);
  free(start);
  return origin;
}

/* How a report of names[0..n) is reduced; r->mine, r->threads and
 * r->part.origin_ns are the caller's. */
static void reduce_plan(loaded *l, char *const *names, size_t n, omplens_cli_reduce *r) {
  const options *o = l->o;
  *r = (omplens_cli_reduce){.names = names, .n = n, .spool_dir = o->output_dir,
                            .compile_commands = l->compile_commands, .no_diff = l->no_diff,
                            .read = read_for_part, .warning = warning_for_part, .ctx = l};
  r->part.pieces = part_pieces(o);
  r->part.num_procs = n;
  r->part.top = o->top;
}

/* Reads, analyses and reduces every trace of names into l's parts. */
static int load_in_parts(loaded *l, char *const *names, size_t n) {
  if (make_dir(l->o->output_dir)) /* the spool files are there */
    return EXIT_CANTCREAT;
  omplens_cli_reduce r;
  reduce_plan(l, names, n, &r);
  r.threads = load_threads(n);
  if (r.part.pieces & OMPLENS_PART_TIMELINE)
    r.part.origin_ns = traces_origin(names, n);
  l->in_parts = 1;
  int rc = omplens_cli_reduce_traces(&r, &l->reduced);
  if (!rc)
    rc = omplens_cli_parts_load(l->reduced.at, n, &l->parts);
  l->parts.origin_ns = r.part.origin_ns;
  return rc;
}

/* The traces the command line's inputs stand for, in order (a directory:
 * its *.trace files in name order): 0 and *names, or an exit code after
 * the error line of the first input that fails. */
static int list_inputs(char *const *args, size_t num_args, char ***names, size_t *n) {
  size_t cap = 8;
  *n = 0;
  *names = malloc(cap * sizeof **names);
  int rc = *names ? 0 : EXIT_SOFTWARE;
  for (size_t i = 0; i < num_args && !rc; i++) {
    struct stat st;
    char **dir_names = NULL;
    long k = 1;
    if (stat(args[i], &st)) {
      error("cannot read %s: %s", args[i], strerror(errno));
      rc = EXIT_NOINPUT;
      break;
    }
    if (S_ISDIR(st.st_mode) && (k = omplens_cli_list_traces(args[i], &dir_names, NULL)) <= 0) {
      if (k < 0)
        error("cannot open directory %s: %s", args[i], strerror(errno));
      else
        error("no .trace files in %s, nor in a run directory of %s/traces", args[i], args[i]);
      omplens_cli_free_names(dir_names, 0);
      rc = EXIT_NOINPUT;
      break;
    }
    for (long j = 0; j < k && !rc; j++) {
      if (*n == cap) {
        char **more = realloc(*names, 2 * cap * sizeof **names);
        if (!more) {
          rc = EXIT_SOFTWARE;
          break;
        }
        *names = more;
        cap *= 2;
      }
      if (!((*names)[*n] = strdup(dir_names ? dir_names[j] : args[i])))
        rc = EXIT_SOFTWARE;
      else
        ++*n;
    }
    if (dir_names)
      omplens_cli_free_names(dir_names, (size_t)k);
  }
  if (rc == EXIT_SOFTWARE)
    error("out of memory");
  return rc;
}

/* A directory stands for the *.trace files in it, in name order. */
static int handle_trace_dir(loaded *l, const char *dir) {
  char **names;
  long n = omplens_cli_list_traces(dir, &names, NULL);
  if (n < 0) {
    error("cannot open directory %s: %s", dir, strerror(errno));
    return EXIT_NOINPUT;
  }
  int rc = n ? 0 : EXIT_NOINPUT;
  if (!n)
    error("no .trace files in %s, nor in a run directory of %s/traces", dir, dir);
  if (n > 1 && in_parts_allowed())
    rc = load_in_parts(l, names, (size_t)n);
  else if (n > 1 && load_threads((size_t)n) > 1)
    rc = load_parallel(l, names, (size_t)n);
  else
    for (long i = 0; i < n && !rc; i++)
      rc = handle_trace_file(l, names[i]);
  omplens_cli_free_names(names, (size_t)n);
  return rc;
}

/* Tells the progress line of the traces path stands for, before any is
 * read: the share done needs the whole. Errors wait for handle_input. */
static void expect_input(const char *path) {
  struct stat st;
  char **names;
  long n;
  if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
    omplens_progress_expect_trace(path);
  } else if ((n = omplens_cli_list_traces(path, &names, NULL)) > 0) {
    for (long i = 0; i < n; i++)
      omplens_progress_expect_trace(names[i]);
    omplens_cli_free_names(names, (size_t)n);
  }
}

static int handle_input(loaded *l, const char *path) {
  struct stat st;
  if (stat(path, &st)) {
    error("cannot read %s: %s", path, strerror(errno));
    return EXIT_NOINPUT;
  }
  return S_ISDIR(st.st_mode) ? handle_trace_dir(l, path) : handle_trace_file(l, path);
}

/* What every output writer gets. */
typedef struct output_ctx {
  const omplens_report_input *in;
  const json_t *doc; /* NULL when no selected output renders it */
  const loaded *l;
  const options *o;
  const char *base; /* the pages and SARIF show source paths relative to it:
                       the sources' root (NULL: the current directory) */
  struct early_timeline *early; /* timeline.json begun before the fixes, or NULL */
} output_ctx;

static int write_json(const output_ctx *c, FILE *f) {
  if (c->l->in_parts)
    return omplens_parts_write_json(&c->l->parts, f);
  return omplens_report_stream_json_beside(c->in, c->doc, f);
}

static bool print_apply(FILE *out, const loaded *l, const options *o, bool in_dir);

/* The summary, with the command that applies fixes.patch when it has a
 * diff (the file is read where the terminal's lines are gone), from the
 * output directory: the file is the same wherever it is written. */
static int write_summary(const output_ctx *c, FILE *f) {
  int rc = c->l->in_parts ? omplens_parts_write_summary(&c->l->parts, c->o->top, f)
                          : omplens_report_print_text(c->in, f, c->o->top);
  if (!rc && print_apply(f, c->l, c->o, true))
    fputc('\n', f);
  return rc ? rc : ferror(f) ? OMPLENS_REPORT_EIO : 0;
}

static int write_sarif(const output_ctx *c, FILE *f) {
  omplens_render_options ro = {.base_dir = c->base};
  return omplens_render_sarif(c->doc, &ro, f);
}

static int write_markdown(const output_ctx *c, FILE *f) {
  omplens_render_options ro = {.base_dir = c->base};
  return omplens_render_markdown(c->doc, &ro, f);
}

static int write_html(const output_ctx *c, FILE *f) {
  /* The input lets the timeline mark every wasteful operation (it reads
   * only the analyses, which no thread changes once prepared). */
  if (c->l->in_parts)
    return omplens_parts_write_html(&c->l->parts, f);
  omplens_render_options ro = {.base_dir = c->base, .input = c->in};
  return omplens_render_html(c->doc, (const omplens_trace *const *)c->l->traces, c->l->n, &ro, f);
}

/* Process i's patch: omplens_fix_patch() of its fixer, or of its part. */
static int process_patch(const loaded *l, size_t i, int relative, const char **patch,
                         const char **skipped) {
  if (l->in_parts) {
    const omplens_part *p = &l->parts.parts[i];
    if (!p->has_fixer || p->patch_rc[!!relative])
      return -1;
    *patch = p->patch[!!relative];
    if (skipped)
      *skipped = p->skipped[!!relative];
    return 0;
  }
  return l->fixers[i] ? omplens_fix_patch(l->fixers[i], relative, patch, skipped) : -1;
}

static size_t num_processes(const loaded *l) { return l->in_parts ? l->parts.n : l->n; }

/* The sources' root every fixer chose, the same for every process (with
 * `edited`: every edited file under it), whatever directory omplens runs
 * in; else NULL. */
static const char *sources_root(const loaded *l, int edited) {
  const char *base = NULL;
  for (size_t i = 0; i < num_processes(l); i++) {
    const char *dir;
    int under;
    if (l->in_parts) {
      const omplens_part *p = &l->parts.parts[i];
      if (!p->has_fixer || p->base_rc)
        continue;
      dir = p->base_dir;
      under = p->base_under;
    } else if (!l->fixers[i] || omplens_fix_base_dir(l->fixers[i], &dir, &under)) {
      continue;
    }
    if (!dir || (edited && !under) || (base && strcmp(base, dir)))
      return NULL;
    base = dir;
  }
  return base;
}

/* The directory fixes.patch's relative paths start from; NULL: absolute
 * paths. */
static const char *patch_base(const loaded *l) { return sources_root(l, 1); }

static int patch_relative(const loaded *l) {
  return patch_base(l) != NULL;
}

/* Whether fixes.patch holds a diff. */
static int patch_has_diff(const loaded *l, int relative) {
  for (size_t i = 0; i < num_processes(l); i++) {
    const char *patch = NULL;
    if (!process_patch(l, i, relative, &patch, NULL) && patch && *patch)
      return 1;
  }
  return 0;
}

/* A word for a POSIX shell: as it is when nothing in it is special, else
 * in single quotes. */
static void print_shell_word(FILE *out, const char *w) {
  if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-,:@=%") ==
                strlen(w)) {
    fputs(w, out);
    return;
  }
  fputc('\'', out);
  for (; *w; w++)
    if (*w == '\'')
      fputs("'\\''", out); /* end the quote, a quoted quote, quote again */
    else
      fputc(*w, out);
  fputc('\'', out);
}

/* The command that applies fixes.patch from any directory:
 * `patch -p1 -d BASE < OUTDIR/fixes.patch`, both absolute; with output_dir
 * NULL, `... < fixes.patch`, from the output directory itself. */
static void print_patch_command(FILE *out, const loaded *l, const char *output_dir) {
  char dir[PATH_MAX];
  const char *base = patch_base(l);
  if (!base)
    base = "/";
  fputs("patch -p1 -d ", out);
  print_shell_word(out, base);
  fputs(" < ", out);
  if (output_dir) {
    print_shell_word(out, realpath(output_dir, dir) ? dir : output_dir);
    fputc('/', out);
  }
  fputs("fixes.patch", out);
}

/* Every suggested diff that can be applied together, with paths relative to
 * the sources' root (patch_base), else absolute (the summary prints the
 * command that applies it); fixes left out are listed on top. */
static int write_patch(const output_ctx *c, FILE *f) {
  int relative = patch_relative(c->l);
  for (size_t i = 0; i < num_processes(c->l); i++) {
    const char *patch = NULL, *skipped = NULL;
    if (process_patch(c->l, i, relative, &patch, &skipped))
      continue;
    if (skipped && *skipped)
      fprintf(f, "# Not in this patch (see report.html for these):\n# %s\n", skipped);
    if (patch)
      fputs(patch, f);
  }
  return ferror(f) ? OMPLENS_REPORT_EIO : 0;
}

static int write_early_timeline(const output_ctx *c, FILE *f);

static int write_timeline(const output_ctx *c, FILE *f) {
  if (c->l->in_parts)
    return omplens_parts_write_timeline(&c->l->parts, f);
  /* It is the longest output: its events count towards the progress line. */
  if (c->early)
    return write_early_timeline(c, f);
  return omplens_render_timeline_with(c->doc, (const omplens_trace *const *)c->l->traces, c->l->n,
                                      omplens_progress_count, NULL, f);
}

/* The outputs, in the order they are written; --outputs picks by name. */
typedef struct output {
  const char *name;
  const char *file;
  int (*write)(const output_ctx *, FILE *);
  /* The writer hands the stream whole buffers of its own (256 KiB):
   * stdio's would only split each in two system calls. */
  int unbuffered;
} output;

enum output_id { OUT_JSON, OUT_SUMMARY, OUT_SARIF, OUT_TIMELINE, OUT_MARKDOWN, OUT_HTML, OUT_PATCH };

static const output OUTPUTS[] = {
    [OUT_JSON] = {"json", "findings.json", write_json, 1},
    [OUT_SUMMARY] = {"summary", "summary.txt", write_summary, 0},
    [OUT_SARIF] = {"sarif", "findings.sarif", write_sarif, 0},
    [OUT_TIMELINE] = {"timeline", "timeline.json", write_timeline, 1},
    [OUT_MARKDOWN] = {"markdown", "report.md", write_markdown, 0},
    [OUT_HTML] = {"html", "report.html", write_html, 0},
    [OUT_PATCH] = {"patch", "fixes.patch", write_patch, 0},
};
#define NUM_OUTPUTS (sizeof OUTPUTS / sizeof *OUTPUTS)
/* The pages list the findings that save most, from one findings document;
 * findings.json has all and, like the summary and the patch, does without
 * the document. */
#define PAGE_OUTPUTS (1u << OUT_SARIF | 1u << OUT_TIMELINE | 1u << OUT_MARKDOWN | 1u << OUT_HTML)

/* The pieces the selected outputs take from each process. */
static unsigned part_pieces(const options *o) {
  unsigned p = 0;
  if (o->outputs & (1u << OUT_JSON))
    p |= OMPLENS_PART_JSON;
  if ((o->outputs & (1u << OUT_SUMMARY)) || !o->quiet)
    p |= OMPLENS_PART_SUMMARY;
  if (o->outputs & PAGE_OUTPUTS)
    p |= OMPLENS_PART_DOC;
  if (o->outputs & (1u << OUT_HTML))
    p |= OMPLENS_PART_HTML;
  if (o->outputs & (1u << OUT_TIMELINE))
    p |= OMPLENS_PART_TIMELINE;
  if (o->outputs & (1u << OUT_PATCH))
    p |= OMPLENS_PART_PATCH;
  return p;
}

/* Tells the progress line of the outputs to come (bits of OUTPUTS). */
static void expect_outputs(unsigned todo) {
  for (size_t i = 0; i < NUM_OUTPUTS; i++)
    if (todo & (1u << i))
      omplens_progress_expect_output(OUTPUTS[i].name);
  if (todo & PAGE_OUTPUTS)
    omplens_progress_expect_output("document");
}

/* Parses "json,sarif" into a bit set of OUTPUTS; -1 on an unknown name. */
static int parse_outputs(const char *list, unsigned *mask) {
  *mask = 0;
  while (*list) {
    size_t n = strcspn(list, ",");
    size_t i = 0;
    while (i < NUM_OUTPUTS && (strlen(OUTPUTS[i].name) != n || strncmp(OUTPUTS[i].name, list, n)))
      i++;
    if (i == NUM_OUTPUTS && !(n == 3 && !strncmp(list, "all", 3))) {
      error("unknown output '%.*s' (outputs: json, summary, sarif, timeline, markdown, html, patch, all)", (int)n, list);
      return -1;
    }
    *mask |= i == NUM_OUTPUTS ? ~0u : 1u << i;
    list += n + (list[n] == ',');
  }
  return 0;
}

/* One output to write, and how it went: the job may run on a thread of
 * its own, so it keeps its error message for the main thread to print. */
typedef struct output_job {
  const output *out;
  const output_ctx *c;
  int rc;                      /* 0 or an EXIT_* code */
  char message[PATH_MAX + 128];
} output_job;

/* timeline.json begun before the fixes: its constructs and operations need
 * only which findings mark them (omplens_report_timeline_marks), and are
 * most of its writing; the instants' texts wait for the document. On two
 * CPUs or more it is written beside the fixer, which works alone on the
 * main thread (docs/sarif-and-timeline.md, "Begun before the fixes"). */
typedef struct early_timeline {
  output_ctx ctx;   /* ctx.early: this */
  output_job job;
  json_t *marks;
  const json_t *doc; /* the document, once `ready` (NULL: it could not be made) */
  bool ready;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  pthread_t thread;
} early_timeline;

static int write_early_timeline(const output_ctx *c, FILE *f) {
  early_timeline *e = c->early;
  omplens_timeline *tl;
  int rc = omplens_render_timeline_begin(e->marks, (const omplens_trace *const *)c->l->traces,
                                         c->l->n, omplens_progress_count, NULL, f, &tl);
  json_decref(e->marks); /* this thread's alone since it started: not held beside the document */
  e->marks = NULL;
  pthread_mutex_lock(&e->lock);
  while (!e->ready)
    pthread_cond_wait(&e->cond, &e->lock);
  const json_t *doc = e->doc;
  pthread_mutex_unlock(&e->lock);
  if (rc)
    return rc;
  rc = omplens_render_timeline_end(tl, doc);
  return doc ? rc : OMPLENS_REPORT_ENOMEM;
}

/* Writes one output into DIR/FILE through a temporary file, so a reader
 * never sees half a report and a failure leaves any older one in place. */
static void run_output(output_job *j) {
  char path[PATH_MAX], tmp[PATH_MAX + 16];
  int n = snprintf(path, sizeof path, "%s/%s", j->c->o->output_dir, j->out->file);
  if (n < 0 || (size_t)n >= sizeof path) {
    snprintf(j->message, sizeof j->message, "path too long: %.60s...", path);
    j->rc = EXIT_CANTCREAT;
    return;
  }
  snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (f && j->out->unbuffered)
    setvbuf(f, NULL, _IONBF, 0);
  int rc = f ? j->out->write(j->c, f) : OMPLENS_REPORT_EIO;
  if (f && fclose(f))
    rc = OMPLENS_REPORT_EIO;
  if (!rc && rename(tmp, path))
    rc = OMPLENS_REPORT_EIO;
  if (rc) {
    snprintf(j->message, sizeof j->message, "cannot write %s: %s", path,
             rc == OMPLENS_REPORT_EIO ? strerror(errno) : omplens_report_strerror(rc));
    unlink(tmp);
    j->rc = rc == OMPLENS_REPORT_ENOMEM ? EXIT_SOFTWARE : EXIT_CANTCREAT;
  }
}

/* Which outputs are written on which thread. findings.json, the summary
 * and the patch ask the annotators and fixers, whose caches are not shared
 * between threads: the main thread writes them, in this order. The others
 * read only the document and the traces, so any thread takes the next of
 * them, the longest first: timeline.json, as long to write as
 * findings.json, then report.html. Two threads beside the main one, even
 * on two CPUs: the three long outputs then share the CPUs as they go,
 * where with one extra thread timeline.json and report.html ran one after
 * the other while the main thread, done with findings.json, waited (0.03 s
 * of 0.55 on the many-directives bench trace). */
static const enum output_id MAIN_OUTPUTS[] = {OUT_JSON, OUT_SUMMARY, OUT_PATCH};
static const enum output_id SHARED_OUTPUTS[] = {OUT_TIMELINE, OUT_HTML, OUT_SARIF, OUT_MARKDOWN};
#define NUM_SHARED (sizeof SHARED_OUTPUTS / sizeof *SHARED_OUTPUTS)

typedef struct output_plan {
  output_job jobs[NUM_OUTPUTS];  /* by enum output_id */
  unsigned todo;                 /* selected outputs, bits by output_id */
  atomic_size_t next_shared;     /* index into SHARED_OUTPUTS */
} output_plan;

/* Writes output id, if selected, announcing it; the progress line is the
 * main thread's. */
static void write_one(output_plan *p, enum output_id id, int on_main) {
  if (!(p->todo & (1u << id)))
    return;
  if (on_main)
    omplens_progress_stage("writing %s", OUTPUTS[id].file);
  else
    omplens_progress_time("writing %s (another thread)", OUTPUTS[id].file);
  run_output(&p->jobs[id]);
  omplens_progress_output_done(OUTPUTS[id].name);
  omplens_progress_time("wrote %s", OUTPUTS[id].file);
}

/* Writes the shared outputs until none is left. */
static void write_shared(output_plan *p, int on_main) {
  for (size_t k; (k = atomic_fetch_add(&p->next_shared, 1)) < NUM_SHARED;)
    write_one(p, SHARED_OUTPUTS[k], on_main);
}

static void *write_shared_thread(void *plan) {
  write_shared(plan, 0);
  return NULL;
}

static void *early_timeline_thread(void *arg) {
  early_timeline *e = arg;
  run_output(&e->job);
  omplens_progress_output_done(OUTPUTS[OUT_TIMELINE].name);
  omplens_progress_time("wrote %s", OUTPUTS[OUT_TIMELINE].file);
  return NULL;
}

/* Starts timeline.json on a thread of its own when it is asked for, of
 * one trace (several are reported in parts, or, when parts are not
 * allowed, keep each trace's instants after its own operations), and the
 * machine has a CPU for it beside the fixer; false when it was not started
 * (it is then written with the others). The output directory exists. */
static bool start_early_timeline(early_timeline *e, const omplens_report_input *in,
                                 const loaded *l, const options *o) {
  if (!(o->outputs & (1u << OUT_TIMELINE)) || l->in_parts || l->n != 1 ||
      sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
      !(e->marks = omplens_report_timeline_marks(in, OMPLENS_RENDER_MAX_FINDINGS,
                                                 OMPLENS_RENDER_MAX_INSTANCES)))
    return false;
  e->ctx = (output_ctx){in, NULL, l, o, NULL, e};
  e->job = (output_job){&OUTPUTS[OUT_TIMELINE], &e->ctx, 0, ""};
  e->ready = false;
  if (pthread_mutex_init(&e->lock, NULL))
    goto no_lock;
  if (pthread_cond_init(&e->cond, NULL))
    goto no_cond;
  if (!pthread_create(&e->thread, NULL, early_timeline_thread, e)) {
    omplens_progress_time("writing %s (another thread)", OUTPUTS[OUT_TIMELINE].file);
    return true;
  }
  pthread_cond_destroy(&e->cond);
no_cond:
  pthread_mutex_destroy(&e->lock);
no_lock:
  json_decref(e->marks);
  e->marks = NULL;
  return false;
}

/* Gives the early timeline.json its document (NULL: none could be made,
 * and the file is dropped). */
static void early_timeline_document(early_timeline *e, const json_t *doc) {
  pthread_mutex_lock(&e->lock);
  e->doc = doc;
  e->ready = true;
  pthread_cond_signal(&e->cond);
  pthread_mutex_unlock(&e->lock);
}

/* After the thread was joined (write_outputs). */
static void early_timeline_free(early_timeline *e) {
  pthread_cond_destroy(&e->cond);
  pthread_mutex_destroy(&e->lock);
  json_decref(e->marks);
}

/* Writes every selected output, on up to three threads when there are two
 * CPUs; every output is tried, each failure is printed, and the first
 * failure's exit code (in OUTPUTS order) is returned. */
static int write_outputs(const output_ctx *c, unsigned todo) {
  if (c->early) /* on its own thread already */
    todo &= ~(1u << OUT_TIMELINE);
  output_plan p = {.todo = todo};
  atomic_init(&p.next_shared, 0);
  for (size_t i = 0; i < NUM_OUTPUTS; i++)
    p.jobs[i] = (output_job){&OUTPUTS[i], c, 0, ""};
  unsigned shared = 0;
  for (size_t i = 0; i < NUM_SHARED; i++)
    shared |= 1u << SHARED_OUTPUTS[i];
  /* A thread for each shared output beyond the first, up to two, when
   * there is something to do beside them; an early timeline.json is one
   * of the two. */
  size_t extra = (size_t)__builtin_popcount(todo & shared) + (c->early != NULL);
  extra = extra > 2 ? 2 : extra;
  if (!(todo & ~shared) && extra)
    extra--; /* the main thread has no output of its own */
  if (c->early && extra)
    extra--;
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
    extra = 0;
  pthread_t threads[2];
  size_t started = 0;
  while (started < extra && !pthread_create(&threads[started], NULL, write_shared_thread, &p))
    started++;
  for (size_t i = 0; i < sizeof MAIN_OUTPUTS / sizeof *MAIN_OUTPUTS; i++)
    write_one(&p, MAIN_OUTPUTS[i], 1);
  write_shared(&p, 1);
  if (started)
    omplens_progress_stage("writing the last output");
  for (size_t i = 0; i < started; i++)
    pthread_join(threads[i], NULL);
  if (c->early) {
    pthread_join(c->early->thread, NULL);
    p.jobs[OUT_TIMELINE] = c->early->job;
  }
  omplens_progress_time("outputs written");
  int rc = 0;
  for (size_t i = 0; i < NUM_OUTPUTS; i++)
    if (p.jobs[i].rc) {
      error("%s", p.jobs[i].message);
      if (!rc)
        rc = p.jobs[i].rc;
    }
  return rc;
}

/* Writes the selected outputs for the loaded traces; summary to `summary_out`. */
/* Why nothing reached a device in trace t, or NULL when something did;
 * killed: `run` saw the program die of a signal. */
static const char *nothing_measured(const omplens_trace *t, bool killed) {
  size_t nev, nreg;
  omplens_trace_events(t, &nev);
  omplens_trace_regions(t, &nreg);
  const omplens_trace_info *info = omplens_trace_get_info(t);
  if (nev || nreg)
    return NULL;
  /* A damaged trace says so already: its events may just be lost (a file
   * cut after its header reads as a program that ended early). But where
   * `run` saw the program die, and the missing end record is the only
   * damage, the trace is whole: it died before any construct. */
  const char *damage = omplens_trace_damage(t);
  bool only_unfinished = damage && !strncmp(damage, "no end record", 13) &&
                         strchr(damage, '\n') == damage + strlen(damage) - 1;
  if (!info->complete && killed && only_unfinished)
    return "the program was killed before any target construct ran";
  if (!info->complete || damage)
    return NULL;
  if (info->num_devices > 0)
    return "the runtime reported no target construct: none ran, offloading was disabled "
           "(OMP_TARGET_OFFLOAD=disabled), or libomptarget did not attach to OMPT (is LLVM's "
           "lib directory on LD_LIBRARY_PATH?)";
  switch (omplens_annotate_offload_code(info->exe)) {
  case 0:
    return "the program was built without offloading (-fopenmp-targets=...): its target "
           "regions ran on the host";
  case 1:
    return "no offload device was initialized (OMP_TARGET_OFFLOAD=disabled, or no plugin for "
           "the device): its target regions ran on the host";
  default:
    return "no device was initialized and no target construct was recorded";
  }
}

/* One warning line per process that measured nothing; whether every one
 * did (then `report` has nothing to say, and exits with EXIT_NOTHING). */
static bool warn_nothing_measured(const loaded *l, bool killed) {
  size_t quiet = 0, n = num_processes(l);
  for (size_t i = 0; i < n; i++) {
    const omplens_trace_info *info = l->in_parts ? NULL : omplens_trace_get_info(l->traces[i]);
    const char *why =
        l->in_parts ? l->parts.parts[i].warning : nothing_measured(l->traces[i], killed);
    if (!why)
      continue;
    quiet++;
    error("warning: nothing reached a device in %s (pid %d): %s",
          info ? info->exe : l->parts.parts[i].exe,
          info ? (int)info->pid : (int)l->parts.parts[i].pid, why);
  }
  return n && quiet == n;
}

/* One warning line when the ranks in the report belong to several MPI
 * jobs: the merged view covers the first one's (docs/report.md). */
static void warn_jobs(const loaded *l) {
  size_t n = num_processes(l), jobs = 0;
  const char *first = NULL;
  int first_seen = 0;
  for (size_t i = 0; i < n; i++) {
    const omplens_trace_info *info = l->in_parts ? NULL : omplens_trace_get_info(l->traces[i]);
    int rank = info ? info->rank : l->parts.parts[i].record.rank;
    const char *job = info ? info->job : l->parts.parts[i].record.job;
    if (rank < 0)
      continue;
    size_t k = 0; /* the jobs met before */
    for (; k < i; k++) {
      const omplens_trace_info *ki = l->in_parts ? NULL : omplens_trace_get_info(l->traces[k]);
      int krank = ki ? ki->rank : l->parts.parts[k].record.rank;
      const char *kjob = ki ? ki->job : l->parts.parts[k].record.job;
      if (krank >= 0 && (kjob == job || (kjob && job && !strcmp(kjob, job))))
        break;
    }
    jobs += k == i;
    if (!first_seen)
      first = job, first_seen = 1;
  }
  if (jobs > 1)
    error("warning: the traces are of %zu MPI jobs; the merged view covers job %s only "
          "(report each job's traces apart)", jobs, first ? first : "(unnamed)");
}

/* libclang's parses keep their results in the output directory, for the
 * next report of the same sources (docs/directives.md, "The parse cache").
 * With warm, a report into a directory with nothing cached starts a parse
 * helper at once, to load libclang while the trace is read. */
static void use_parse_cache(const char *output_dir, bool warm) {
  char dir[PATH_MAX];
  if (snprintf(dir, sizeof dir, "%s/.omplens-cache", output_dir) < (int)sizeof dir) {
    omplens_directives_cache_at(dir);
    omplens_parse_helpers_on(); /* libclang stays out of this process */
    if (warm)
      omplens_parse_helpers_warm();
  }
}

/* The stage times' line for libclang: parses run, and answered from the cache. */
static void print_parse_cost(void) {
  omplens_directives_cost c;
  omplens_directives_parse_cost(&c);
  char helpers[48] = "";
  if (c.helpers)
    snprintf(helpers, sizeof helpers, ", in %u helper process%s", c.helpers,
             c.helpers > 1 ? "es" : "");
  if (c.parsed || c.cached)
    omplens_progress_time("parsing %u sources (libclang): %.3f s, %u from the cache%s",
                          c.parsed + c.cached, c.seconds, c.cached, helpers);
}

/* The outputs from the parts of l (a report made one trace at a time). */
static int write_part_reports(loaded *l, const options *o, FILE *summary_out) {
  omplens_progress_stage("working out the fixes");
  if (omplens_parts_prepare(&l->parts)) {
    error("out of memory");
    return EXIT_SOFTWARE;
  }
  omplens_directives_parses_done(); /* the fixes are made */
  if (make_dir(o->output_dir))
    return EXIT_CANTCREAT;
  omplens_progress_step(OMPLENS_PROGRESS_REPORT, NULL);
  omplens_progress_stage("building the report");
  if ((o->outputs & PAGE_OUTPUTS) && !l->parts.doc) {
    error("out of memory");
    return EXIT_SOFTWARE;
  }
  if (l->parts.doc)
    omplens_progress_output_done("document");
  output_ctx c = {NULL, l->parts.doc, l, o, sources_root(l, 0), NULL};
  int rc = write_outputs(&c, o->outputs);
  print_parse_cost();
  omplens_progress_stop();
  if (!rc && !o->quiet)
    rc = omplens_parts_write_summary(&l->parts, o->top, summary_out) ? EXIT_SOFTWARE : 0;
  return rc;
}

/* "apply the suggested changes: patch ..." after a newline, when
 * fixes.patch is written with a diff (in_dir: run from the output
 * directory); whether it was printed. */
static bool print_apply(FILE *out, const loaded *l, const options *o, bool in_dir) {
  if (!(o->outputs & (1u << OUT_PATCH)) || !patch_has_diff(l, patch_relative(l)))
    return false;
  fputs(in_dir ? "\n  apply the suggested changes, from this directory: "
               : "\n  apply the suggested changes: ",
        out);
  print_patch_command(out, l, in_dir ? NULL : o->output_dir);
  return true;
}

/* The lines after the summary: where the reports are, how to apply the
 * patch. */
static void print_written(const loaded *l, const options *o, FILE *summary_out) {
  fprintf(summary_out, "\n  reports written to %s/", o->output_dir);
  if (o->outputs & (1u << OUT_HTML)) /* the one to read, in a browser */
    fprintf(summary_out, ": read %s/report.html in a browser", o->output_dir);
  print_apply(summary_out, l, o, false);
  fputc('\n', summary_out);
}

/* The pages' document of the latest report, left for the process's exit
 * to take back: a process writes one report, and freeing the document's
 * small JSON objects one by one (20 MB for 2000 directives) took 5 % of
 * such a report's time, after every output was written. Held here, it is
 * no leak. */
static json_t *latest_document;

static int write_reports(loaded *l, const options *o, FILE *summary_out, int exit_status) {
  if (l->in_parts) {
    l->parts.program_exit_status = exit_status;
    int rc = write_part_reports(l, o, summary_out);
    if (!rc && !o->quiet)
      print_written(l, o, summary_out);
    return rc;
  }
  l->procs = calloc(l->n ? l->n : 1, sizeof *l->procs);
  l->figures = calloc(l->n ? l->n : 1, sizeof *l->figures);
  if (!l->procs || !l->figures) {
    error("out of memory");
    return EXIT_SOFTWARE;
  }
  for (size_t i = 0; i < l->n; i++)
    l->procs[i] = (omplens_report_process){l->traces[i], l->analyses[i], l->annotators[i],
                                           l->fixers[i], &l->figures[i]};
  omplens_report_input in = {l->procs, l->n, exit_status};
  if (make_dir(o->output_dir))
    return EXIT_CANTCREAT;
  early_timeline early;
  bool early_started = start_early_timeline(&early, &in, l, o);
  omplens_progress_stage("working out the fixes"); /* and what fixing all of them saves */
  omplens_report_prepare(&in); /* before the outputs' threads share them */
  omplens_directives_parses_done(); /* the fixes are made */
  omplens_progress_step(OMPLENS_PROGRESS_REPORT, NULL);
  omplens_progress_stage("building the report");
  json_t *doc = NULL;
  if ((o->outputs & PAGE_OUTPUTS) &&
      !(doc = omplens_report_document_limited(&in, OMPLENS_RENDER_MAX_FINDINGS,
                                              OMPLENS_RENDER_MAX_INSTANCES))) {
    if (early_started) {
      early_timeline_document(&early, NULL);
      pthread_join(early.thread, NULL);
      early_timeline_free(&early);
    }
    error("out of memory");
    return EXIT_SOFTWARE;
  }
  if (doc)
    omplens_progress_output_done("document");
  if (early_started)
    early_timeline_document(&early, doc);
  output_ctx c = {&in, doc, l, o, sources_root(l, 0), early_started ? &early : NULL};
  int rc = write_outputs(&c, o->outputs);
  if (early_started)
    early_timeline_free(&early);
  print_parse_cost();
  json_decref(latest_document);
  latest_document = doc;
  omplens_progress_stop();
  if (!rc && !o->quiet) {
    omplens_report_print_text(&in, summary_out, o->top);
    print_written(l, o, summary_out);
  }
  return rc;
}

/* ---- The distributed report (cli/distribute.h) ---------------------------- */

/* A failure after which another rank would wait for ever: the line, then
 * the end of every rank (MPI_Abort, which mpirun reports too). */
static void mpi_fail(const omplens_cli_mpi *m, int code, const char *what)
    __attribute__((noreturn));
static void mpi_fail(const omplens_cli_mpi *m, int code, const char *what) {
  if (m->rank)
    error("distributed report (rank %d): %s", m->rank, what);
  else
    error("distributed report: %s", what);
  m->p->abort(code);
  exit(code); /* MPI_Abort does not return */
}

/* Rank 0: the plan (what every rank reduces), sent to every rank even when
 * it fails (then with the exit code, after its error line). */
static int plan_report(const options *o, char *const *args, size_t num_args,
                       const omplens_cli_mpi *m, omplens_cli_plan *plan) {
  char err[1024];
  memset(plan, 0, sizeof *plan);
  plan->status = check_output_dir(o->output_dir) || make_dir(o->output_dir) ? EXIT_CANTCREAT : 0;
  if (!plan->status)
    plan->status = list_inputs(args, num_args, &plan->names, &plan->n);
  if (!plan->status && !(plan->owner = calloc(plan->n, sizeof *plan->owner))) {
    error("out of memory");
    plan->status = EXIT_SOFTWARE;
  }
  if (plan->status) { /* the others only need the code */
    omplens_cli_free_names(plan->names, plan->n);
    plan->names = NULL;
    plan->n = 0;
  } else {
    omplens_cli_plan_assign(plan, m->size);
    if (part_pieces(o) & OMPLENS_PART_TIMELINE)
      plan->origin_ns = traces_origin(plan->names, plan->n);
  }
  if (omplens_cli_mpi_send_plan(m, plan, err, sizeof err))
    mpi_fail(m, EXIT_SOFTWARE, err);
  return plan->status;
}

/* The traces of plan this rank reduces. */
static size_t *my_traces(const omplens_cli_plan *plan, int rank, size_t *count) {
  size_t *mine = calloc(plan->n ? plan->n : 1, sizeof *mine);
  *count = 0;
  for (size_t i = 0; mine && i < plan->n; i++)
    if (plan->owner[i] == (uint32_t)rank)
      mine[(*count)++] = i;
  return mine;
}

/* `mpirun -np K omplens report ...` on one rank of K (K > 1). */
static int report_distributed(options *o, char *const *args, size_t num_args,
                              const omplens_cli_mpi *m) {
  char err[1024];
  omplens_cli_plan plan;
  int rc;
  if (m->rank == 0) {
    rc = plan_report(o, args, num_args, m, &plan);
  } else if (omplens_cli_mpi_recv_plan(m, &plan, err, sizeof err)) {
    mpi_fail(m, EXIT_SOFTWARE, err);
  } else {
    rc = plan.status; /* rank 0 said why */
    o->quiet = 1;
  }
  if (rc) {
    omplens_cli_plan_free(&plan);
    return rc;
  }
  loaded l = {0};
  l.compile_commands = o->compile_commands;
  l.window = o;
  l.o = o;
  use_parse_cache(o->output_dir, false); /* ranks start helpers as their parses need */
  if (m->rank == 0) {
    omplens_progress_start(o->quiet);
    for (size_t i = 0; i < plan.n; i++)
      omplens_progress_expect_trace(plan.names[i]);
    expect_outputs(o->outputs);
  }
  omplens_cli_reduce r;
  reduce_plan(&l, plan.names, plan.n, &r);
  r.mine = my_traces(&plan, m->rank, &r.num_mine);
  r.threads = load_threads(r.num_mine ? r.num_mine : 1);
  r.part.origin_ns = plan.origin_ns;
  omplens_progress_time("rank %d of %d reduces %zu traces (%s)", m->rank, m->size, r.num_mine,
                        m->p->library());
  /* Rank 0's spool files are in the output directory; the others' there
   * too when they see it (a shared file system), else in $TMPDIR. */
  if (m->rank && access(o->output_dir, W_OK | X_OK))
    r.spool_dir = NULL;
  l.in_parts = 1;
  rc = r.mine ? omplens_cli_reduce_traces(&r, &l.reduced) : EXIT_SOFTWARE;
  if (m->rank) {
    if (omplens_cli_mpi_send_parts(m, &plan, l.reduced.at, rc, err, sizeof err) ||
        omplens_cli_mpi_recv_result(m, &rc, err, sizeof err))
      mpi_fail(m, EXIT_SOFTWARE, err);
  } else {
    /* Every rank's parts, even after a failure here: a rank waiting to
     * send would wait for ever. */
    FILE *spool = omplens_cli_spool_open(o->output_dir);
    omplens_cli_part_at *at = calloc(plan.n ? plan.n : 1, sizeof *at);
    if (!spool || !at) {
      snprintf(err, sizeof err, "cannot make a spool file in %s: %s", o->output_dir,
               strerror(errno));
      mpi_fail(m, EXIT_CANTCREAT, err);
    }
    for (size_t i = 0; l.reduced.at && i < plan.n; i++)
      at[i] = l.reduced.at[i];
    if (omplens_cli_mpi_recv_parts(m, &plan, spool, at, err, sizeof err))
      mpi_fail(m, EXIT_SOFTWARE, err);
    if (!rc)
      rc = omplens_cli_parts_load(at, plan.n, &l.parts);
    l.parts.origin_ns = plan.origin_ns;
    if (!rc)
      rc = write_reports(&l, o, stdout, -1);
    omplens_progress_stop();
    if (!rc)
      warn_jobs(&l);
    if (!rc && warn_nothing_measured(&l, false))
      rc = EXIT_NOTHING;
    omplens_cli_parts_free(&l.parts); /* before its spool goes */
    if (omplens_cli_mpi_send_result(m, rc, err, sizeof err))
      mpi_fail(m, rc ? rc : EXIT_SOFTWARE, err);
    free(at);
    fclose(spool);
  }
  free((void *)r.mine);
  loaded_free(&l);
  omplens_cli_plan_free(&plan);
  return rc;
}

static int handle_report(int argc, char **argv) {
  options o = {DEFAULT_OUTPUT_DIR, DEFAULT_TOP, 0, 0, ~0u, NULL, 0, 0, 0};
  int env_rank, env_size, distributed = omplens_cli_mpi_wanted(&env_rank, &env_size);
  silent_errors = distributed && env_rank > 0; /* rank 0 tells them */
  int first = parse_options(argc, argv, &o);
  silent_errors = 0;
  if (first < 0)
    return first == PARSED_HELP ? EXIT_OK : EXIT_USAGE;
  if (first >= argc) {
    if (!(distributed && env_rank > 0))
      error("report needs at least one trace file or directory");
    return EXIT_USAGE;
  }
  if (distributed) {
    omplens_cli_mpi m;
    char err[1024];
    if (omplens_cli_mpi_open(&m, err, sizeof err)) {
      if (env_rank <= 0) /* one line for the job */
        error("distributed report (mpirun omplens report): %s", err);
      return EXIT_SOFTWARE;
    }
    if (m.size == 1 && env_size > 1) { /* each rank alone: another MPI's launcher */
      if (env_rank <= 0)
        error("distributed report (mpirun omplens report): the launcher started %d ranks, "
              "but %s sees one: libomplens-mpi.so was built with another MPI than the "
              "launcher's (use that MPI's mpirun, or OMPLENS_MPI=0 and one process)",
              env_size, m.p->library());
      omplens_cli_mpi_close(&m);
      return EXIT_SOFTWARE;
    }
    int rc = 0;
    if (m.size > 1)
      rc = report_distributed(&o, argv + first, (size_t)(argc - first), &m);
    omplens_cli_mpi_close(&m);
    if (m.size > 1)
      return rc;
    /* A job of one: the report of one process, below. */
  }
  if (check_output_dir(o.output_dir))
    return EXIT_CANTCREAT;
  loaded l = {0};
  l.compile_commands = o.compile_commands;
  l.window = &o;
  l.o = &o;
  use_parse_cache(o.output_dir, true);
  int rc = 0;
  omplens_progress_start(o.quiet);
  for (int i = first; i < argc; i++)
    expect_input(argv[i]);
  expect_outputs(o.outputs);
  char **names = NULL;
  size_t n = 0;
  if (in_parts_allowed())
    rc = list_inputs(argv + first, (size_t)(argc - first), &names, &n);
  if (!rc && n > 1) {
    rc = load_in_parts(&l, names, n);
  } else {
    for (int i = first; i < argc && !rc; i++)
      rc = handle_input(&l, argv[i]);
  }
  omplens_cli_free_names(names, n);
  if (!rc)
    rc = write_reports(&l, &o, stdout, -1);
  omplens_progress_stop();
  if (!rc)
    warn_jobs(&l);
  if (!rc && warn_nothing_measured(&l, false))
    rc = EXIT_NOTHING;
  loaded_free(&l);
  return rc;
}

/* ---- run ----------------------------------------------------------------- */

/* The collector sits next to the binary, in BIN/../lib/: in the build tree
 * and in an install tree (cmake --install), wherever that was copied to.
 * /proc/self/exe names the binary itself, through any symlink to it. */
static int find_collector(char *out, size_t size) {
  const char *env = getenv("OMPLENS_COLLECTOR");
  if (env && *env) {
    if (format_path(out, size, "%s", env))
      return -1;
    if (access(out, R_OK)) {
      error("collector library not found at %s (set by OMPLENS_COLLECTOR)", out);
      return -1;
    }
  } else {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
      error("cannot find omplens's own path in /proc/self/exe: set OMPLENS_COLLECTOR "
            "to libomplens-collector.so");
      return -1;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash)
      *slash = 0;
    if (format_path(out, size, "%s/../lib/libomplens-collector.so", self))
      return -1;
    if (access(out, R_OK)) {
      error("collector library not found at %s: keep omplens in the tree `cmake --install` "
            "makes (bin/omplens, lib/libomplens-collector.so), or set OMPLENS_COLLECTOR", out);
      return -1;
    }
  }
  char *real = realpath(out, NULL);
  if (real && strlen(real) < size)
    strcpy(out, real);
  free(real);
  return 0;
}

/* LLVM 19's libomptarget connects to OMPT by dlopen("libomp.so"), a name that
 * Debian installs only in LLVM's lib directory: without it on the search path
 * the runtime reports no target events at all. Appending the directory keeps
 * every library the program already finds where it is. */
static int add_llvm_library_path(void) {
  const char *dir = getenv("OMPLENS_LIBOMP_DIR");
  if (!dir || !*dir)
    dir = OMPLENS_LLVM_DIR "/lib";
  const char *prev = getenv("LD_LIBRARY_PATH");
  if (prev && strstr(prev, dir))
    return 0;
  char *value = NULL;
  if (prev && *prev ? asprintf(&value, "%s:%s", prev, dir) < 0 : asprintf(&value, "%s", dir) < 0)
    return -1;
  int rc = setenv("LD_LIBRARY_PATH", value, 1);
  free(value);
  return rc;
}

/* Puts `value` in front of the `sep`-separated list in variable `name`. */
static int prepend_env(const char *name, const char *value, const char *sep) {
  const char *prev = getenv(name);
  char *v = NULL;
  if (prev && *prev ? asprintf(&v, "%s%s%s", value, sep, prev) < 0 : asprintf(&v, "%s", value) < 0)
    return -1;
  int rc = setenv(name, v, 1);
  free(v);
  return rc;
}

/* Sets the variables the collector needs, keeping the rest of the
 * environment as it is. Preloading lets the collector's wrappers of the
 * offload entry points see directive locations and map-item names. */
static int setup_environment(const char *collector, const char *trace_dir, int preload) {
  int rc = prepend_env("OMP_TOOL_LIBRARIES", collector, ":") | setenv("OMP_TOOL", "enabled", 1) |
           setenv("OMPLENS_OUTPUT_DIR", trace_dir, 1) | add_llvm_library_path();
  if (preload)
    rc |= prepend_env("LD_PRELOAD", collector, " ");
  if (OMPLENS_ASAN_RUNTIME[0]) { /* sanitizer build: ASan must come first */
    rc |= prepend_env("LD_PRELOAD", OMPLENS_ASAN_RUNTIME, " ");
    /* The profiled program is not ours to leak-check (libomp keeps memory
     * until exit), and its own signals must end it as they would without
     * omplens; the collector's memory errors still abort it. */
    rc |= prepend_env("ASAN_OPTIONS",
                      "detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_abort=0:"
                      "handle_sigfpe=0:handle_sigill=0", ":");
  }
  return rc;
}

/* The run's trace directory, OUTPUT/traces/STAMP-PID (a rank of an MPI
 * job: OUTPUT/traces/job-KEY, which the job's ranks share), made with its
 * parents; made_output (PATH_MAX bytes) is the topmost directory of OUTPUT
 * made here, "" when OUTPUT existed. */
static int make_trace_dir(const char *output_dir, char *out, size_t size, char *made_output) {
  char sub[PATH_MAX];
  if (format_path(sub, sizeof sub, "%s/traces", output_dir) ||
      make_dirs(output_dir, made_output, PATH_MAX) || make_dir(sub))
    return -1;
  omplens_cli_job job;
  if (omplens_cli_job_of_environment(&job)) { /* shared by the job's ranks */
    if (format_path(out, size, "%s/%s", sub, job.key))
      return -1;
    if (mkdir(out, 0755) && errno != EEXIST) {
      error("cannot create directory %s: %s", out, strerror(errno));
      return -1;
    }
    return 0;
  }
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  char stamp[32];
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  if (format_path(out, size, "%s/%s-%d", sub, stamp, (int)getpid()))
    return -1;
  if (mkdir(out, 0755)) {
    error("cannot create directory %s: %s", out, strerror(errno));
    return -1;
  }
  return 0;
}

/* Removes the run's trace directory, traces/ when that leaves it empty,
 * and the output directory with the parents made for it, those this run
 * made, while they are empty. */
static void remove_empty_dirs(const char *trace_dir, const char *output_dir,
                              const char *made_output) {
  char dir[PATH_MAX];
  rmdir(trace_dir);
  if (!format_path(dir, sizeof dir, "%s/traces", output_dir))
    rmdir(dir);
  if (!made_output[0] || format_path(dir, sizeof dir, "%s", output_dir))
    return;
  for (char *slash = dir + strlen(dir); slash; slash = strrchr(dir, '/')) {
    *slash = 0; /* the first time, on the terminator: OUTPUT itself */
    if (strlen(dir) < strlen(made_output))
      return; /* above what was made here */
    if (rmdir(dir) && errno != ENOENT)
      return; /* not empty: neither are its parents */
    if (!strcmp(dir, made_output))
      return;
  }
}

/* Runs argv, waits, and returns the status a shell would report. */
static int spawn_and_wait(char **argv, int *status_out) {
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc) {
    error("cannot run %s: %s", argv[0], strerror(rc));
    return rc == ENOENT ? EXIT_NOINPUT : EXIT_SOFTWARE;
  }
  /* Ctrl-C reaches the program; omplens stays to report what was recorded. */
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      error("lost the program: %s", strerror(errno));
      return EXIT_SOFTWARE;
    }
  }
  signal(SIGINT, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  if (WIFEXITED(status)) {
    *status_out = WEXITSTATUS(status);
  } else {
    *status_out = 128 + WTERMSIG(status);
    error("%s was killed by signal %d (%s); reporting what was recorded", argv[0],
          WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  return 0;
}

static int report_run(const options *opts, const char *trace_dir, int status);

static int handle_run(int argc, char **argv) {
  options o = {DEFAULT_OUTPUT_DIR, DEFAULT_TOP, 0, 0, ~0u, NULL, 0, 0, 0};
  int first = parse_options(argc, argv, &o);
  if (first < 0)
    return first == PARSED_HELP ? EXIT_OK : EXIT_USAGE;
  if (first < argc && !strcmp(argv[first], "--"))
    first++;
  if (first >= argc) {
    error("run needs a program: omplens run [OPTIONS] -- PROGRAM [ARGS...]");
    return EXIT_USAGE;
  }
  char collector[PATH_MAX], trace_dir[PATH_MAX], made_output[PATH_MAX];
  if (find_collector(collector, sizeof collector))
    return EXIT_NOINPUT;
  if (make_trace_dir(o.output_dir, trace_dir, sizeof trace_dir, made_output))
    return EXIT_CANTCREAT;
  if (setup_environment(collector, trace_dir, !o.no_preload)) {
    error("cannot set up the environment: %s", strerror(errno));
    return EXIT_SOFTWARE;
  }
  int status = 0;
  int rc = spawn_and_wait(argv + first, &status);
  omplens_cli_job job;
  bool ranked = omplens_cli_job_of_environment(&job);
  if (rc && !ranked) { /* nothing ran: leave no empty directories behind */
    remove_empty_dirs(trace_dir, o.output_dir, made_output);
    return rc;
  }
  if (ranked) { /* the job's last rank to finish reports on all of them */
    int job_status = status, last = omplens_cli_job_finish(trace_dir, &job, rc ? rc : status,
                                                           &job_status);
    if (last < 0)
      error("cannot count the finished ranks in %s: %s", trace_dir, strerror(errno));
    if (last <= 0 || rc)
      return rc ? rc : status;
    rc = report_run(&o, trace_dir, job_status);
    omplens_cli_job_release();
    return rc ? rc : status;
  }
  rc = report_run(&o, trace_dir, status);
  return rc ? rc : status;
}

/* The report of run's trace directory, for a program that exited with
 * status. Returns 0 or an exit code. */
static int report_run(const options *opts, const char *trace_dir, int status) {
  options o = *opts;
  int rc;
  loaded l = {0};
  l.compile_commands = o.compile_commands;
  /* A program that died may have done less than its code says (a kernel
   * that never ran, data never copied back): no diff is made from it. */
  char no_diff[160];
  if (status > 128) {
    snprintf(no_diff, sizeof no_diff,
             "the program was killed by signal %d (%s), so the run may not show what its "
             "code does: no diff is made from it",
             status - 128, strsignal(status - 128));
    l.no_diff = no_diff;
  }
  l.o = &o;
  use_parse_cache(o.output_dir, true);
  omplens_progress_start(o.quiet); /* the program has finished: the terminal is ours */
  expect_input(trace_dir);
  expect_outputs(o.outputs);
  rc = handle_trace_dir(&l, trace_dir);
  if (rc == EXIT_NOINPUT)
    error("the program left no trace: was it built with -fopenmp and offloading, and "
          "linked with LLVM's libomp?");
  if (!rc)
    rc = write_reports(&l, &o, stderr, status);
  omplens_progress_stop();
  if (!rc) {
    warn_jobs(&l);
    warn_nothing_measured(&l, status > 128); /* run keeps the program's own status */
  }
  loaded_free(&l);
  return rc;
}

/* ---- dump ---------------------------------------------------------------- */

/* The event's call path as "file:line<file:line...", innermost first. */
static void print_call_path(const omplens_trace *t, size_t i, omplens_annotator *a) {
  omplens_call_site sites[OMPLENS_MAX_CALL_SITES];
  size_t n = omplens_annotate_call_path(a, omplens_trace_codeptr(t, &omplens_trace_events(t, NULL)[i]),
                                        omplens_trace_event_call_path(t, i), sites,
                                        OMPLENS_MAX_CALL_SITES);
  if (!n)
    fputs("-", stdout);
  for (size_t k = 0; k < n; k++)
    printf("%s%s:%u", k ? "<" : "", strrchr(sites[k].file, '/') ? strrchr(sites[k].file, '/') + 1
                                                                 : sites[k].file,
           sites[k].line);
  putchar('\n');
}

static void print_event(const omplens_trace *t, const omplens_event *e, const omplens_region *r,
                        size_t nr, omplens_annotator *a) {
  const char *construct = e->region < nr ? omplens_construct_kind_name(r[e->region].kind) : "-";
  const char *source = e->region < nr && r[e->region].source ? r[e->region].source : "-";
  omplens_variable v;
  const char *var = omplens_annotate_variable(a, e, &v) ? "-" : v.item;
  printf("%" PRIu64 "\t%" PRIu64 "\t%s\t%d\t%d\t0x%" PRIx64 "\t0x%" PRIx64 "\t%" PRIu64
         "\t%016" PRIx64 "\t0x%" PRIx64 "\t%s\t%u\t%s\t%s\t",
         (uint64_t)e->begin_ns, (uint64_t)(e->end_ns - e->begin_ns), omplens_event_kind_name(e->kind),
         (int)e->device, (int)e->peer_device, e->host_addr, e->dev_addr, (uint64_t)e->bytes,
         (e->flags & OMPLENS_EVF_HASHED) ? e->hash : 0, omplens_trace_codeptr(t, e), construct, (unsigned)e->thread, source, var);
}

static int handle_dump(int argc, char **argv) {
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    print_usage(stdout);
    return EXIT_OK;
  }
  if (argc != 2) {
    error("dump needs exactly one trace file");
    return EXIT_USAGE;
  }
  omplens_trace *t;
  int rc = omplens_trace_open(argv[1], &t), err = errno;
  if (rc) {
    error("cannot read trace %s: %s", argv[1], omplens_cli_trace_error(argv[1], rc, err));
    return rc == OMPLENS_TRACE_EIO && err == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR;
  }
  size_t n, nr;
  const omplens_event *ev = omplens_trace_events(t, &n);
  const omplens_region *reg = omplens_trace_regions(t, &nr);
  printf("#begin_ns\tduration_ns\tkind\tdevice\tpeer\thost_addr\tdevice_addr\tbytes\thash\t"
         "codeptr\tconstruct\tthread\tsource\tvariable\tcall_path\n");
  size_t np;
  const omplens_trace_pause *pauses = omplens_trace_pauses(t, &np);
  for (size_t i = 0; i < np; i++) /* omp_control_tool: nothing recorded then */
    printf("#paused\t%" PRIu64 "\t%" PRIu64 "\n", pauses[i].begin_ns, pauses[i].end_ns);
  size_t nw;
  const omplens_trace_wait *waits = omplens_trace_waits(t, &nw);
  for (size_t i = 0; i < nw; i++) /* host waits for nowait target tasks */
    printf("#wait\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\t%u\t%u\t0x%" PRIx64 "\n",
           waits[i].begin_ns, waits[i].end_ns, waits[i].sync_end_ns,
           omplens_wait_kind_name(waits[i].kind), waits[i].thread, waits[i].region,
           waits[i].codeptr);
  omplens_annotator *a = NULL;
  omplens_annotator_create(t, NULL, &a);
  for (size_t i = 0; i < n; i++) {
    print_event(t, &ev[i], reg, nr, a);
    print_call_path(t, i, a);
  }
  omplens_annotator_destroy(a);
  const char *damage = omplens_trace_damage(t);
  if (damage)
    fprintf(stderr, "%s", damage);
  omplens_trace_close(t);
  return EXIT_OK;
}

int main(int argc, char **argv) {
  /* One heap for both threads of a report: the timeline's thread then
   * reuses what the detectors freed instead of growing a heap of its own
   * (1.5-3 MB less peak at 1M events). */
  mallopt(M_ARENA_MAX, 1);
  /* Blocks up to 32 MiB come from that heap, which keeps what is freed
   * below 64 MiB: where glibc's own thresholds end up after a few frees,
   * from the start. A report makes and frees many blocks of 128 KiB to a
   * few MiB (growing tables, the renderers' buffers and lanes); mapped
   * apart, each would be unmapped when freed and its pages faulted in
   * again when the next block takes its place. 5% less time at 1M events
   * here, with the same peak RSS (docs/performance.md). */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  if (argc < 2) {
    error("no command given; try 'omplens --help'");
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, OMPLENS_PARSE_HELPER_COMMAND))
    return omplens_parse_helper_main(argc, argv);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    print_usage(stdout);
    return EXIT_OK;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("omplens %s\n", OMPLENS_VERSION);
    return EXIT_OK;
  }
  if (!strcmp(cmd, "run"))
    return handle_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "report"))
    return handle_report(argc - 1, argv + 1);
  if (!strcmp(cmd, "dump"))
    return handle_dump(argc - 1, argv + 1);
  if (!strcmp(cmd, "diff"))
    return omplens_cmd_diff(argc - 1, argv + 1);
  error("unknown command '%s'; try 'omplens --help'", cmd);
  return EXIT_USAGE;
}
