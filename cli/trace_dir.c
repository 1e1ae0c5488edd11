/* Directory listing for report and diff: see trace_dir.h. */
#include "omplens_trace.h"
#include "trace_dir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void omplens_cli_free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

/* Whether dir/name is a *.trace entry (want_dirs 0) or a directory (1):
 * 1 with its path in *path (caller frees), 0 when not, -1 out of memory.
 * A *.trace entry that is no file is kept: reading it then says why it
 * is not a trace, rather than the directory seeming to hold none. */
static int wanted_entry(const char *dir, const char *name, int want_dirs, char **path) {
  size_t len = strlen(name);
  if (name[0] == '.' || (!want_dirs && (len < 7 || strcmp(name + len - 6, ".trace"))))
    return 0;
  size_t dlen = strlen(dir); /* "DIR/" as a shell's glob gives it: one slash */
  while (dlen > 1 && dir[dlen - 1] == '/')
    dlen--;
  if (asprintf(path, "%.*s/%s", (int)dlen, dir, name) < 0)
    return -1;
  struct stat st;
  if (!want_dirs || (!stat(*path, &st) && S_ISDIR(st.st_mode)))
    return 1;
  free(*path);
  return 0;
}

long omplens_cli_list_traces(const char *dir, char ***out, char **source) {
  char *from = NULL;
  long n = omplens_cli_list_dir(dir, 0, out);
  if (n > 0)
    from = strdup(dir);
  if (!n) { /* an `omplens run` output directory: its latest run with traces */
    free(*out);
    *out = NULL;
    char *runs_dir, **runs;
    if (asprintf(&runs_dir, "%s/traces", dir) < 0)
      return 0;
    long nruns = omplens_cli_list_dir(runs_dir, 1, &runs);
    free(runs_dir);
    for (long i = nruns - 1; i >= 0 && n <= 0; i--) {
      omplens_cli_free_names(*out, 0);
      n = omplens_cli_list_dir(runs[i], 0, out);
      if (n > 0)
        from = strdup(runs[i]);
    }
    if (nruns > 0)
      omplens_cli_free_names(runs, (size_t)nruns);
    if (n <= 0) {
      omplens_cli_free_names(*out, 0);
      *out = NULL;
      n = 0;
    }
  }
  if (source)
    *source = from;
  else
    free(from);
  return n;
}

long omplens_cli_list_dir(const char *dir, int want_dirs, char ***out) {
  *out = NULL;
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  char **names = NULL, *path;
  size_t n = 0;
  struct dirent *e;
  int ok;
  while ((e = readdir(d)) && (ok = wanted_entry(dir, e->d_name, want_dirs, &path)) >= 0) {
    if (!ok)
      continue;
    char **grown = realloc(names, (n + 1) * sizeof *names);
    if (!grown) {
      free(path);
      break;
    }
    names = grown;
    names[n++] = path;
  }
  closedir(d);
  if (n)
    qsort(names, n, sizeof *names, cmp_name);
  *out = names;
  return (long)n;
}

const char *omplens_cli_trace_error(const char *path, int rc, int err) {
  struct stat st;
  if (rc == OMPLENS_TRACE_EIO)
    return strerror(err);
  if (rc == OMPLENS_TRACE_ENOTTRACE && !stat(path, &st) && S_ISREG(st.st_mode) && !st.st_size)
    return "the file is empty: the collector wrote nothing into it (it could not start, or the "
           "file was cut)";
  return omplens_trace_strerror(rc);
}
