/* What libclang's two parses of a unit told (directives_ast.c), kept in the
 * parse cache (libclang_dl.h) so that a later report of the same sources
 * reads it back instead of parsing: the unit's files past the main one,
 * its errors and macro definitions, and per file the statements after
 * pragmas, references, calls, functions, `_Pragma` directives, macro
 * uses, #if'd-out ranges and device API calls; and the headers it includes
 * that hold no directive by their text. The text and tokens of each
 * file are read again (cheap); everything built from them follows as after
 * a parse. Design notes: docs/directives.md, "The parse cache". */
#include <stdlib.h>
#include <string.h>

#include "directives_internal.h"
#include "libclang_dl.h"

#define NONE OMPLENS_DIRECTIVES__NONE
/* The payload's format; part of the key. */
#define TAG "directives-unit-v3"

typedef omplens_directives__file_work file_work;
typedef omplens_directives__span span;
typedef omplens_libclang_writer writer;

const char **omplens_directives__unit_parts(const omplens_directives__unit *u,
                                            const omplens_directives__args *args, size_t lead,
                                            size_t *n)
{
  *n = lead + 1 + args->argv.len;
  const char **parts = malloc(*n * sizeof(*parts));
  if (parts == NULL)
    return NULL;
  parts[lead] = u->files[0].src.path;
  for (size_t i = 0; i < args->argv.len; i++)
    parts[lead + 1 + i] = OMPLENS_DIRECTIVES__AT(args->argv, char *, i);
  return parts;
}

int omplens_directives__cache_key(const omplens_directives__unit *u,
                                  const omplens_directives__args *args,
                                  omplens_libclang_key *out)
{
  size_t n;
  const char **parts = omplens_directives__unit_parts(u, args, 0, &n);
  if (parts == NULL)
    return -1;
  int rc = omplens_libclang_key_of(TAG, parts, n, out);
  free(parts);
  return rc;
}

/* ---- writing ---- */

static void put_span(writer *w, span s)
{
  omplens_libclang_put_u32(w, s.begin);
  omplens_libclang_put_u32(w, s.end);
}

static void put_offsets(writer *w, const omplens_directives__vec *v)
{
  omplens_libclang_put_u32(w, (uint32_t)v->len);
  for (size_t i = 0; i < v->len; i++)
    omplens_libclang_put_u32(w, OMPLENS_DIRECTIVES__AT(*v, uint32_t, i));
}

static void put_arg(writer *w, const omplens_directives__call_arg *a)
{
  put_span(w, a->text);
  omplens_libclang_put_str(w, a->var);
}

static void put_api_calls(writer *w, const file_work *fw)
{
  omplens_libclang_put_u32(w, (uint32_t)fw->api_calls.len);
  for (size_t i = 0; i < fw->api_calls.len; i++) {
    const omplens_directives__api_draft *d =
        &OMPLENS_DIRECTIVES__AT(fw->api_calls, omplens_directives__api_draft, i);
    put_span(w, (span){d->begin, d->end});
    omplens_libclang_put_str(w, d->routine);
    put_arg(w, &d->result);
    omplens_libclang_put_u32(w, (uint32_t)d->num_args);
    for (size_t k = 0; k < d->num_args; k++)
      put_arg(w, &d->args[k]);
  }
}

