/* Which sources of the compile database include a header: a header is
 * parsed through a translation unit that includes it, as the build parsed
 * it, never alone when one is known. The #include lines are followed from
 * each source, resolved as clang resolves them (the including file's
 * directory for "x", then -iquote, then -I, -isystem and -idirafter), so
 * that a header reached through other headers is found too. Conditions
 * (#if) are not evaluated: a source found here is a candidate, and reading
 * its unit decides. Directories outside the entry's flags (/usr/include)
 * are not followed: a system header includes no header of the program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "directives_internal.h"

#define MAX_DEPTH 32
#define MAX_FILES 8192   /* files read in one search, all sources together */
#define MAX_SOURCES 64   /* sources tried, nearest first                   */
#define MAX_INCLUDERS 4  /* sources handed back                            */

typedef struct walk {
  const char *target;               /* the header, absolute */
  omplens_directives__vec seen;     /* char *: files already followed */
  omplens_directives__vec quote;    /* char *: -iquote */
  omplens_directives__vec angle;    /* char *: -I, -isystem, -idirafter */
  size_t *budget;                   /* files the search may still read */
  bool oom;
} walk;

static void free_paths(omplens_directives__vec *v)
{
  for (size_t i = 0; i < v->len; i++)
    free(OMPLENS_DIRECTIVES__AT(*v, char *, i));
  omplens_directives__vec_free(v);
}

static char *read_text(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (f == NULL)
    return NULL;
  char *text = NULL;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
      (uint64_t)st.st_size <= OMPLENS_DIRECTIVES_MAX_FILE &&
      (text = malloc((size_t)st.st_size + 1)) != NULL) {
    *size = fread(text, 1, (size_t)st.st_size, f);
    text[*size] = '\0';
  }
  fclose(f);
  return text;
}

/* dir/name made absolute, when it names a file. */
static char *try_dir(const char *dir, const char *name, size_t len, bool *oom)
{
  size_t n = strlen(dir) + len + 2;
  char *joined = malloc(n);
  if (joined == NULL) {
    *oom = true;
    return NULL;
  }
  snprintf(joined, n, "%s/%.*s", dir, (int)len, name);
  char *real = realpath(joined, NULL);
  free(joined);
  struct stat st;
  if (real != NULL && (stat(real, &st) != 0 || !S_ISREG(st.st_mode))) {
    free(real);
    real = NULL;
  }
  return real;
}

static char *try_dirs(const omplens_directives__vec *dirs, const char *name, size_t len,
                      bool *oom)
{
  char *found = NULL;
  for (size_t i = 0; found == NULL && !*oom && i < dirs->len; i++)
    found = try_dir(OMPLENS_DIRECTIVES__AT(*dirs, char *, i), name, len, oom);
  return found;
}

/* The file an #include names, from the file that includes it. */
static char *resolve_include(walk *w, const char *from, char delim, const char *name,
                             size_t len)
{
  char *found = NULL;
  if (name[0] == '/')
    return try_dir("", name, len, &w->oom);
  if (delim == '"') {
    const char *slash = strrchr(from, '/');
    char *dir = omplens_directives__strndup(from, slash != NULL ? (size_t)(slash - from) : 0);
    w->oom = w->oom || dir == NULL;
    found = dir != NULL ? try_dir(dir[0] != '\0' ? dir : "/", name, len, &w->oom) : NULL;
    free(dir);
    if (found == NULL)
      found = try_dirs(&w->quote, name, len, &w->oom);
  }
  return found != NULL ? found : try_dirs(&w->angle, name, len, &w->oom);
}

static bool seen_before(walk *w, const char *path)
{
  for (size_t i = 0; i < w->seen.len; i++)
    if (strcmp(OMPLENS_DIRECTIVES__AT(w->seen, char *, i), path) == 0)
      return true;
  return false;
}

static bool follow(walk *w, const char *file, int depth);

