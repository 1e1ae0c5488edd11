/* The directive index's public side: creating and destroying it, naming
 * codes and kinds, and the order in which a lookup reads sources (the file
 * itself, or the unit that includes it) before matching. Design notes:
 * docs/directives.md. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "directives_internal.h"
#include "libclang_dl.h"

const char *omplens_directives_strerror(int err)
{
  switch (err) {
  case OMPLENS_DIRECTIVES_OK:
    return "success";
  case OMPLENS_DIRECTIVES_EINVAL:
    return "invalid argument (no index, no file name, or no result to fill)";
  case OMPLENS_DIRECTIVES_ENOMEM:
    return "out of memory";
  case OMPLENS_DIRECTIVES_ENOENT:
    return "source file not found (moved or deleted since the build? "
           "a relative name needs the DWARF comp_dir)";
  case OMPLENS_DIRECTIVES_EIO:
    return "source file cannot be read (not a regular file, or no permission)";
  case OMPLENS_DIRECTIVES_EFBIG:
    return "source file too large to be hand-written code";
  case OMPLENS_DIRECTIVES_ECOMPDB:
    return "compile_commands.json cannot be read or is not a JSON array";
  default:
    return "unknown directive index error";
  }
}

const char *omplens_directive_kind_name(int kind)
{
  switch (kind) {
  case OMPLENS_DIRECTIVE_TARGET:
    return "target";
  case OMPLENS_DIRECTIVE_TARGET_DATA:
    return "target data";
  case OMPLENS_DIRECTIVE_TARGET_ENTER_DATA:
    return "target enter data";
  case OMPLENS_DIRECTIVE_TARGET_EXIT_DATA:
    return "target exit data";
  case OMPLENS_DIRECTIVE_TARGET_UPDATE:
    return "target update";
  default:
    return "unknown";
  }
}

const char *omplens_directive_confidence_name(int confidence)
{
  switch (confidence) {
  case OMPLENS_MATCH_NONE:
    return "none";
  case OMPLENS_MATCH_EXACT:
    return "exact";
  case OMPLENS_MATCH_NEAREST:
    return "nearest";
  case OMPLENS_MATCH_AMBIGUOUS:
    return "ambiguous";
  default:
    return "unknown";
  }
}

const char *omplens_map_type_name(int map_type)
{
  static const char *const names[] = {"none",  "to",      "from",   "tofrom",
                                      "alloc", "release", "delete", "present"};
  if (map_type < 0 || (size_t)map_type >= sizeof(names) / sizeof(names[0]))
    return "unknown";
  return names[map_type];
}

/* ---- file names ---- */

static const char *extension(const char *path)
{
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash != NULL ? slash : path, '.');
  return dot != NULL ? dot + 1 : "";
}

static bool one_of(const char *ext, const char *const *list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(ext, list[i]) == 0)
      return true;
  return false;
}

bool omplens_directives__is_cxx(const char *path)
{
  static const char *const cxx[] = {"cpp", "cc", "cxx", "C",  "c++",
                                    "hpp", "hh", "hxx", "H", "ipp"};
  return one_of(extension(path), cxx, sizeof(cxx) / sizeof(cxx[0]));
}

bool omplens_directives__is_header(const char *path)
{
  static const char *const sources[] = {"c", "cpp", "cc", "cxx", "C", "c++", "i", "ii"};
  return !one_of(extension(path), sources, sizeof(sources) / sizeof(sources[0]));
}

/* ---- creating ---- */

static char **copy_strings(const char *const *from, size_t n, bool *ok)
{
  if (n == 0 || from == NULL)
    return NULL;
  char **to = calloc(n, sizeof(*to));
  for (size_t i = 0; to != NULL && i < n; i++) {
    to[i] = strdup(from[i] != NULL ? from[i] : "");
    *ok = *ok && to[i] != NULL;
  }
  *ok = *ok && to != NULL;
  return to;
}

static void free_strings(char **s, size_t n)
{
  for (size_t i = 0; s != NULL && i < n; i++)
    free(s[i]);
  free(s);
}