static void put_file(writer *w, const file_work *fw)
{
  omplens_libclang_put_str(w, fw->src.path);
  omplens_libclang_put_u32(w, fw->ast_seen);
  omplens_libclang_put_u32(w, (uint32_t)fw->scan.pragmas.len);
  for (size_t i = 0; i < fw->scan.pragmas.len; i++)
    put_span(w, fw->stmt[i]);
  omplens_libclang_put_u32(w, (uint32_t)fw->refs.len);
  for (size_t i = 0; i < fw->refs.len; i++) {
    const omplens_directives__ref *r = &OMPLENS_DIRECTIVES__AT(fw->refs, omplens_directives__ref, i);
    put_span(w, (span){r->offset, r->decl_offset});
    omplens_libclang_put_str(w, r->name);
    omplens_libclang_put_u32(w, (uint32_t)r->category);
  }
  put_offsets(w, &fw->calls);
  put_offsets(w, &fw->loop_vars);
  omplens_libclang_put_u32(w, (uint32_t)fw->functions.len);
  for (size_t i = 0; i < fw->functions.len; i++) {
    const omplens_directives__function *f =
        &OMPLENS_DIRECTIVES__AT(fw->functions, omplens_directives__function, i);
    put_span(w, (span){f->begin, f->end});
    omplens_libclang_put_str(w, f->name);
  }
  omplens_libclang_put_u32(w, (uint32_t)fw->ast_dirs.len);
  for (size_t i = 0; i < fw->ast_dirs.len; i++) {
    const omplens_directives__ast_directive *d =
        &OMPLENS_DIRECTIVES__AT(fw->ast_dirs, omplens_directives__ast_directive, i);
    omplens_libclang_put_u32(w, (uint32_t)d->cursor_kind);
    put_span(w, (span){d->begin, d->end});
    omplens_libclang_put_str(w, d->spelling_file);
    omplens_libclang_put_u32(w, d->spelling_offset);
  }
  omplens_libclang_put_u32(w, (uint32_t)fw->macro_uses.len);
  for (size_t i = 0; i < fw->macro_uses.len; i++) {
    const omplens_directives__macro_use *m =
        &OMPLENS_DIRECTIVES__AT(fw->macro_uses, omplens_directives__macro_use, i);
    put_span(w, (span){m->begin, m->end});
    omplens_libclang_put_str(w, m->name);
  }
  omplens_libclang_put_u32(w, (uint32_t)fw->skipped.len);
  for (size_t i = 0; i < fw->skipped.len; i++)
    put_span(w, OMPLENS_DIRECTIVES__AT(fw->skipped, span, i));
  put_api_calls(w, fw);
}

void omplens_directives__cache_store(const omplens_directives__unit *u,
                                     const omplens_libclang_key *key,
                                     void *const *tus, size_t num_tus)
{
  writer w = {0};
  omplens_libclang_put_u32(&w, u->unit_error);
  omplens_libclang_put_str(&w, u->first_error);
  omplens_libclang_put_u32(&w, (uint32_t)u->errors.len);
  for (size_t i = 0; i < u->errors.len; i++) {
    const omplens_directives__located_error *e =
        &OMPLENS_DIRECTIVES__AT(u->errors, omplens_directives__located_error, i);
    omplens_libclang_put_str(&w, e->file);
    omplens_libclang_put_str(&w, e->message);
  }
  omplens_libclang_put_u32(&w, (uint32_t)u->macro_defs.len);
  for (size_t i = 0; i < u->macro_defs.len; i++) {
    const omplens_directives__macro_def *m =
        &OMPLENS_DIRECTIVES__AT(u->macro_defs, omplens_directives__macro_def, i);
    omplens_libclang_put_str(&w, m->name);
    omplens_libclang_put_str(&w, m->file);
    put_span(&w, (span){m->begin, m->end});
  }
  omplens_libclang_put_u32(&w, (uint32_t)u->num_files);
  for (size_t i = 0; i < u->num_files; i++)
    put_file(&w, &u->files[i]);
  omplens_libclang_put_u32(&w, (uint32_t)u->plain_headers.len);
  for (size_t i = 0; i < u->plain_headers.len; i++)
    omplens_libclang_put_str(&w, OMPLENS_DIRECTIVES__AT(u->plain_headers, const char *, i));
  if (!w.failed && !u->oom)
    omplens_libclang_cache_store(key, (const CXTranslationUnit *)tus, num_tus, w.data, w.len);
  free(w.data);
}

/* ---- reading ---- */

typedef struct reader {
  omplens_libclang_reader r;
  omplens_directives__unit *u;
  uint32_t size; /* of the file being read: offsets stay within it */
  int failed;    /* no memory, or an entry that does not fit the files */
} reader;

