/* The text of a directive written with `_Pragma` inside a macro. libclang
 * gives its kind and where its `_Pragma` is spelled, not the string it
 * expanded: that is rebuilt here from the definitions, for the two forms
 * code uses:
 *   #define M(...) _Pragma("omp target ...") ...        (a literal)
 *   #define P(x) _Pragma(#x)
 *   #define M(a, n) P(omp target map(to: a[0:n])) ...   (one level of
 *                                                        stringizing)
 * Deeper constructions give NULL and the caller keeps the kind only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "directives_internal.h"

#define NONE OMPLENS_DIRECTIVES__NONE
#define MAX_PARAMS 32

typedef omplens_directives__span span;

typedef struct text {
  const char *s;
  uint32_t n;
} text;

typedef struct macro {
  span name;
  span params[MAX_PARAMS];
  size_t num_params;
  span body;
} macro;

typedef struct call {
  span args[MAX_PARAMS];
  size_t num_args;
} call;

static bool word_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (c >= '0' && c <= '9');
}

static uint32_t skip_ws(text t, uint32_t i)
{
  while (i < t.n && (t.s[i] == ' ' || t.s[i] == '\t' || t.s[i] == '\n' ||
                     t.s[i] == '\r' || (t.s[i] == '\\' && i + 1 < t.n &&
                                        (t.s[i + 1] == '\n' || t.s[i + 1] == '\r'))))
    i++;
  return i;
}

static span word_at(text t, uint32_t i)
{
  span w = {i, i};
  while (w.end < t.n && word_char(t.s[w.end]))
    w.end++;
  return w;
}

static bool span_eq(text t, span a, text u, span b)
{
  return a.end - a.begin == b.end - b.begin &&
         memcmp(t.s + a.begin, u.s + b.begin, a.end - a.begin) == 0;
}

static bool span_is(text t, span a, const char *w)
{
  return a.end - a.begin == strlen(w) && memcmp(t.s + a.begin, w, a.end - a.begin) == 0;
}

/* Start of the logical line holding i (continuations followed back). */
static uint32_t logical_start(text t, uint32_t i)
{
  while (i > 0) {
    uint32_t nl = i - 1;
    while (nl > 0 && t.s[nl] != '\n')
      nl--;
    if (t.s[nl] != '\n')
      return 0;
    uint32_t before = nl;
    if (before > 0 && t.s[before - 1] == '\r')
      before--;
    if (before == 0 || t.s[before - 1] != '\\')
      return nl + 1;
    i = before - 1;
  }
  return 0;
}

static uint32_t logical_end(text t, uint32_t i)
{
  while (i < t.n && t.s[i] != '\n')
    i += (t.s[i] == '\\' && i + 1 < t.n) ? 2 : 1;
  return i < t.n ? i : t.n;
}

static span trim(text t, span s)
{
  while (s.end > s.begin && (t.s[s.end - 1] == ' ' || t.s[s.end - 1] == '\t' ||
                             t.s[s.end - 1] == '\n' || t.s[s.end - 1] == '\\'))
    s.end--;
  return s;
}

/* Argument list of a call at '(' in t: top-level commas split it. */
static uint32_t read_call(text t, uint32_t open, call *c)
{
  int depth = 0;
  uint32_t start = open + 1;
  c->num_args = 0;
  for (uint32_t i = open; i < t.n; i++) {
    char ch = t.s[i];
    if (ch == '"' || ch == '\'') {
      for (i++; i < t.n && t.s[i] != ch; i++)
        i += t.s[i] == '\\';
      continue;
    }
    depth += (ch == '(') - (ch == ')');
    bool split = (ch == ',' && depth == 1) || (ch == ')' && depth == 0);
    if (split && c->num_args < MAX_PARAMS) /* arguments lose their spaces */
      c->args[c->num_args++] = trim(t, (span){skip_ws(t, start) < i ? skip_ws(t, start) : i, i});
    start = split ? i + 1 : start;
    if (depth == 0)
      return i;
  }
  return NONE;
}

