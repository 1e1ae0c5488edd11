/* Names in the caller's terms (docs/fixes.md, "Storage names"): a map item
 * whose pointer is a local taken from an object's storage (`p =
 * v_.data()`, `xcoefs = &x.coefs[0]`) is named by that object, as the
 * code that calls the directive's function names it (`profile.v_`,
 * `Ap.coefs`): the object and member a user changes, not the local. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"

#define NONE OMPLENS_FIX__NONE

/* The object in an initializer that takes its storage: "v_" of
 * "v_.data()" or "&v_[0]", "x.coefs" of "&x.coefs[0]" or "x.coefs.data()",
 * "" (the object itself) of "data()" in a method. Caller frees; NULL for
 * anything else. */
char *omplens_fix__storage_object(const char *init) {
  size_t n = strlen(init);
  if (!strcmp(init, "data()") || !strcmp(init, "this->data()"))
    return strdup("");
  static const char *const data[] = {".data()", "->data()"};
  for (size_t k = 0; k < 2; k++) {
    size_t m = strlen(data[k]);
    if (n > m && !strcmp(init + n - m, data[k]))
      return strndup(init, n - m);
  }
  if (n > 4 && init[0] == '&' && !strcmp(init + n - 3, "[0]"))
    return strndup(init + 1, n - 4);
  return NULL;
}

char *omplens_fix__initializer(const omplens_fix__file *f, uint32_t d) {
  const omplens_fix__node *n = &f->ast.nodes[d];
  const char *t = f->src.text;
  size_t i = n->loc;
  while (i < n->end && t[i] != '=')
    i++;
  if (i >= n->end)
    return NULL;
  i++;
  return omplens_fix__normalize(t + i, n->end - i);
}


uint32_t omplens_fix__storage_var(const omplens_fix__file *f, uint32_t ref) {
  const omplens_fix__ast *a = &f->ast;
  uint32_t p = a->nodes[ref].parent;
  while (p != NONE) {
    int k = a->nodes[p].kind;
    if (k != OMPLENS_FIX__N_MEMBER && k != OMPLENS_FIX__N_SUBSCRIPT && k != OMPLENS_FIX__N_UNARY &&
        k != OMPLENS_FIX__N_CALL && k != OMPLENS_FIX__N_IMPLICIT && k != OMPLENS_FIX__N_CAST &&
        k != OMPLENS_FIX__N_PAREN && k != OMPLENS_FIX__N_OTHER_EXPR)
      break;
    p = a->nodes[p].parent;
  }
  if (p == NONE || a->nodes[p].kind != OMPLENS_FIX__N_VAR)
    return NONE;
  char *init = omplens_fix__initializer(f, p);
  char *object = init ? omplens_fix__storage_object(init) : NULL;
  const char *name = omplens_fix__ast_name(a, ref);
  size_t n = strlen(name);
  bool mine = object && !strncmp(object, name, n) && !omplens_fix__ident_char(object[n]);
  free(init);
  free(object);
  return mine ? p : NONE;
}

bool omplens_fix__size_query(const omplens_fix__file *f, uint32_t ref) {
  static const char *const queries[] = {"size", "empty", "capacity", "length", NULL};
  const omplens_fix__ast *a = &f->ast;
  uint32_t n = ref, child, p;
  while ((p = omplens_fix__ast_up(a, n, &child)) != NONE && a->nodes[p].kind == OMPLENS_FIX__N_MEMBER)
    n = p;
  if (n == ref || p == NONE || a->nodes[p].kind != OMPLENS_FIX__N_CALL || a->nodes[child].nth)
    return false;
  const char *name = omplens_fix__ast_name(a, n);
  char *text = *name ? NULL : omplens_fix__ast_text(a, &f->src, n); /* a template's: unnamed */
  if (text) {
    char *dot = strrchr(text, '.'), *arrow = strrchr(text, '>');
    char *last = dot > arrow ? dot : arrow;
    name = last ? last + 1 : "";
    while (*name == ' ')
      name++;
  }
  bool query = false;
  for (size_t k = 0; queries[k] && !query; k++)
    query = !strcmp(name, queries[k]);
  free(text);
  return query;
}

/* The object a member call is made on: "profile" of "profile.push()",
 * with the operator that follows it in *sep; NULL for a plain call. */
