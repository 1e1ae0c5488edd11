/* Reading one translation unit: its main file and the headers it includes
 * that hold pragmas each become a file record of the index. The unit's
 * transient data (sources, tokens, references) is freed at the end; only
 * the records, in the index's pool, stay. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "directives_internal.h"

int omplens_directives__unit_add_file(omplens_directives__unit *u,
                                      const char *path)
{
  omplens_directives__file_work *files =
      realloc(u->files, (u->num_files + 1) * sizeof(*files));
  if (files == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  u->files = files;
  omplens_directives__file_work *fw = &files[u->num_files];
  memset(fw, 0, sizeof(*fw));
  int err = omplens_directives__source_load(path, &fw->src);
  if (err == 0)
    err = omplens_directives__scan_source(&fw->src, &fw->scan);
  if (err != 0) {
    omplens_directives__source_free(&fw->src);
    return err;
  }
  u->num_files++;
  return 0;
}

const omplens_directives__source *
omplens_directives__unit_source(omplens_directives__unit *u, const char *path)
{
  for (size_t i = 0; i < u->num_files; i++)
    if (strcmp(u->files[i].src.path, path) == 0)
      return &u->files[i].src;
  for (size_t i = 0; i < u->sources.len; i++) {
    omplens_directives__source *s =
        OMPLENS_DIRECTIVES__AT(u->sources, omplens_directives__source *, i);
    if (strcmp(s->path, path) == 0)
      return s;
  }
  omplens_directives__source *s = malloc(sizeof(*s));
  if (s == NULL || omplens_directives__source_load(path, s) != 0) {
    free(s);
    return NULL;
  }
  if (omplens_directives__vec_push(&u->sources, sizeof(s), &s) == NULL) {
    omplens_directives__source_free(s);
    free(s);
    return NULL;
  }
  return s;
}

static void free_file_work(omplens_directives__file_work *fw)
{
  omplens_directives__source_free(&fw->src);
  omplens_directives__scan_free(&fw->scan);
  free(fw->stmt);
  omplens_directives__vec_free(&fw->refs);
  omplens_directives__vec_free(&fw->calls);
  omplens_directives__vec_free(&fw->loop_vars);
  omplens_directives__vec_free(&fw->functions);
  omplens_directives__vec_free(&fw->ast_dirs);
  omplens_directives__vec_free(&fw->macro_uses);
  omplens_directives__vec_free(&fw->skipped);
  omplens_directives__vec_free(&fw->api_calls);
  omplens_directives__vec_free(&fw->assigns);
}

static void free_unit(omplens_directives__unit *u)
{
  for (size_t i = 0; i < u->num_files; i++)
    free_file_work(&u->files[i]);
  free(u->files);
  for (size_t i = 0; i < u->sources.len; i++) {
    omplens_directives__source *s =
        OMPLENS_DIRECTIVES__AT(u->sources, omplens_directives__source *, i);
    omplens_directives__source_free(s);
    free(s);
  }
  omplens_directives__vec_free(&u->sources);
  omplens_directives__vec_free(&u->macro_defs);
  omplens_directives__vec_free(&u->pragma_macros);
  omplens_directives__vec_free(&u->errors);
  omplens_directives__vec_free(&u->plain_headers);
  omplens_directives__pool_free(&u->scratch);
  free(u->first_error);
}

/* Each file keeps the first error libclang located in it. */
static void attribute_errors(omplens_directives__unit *u)
{
  for (size_t i = 0; i < u->errors.len; i++) {
    const omplens_directives__located_error *e =
        &OMPLENS_DIRECTIVES__AT(u->errors, omplens_directives__located_error, i);
    for (size_t k = 0; k < u->num_files; k++)
      if (u->files[k].error == NULL && strcmp(u->files[k].src.path, e->file) == 0)
        u->files[k].error = e->message;
  }
}

/* The slot of path's record in ix->files, or NULL. */
static omplens_directives__file **record_slot(omplens_directive_index *ix, const char *path)
{
  size_t i = omplens_names_get(&ix->file_index, path);
  return i != OMPLENS_NAMES_NONE ? &OMPLENS_DIRECTIVES__AT(ix->files, omplens_directives__file *, i)
                                 : NULL;
}


/* A file read before keeps its first record, unless that came from a
 * header read alone and this unit is a source that includes it: the
 * build never parsed the header alone. Records handed out before stay
 * valid (they live in the pool). */