/* The #define whose logical line holds offset. */
static bool read_define(text t, uint32_t offset, macro *m)
{
  uint32_t i = skip_ws(t, logical_start(t, offset));
  if (i >= t.n || t.s[i] != '#')
    return false;
  span kw = word_at(t, skip_ws(t, i + 1));
  if (!span_is(t, kw, "define"))
    return false;
  m->name = word_at(t, skip_ws(t, kw.end));
  m->num_params = 0;
  uint32_t after = m->name.end;
  if (after < t.n && t.s[after] == '(') {
    call c;
    after = read_call(t, after, &c);
    if (after == NONE)
      return false;
    for (size_t k = 0; k < c.num_args; k++) {
      span p = word_at(t, skip_ws(t, c.args[k].begin));
      if (p.end > p.begin)
        m->params[m->num_params++] = p;
    }
    after++;
  }
  m->body = (span){after, logical_end(t, after)};
  return m->name.end > m->name.begin;
}

static const omplens_directives__macro_def *
find_def(const omplens_directives__unit *u, const char *name)
{
  const omplens_directives__macro_def *found = NULL;
  for (size_t i = 0; i < u->macro_defs.len; i++) {
    const omplens_directives__macro_def *d =
        &OMPLENS_DIRECTIVES__AT(u->macro_defs, omplens_directives__macro_def, i);
    if (strcmp(d->name, name) == 0)
      found = d; /* the last definition is the one in force, usually */
  }
  return found;
}

static text source_text(omplens_directives__unit *u, const char *path)
{
  const omplens_directives__source *s = omplens_directives__unit_source(u, path);
  return s != NULL ? (text){s->text, s->size} : (text){NULL, 0};
}

/* ---- building the string ---- */

typedef struct out {
  char *s;
  size_t len, cap;
  bool oom;
} out;

static void put(out *o, const char *s, size_t n)
{
  if (o->oom || n == 0)
    return;
  if (o->len + n + 1 > o->cap) {
    size_t cap = (o->len + n + 1) * 2;
    char *p = realloc(o->s, cap);
    if (p == NULL) {
      o->oom = true;
      return;
    }
    o->s = p;
    o->cap = cap;
  }
  memcpy(o->s + o->len, s, n);
  o->len += n;
  o->s[o->len] = '\0';
}

/* arg with every parameter of m replaced by the matching argument of the
 * use (no further expansion: stringizing stops it). */
static void substitute(out *o, text def, span arg, const macro *m, text use,
                       const call *c)
{
  uint32_t i = arg.begin;
  while (i < arg.end) {
    span w = word_at(def, i);
    if (w.end == w.begin || (i > arg.begin && word_char(def.s[i - 1]))) {
      put(o, def.s + i, w.end > w.begin ? w.end - i : 1);
      i = w.end > w.begin ? w.end : i + 1;
      continue;
    }
    w.end = w.end < arg.end ? w.end : arg.end;
    size_t k = 0;
    while (k < m->num_params && !span_eq(def, m->params[k], def, w))
      k++;
    if (k < m->num_params && k < c->num_args)
      put(o, use.s + c->args[k].begin, c->args[k].end - c->args[k].begin);
    else
      put(o, def.s + w.begin, w.end - w.begin);
    i = w.end;
  }
}

static char *finish(out *o)
{
  if (o->oom || o->s == NULL) {
    free(o->s);
    return NULL;
  }
  char *norm = omplens_directives__normalize(o->s, o->len);
  free(o->s);
  if (norm == NULL)
    return NULL;
  size_t n = strlen(norm) + 9;
  char *full = malloc(n);
  if (full != NULL)
    snprintf(full, n, "#pragma %s", norm);
  free(norm);
  return full;
}

/* Whether text names the directive libclang saw ("omp target ..."). */
static bool names_kind(const char *pragma_text, int cursor_kind)
{
  const char *name = omplens_directives__cursor_name(cursor_kind);
  size_t n = name != NULL ? strlen(name) : 0;
  return pragma_text != NULL && strncmp(pragma_text, "#pragma omp ", 12) == 0 &&
         strncmp(pragma_text + 12, name != NULL ? name : "", n) == 0 &&
         !word_char(pragma_text[12 + n]);
}

