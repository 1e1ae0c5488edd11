/* fix_driver: the fixes of recorded traces, through the public API only
 * (trace -> detect -> annotate -> omplens_fix), for the proof tests and the
 * benchmark. `omplens fix` is meant to do the same; see docs/fixes.md.
 *
 *   fix_driver [--base DIR] [--patch | --list | --findings | --removed] TRACE|DIR...
 *
 *   --patch     print one merged patch of every fix with a diff (default);
 *               paths relative to --base (default: the current directory)
 *   --list      print every fix: summary, kind, findings, prediction, diff
 *               or manual recipe
 *   --findings  print one line per finding: category, file:line, variable,
 *               instances, and the kind of its fix (or "manual"), then one
 *               per map item a kernel never names but moved, as the report's
 *               mapped-but-unreferenced findings ("mapped-but-unreferenced
 *               file:line variable operations kind"), then one per mapping
 *               left at exit: "leftover file:line variable device kind"
 *   --removed   print the prediction for all the fixes of the patch applied
 *               together: "removed_ops savings_ns run_ns speedup"
 *
 * A DIR stands for the *.trace files in it. Exit codes: 0 success, 1 a fix
 * was left out of the merged patch (overlap), 64 usage, 65 unreadable
 * trace, 70 internal error. */
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "omplens_annotate.h"
#include "omplens_detect.h"
#include "omplens_fix.h"
#include "omplens_trace.h"

enum exit_code {
  EXIT_OK = 0,
  EXIT_SKIPPED = 1,
  EXIT_USAGE = 64,
  EXIT_DATAERR = 65,
  EXIT_SOFTWARE = 70
};

enum mode { MODE_PATCH, MODE_LIST, MODE_FINDINGS, MODE_REMOVED };

typedef struct options {
  const char *base; /* --base: diff paths are relative to it */
  int mode;         /* enum mode */
} options;

/* One trace with everything derived from it. */
typedef struct loaded {
  omplens_trace *trace;
  omplens_analysis *analysis;
  omplens_annotator *annot;
  omplens_fixer *fixer;
} loaded;

static void unload(loaded *l) {
  omplens_fixer_destroy(l->fixer);
  omplens_annotator_destroy(l->annot);
  omplens_analysis_free(l->analysis);
  omplens_trace_close(l->trace);
}

static int load(const char *path, const options *o, loaded *l) {
  memset(l, 0, sizeof *l);
  int rc = omplens_trace_open(path, &l->trace);
  if (rc) {
    fprintf(stderr, "fix_driver: %s: %s\n", path, omplens_trace_strerror(rc));
    return EXIT_DATAERR;
  }
  if (omplens_detect_trace(l->trace, &l->analysis)) {
    fprintf(stderr, "fix_driver: %s: cannot analyse\n", path);
    return EXIT_SOFTWARE;
  }
  omplens_annotator_create(l->trace, NULL, &l->annot); /* NULL is accepted */
  omplens_fix_options fo = {.base_dir = o->base};
  rc = omplens_fixer_create(l->trace, l->analysis, l->annot, &fo, &l->fixer);
  if (rc) {
    fprintf(stderr, "fix_driver: %s\n", omplens_fix_strerror(rc));
    return EXIT_SOFTWARE;
  }
  return 0;
}

static int print_patch(loaded *l) {
  const char *patch, *skipped;
  int rc = omplens_fix_patch(l->fixer, 1, &patch, &skipped);
  if (rc) {
    fprintf(stderr, "fix_driver: %s\n", omplens_fix_strerror(rc));
    return EXIT_SOFTWARE;
  }
  fputs(patch, stdout);
  if (skipped)
    fprintf(stderr, "fix_driver: left out of the patch (overlapping): %s\n", skipped);
  return skipped ? EXIT_SKIPPED : 0;
}

/* The report's mapped-but-unreferenced findings (report/report_json.c):
 * items of executed kernels their body never names, that moved data. */
static void print_unreferenced(loaded *l) {
  size_t nr, nev;
  const omplens_region *r = omplens_trace_regions(l->trace, &nr);
  const omplens_event *ev = omplens_trace_events(l->trace, &nev);
  for (size_t i = 0; i < nr; i++) {
    bool seen = r[i].kind != OMPLENS_CONSTRUCT_TARGET;
    for (size_t k = 0; k < i && !seen; k++)
      seen = r[k].codeptr == r[i].codeptr;
    omplens_unreferenced u[16];
    size_t nu = seen ? 0 : omplens_annotate_unreferenced(l->annot, r[i].codeptr, u, 16);
    for (size_t j = 0; j < nu && j < 16; j++) {
      size_t ops = 0;
      for (size_t e = 0; e < nev; e++) {
        omplens_variable v;
        if (omplens_trace_codeptr(l->trace, &ev[e]) == r[i].codeptr &&
            (ev[e].kind == OMPLENS_EV_H2D || ev[e].kind == OMPLENS_EV_D2H ||
             ev[e].kind == OMPLENS_EV_ALLOC) &&
            !omplens_annotate_variable(l->annot, &ev[e], &v) && !strcmp(v.name, u[j].name))
          ops++;
      }
      if (!ops)
        continue;
      omplens_location loc;
      omplens_annotate_location(l->annot, r[i].codeptr, &loc);
      const omplens_fix *fix;
      int rc = omplens_fix_for_unreferenced(l->fixer, r[i].codeptr, u[j].name, &fix);
      const char *file = loc.file ? strrchr(loc.file, '/') : NULL;
      printf("mapped-but-unreferenced %s:%u %s %zu %s\n",
             file       ? file + 1
             : loc.file ? loc.file
                        : "?",
             loc.line, u[j].name, ops,
             rc          ? "none"
             : fix->diff ? omplens_fix_kind_name(fix->kind)
                         : "manual");
    }
  }
}