static uint32_t get_u32(reader *rd)
{
  return omplens_libclang_get_u32(&rd->r);
}

/* An offset into the file being read: within it, or NONE. */
static uint32_t get_offset(reader *rd)
{
  uint32_t v = get_u32(rd);
  if (v != NONE && v > rd->size)
    rd->failed = 1;
  return v;
}

static span get_span(reader *rd)
{
  span s;
  s.begin = get_offset(rd);
  s.end = get_offset(rd);
  return s;
}

/* A string copied into the unit's scratch pool, or NULL. */
static const char *get_str(reader *rd)
{
  const char *s = omplens_libclang_get_str(&rd->r);
  const char *copy = omplens_directives__pool_strdup(&rd->u->scratch, s);
  if (s != NULL && copy == NULL)
    rd->failed = 1;
  return copy;
}

/* How many elements follow, each at least min bytes long. */
static uint32_t get_count(reader *rd, size_t min)
{
  uint32_t n = get_u32(rd);
  if ((size_t)(rd->r.end - rd->r.at) / min < n)
    rd->r.failed = 1;
  return rd->r.failed ? 0 : n;
}

static bool ok(const reader *rd)
{
  return !rd->failed && !rd->r.failed;
}

static void push(reader *rd, omplens_directives__vec *v, size_t elem, const void *value)
{
  if (ok(rd) && omplens_directives__vec_push(v, elem, value) == NULL)
    rd->failed = 1;
}

static void get_offsets(reader *rd, omplens_directives__vec *v)
{
  uint32_t n = get_count(rd, 4);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    uint32_t o = get_offset(rd);
    push(rd, v, sizeof(o), &o);
  }
}

static omplens_directives__call_arg get_arg(reader *rd)
{
  omplens_directives__call_arg a;
  a.text = get_span(rd);
  a.var = get_str(rd);
  return a;
}

static void get_api_calls(reader *rd, file_work *fw)
{
  uint32_t n = get_count(rd, 20);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    omplens_directives__api_draft d = {0};
    span s = get_span(rd);
    d.begin = s.begin;
    d.end = s.end;
    d.routine = get_str(rd);
    d.result = get_arg(rd);
    uint32_t na = get_count(rd, 12);
    d.args = na > 0 ? omplens_directives__pool_alloc(&rd->u->scratch, na * sizeof(*d.args)) : NULL;
    if (na > 0 && d.args == NULL)
      rd->failed = 1;
    for (uint32_t k = 0; k < na && ok(rd); k++)
      d.args[d.num_args++] = get_arg(rd);
    push(rd, &fw->api_calls, sizeof(d), &d);
  }
}

static void get_lists(reader *rd, file_work *fw)
{
  uint32_t n = get_count(rd, 16);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    span s = get_span(rd);
    omplens_directives__ref r = {s.begin, get_str(rd), s.end, 0};
    r.category = (int)get_u32(rd);
    push(rd, &fw->refs, sizeof(r), &r);
  }
  get_offsets(rd, &fw->calls);
  get_offsets(rd, &fw->loop_vars);
  n = get_count(rd, 12);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    span s = get_span(rd);
    omplens_directives__function f = {s.begin, s.end, get_str(rd)};
    push(rd, &fw->functions, sizeof(f), &f);
  }
  n = get_count(rd, 20);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    omplens_directives__ast_directive d = {(int)get_u32(rd), 0, 0, NULL, 0};
    span s = get_span(rd);
    d.begin = s.begin;
    d.end = s.end;
    d.spelling_file = get_str(rd);
    d.spelling_offset = get_u32(rd);
    push(rd, &fw->ast_dirs, sizeof(d), &d);
  }
  n = get_count(rd, 12);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    span s = get_span(rd);
    omplens_directives__macro_use m = {s.begin, s.end, get_str(rd)};
    push(rd, &fw->macro_uses, sizeof(m), &m);
  }
  n = get_count(rd, 8);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    span s = get_span(rd);
    push(rd, &fw->skipped, sizeof(s), &s);
  }
  get_api_calls(rd, fw);
}