/* ---- the two forms ---- */

/* P(x) is used directly in the file: its argument is the text. */
static char *direct_use(text use, uint32_t at, size_t param)
{
  span w = word_at(use, at);
  uint32_t open = skip_ws(use, w.end);
  call c;
  if (open >= use.n || use.s[open] != '(' || read_call(use, open, &c) == NONE ||
      param >= c.num_args)
    return NULL;
  out o = {0};
  put(&o, use.s + c.args[param].begin, c.args[param].end - c.args[param].begin);
  return finish(&o);
}

/* P(...) appears in the body of the macro m used at `at`: each call of P
 * there is a candidate; the one naming the right directive wins. */
static char *nested_use(text def, const macro *m, text use, uint32_t at,
                        text pdef, const macro *p, size_t param, int kind)
{
  call outer;
  uint32_t open = skip_ws(use, word_at(use, at).end);
  if (m->num_params > 0 &&
      (open >= use.n || use.s[open] != '(' || read_call(use, open, &outer) == NONE))
    return NULL;
  if (m->num_params == 0)
    outer.num_args = 0;
  char *first = NULL;
  for (uint32_t i = m->body.begin; i < m->body.end; i++) {
    span w = word_at(def, i);
    if (w.end == w.begin || !span_eq(def, w, pdef, p->name) ||
        (i > 0 && word_char(def.s[i - 1]))) {
      i = w.end > w.begin ? w.end - 1 : i;
      continue;
    }
    call inner;
    uint32_t iopen = skip_ws(def, w.end);
    if (iopen >= def.n || def.s[iopen] != '(' ||
        read_call(def, iopen, &inner) == NONE || param >= inner.num_args)
      continue;
    out o = {0};
    substitute(&o, def, inner.args[param], m, use, &outer);
    char *t = finish(&o);
    if (names_kind(t, kind)) {
      free(first);
      return t;
    }
    if (first == NULL)
      first = t;
    else
      free(t);
  }
  return first;
}

static const char *macro_at(const omplens_directives__file_work *fw,
                            uint32_t offset)
{
  for (size_t i = 0; i < fw->macro_uses.len; i++) {
    const omplens_directives__macro_use *m =
        &OMPLENS_DIRECTIVES__AT(fw->macro_uses, omplens_directives__macro_use, i);
    if (m->begin == offset)
      return m->name;
  }
  return NULL;
}

/* `_Pragma ( # name )` at offset: the parameter's name. */
static span stringized(text t, uint32_t offset)
{
  uint32_t i = skip_ws(t, word_at(t, offset).end);
  if (i < t.n && t.s[i] == '(')
    i = skip_ws(t, i + 1);
  if (i >= t.n || t.s[i] != '#')
    return (span){NONE, NONE};
  return word_at(t, skip_ws(t, i + 1));
}

static char *from_param(omplens_directives__unit *u,
                        const omplens_directives__file_work *fw,
                        const omplens_directives__ast_directive *d, text pdef,
                        const char *macro_name)
{
  span param = stringized(pdef, d->spelling_offset);
  macro p;
  if (param.begin == NONE || !read_define(pdef, d->spelling_offset, &p))
    return NULL;
  size_t k = 0;
  while (k < p.num_params && !span_eq(pdef, p.params[k], pdef, param))
    k++;
  text use = {fw->src.text, fw->src.size};
  if (k == p.num_params || macro_name == NULL)
    return NULL;
  if (span_is(pdef, p.name, macro_name))
    return direct_use(use, d->begin, k);
  const omplens_directives__macro_def *md = find_def(u, macro_name);
  text def = md != NULL ? source_text(u, md->file) : (text){NULL, 0};
  macro m;
  if (def.s == NULL || md->begin >= def.n || !read_define(def, md->begin, &m))
    return NULL;
  return nested_use(def, &m, use, d->begin, pdef, &p, k, d->cursor_kind);
}