/* One #include line of file: whether it leads to the target. */
static bool follow_include(walk *w, const char *file, char delim, const char *name,
                           size_t len, int depth)
{
  char *path = resolve_include(w, file, delim, name, len);
  if (path == NULL)
    return false;
  if (strcmp(path, w->target) == 0) {
    free(path);
    return true;
  }
  if (seen_before(w, path)) {
    free(path);
    return false;
  }
  if (!omplens_directives__vec_push(&w->seen, sizeof(path), &path)) {
    w->oom = true;
    free(path);
    return false;
  }
  return follow(w, path, depth + 1); /* path now belongs to seen */
}

static bool follow(walk *w, const char *file, int depth)
{
  if (depth > MAX_DEPTH || *w->budget == 0 || w->oom)
    return false;
  --*w->budget;
  size_t size = 0;
  char *text = read_text(file, &size);
  if (text == NULL)
    return false;
  bool found = false;
  const char *end = text + size;
  for (const char *line = text; !found && !w->oom && line < end;) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    eol = eol != NULL ? eol : end;
    const char *p = line;
    while (p < eol && (*p == ' ' || *p == '\t'))
      p++;
    char delim;
    const char *name;
    size_t len;
    if (omplens_directives__include_at(p, eol, &delim, &name, &len))
      found = follow_include(w, file, delim, name, len, depth);
    line = eol + 1;
  }
  free(text);
  return found;
}

/* Whether source i of db includes the target, through any headers. */
static bool includes(const omplens_directives__compdb *db, size_t i, const char *target,
                     size_t *budget, bool *oom)
{
  walk w = {.target = target, .budget = budget};
  const char *source = omplens_directives__compdb_file(db, i);
  bool found = false;
  if (omplens_directives__compdb_include_dirs(db, i, &w.quote, &w.angle) != 0)
    w.oom = true;
  else if (strcmp(source, target) != 0)
    found = follow(&w, source, 0);
  *oom = w.oom;
  free_paths(&w.seen);
  free_paths(&w.quote);
  free_paths(&w.angle);
  return found;
}

static size_t common_prefix(const char *a, const char *b)
{
  size_t n = 0;
  while (a[n] != '\0' && a[n] == b[n])
    n++;
  return n;
}

typedef struct ranked {
  size_t index, prefix;
} ranked;

static int by_nearness(const void *x, const void *y)
{
  const ranked *a = x, *b = y;
  if (a->prefix != b->prefix)
    return a->prefix > b->prefix ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* Whether source is in out already: a database may hold several entries
 * of one source (bear records the driver's -cc1 jobs too). */
static bool listed(const omplens_directives__vec *out, const char *source)
{
  for (size_t i = 0; i < out->len; i++)
    if (strcmp(OMPLENS_DIRECTIVES__AT(*out, char *, i), source) == 0)
      return true;
  return false;
}

int omplens_directives__compdb_includers(omplens_directive_index *ix, const char *header,
                                         omplens_directives__vec *out)
{
  const omplens_directives__compdb *db = omplens_directives__compdb_for(ix, header);
  size_t n = omplens_directives__compdb_size(db);
  if (n == 0)
    return 0;
  ranked *order = malloc(n * sizeof(*order));
  if (order == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  for (size_t i = 0; i < n; i++)
    order[i] = (ranked){i, common_prefix(omplens_directives__compdb_file(db, i), header)};
  qsort(order, n, sizeof(*order), by_nearness);
  bool oom = false;
  size_t budget = MAX_FILES;
  for (size_t k = 0; k < n && k < MAX_SOURCES && out->len < MAX_INCLUDERS && budget > 0 && !oom;
       k++) {
    if (listed(out, omplens_directives__compdb_file(db, order[k].index)) ||
        !includes(db, order[k].index, header, &budget, &oom))
      continue;
    char *copy = strdup(omplens_directives__compdb_file(db, order[k].index));
    if (copy == NULL || !omplens_directives__vec_push(out, sizeof(copy), &copy)) {
      free(copy);
      oom = true;
    }
  }
  free(order);
  return oom ? OMPLENS_DIRECTIVES_ENOMEM : 0;
}