static int keep_records(omplens_directives__unit *u, bool alone)
{
  omplens_directive_index *ix = u->index;
  for (size_t i = 0; i < u->num_files; i++) {
    omplens_directives__file **slot = record_slot(ix, u->files[i].src.path);
    if (slot != NULL && (alone || !(*slot)->alone))
      continue;
    omplens_directives__file *rec = NULL;
    int err = omplens_directives__build_file(u, &u->files[i], &rec);
    if (err == 0)
      rec->alone = alone;
    if (err == 0 && slot != NULL)
      *slot = rec; /* the map keeps the first record's path: equal, and in the pool */
    else if (err == 0 && !omplens_directives__vec_push_named(&ix->files, sizeof(rec), &rec,
                                                             &ix->file_index, rec->path))
      err = OMPLENS_DIRECTIVES_ENOMEM;
    if (err != 0)
      return err;
  }
  return 0;
}

static int remember_unit(omplens_directive_index *ix, const char *path)
{
  char *copy = strdup(path);
  if (copy == NULL ||
      !omplens_directives__vec_push_named(&ix->units, sizeof(copy), &copy, &ix->unit_index, copy)) {
    free(copy);
    return OMPLENS_DIRECTIVES_ENOMEM;
  }
  return 0;
}

/* A unit is read in three steps, so that the middle one can run on a
 * thread of its own: its build arguments (the index's compile database),
 * its parses (the unit's own data, libclang and the parse cache only), and
 * its records kept in the index. */
static int unit_args(omplens_directive_index *ix, const char *main_path,
                     omplens_directives__unit *u, omplens_directives__args *args)
{
  *u = (omplens_directives__unit){.index = ix};
  int err = omplens_directives__build_args(ix, main_path, args);
  u->guessed_flags = !args->from_compdb;
  return err;
}

static int unit_parse(omplens_directives__unit *u, const char *main_path,
                      const omplens_directives__args *args)
{
  int err = omplens_directives__unit_add_file(u, main_path);
  return err == 0 ? omplens_directives__ast_read(u, args) : err;
}

bool omplens_directives__plain_header(const omplens_directive_index *ix, const char *path)
{
  return omplens_names_get(&ix->plain_header_index, path) != OMPLENS_NAMES_NONE;
}

/* The unit's headers without directives, for lookups of them (once). */
static int keep_plain_headers(omplens_directives__unit *u)
{
  omplens_directive_index *ix = u->index;
  for (size_t i = 0; i < u->plain_headers.len; i++) {
    const char *path = OMPLENS_DIRECTIVES__AT(u->plain_headers, const char *, i);
    if (omplens_directives__plain_header(ix, path))
      continue;
    const char *kept = omplens_directives__pool_strdup(&ix->pool, path);
    if (kept == NULL || !omplens_directives__vec_push_named(&ix->plain_headers, sizeof(kept), &kept,
                                                            &ix->plain_header_index, kept))
      return OMPLENS_DIRECTIVES_ENOMEM;
  }
  return 0;
}

static int unit_keep(omplens_directives__unit *u, omplens_directives__args *args,
                     const char *main_path, bool alone, int err)
{
  if (err == 0) {
    attribute_errors(u);
    err = keep_records(u, alone);
  }
  if (err == 0)
    err = keep_plain_headers(u); /* a property of their text, whatever the unit */
  /* A unit that could not be read is tried again: it fails before parsing. */
  if (err == 0)
    err = remember_unit(u->index, main_path);
  omplens_directives__args_free(args);
  free_unit(u);
  return err;
}

int omplens_directives__read_unit(omplens_directive_index *ix,
                                  const char *main_path, bool alone)
{
  omplens_directives__unit u;
  omplens_directives__args args = {0};
  int err = unit_args(ix, main_path, &u, &args);
  if (err == 0)
    err = unit_parse(&u, main_path, &args);
  return unit_keep(&u, &args, main_path, alone, err);
}

int omplens_directives_unit_job(omplens_directive_index *ix, const char *const *parts, size_t n)
{
  if (ix == NULL || n < 1 || parts[0] == NULL)
    return OMPLENS_DIRECTIVES_EINVAL;
  omplens_directives__unit u = {.index = ix};
  omplens_directives__args args = {0};
  int err = 0;
  for (size_t i = 1; i < n && err == 0; i++)
    if (parts[i] == NULL || !omplens_directives__args_add(&args, parts[i]))
      err = parts[i] == NULL ? OMPLENS_DIRECTIVES_EINVAL : OMPLENS_DIRECTIVES_ENOMEM;
  if (err == 0)
    err = unit_parse(&u, parts[0], &args);
  omplens_directives__args_free(&args);
  free_unit(&u);
  return err;
}