/* The i-th file: the main one is there; the others are read now. */
static file_work *get_file(reader *rd, size_t i)
{
  omplens_directives__unit *u = rd->u;
  const char *path = omplens_libclang_get_str(&rd->r);
  if (path == NULL || (i == 0) != (strcmp(path, u->files[0].src.path) == 0)) {
    rd->failed = 1;
    return NULL;
  }
  if (i > 0 && omplens_directives__unit_add_file(u, path) != 0) {
    rd->failed = 1;
    return NULL;
  }
  file_work *fw = &u->files[i];
  rd->size = fw->src.size;
  fw->ast_seen = get_u32(rd) != 0;
  uint32_t n = get_u32(rd);
  if (n != fw->scan.pragmas.len) {
    rd->failed = 1;
    return NULL;
  }
  fw->stmt = malloc((n > 0 ? n : 1) * sizeof(*fw->stmt));
  if (fw->stmt == NULL)
    rd->failed = 1;
  for (uint32_t k = 0; k < n && ok(rd); k++)
    fw->stmt[k] = get_span(rd);
  get_lists(rd, fw);
  return fw;
}

static void get_unit(reader *rd)
{
  omplens_directives__unit *u = rd->u;
  u->unit_error = get_u32(rd) != 0;
  const char *first = omplens_libclang_get_str(&rd->r);
  if (first != NULL && (u->first_error = strdup(first)) == NULL)
    rd->failed = 1;
  uint32_t n = get_count(rd, 8);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    omplens_directives__located_error e = {get_str(rd), NULL};
    e.message = get_str(rd);
    push(rd, &u->errors, sizeof(e), &e);
  }
  n = get_count(rd, 16);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    omplens_directives__macro_def m = {get_str(rd), NULL, 0, 0};
    m.file = get_str(rd);
    m.begin = get_u32(rd);
    m.end = get_u32(rd);
    push(rd, &u->macro_defs, sizeof(m), &m);
  }
  n = get_count(rd, 8);
  if (n == 0)
    rd->failed = 1;
  for (uint32_t i = 0; i < n && ok(rd); i++)
    get_file(rd, i);
  n = get_count(rd, 4);
  for (uint32_t i = 0; i < n && ok(rd); i++) {
    const char *path = get_str(rd);
    if (path == NULL)
      rd->failed = 1;
    push(rd, &u->plain_headers, sizeof(path), &path);
  }
}

/* Back to a unit of its main file alone, as before a parse. */
static void forget(omplens_directives__unit *u)
{
  for (size_t i = 0; i < u->num_files; i++) {
    file_work *fw = &u->files[i];
    free(fw->stmt);
    fw->stmt = NULL;
    omplens_directives__vec *lists[] = {&fw->refs,       &fw->calls,   &fw->loop_vars,
                                        &fw->functions,  &fw->ast_dirs, &fw->macro_uses,
                                        &fw->skipped,    &fw->api_calls, &fw->assigns};
    for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
      omplens_directives__vec_free(lists[k]);
    fw->ast_seen = false;
    if (i > 0) {
      omplens_directives__source_free(&fw->src);
      omplens_directives__scan_free(&fw->scan);
    }
  }
  u->num_files = u->num_files > 0 ? 1 : 0;
  omplens_directives__vec_free(&u->plain_headers);
  omplens_directives__vec_free(&u->errors);
  omplens_directives__vec_free(&u->macro_defs);
  u->unit_error = false;
  free(u->first_error);
  u->first_error = NULL;
}

int omplens_directives__cache_load(omplens_directives__unit *u, const omplens_libclang_key *key)
{
  size_t len = 0;
  unsigned char *payload = omplens_libclang_cache_load(key, &len);
  if (payload == NULL)
    return 0;
  reader rd = {{payload, payload + len, 0}, u, 0, 0};
  get_unit(&rd);
  bool hit = ok(&rd) && rd.r.at == rd.r.end;
  if (!hit)
    forget(u);
  free(payload);
  return hit;
}
