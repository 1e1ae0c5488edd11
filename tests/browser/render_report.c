/* render_report: writes report.html and report.md for the traces of a
 * directory, through omplens_report_document() and the renderers, the way
 * `omplens run` does. The browser test uses it while the CLI does not write
 * report.html itself. Directives are attributed to source lines by the
 * annotator, as in the CLI.
 *
 *   render_report TRACE_DIR OUTPUT_DIR
 *
 * Exit codes: 0 written, 64 usage, 65 unreadable trace, 73 cannot write. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_render.h"

enum exit_code { EXIT_OK = 0, EXIT_USAGE = 64, EXIT_DATAERR = 65, EXIT_CANTCREAT = 73 };

#define MAX_TRACES 64

typedef struct loaded {
  omplens_trace *traces[MAX_TRACES];
  omplens_analysis *analyses[MAX_TRACES];
  omplens_report_process procs[MAX_TRACES];
  omplens_annotator *annotators[MAX_TRACES];
  size_t n;
} loaded;

static int load(loaded *l, const char *path) {
  if (l->n == MAX_TRACES)
    return 0;
  omplens_trace *t;
  if (omplens_trace_open(path, &t)) {
    fprintf(stderr, "render_report: cannot read %s\n", path);
    return -1;
  }
  if (omplens_detect_trace(t, &l->analyses[l->n])) {
    omplens_trace_close(t);
    return -1;
  }
  l->traces[l->n] = t;
  omplens_annotator_create(t, NULL, &l->annotators[l->n]); /* NULL: module+offset only */
  l->procs[l->n] = (omplens_report_process){t, l->analyses[l->n], l->annotators[l->n], NULL, NULL};
  l->n++;
  return 0;
}

static int write_file(const char *dir, const char *name, const json_t *doc, const loaded *l,
                      const omplens_report_input *in) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  omplens_render_options opt = {.input = in}; /* the timeline marks every instance */
  int rc = strstr(name, ".html")
               ? omplens_render_html(doc, (const omplens_trace *const *)l->traces, l->n, &opt, f)
               : omplens_render_markdown(doc, &opt, f);
  if (fclose(f) || rc) {
    fprintf(stderr, "render_report: cannot write %s: %s\n", path, omplens_report_strerror(rc));
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: render_report TRACE_DIR OUTPUT_DIR\n");
    return EXIT_USAGE;
  }
  static loaded l;
  DIR *d = opendir(argv[1]);
  struct dirent *e;
  char path[4096];
  while (d && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 7 || strcmp(e->d_name + len - 6, ".trace"))
      continue;
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    if (load(&l, path))
      return EXIT_DATAERR;
  }
  if (d)
    closedir(d);
  if (!l.n) {
    fprintf(stderr, "render_report: no .trace files in %s\n", argv[1]);
    return EXIT_DATAERR;
  }
  omplens_report_input in = {l.procs, l.n, 0};
  json_t *doc = omplens_report_document(&in);
  int rc = !doc || write_file(argv[2], "report.html", doc, &l, &in) ||
                     write_file(argv[2], "report.md", doc, &l, &in)
               ? EXIT_CANTCREAT : EXIT_OK;
  json_decref(doc);
  for (size_t i = 0; i < l.n; i++) {
    omplens_annotator_destroy(l.annotators[i]);
    omplens_analysis_free(l.analyses[i]);
    omplens_trace_close(l.traces[i]);
  }
  return rc;
}