char *omplens_directives__macro_text(omplens_directives__unit *u,
                                     const omplens_directives__file_work *fw,
                                     const omplens_directives__ast_directive *d,
                                     const char **macro_name)
{
  *macro_name = macro_at(fw, d->begin);
  if (d->spelling_file == NULL)
    return NULL;
  text pdef = source_text(u, d->spelling_file);
  if (pdef.s == NULL || d->spelling_offset >= pdef.n)
    return NULL;
  uint32_t after = 0;
  char *literal = omplens_directives__pragma_operator(pdef.s, pdef.n,
                                                      d->spelling_offset, &after);
  if (literal != NULL)
    return literal;
  return from_param(u, fw, d, pdef, *macro_name);
}

/* ---- macros that expand to a pragma ---- */

typedef struct pragma_macro {
  const char *name;
  const char *file;   /* where the `_Pragma` it ends in is spelled */
  uint32_t offset;
} pragma_macro;

static text def_text(omplens_directives__unit *u,
                     const omplens_directives__macro_def *d, span *body)
{
  text t = source_text(u, d->file);
  uint32_t end = d->end < t.n ? d->end : t.n;
  *body = (span){d->begin < end ? d->begin : end, end};
  return t;
}

/* Offset of the identifier w in t[body), NONE if absent. */
static uint32_t find_word(text t, span body, const char *w)
{
  size_t n = strlen(w);
  for (uint32_t i = body.begin; i + n <= body.end; i++)
    if (memcmp(t.s + i, w, n) == 0 && (i == 0 || !word_char(t.s[i - 1])) &&
        (i + n >= t.n || !word_char(t.s[i + n])))
      return i;
  return NONE;
}

static bool push_pragma_macro(omplens_directives__unit *u, pragma_macro pm)
{
  if (omplens_directives__vec_push(&u->pragma_macros, sizeof(pm), &pm) != NULL)
    return true;
  u->oom = true;
  return false;
}

/* Macros whose body names `_Pragma`, then the macros whose body names one
 * of those (the one level of indirection macro_text can rebuild). */
static void find_pragma_macros(omplens_directives__unit *u)
{
  size_t n = u->macro_defs.len;
  const omplens_directives__macro_def *defs = u->macro_defs.data;
  for (size_t i = 0; i < n; i++) {
    span body;
    text t = def_text(u, &defs[i], &body);
    uint32_t at = t.s != NULL ? find_word(t, body, "_Pragma") : NONE;
    if (at != NONE && !push_pragma_macro(u, (pragma_macro){defs[i].name, defs[i].file, at}))
      return;
  }
  size_t direct = u->pragma_macros.len;
  for (size_t i = 0; i < n && direct > 0; i++) {
    span body;
    text t = def_text(u, &defs[i], &body);
    body.begin = t.s != NULL ? word_at(t, body.begin).end : body.end; /* not its name */
    for (size_t k = 0; t.s != NULL && k < direct; k++) {
      pragma_macro p = OMPLENS_DIRECTIVES__AT(u->pragma_macros, pragma_macro, k);
      if (strcmp(p.name, defs[i].name) == 0 || find_word(t, body, p.name) == NONE)
        continue;
      p.name = defs[i].name;
      if (!push_pragma_macro(u, p))
        return;
      break;
    }
  }
}

bool omplens_directives__macro_spelling(omplens_directives__unit *u,
                                        const char *name, const char **file,
                                        uint32_t *offset)
{
  if (!u->pragma_macros_done) {
    u->pragma_macros_done = true;
    find_pragma_macros(u);
  }
  for (size_t i = u->pragma_macros.len; i-- > 0;) {
    const pragma_macro *p = &OMPLENS_DIRECTIVES__AT(u->pragma_macros, pragma_macro, i);
    if (strcmp(p->name, name) == 0) {
      *file = p->file;
      *offset = p->offset;
      return true;
    }
  }
  return false;
}