static int copy_options(omplens_directive_index *ix,
                        const omplens_directive_options *o)
{
  bool ok = true;
  ix->extra_args = copy_strings(o->extra_args, o->num_extra_args, &ok);
  ix->num_extra_args = ix->extra_args != NULL ? o->num_extra_args : 0;
  ix->sources = copy_strings(o->sources, o->num_sources, &ok);
  ix->num_sources = ix->sources != NULL ? o->num_sources : 0;
  ix->binaries = copy_strings(o->binaries, o->num_binaries, &ok);
  ix->num_binaries = ix->binaries != NULL ? o->num_binaries : 0;
  if (o->comp_dir != NULL && (ix->comp_dir = strdup(o->comp_dir)) == NULL)
    ok = false;
  if (o->compile_commands != NULL &&
      (ix->compdb_path = strdup(o->compile_commands)) == NULL)
    ok = false;
  return ok ? 0 : OMPLENS_DIRECTIVES_ENOMEM;
}

int omplens_directive_index_create(const omplens_directive_options *opts,
                                   omplens_directive_index **out)
{
  if (out == NULL)
    return OMPLENS_DIRECTIVES_EINVAL;
  *out = NULL;
  omplens_directive_index *ix = calloc(1, sizeof(*ix));
  if (ix == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  static const omplens_directive_options none = {0};
  int err = copy_options(ix, opts != NULL ? opts : &none);
  if (err == 0 && ix->compdb_path != NULL)
    err = omplens_directives__compdb_preload(ix);
  if (err != 0) {
    omplens_directive_index_destroy(ix);
    return err;
  }
  *out = ix;
  return 0;
}

static void free_pointers(omplens_directives__vec *v)
{
  for (size_t i = 0; i < v->len; i++)
    free(OMPLENS_DIRECTIVES__AT(*v, char *, i));
  omplens_directives__vec_free(v);
}

void omplens_directive_index_destroy(omplens_directive_index *ix)
{
  if (ix == NULL)
    return;
  for (size_t i = 0; i < ix->compdbs.len; i++)
    omplens_directives__compdb_free(
        OMPLENS_DIRECTIVES__AT(ix->compdbs, omplens_directives__compdb *, i));
  omplens_directives__vec_free(&ix->compdbs);
  omplens_directives__vec_free(&ix->files); /* the records are in the pool */
  omplens_directives__vec_free(&ix->plain_headers);
  free_pointers(&ix->units);
  free_pointers(&ix->searched);
  for (size_t i = 0; i < ix->cu_sources.len; i++)
    free(OMPLENS_DIRECTIVES__AT(ix->cu_sources, omplens_directives__cu_source, i).path);
  omplens_directives__vec_free(&ix->cu_sources);
  for (size_t i = 0; i < ix->resolved.len; i++) {
    omplens_directives__resolved *r =
        &OMPLENS_DIRECTIVES__AT(ix->resolved, omplens_directives__resolved, i);
    free(r->file);
    free(r->real);
  }
  omplens_directives__vec_free(&ix->resolved);
  omplens_names *maps[] = {&ix->file_index,     &ix->unit_index,         &ix->resolved_index,
                           &ix->searched_index, &ix->plain_header_index, &ix->cu_source_index};
  for (size_t i = 0; i < sizeof(maps) / sizeof(*maps); i++)
    omplens_names_free(maps[i]);
  free_strings(ix->extra_args, ix->num_extra_args);
  free_strings(ix->sources, ix->num_sources);
  free_strings(ix->binaries, ix->num_binaries);
  omplens_directives__compdb_free(ix->recorded);
  free(ix->comp_dir);
  free(ix->compdb_path);
  omplens_directives__ast_dispose(ix->cx);
  omplens_directives__pool_free(&ix->pool);
  free(ix);
}

/* ---- reading what a lookup needs ---- */

const omplens_directives__file *
omplens_directives__file_lookup(const omplens_directive_index *ix,
                                const char *path)
{
  size_t i = omplens_names_get(&ix->file_index, path);
  return i != OMPLENS_NAMES_NONE ? OMPLENS_DIRECTIVES__AT(ix->files, omplens_directives__file *, i)
                                 : NULL;
}

static bool unit_read(const omplens_directive_index *ix, const char *path)
{
  return omplens_names_get(&ix->unit_index, path) != OMPLENS_NAMES_NONE;
}

/* The answer resolve() gave for file before: 1 with *real a malloc'd copy
 * (NULL: not found), 0 when file was not asked yet or the copy failed. */
static int resolved_before(const omplens_directive_index *ix, const char *file, char **real)
{
  size_t i = omplens_names_get(&ix->resolved_index, file);
  if (i == OMPLENS_NAMES_NONE)
    return 0;
  const omplens_directives__resolved *r =
      &OMPLENS_DIRECTIVES__AT(ix->resolved, omplens_directives__resolved, i);
  *real = r->real != NULL ? omplens_directives__strndup(r->real, strlen(r->real)) : NULL;
  return r->real == NULL || *real != NULL;
}

/* Keeps the answer for file; without memory it is simply not kept. */
static void remember_resolved(omplens_directive_index *ix, const char *file, const char *real)
{
  omplens_directives__resolved r = {
      omplens_directives__strndup(file, strlen(file)),
      real != NULL ? omplens_directives__strndup(real, strlen(real)) : NULL};
  if (r.file == NULL || (real != NULL && r.real == NULL) ||
      omplens_directives__vec_push_named(&ix->resolved, sizeof r, &r, &ix->resolved_index,
                                         r.file) == NULL) {
    free(r.file);
    free(r.real);
  }
}

/* The absolute, symlink-free name of file (relative: against comp_dir,
 * then the working directory). malloc'd; NULL with *err set. */
static char *resolve(omplens_directive_index *ix, const char *file, int *err)
{
  char *real = NULL;
  if (resolved_before(ix, file, &real)) {
    *err = real != NULL ? 0 : OMPLENS_DIRECTIVES_ENOENT;
    return real;
  }
  if (file[0] != '/' && ix->comp_dir != NULL) {
    size_t n = strlen(ix->comp_dir) + strlen(file) + 2;
    char *joined = malloc(n);
    if (joined == NULL) {
      *err = OMPLENS_DIRECTIVES_ENOMEM;
      return NULL;
    }
    snprintf(joined, n, "%s/%s", ix->comp_dir, file);
    real = realpath(joined, NULL);
    free(joined);
  }
  if (real == NULL)
    real = realpath(file, NULL);
  *err = real != NULL ? 0 : OMPLENS_DIRECTIVES_ENOENT;
  if (real != NULL || errno != ENOMEM)
    remember_resolved(ix, file, real);
  return real;
}

/* Reads path as a unit unless done (alone: path is no unit of the build,
 * read alone for want of one that includes it); a missing unit is not the
 * caller's problem when it only stood in for an included file. */
static int read_if_new(omplens_directive_index *ix, const char *path, bool alone)
{
  if (unit_read(ix, path))
    return 0;
  return omplens_directives__read_unit(ix, path, alone);
}

static int read_through_units(omplens_directive_index *ix, const char *unit)
{
  int err = 0;
  char *real = unit != NULL ? resolve(ix, unit, &err) : NULL;
  if (real != NULL)
    err = read_if_new(ix, real, false);
  free(real);
  return err == OMPLENS_DIRECTIVES_ENOMEM ? err : 0;
}

bool omplens_directives__is_unit(omplens_directive_index *ix, const char *path,
                                 const char *unit, bool *known)
{
  int err = 0;
  char *real = unit != NULL ? resolve(ix, unit, &err) : NULL;
  bool same = real != NULL && strcmp(real, path) == 0;
  int compiled = real != NULL ? same : omplens_directives__compdb_compiles(ix, path);
  free(real);
  if (known != NULL)
    *known = compiled >= 0;
  return compiled >= 0 ? compiled == 1 : !omplens_directives__is_header(path);
}

/* A record of path made through a unit that includes it. */
static bool through_unit(const omplens_directive_index *ix, const char *path)
{
  const omplens_directives__file *f = omplens_directives__file_lookup(ix, path);
  return f != NULL && !f->alone;
}

/* Whether the compile database was searched for path's includers before;
 * remembers that it now is. */
static bool searched_before(omplens_directive_index *ix, const char *path, int *err)
{
  if (omplens_names_get(&ix->searched_index, path) != OMPLENS_NAMES_NONE)
    return true;
  char *copy = strdup(path);
  if (copy == NULL || !omplens_directives__vec_push_named(&ix->searched, sizeof(copy), &copy,
                                                          &ix->searched_index, copy)) {
    free(copy);
    *err = OMPLENS_DIRECTIVES_ENOMEM;
  }
  return false;
}

/* The compile database's sources that include path, nearest first. */
static int read_through_includers(omplens_directive_index *ix, const char *path)
{
  int err = 0;
  if (searched_before(ix, path, &err) || err != 0)
    return err;
  omplens_directives__vec includers = {0};
  err = omplens_directives__compdb_includers(ix, path, &includers);
  for (size_t i = 0; err == 0 && i < includers.len && !through_unit(ix, path); i++)
    err = read_through_units(ix, OMPLENS_DIRECTIVES__AT(includers, char *, i));
  free_pointers(&includers);
  return err;
}

/* A file the build only includes (a header, or a .c file #include'd by
 * another) is read through a unit that includes it: the query's (DWARF's
 * compile unit), the caller's sources, the compile database's sources
 * that include it; alone only when none does. */
static int read_included(omplens_directive_index *ix, const char *path, const char *unit)
{
  int err = read_through_units(ix, unit);
  for (size_t i = 0; err == 0 && i < ix->num_sources && !through_unit(ix, path); i++)
    err = read_through_units(ix, ix->sources[i]);
  if (err == 0 && !through_unit(ix, path))
    err = read_through_includers(ix, path);
  return err;
}

static int record_for(omplens_directive_index *ix, const char *path,
                      const char *unit, const omplens_directives__file **out)
{
  *out = omplens_directives__file_lookup(ix, path);
  if (*out != NULL && !(*out)->alone)
    return 0;
  bool known = false;
  bool own_unit = omplens_directives__is_unit(ix, path, unit, &known);
  if (!own_unit) {
    int err = read_included(ix, path, unit);
    if (err == 0 && omplens_directives__file_lookup(ix, path) == NULL &&
        omplens_directives__plain_header(ix, path))
      err = omplens_directives__read_plain(ix, path); /* no parse alone: nothing to find */
    if (err != 0)
      return err;
    *out = omplens_directives__file_lookup(ix, path);
  }
  if (*out == NULL) {
    /* Read alone: replaced by a read through a unit that includes it, as
     * soon as one is known, unless the build is known to compile it. */
    int err = read_if_new(ix, path, !(own_unit && known));
    if (err != 0)
      return err;
    *out = omplens_directives__file_lookup(ix, path);
  }
  return *out != NULL ? 0 : OMPLENS_DIRECTIVES_EIO;
}

static int file_for(omplens_directive_index *ix, const char *file,
                    const char *unit, const omplens_directives__file **out)
{
  int err = 0;
  *out = NULL;
  char *path = resolve(ix, file, &err);
  if (path == NULL)
    return err;
  err = record_for(ix, path, unit, out);
  free(path);
  return err;
}

/* ---- reading ahead ---- */

/* The CPUs this process may run on, at most 4 (each parse holds its
 * translation units): the parses' threads. */
static unsigned parse_threads(void)
{
  cpu_set_t set;
  int n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  return n < 1 ? 1u : n > 4 ? 4u : (unsigned)n;
}

int omplens_directives_prefetch(omplens_directive_index *ix, const char *const *units,
                                size_t count, omplens_directives_progress *progress, void *ctx)
{
  if (ix == NULL || (units == NULL && count > 0))
    return OMPLENS_DIRECTIVES_EINVAL;
  char **paths = malloc((count ? count : 1) * sizeof(*paths));
  if (paths == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  size_t n = 0;
  int err = 0;
  omplens_names listed = {0}; /* paths[0..n) */
  for (size_t i = 0; i < count && err != OMPLENS_DIRECTIVES_ENOMEM; i++) {
    err = 0;
    char *real = units[i] != NULL ? resolve(ix, units[i], &err) : NULL;
    if (real == NULL || unit_read(ix, real) ||
        omplens_names_get(&listed, real) != OMPLENS_NAMES_NONE) {
      free(real);
    } else if (omplens_names_put(&listed, real, n) != 0) {
      free(real);
      err = OMPLENS_DIRECTIVES_ENOMEM;
    } else {
      paths[n++] = real;
    }
  }
  omplens_names_free(&listed);
  if (err != OMPLENS_DIRECTIVES_ENOMEM)
    err = omplens_directives__read_units(ix, paths, n, parse_threads(), progress, ctx);
  omplens_libclang_release_code(); /* the parses are done: their code too */
  for (size_t k = 0; k < n; k++)
    free(paths[k]);
  free(paths);
  return err == OMPLENS_DIRECTIVES_ENOMEM ? err : 0;
}

/* ---- lookups ---- */

/* The indexed file a query names (parsed on first use). */
static int file_of_query(omplens_directive_index *ix, const omplens_directive_query *q,
                         const omplens_directives__file **f)
{
  if (ix == NULL || q == NULL || q->file == NULL)
    return OMPLENS_DIRECTIVES_EINVAL;
  return file_for(ix, q->file, q->unit, f);
}

int omplens_directive_find_query(omplens_directive_index *ix,
                                 const omplens_directive_query *q,
                                 omplens_directive_match *out)
{
  if (out == NULL)
    return OMPLENS_DIRECTIVES_EINVAL;
  memset(out, 0, sizeof(*out));
  out->rule = "no lookup";
  const omplens_directives__file *f = NULL;
  int err = file_of_query(ix, q, &f);
  if (err == 0)
    omplens_directives__match(f, q, out);
  return err;
}

int omplens_directive_find_api_call(omplens_directive_index *ix,
                                    const omplens_directive_query *q,
                                    omplens_api_call_match *out)
{
  if (out == NULL)
    return OMPLENS_DIRECTIVES_EINVAL;
  memset(out, 0, sizeof(*out));
  out->rule = "no lookup";
  const omplens_directives__file *f = NULL;
  int err = file_of_query(ix, q, &f);
  if (err == 0)
    omplens_directives__match_api_call(f, q, out);
  return err;
}

int omplens_directive_find(omplens_directive_index *ix, const char *file,
                           uint32_t line, uint32_t column, const char *function,
                           int runtime_kind, omplens_directive_match *out)
{
  omplens_directive_query q = {.file = file, .line = line, .column = column,
                               .function = function, .runtime_kind = runtime_kind};
  return omplens_directive_find_query(ix, &q, out);
}

int omplens_directive_list(omplens_directive_index *ix, const char *file,
                           const omplens_directive *const **directives,
                           size_t *count)
{
  if (directives != NULL)
    *directives = NULL;
  if (count != NULL)
    *count = 0;
  if (ix == NULL || file == NULL || directives == NULL || count == NULL)
    return OMPLENS_DIRECTIVES_EINVAL;
  const omplens_directives__file *f = NULL;
  int err = file_for(ix, file, NULL, &f);
  if (err != 0)
    return err;
  *directives = (const omplens_directive *const *)f->list;
  *count = f->num_listed;
  return 0;
}

void omplens_directives_cache_at(const char *dir)
{
  omplens_libclang_cache_at(dir);
}

void omplens_directives_parses_done(void)
{
  omplens_libclang_release_code();
  omplens_libclang_apart_end();
}

void omplens_directives_parse_cost(omplens_directives_cost *out)
{
  omplens_libclang_cost c;
  omplens_libclang_cost_get(&c);
  *out = (omplens_directives_cost){c.parsed, c.cached, c.seconds,
                                   omplens_libclang_helpers_started()};
}