static int print_findings(loaded *l) {
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(l->analysis, &n);
  for (size_t i = 0; i < n; i++) {
    omplens_location loc;
    omplens_variable v;
    omplens_annotate_location(l->annot, f[i].codeptr, &loc);
    const char *var = "-";
    if (f[i].num_instances &&
        !omplens_annotate_variable(
            l->annot, &omplens_trace_events(l->trace, NULL)[f[i].instances[0].event], &v))
      var = v.name;
    const omplens_fix *fix;
    int rc = omplens_fix_for_finding(l->fixer, i, &fix);
    const char *file = loc.file ? strrchr(loc.file, '/') : NULL;
    printf("%s %s:%u %s %zu %s\n", omplens_category_name(f[i].category),
           file       ? file + 1
           : loc.file ? loc.file
                      : "?",
           loc.line, var, f[i].num_instances,
           rc          ? "none"
           : fix->diff ? omplens_fix_kind_name(fix->kind)
                       : "manual");
  }
  print_unreferenced(l);
  /* Leftovers come after the findings in the fix list, in order. */
  const omplens_fix *fixes;
  size_t nfix, nlo;
  const omplens_leftover *lo = omplens_analysis_leftovers(l->analysis, &nlo);
  if (omplens_fix_list(l->fixer, &fixes, &nfix))
    return EXIT_SOFTWARE;
  for (size_t i = 0; i < nlo; i++) {
    omplens_location loc;
    omplens_variable v;
    omplens_annotate_location(l->annot, lo[i].codeptr, &loc);
    const omplens_event *ev = omplens_trace_events(l->trace, NULL);
    const char *var =
        !omplens_annotate_variable(l->annot, &ev[lo[i].alloc_event], &v) ? v.name : "-";
    const omplens_fix *fix = NULL;
    for (size_t k = 0; k < nfix && !fix; k++)
      if (fixes[k].num_leftovers && fixes[k].leftovers[0] == i)
        fix = &fixes[k];
    const char *file = loc.file ? strrchr(loc.file, '/') : NULL;
    printf("leftover %s:%u %s %d %s\n",
           file       ? file + 1
           : loc.file ? loc.file
                      : "?",
           loc.line, var, lo[i].device,
           !fix        ? "none"
           : fix->diff ? omplens_fix_kind_name(fix->kind)
                       : "manual");
  }
  return 0;
}

/* All fixes of the merged patch together. */
static int print_removed(loaded *l) {
  uint64_t savings;
  double speedup;
  size_t removed;
  if (omplens_fix_predict_all(l->fixer, &savings, &speedup, &removed))
    return EXIT_SOFTWARE;
  const omplens_program_total *t = omplens_analysis_total(l->analysis);
  printf("%zu %" PRIu64 " %" PRIu64 " %.4f\n", removed, savings, t->run_ns, speedup);
  return 0;
}

static int handle_trace(const char *path, const options *o) {
  loaded l;
  int rc = load(path, o, &l);
  if (!rc) {
    switch (o->mode) {
    case MODE_PATCH:
      rc = print_patch(&l);
      break;
    case MODE_LIST:
      rc = omplens_fix_print(l.fixer, stdout, 1) ? EXIT_SOFTWARE : 0;
      break;
    case MODE_FINDINGS:
      rc = print_findings(&l);
      break;
    default:
      rc = print_removed(&l);
      break;
    }
  }
  unload(&l);
  return rc;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int handle_dir(const char *dir, const options *o) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "fix_driver: cannot open %s\n", dir);
    return EXIT_DATAERR;
  }
  char *names[256];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    size_t len = strlen(e->d_name);
    if (len > 6 && !strcmp(e->d_name + len - 6, ".trace") &&
        asprintf(&names[n], "%s/%s", dir, e->d_name) >= 0)
      n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_str);
  int rc = n ? 0 : EXIT_DATAERR;
  for (size_t i = 0; i < n; i++) {
    if (!rc || rc == EXIT_SKIPPED) {
      int r = handle_trace(names[i], o);
      rc = r ? r : rc;
    }
    free(names[i]);
  }
  return rc;
}

int main(int argc, char **argv) {
  options o = {NULL, MODE_PATCH};
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--base") && i + 1 < argc)
      o.base = argv[++i];
    else if (!strcmp(argv[i], "--patch"))
      o.mode = MODE_PATCH;
    else if (!strcmp(argv[i], "--list"))
      o.mode = MODE_LIST;
    else if (!strcmp(argv[i], "--findings"))
      o.mode = MODE_FINDINGS;
    else if (!strcmp(argv[i], "--removed"))
      o.mode = MODE_REMOVED;
    else
      break;
  }
  if (i == argc) {
    fprintf(stderr,
            "usage: fix_driver [--base DIR] [--patch|--list|--findings|--removed] TRACE|DIR...\n");
    return EXIT_USAGE;
  }
  int rc = 0;
  for (; i < argc; i++) {
    struct stat st;
    int r = !stat(argv[i], &st) && S_ISDIR(st.st_mode) ? handle_dir(argv[i], &o)
                                                       : handle_trace(argv[i], &o);
    rc = r ? r : rc;
  }
  return rc;
}