int omplens_directives__read_plain(omplens_directive_index *ix, const char *path)
{
  omplens_directives__unit u = {.index = ix};
  int err = omplens_directives__unit_add_file(&u, path);
  if (err == 0)
    err = omplens_directives__ast_none(&u);
  if (err == 0)
    err = keep_records(&u, false); /* no parse: no errors to attribute */
  free_unit(&u);
  return err;
}

/* ---- several units, parsed on threads ---- */

typedef struct unit_job {
  const char *path;
  omplens_directives__unit u;
  omplens_directives__args args;
  int err;
  bool done;
} unit_job;

/* The jobs, taken in order by the threads; the caller keeps each one's
 * records in order as it is done. A thread parses at most `ahead` units
 * past the last one kept, which bounds the units held at once. */
typedef struct crew {
  unit_job *jobs;
  size_t count, next, kept, ahead;
  pthread_mutex_t lock;
  pthread_cond_t changed;
} crew;

static void *parse_jobs(void *arg)
{
  crew *c = arg;
  void *cx = NULL; /* this thread's libclang index, made on first need */
  pthread_mutex_lock(&c->lock);
  for (;;) {
    while (c->next < c->count && c->next >= c->kept + c->ahead)
      pthread_cond_wait(&c->changed, &c->lock);
    if (c->next >= c->count)
      break;
    unit_job *j = &c->jobs[c->next++];
    pthread_mutex_unlock(&c->lock);
    if (j->err == 0) {
      j->u.cx = &cx;
      j->err = unit_parse(&j->u, j->path, &j->args);
    }
    pthread_mutex_lock(&c->lock);
    j->done = true;
    pthread_cond_broadcast(&c->changed);
  }
  pthread_mutex_unlock(&c->lock);
  omplens_directives__ast_dispose(cx);
  return NULL;
}

static unsigned start_threads(crew *c, pthread_t *tid, unsigned threads)
{
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0)
    return 0;
  pthread_attr_setstacksize(&attr, OMPLENS_DIRECTIVES__PARSE_STACK);
  unsigned started = 0;
  while (started < threads && pthread_create(&tid[started], &attr, parse_jobs, c) == 0)
    started++;
  pthread_attr_destroy(&attr);
  return started;
}

int omplens_directives__read_units(omplens_directive_index *ix, char *const *paths,
                                   size_t count, unsigned threads,
                                   omplens_directives_progress *progress, void *ctx)
{
  if (progress != NULL && count > 0) /* said before the first parse, which is the longest wait */
    progress(ctx, 0, count);
  if (threads < 2 || count < 2) {
    int err = 0;
    for (size_t i = 0; i < count && err != OMPLENS_DIRECTIVES_ENOMEM; i++) {
      err = omplens_directives__read_unit(ix, paths[i], false);
      if (progress != NULL)
        progress(ctx, i + 1, count);
    }
    return err == OMPLENS_DIRECTIVES_ENOMEM ? err : 0;
  }
  crew c = {.jobs = calloc(count, sizeof(unit_job)), .count = count, .ahead = threads};
  pthread_t *tid = malloc(threads * sizeof(*tid));
  if (c.jobs == NULL || tid == NULL) {
    free(c.jobs);
    free(tid);
    return OMPLENS_DIRECTIVES_ENOMEM;
  }
  /* The arguments first, here: the compile database is the index's. */
  for (size_t i = 0; i < count; i++) {
    c.jobs[i].path = paths[i];
    c.jobs[i].err = unit_args(ix, paths[i], &c.jobs[i].u, &c.jobs[i].args);
  }
  pthread_mutex_init(&c.lock, NULL);
  pthread_cond_init(&c.changed, NULL);
  unsigned started = start_threads(&c, tid, threads);
  if (started == 0) { /* no thread: this one parses them all */
    c.ahead = count;
    parse_jobs(&c);
  }
  int err = 0;
  for (size_t i = 0; i < count; i++) {
    unit_job *j = &c.jobs[i];
    pthread_mutex_lock(&c.lock);
    while (!j->done)
      pthread_cond_wait(&c.changed, &c.lock);
    pthread_mutex_unlock(&c.lock);
    int rc = unit_keep(&j->u, &j->args, j->path, false, j->err);
    if (rc == OMPLENS_DIRECTIVES_ENOMEM)
      err = rc;
    if (progress != NULL)
      progress(ctx, i + 1, count);
    pthread_mutex_lock(&c.lock);
    c.kept = i + 1;
    pthread_cond_broadcast(&c.changed);
    pthread_mutex_unlock(&c.lock);
  }
  for (unsigned t = 0; t < started; t++)
    pthread_join(tid[t], NULL);
  pthread_cond_destroy(&c.changed);
  pthread_mutex_destroy(&c.lock);
  free(c.jobs);
  free(tid);
  return err;
}