static char *call_object(const omplens_fix__file *f, uint32_t call, const char **sep) {
  uint32_t callee = omplens_fix__ast_child(&f->ast, call, 0);
  while (callee != NONE && f->ast.nodes[callee].kind == OMPLENS_FIX__N_IMPLICIT)
    callee = omplens_fix__ast_child(&f->ast, callee, 0);
  if (callee == NONE || f->ast.nodes[callee].kind != OMPLENS_FIX__N_MEMBER)
    return NULL;
  char *t = omplens_fix__ast_text(&f->ast, &f->src, callee);
  char *dot = t ? strrchr(t, '.') : NULL, *arrow = t ? strstr(t, "->") : NULL;
  char *cut = arrow && (!dot || arrow > dot) ? arrow : dot;
  if (!cut || cut == t) {
    free(t);
    return NULL;
  }
  *sep = *cut == '.' ? "." : "->";
  *cut = 0;
  return t;
}

/* Where the object's first identifier comes from, in the caller's terms:
 * a parameter becomes the call's argument, a member of `this` gets the
 * object the method is called on. Caller frees; NULL when unknown. */
static char *translate(omplens_fixer *fx, const omplens_finding *f, const omplens_fix__site *s,
                       const char *object, const char **where) {
  const omplens_fix__ast *a = &s->file->ast;
  size_t at = omplens_fix__offset(&s->file->src, s->dir->pragma.line, s->dir->pragma.column);
  uint32_t fn = omplens_fix__ast_function_at(a, at);
  size_t len = strcspn(object, ".-[(");
  char id[256];
  snprintf(id, sizeof id, "%.*s", (int)len, object);
  uint32_t d = omplens_fix__ast_lookup(a, id, at);
  bool param = d != NONE && a->nodes[d].kind == OMPLENS_FIX__N_PARM && a->nodes[d].parent == fn;
  if (d != NONE && !param)
    return strdup(object); /* a local or a global: named as it is */
  omplens_fix__file *caller;
  uint32_t call;
  const char *why = "";
  if (fn == NONE || !omplens_fix__call_on_path(fx, f, omplens_fix__ast_name(a, fn), true, &caller,
                                               &call, &why))
    return NULL;
  *where = omplens_fix__ownf(fx, "%s:%u", omplens_fix__short_name(caller->path),
                             omplens_fix__line_of(&caller->src, caller->ast.nodes[call].begin));
  char *outer = NULL, *out = NULL;
  const char *sep = "";
  if (param) {
    uint32_t arg = omplens_fix__call_arg(&caller->ast, call, omplens_fix__param_index(a, fn, d));
    outer = arg == NONE ? NULL : omplens_fix__ast_text(&caller->ast, &caller->src, arg);
    /* "(*grid).coefs", not "*grid.coefs", for an argument that is not a name */
    bool plain = outer && !outer[strspn(outer, "abcdefghijklmnopqrstuvwxyz"
                                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")];
    if (outer && asprintf(&out, plain || !object[len] ? "%s%s" : "(%s)%s", outer, object + len) < 0)
      out = NULL;
  } else if ((outer = call_object(caller, call, &sep)) != NULL) {
    if (asprintf(&out, "%s%s%s", outer, *object ? sep : "", object) < 0)
      out = NULL;
  }
  free(outer);
  return out;
}

/* ---- callee locals in the caller's terms ---- */


static char *local_text(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t fn, uint32_t d,
                        uint32_t call, size_t loop_at, int depth);

/* The parameter of constructor fn that its member initializer list gives
 * member name as it is (`host_(host)` or `host_{host}`), or NONE. */
static uint32_t member_init_param(omplens_fix__ctx *c, uint32_t fn, const char *name) {
  const omplens_fix__ast *a = c->ast;
  uint32_t body = NONE;
  for (uint32_t i = fn + 1; i < omplens_fix__ast_end(a, fn) && body == NONE; i++)
    if (a->nodes[i].kind == OMPLENS_FIX__N_COMPOUND && a->nodes[i].parent == fn)
      body = i;
  if (body == NONE)
    return NONE;
  const char *t = c->src->text;
  size_t b = a->nodes[fn].begin, e = a->nodes[body].begin, n = strlen(name);
  /* the list starts at the ':' after the ')' that closes the parameters */
  size_t colon = e, i = b;
  while (i < e && t[i] != '(')
    i++;
  for (int depth = 0; i < e; i++) {
    depth += (t[i] == '(') - (t[i] == ')');
    if (!depth)
      break;
  }
  for (size_t k = i + 1; k < e && colon == e; k++)
    if (t[k] == ':' && t[k + 1] != ':' && t[k - 1] != ':')
      colon = k;
  for (size_t m = colon + 1; m + n < e; m++) {
    if (strncmp(t + m, name, n) || omplens_fix__ident_char(t[m - 1]) ||
        (t[m + n] != '(' && t[m + n] != '{'))
      continue;
    size_t p = m + n + 1, q = p;
    while (q < e && omplens_fix__ident_char(t[q]))
      q++;
    if (q == p || q >= e || (t[q] != ')' && t[q] != '}'))
      return NONE;
    char word[256];
    snprintf(word, sizeof word, "%.*s", (int)(q - p), t + p);
    uint32_t parm = omplens_fix__ast_lookup(a, word, a->nodes[body].begin);
    return parm != NONE && a->nodes[parm].kind == OMPLENS_FIX__N_PARM && a->nodes[parm].parent == fn
               ? parm
               : NONE;
  }
  return NONE;
}

/* One identifier of a callee local's initializer, as the caller writes it
 * (appended to out): a parameter becomes its argument, a local of the same
 * kind its own text, a name the parse does not resolve in a method a
 * member of the object the method is called on; macros, enumerators and
 * globals stay, when the caller knows them too. */
static bool caller_name(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t fn, uint32_t d,
                        uint32_t call, size_t loop_at, int depth, const char *name,
                        omplens_fix__buf *out) {
  const omplens_fix__ast *a = c->ast;
  uint32_t e = omplens_fix__ast_lookup(a, name, a->nodes[d].begin);
  const char *sep = "";
  if (e != NONE && a->nodes[e].kind == OMPLENS_FIX__N_PARM && a->nodes[e].parent == fn) {
    uint32_t arg = omplens_fix__call_arg(at->ast, call, omplens_fix__param_index(a, fn, e));
    char *t = arg == NONE ? NULL : omplens_fix__argument_text(at, arg);
    if (t)
      omplens_fix__buf_str(out, t);
    free(t);
    return t || omplens_fix__fail(c, "the argument for %s at the call is unknown", name);
  }
  if (e != NONE && a->nodes[e].kind == OMPLENS_FIX__N_VAR && !a->nodes[e].global) {
    char *t = local_text(c, at, fn, e, call, loop_at, depth + 1);
    if (t)
      omplens_fix__buf_printf(out, "(%s)", t);
    free(t);
    return t != NULL;
  }
  if (e != NONE || omplens_fix__ast_is_macro(a, name)) { /* a constant or a global */
    if (omplens_fix__ast_is_macro(at->ast, name) ||
        omplens_fix__ast_lookup(at->ast, name, loop_at) != NONE || at == c) {
      omplens_fix__buf_str(out, name);
      return true;
    }
    return omplens_fix__fail(c, "%s is unknown in %s", name, omplens_fix__short_name(at->file->path));
  }
  uint32_t init_parm = member_init_param(c, fn, name);
  if (init_parm != NONE) /* a member the constructor sets from a parameter */
    return caller_name(c, at, fn, d, call, loop_at, depth, omplens_fix__ast_name(a, init_parm),
                       out);
  char *object = strcmp(name, "this") ? call_object(at->file, call, &sep) : NULL;
  if (object) /* a member of the object the method is called on */
    omplens_fix__buf_printf(out, "%s%s%s", object, sep, name);
  else if (!strcmp(name, "this") && (object = call_object(at->file, call, &sep)) != NULL)
    omplens_fix__buf_printf(out, *sep == '.' ? "(&%s)" : "%s", object);
  else
    omplens_fix__buf_str(out, name); /* a function: the compile check has the last word */
  free(object);
  return true;
}

/* The text of local d of function fn (file c) in the caller's terms, at
 * the call (file at) before the loop at loop_at: its initializer with
 * every identifier written as caller_name() says; d is never assigned
 * after. Caller frees; NULL (failed on c) when it cannot be written. */
static char *local_text(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t fn, uint32_t d,
                        uint32_t call, size_t loop_at, int depth) {
  const omplens_fix__ast *a = c->ast;
  const char *name = omplens_fix__ast_name(a, d);
  if (depth > 2) {
    omplens_fix__fail(c, "%s is a local of %s() made of other locals too deep to follow", name,
                      omplens_fix__ast_name(a, fn));
    return NULL;
  }
  for (uint32_t i = fn; i < omplens_fix__ast_end(a, fn); i++) {
    uint32_t other;
    if (a->nodes[i].kind == OMPLENS_FIX__N_DECLREF && a->nodes[i].ref == d &&
        omplens_fix__ast_use(a, i, &other) == OMPLENS_FIX__USE_ASSIGNED) {
      omplens_fix__fail(c, "%s, a local of %s(), changes at line %u", name,
                        omplens_fix__ast_name(a, fn), omplens_fix__line_of(c->src, a->nodes[i].begin));
      return NULL;
    }
  }
  char *init = omplens_fix__initializer(c->file, d);
  if (!init || strchr(init, '"') || strchr(init, '\'') || strchr(init, '{')) {
    omplens_fix__fail(c, "%s is a local of %s() without an initializer the caller can write",
                      name, omplens_fix__ast_name(a, fn));
    free(init);
    return NULL;
  }
  omplens_fix__buf out = {0};
  omplens_fix__buf_str(&out, "");
  bool ok = true, member = false;
  for (size_t i = 0; init[i] && ok;) {
    size_t j = i + 1;
    if (!omplens_fix__ident_char(init[i]) || isdigit((unsigned char)init[i])) {
      while (isdigit((unsigned char)init[i]) && (omplens_fix__ident_char(init[j]) || init[j] == '.'))
        j++;
      member = init[i] == '.' || (init[i] == '>' && i && init[i - 1] == '-') ||
               (init[i] == ':' && i && init[i - 1] == ':');
      if (init[i] != ' ')
        omplens_fix__buf_add(&out, init + i, j - i);
      else if (out.len && j < strlen(init)) /* keep words apart */
        omplens_fix__buf_str(&out, " ");
      i = j;
      continue;
    }
    while (omplens_fix__ident_char(init[j]))
      j++;
    char word[256];
    snprintf(word, sizeof word, "%.*s", (int)(j - i), init + i);
    bool scoped = init[j] == ':' && init[j + 1] == ':'; /* std::min: a namespace */
    if (member || scoped)
      omplens_fix__buf_str(&out, word);
    else
      ok = caller_name(c, at, fn, d, call, loop_at, depth, word, &out);
    member = false;
    i = j;
  }
  free(init);
  if (!ok || out.failed) {
    omplens_fix__buf_free(&out);
    return NULL;
  }
  return omplens_fix__buf_take(&out);
}

char *omplens_fix__local_in_caller(omplens_fix__ctx *c, omplens_fix__ctx *at, uint32_t fn,
                                   uint32_t d, uint32_t call, size_t loop_at) {
  return local_text(c, at, fn, d, call, loop_at, 0);
}

/* The directive site of a finding, with its file parsed; NULL when it has
 * none. */
static const omplens_fix__site *parsed_site(omplens_fixer *fx, size_t finding) {
  size_t gi = fx->fix_of_finding[finding];
  const omplens_fix__group *g = gi == SIZE_MAX ? NULL : &fx->groups[gi];
  uint32_t k = g ? fx->place_of_finding[finding] : 0;
  const omplens_fix__site *s =
      g && k < g->num_findings && g->findings[k] == finding ? omplens_fix__site_at(g, k) : NULL;
  const char *why;
  if (!s || !s->dir || !s->file || !omplens_fix__file_ast(fx, s->file, &why))
    return NULL;
  return s;
}

unsigned omplens_fix__call_loop(omplens_fixer *fx, size_t finding) {
  const omplens_fix__site *s = parsed_site(fx, finding);
  if (!s)
    return 0;
  const omplens_fix__ast *a = &s->file->ast;
  size_t at = omplens_fix__offset(&s->file->src, s->dir->pragma.line, s->dir->pragma.column);
  uint32_t fn = omplens_fix__ast_function_at(a, at), call;
  omplens_fix__file *caller;
  const char *why = "";
  if (fn == NONE || !omplens_fix__call_on_path(fx, &fx->findings[finding],
                                               omplens_fix__ast_name(a, fn), true, &caller,
                                               &call, &why))
    return 0;
  const omplens_fix__ast *ca = &caller->ast;
  uint32_t loop = omplens_fix__ast_loop_at(ca, omplens_fix__ast_function_at(ca, ca->nodes[call].begin),
                                           ca->nodes[call].begin);
  return loop == NONE ? 0 : omplens_fix__line_of(&caller->src, ca->nodes[loop].begin);
}

const char *omplens_fix__storage(omplens_fixer *fx, size_t finding, const char **where) {
  *where = NULL;
  const omplens_fix__site *s = parsed_site(fx, finding);
  if (!s || !s->var)
    return NULL;
  const omplens_fix__ast *a = &s->file->ast;
  size_t at = omplens_fix__offset(&s->file->src, s->dir->pragma.line, s->dir->pragma.column);
  uint32_t d = omplens_fix__ast_lookup(a, s->var, at);
  if (d == NONE || a->nodes[d].kind != OMPLENS_FIX__N_VAR || a->nodes[d].global)
    return NULL;
  char *init = omplens_fix__initializer(s->file, d);
  char *object = init ? omplens_fix__storage_object(init) : NULL;
  char *name = object ? translate(fx, &fx->findings[finding], s, object, where) : NULL;
  free(init);
  free(object);
  if (name && !*where)
    *where = omplens_fix__ownf(fx, "%s:%u", omplens_fix__short_name(s->file->path),
                               s->dir->pragma.line);
  return name ? omplens_fix__own(fx, name) : NULL;
}
