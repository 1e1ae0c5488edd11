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
static char *storage_object(const char *init) {
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

/* The initializer of variable node d, normalized (caller frees), or NULL. */
static char *initializer(const omplens_fix__file *f, uint32_t d) {
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
    uint32_t arg = omplens_fix__ast_child(&caller->ast, call, omplens_fix__param_index(a, fn, d) + 1);
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

/* The directive site of a finding, with its file parsed; NULL when it has
 * none. */
static const omplens_fix__site *parsed_site(omplens_fixer *fx, size_t finding) {
  size_t gi = fx->fix_of_finding[finding];
  const omplens_fix__group *g = gi == SIZE_MAX ? NULL : &fx->groups[gi];
  const omplens_fix__site *s = NULL;
  for (size_t k = 0; g && k < g->num_findings; k++)
    if (g->findings[k] == finding)
      s = &g->sites[k];
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
  char *init = initializer(s->file, d);
  char *object = init ? storage_object(init) : NULL;
  char *name = object ? translate(fx, &fx->findings[finding], s, object, where) : NULL;
  free(init);
  free(object);
  if (name && !*where)
    *where = omplens_fix__ownf(fx, "%s:%u", omplens_fix__short_name(s->file->path),
                               s->dir->pragma.line);
  return name ? omplens_fix__own(fx, name) : NULL;
}
