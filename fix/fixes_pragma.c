/* A `#pragma omp` line as written: continuation lines joined and comments
 * dropped into a logical line whose every character remembers its byte in
 * the file, then split into the directive name, clauses and the items of
 * map/to/from clauses. Edits are made on the file's bytes, so whatever is
 * not edited (spacing, comments, continuations) stays as the author wrote
 * it. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"

typedef struct logical {
  char *c;     /* the logical line */
  size_t *pos; /* file offset of each character */
  size_t n, cap;
  size_t end; /* file offset of the final EOL (or the end of the file) */
} logical;

static bool push(logical *l, char c, size_t pos) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 128;
    char *c2 = realloc(l->c, cap);
    if (c2)
      l->c = c2;
    size_t *p2 = realloc(l->pos, cap * sizeof *p2);
    if (p2)
      l->pos = p2;
    if (!c2 || !p2)
      return false;
    l->cap = cap;
  }
  l->c[l->n] = c;
  l->pos[l->n++] = pos;
  return true;
}

/* Splice length of a backslash-newline at i (0 if none). */
static size_t splice_at(const char *t, size_t size, size_t i) {
  if (t[i] != '\\')
    return 0;
  size_t j = i + 1;
  if (j < size && t[j] == '\r')
    j++;
  return j < size && t[j] == '\n' ? j + 1 - i : 0;
}

static int read_logical(const omplens_fix__source *s, size_t at, logical *l) {
  const char *t = s->text;
  size_t i = at;
  while (i < s->size) {
    size_t sp = splice_at(t, s->size, i);
    if (sp) {
      i += sp;
      continue;
    }
    if (t[i] == '\n' || (t[i] == '\r' && i + 1 < s->size && t[i + 1] == '\n'))
      break;
    if (t[i] == '/' && i + 1 < s->size && t[i + 1] == '*') {
      const char *close = strstr(t + i + 2, "*/");
      if (!close)
        return OMPLENS_FIX_EINVAL;
      if (!push(l, ' ', i))
        return OMPLENS_FIX_ENOMEM;
      i = (size_t)(close - t) + 2;
      continue;
    }
    if (t[i] == '/' && i + 1 < s->size && t[i + 1] == '/') {
      while (i < s->size && t[i] != '\n' && !(t[i] == '\r' && t[i + 1] == '\n'))
        i++;
      break;
    }
    if (!push(l, t[i] == '\t' ? ' ' : t[i], i))
      return OMPLENS_FIX_ENOMEM;
    i++;
  }
  l->end = i;
  return push(l, 0, i) ? 0 : OMPLENS_FIX_ENOMEM; /* a terminator */
}

char *omplens_fix__normalize(const char *s, size_t n) {
  char *out = malloc(n + 1);
  if (!out)
    return NULL;
  size_t k = 0;
  bool space = false;
  for (size_t i = 0; i < n; i++) {
    size_t sp = splice_at(s, n, i);
    if (sp) {
      i += sp - 1;
      space = true;
      continue;
    }
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
      const char *close = strstr(s + i + 2, "*/");
      i = close && (size_t)(close - s) + 2 <= n ? (size_t)(close - s) + 1 : n;
      space = true;
      continue;
    }
    if (isspace((unsigned char)s[i])) {
      space = true;
      continue;
    }
    if (space && k)
      out[k++] = ' ';
    space = false;
    out[k++] = s[i];
  }
  out[k] = 0;
  return out;
}

/* ---- tokens of the logical line ---- */

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

static size_t skip_space(const logical *l, size_t i) {
  while (i < l->n - 1 && l->c[i] == ' ')
    i++;
  return i;
}

/* End of the identifier at i. */
static size_t ident_end(const logical *l, size_t i) {
  while (i < l->n - 1 && is_ident(l->c[i]))
    i++;
  return i;
}

/* The matching close of the bracket at i, or SIZE_MAX. */
static size_t match_close(const logical *l, size_t i) {
  int depth = 0;
  for (size_t k = i; k < l->n - 1; k++) {
    char c = l->c[k];
    if (c == '(' || c == '[' || c == '{')
      depth++;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0)
        return c == ')' ? k : SIZE_MAX;
      if (depth < 0)
        return SIZE_MAX;
    }
  }
  return SIZE_MAX;
}

static const char *const DIRECTIVE_WORDS[] = {
    "target", "teams",  "distribute", "parallel", "for",    "simd",     "data", "enter",
    "exit",   "update", "loop",       "masked",   "master", "taskloop", NULL};

static bool directive_word(const char *w, size_t n) {
  for (const char *const *d = DIRECTIVE_WORDS; *d; d++)
    if (strlen(*d) == n && !strncmp(*d, w, n))
      return true;
  return false;
}

static const char *const MAP_TYPES[] = {"to", "from", "tofrom", "alloc", "release", "delete", NULL};

static bool map_type_word(const char *w, size_t n) {
  for (const char *const *d = MAP_TYPES; *d; d++)
    if (strlen(*d) == n && !strncmp(*d, w, n))
      return true;
  return false;
}

/* Normalized copy of the logical characters [b, e). */
static char *logical_text(const logical *l, size_t b, size_t e) {
  return omplens_fix__normalize(l->c + b, e > b ? e - b : 0);
}

/* Trims spaces off [*b, *e). */
static void trim(const logical *l, size_t *b, size_t *e) {
  while (*b < *e && l->c[*b] == ' ')
    (*b)++;
  while (*e > *b && l->c[*e - 1] == ' ')
    (*e)--;
}

static int add_item(omplens_fix__pragma *p, const logical *l, size_t b, size_t e, size_t clause,
                    size_t *cap) {
  trim(l, &b, &e);
  if (b == e)
    return OMPLENS_FIX_EINVAL; /* an empty item: not a valid list */
  if (p->num_items == *cap) {
    size_t c = *cap ? 2 * *cap : 8;
    omplens_fix__pitem *v = realloc(p->items, c * sizeof *v);
    if (!v)
      return OMPLENS_FIX_ENOMEM;
    p->items = v;
    *cap = c;
  }
  char *text = logical_text(l, b, e);
  if (!text)
    return OMPLENS_FIX_ENOMEM;
  p->items[p->num_items++] = (omplens_fix__pitem){l->pos[b], l->pos[e - 1] + 1, text, clause};
  return 0;
}

/* Modifiers, map type and items of a map/to/from clause's argument (a, z). */
static int parse_list(omplens_fix__pragma *p, const logical *l, size_t a, size_t z,
                      size_t *cap_items) {
  omplens_fix__pclause *c = &p->clauses[p->num_clauses - 1];
  int depth = 0;
  size_t colon = SIZE_MAX;
  for (size_t k = a; k < z && colon == SIZE_MAX; k++) {
    char ch = l->c[k];
    depth += (ch == '(' || ch == '[') - (ch == ')' || ch == ']');
    if (!depth && ch == ':' && l->c[k + 1] != ':' && (k == a || l->c[k - 1] != ':'))
      colon = k;
  }
  size_t mods_end = colon;
  if (colon != SIZE_MAX) {
    c->colon = l->pos[colon];
    size_t tb = colon, te = colon;
    trim(l, &a, &tb);
    te = tb;
    while (tb > a && is_ident(l->c[tb - 1]))
      tb--;
    if (!strcmp(c->name, "map") && map_type_word(l->c + tb, te - tb)) {
      c->type_begin = l->pos[tb];
      c->type_end = l->pos[te - 1] + 1;
      mods_end = tb;
    }
    char *mods = logical_text(l, a, mods_end);
    if (!mods)
      return OMPLENS_FIX_ENOMEM;
    size_t n = strlen(mods);
    while (n && (mods[n - 1] == ',' || mods[n - 1] == ' '))
      mods[--n] = 0;
    c->modifiers = mods;
    a = colon + 1;
  }
  c->first_item = p->num_items;
  depth = 0;
  size_t start = a;
  for (size_t k = a; k <= z; k++) {
    char ch = k < z ? l->c[k] : ',';
    depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
    if (!depth && ch == ',') {
      int rc = add_item(p, l, start, k, p->num_clauses - 1, cap_items);
      if (rc)
        return rc;
      start = k + 1;
    }
  }
  c->num_items = p->num_items - c->first_item;
  return 0;
}

static int add_clause(omplens_fix__pragma *p, const logical *l, size_t name_b, size_t name_e,
                      size_t before, size_t *cap) {
  if (p->num_clauses == *cap) {
    size_t c = *cap ? 2 * *cap : 8;
    omplens_fix__pclause *v = realloc(p->clauses, c * sizeof *v);
    if (!v)
      return OMPLENS_FIX_ENOMEM;
    p->clauses = v;
    *cap = c;
  }
  omplens_fix__pclause *c = &p->clauses[p->num_clauses++];
  memset(c, 0, sizeof *c);
  size_t n = name_e - name_b < sizeof c->name ? name_e - name_b : sizeof c->name - 1;
  memcpy(c->name, l->c + name_b, n);
  c->begin = l->pos[name_b];
  c->end = l->pos[name_e - 1] + 1;
  c->open = c->close = c->colon = c->type_begin = c->type_end = SIZE_MAX;
  c->before = before;
  return 0;
}

static int parse_clauses(omplens_fix__pragma *p, const logical *l, size_t i, size_t before) {
  size_t cap_clauses = 0, cap_items = 0;
  while ((i = skip_space(l, i)) < l->n - 1) {
    size_t comma_before = before;
    if (l->c[i] == ',') { /* clauses may be separated by commas */
      i = skip_space(l, i + 1);
      comma_before = before;
    }
    if (!is_ident(l->c[i]))
      return OMPLENS_FIX_EINVAL;
    size_t ne = ident_end(l, i);
    int rc = add_clause(p, l, i, ne, comma_before, &cap_clauses);
    if (rc)
      return rc;
    omplens_fix__pclause *c = &p->clauses[p->num_clauses - 1];
    size_t k = skip_space(l, ne);
    if (l->c[k] == '(') {
      size_t close = match_close(l, k);
      if (close == SIZE_MAX)
        return OMPLENS_FIX_EINVAL;
      c->open = l->pos[k];
      c->close = l->pos[close];
      c->end = c->close + 1;
      c->modifiers = NULL;
      if (!strcmp(c->name, "map") || !strcmp(c->name, "to") || !strcmp(c->name, "from")) {
        rc = parse_list(p, l, k + 1, close, &cap_items);
        if (rc)
          return rc;
      }
      ne = close + 1;
    }
    before = l->pos[ne - 1] + 1;
    i = ne;
  }
  p->last = before;
  return 0;
}

int omplens_fix__pragma_scan(const omplens_fix__source *s, size_t at, omplens_fix__pragma *out) {
  memset(out, 0, sizeof *out);
  if (at >= s->size || s->text[at] != '#')
    return OMPLENS_FIX_EINVAL;
  logical l = {0};
  int rc = read_logical(s, at, &l);
  size_t i = 1, e;
  if (!rc) {
    i = skip_space(&l, i);
    e = ident_end(&l, i);
    if (e - i != 6 || strncmp(l.c + i, "pragma", 6))
      rc = OMPLENS_FIX_EINVAL;
    i = skip_space(&l, e);
    e = ident_end(&l, i);
    if (e - i != 3 || strncmp(l.c + i, "omp", 3))
      rc = OMPLENS_FIX_EINVAL;
    i = e;
  }
  omplens_fix__buf name = {0};
  size_t before = rc ? 0 : l.pos[i - 1] + 1;
  while (!rc) {
    size_t b = skip_space(&l, i);
    e = ident_end(&l, b);
    size_t after = skip_space(&l, e);
    if (e == b || !directive_word(l.c + b, e - b) || l.c[after] == '(')
      break;
    if (name.len)
      omplens_fix__buf_str(&name, " ");
    omplens_fix__buf_add(&name, l.c + b, e - b);
    before = l.pos[e - 1] + 1;
    i = e;
  }
  out->begin = at;
  out->end = l.end;
  out->first_line = omplens_fix__line_of(s, at);
  out->last_line = omplens_fix__line_of(s, l.end > at ? l.end - 1 : at);
  if (!rc) {
    out->name = omplens_fix__buf_take(&name);
    rc = out->name ? parse_clauses(out, &l, i, before) : OMPLENS_FIX_ENOMEM;
  } else {
    omplens_fix__buf_free(&name);
  }
  if (!rc) {
    size_t line_at;
    omplens_fix__indent(s, out->first_line, &line_at);
    out->clean_start = omplens_fix__blank(s, line_at, at);
    out->clean_end = omplens_fix__blank(s, out->last, l.end);
  }
  free(l.c);
  free(l.pos);
  if (rc)
    omplens_fix__pragma_free(out);
  return rc;
}

void omplens_fix__pragma_free(omplens_fix__pragma *p) {
  if (p->kept) { /* its file frees it */
    memset(p, 0, sizeof *p);
    return;
  }
  for (size_t i = 0; i < p->num_items; i++)
    free(p->items[i].text);
  for (size_t i = 0; i < p->num_clauses; i++)
    free(p->clauses[i].modifiers);
  free(p->items);
  free(p->clauses);
  free(p->name);
  memset(p, 0, sizeof *p);
}

size_t omplens_fix__pragma_clause(const omplens_fix__pragma *p, const char *name, size_t from) {
  for (size_t i = from; i < p->num_clauses; i++)
    if (!strcmp(p->clauses[i].name, name))
      return i;
  return SIZE_MAX;
}

size_t omplens_fix__pragma_data_clauses(const omplens_fix__pragma *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->num_clauses; i++)
    n += !strcmp(p->clauses[i].name, "map") || !strcmp(p->clauses[i].name, "to") ||
         !strcmp(p->clauses[i].name, "from");
  return n;
}

/* ---- edits ---- */

/* Removes items i..last, adjacent, from their clause, which keeps other
 * items. A run that starts the clause goes with the separator after it,
 * any other with the one before it, so that the removals of runs apart
 * never meet. */
static void remove_run(const omplens_fix__source *s, const omplens_fix__pragma *p, size_t i,
                       size_t last, omplens_fix__edits *e) {
  const omplens_fix__pclause *c = &p->clauses[p->items[i].clause];
  if (i == c->first_item) /* "a, b, " up to the item that stays */
    omplens_fix__replace(e, s, p->items[i].begin, p->items[last + 1].begin, "");
  else /* ", a, b" after the item that stays before them */
    omplens_fix__replace(e, s, p->items[i - 1].end, p->items[last].end, "");
}

/* Removes item i from its clause, which keeps other items. */
static void remove_from_list(const omplens_fix__source *s, const omplens_fix__pragma *p, size_t i,
                             omplens_fix__edits *e) {
  remove_run(s, p, i, i, e);
}

const char *omplens_fix__pragma_remove_item(const omplens_fix__source *s,
                                            const omplens_fix__pragma *p, size_t item,
                                            omplens_fix__edits *e) {
  if (item >= p->num_items)
    return "the item is not in the directive as written";
  const omplens_fix__pclause *c = &p->clauses[p->items[item].clause];
  if (c->num_items > 1)
    remove_from_list(s, p, item, e);
  else
    omplens_fix__replace(e, s, c->before, c->end, "");
  return NULL;
}

/* Whether item i is one of items[0..n). */
static bool among(const size_t *items, size_t n, size_t i) {
  for (size_t k = 0; k < n; k++)
    if (items[k] == i)
      return true;
  return false;
}

const char *omplens_fix__pragma_remove_items(const omplens_fix__source *s,
                                             const omplens_fix__pragma *p, const size_t *items,
                                             size_t n, omplens_fix__edits *e) {
  bool *going = calloc(p->num_items + 1, sizeof *going); /* by item: it goes */
  if (!going) {
    e->failed = 1;
    return NULL;
  }
  for (size_t k = 0; k < n; k++) {
    if (items[k] >= p->num_items) {
      free(going);
      return "the item is not in the directive as written";
    }
    going[items[k]] = true;
  }
  for (size_t ci = 0; ci < p->num_clauses; ci++) {
    const omplens_fix__pclause *c = &p->clauses[ci];
    size_t first = c->first_item, end = c->first_item + c->num_items, gone = 0;
    for (size_t i = first; i < end; i++)
      gone += going[i];
    if (gone && gone == c->num_items) {
      omplens_fix__replace(e, s, c->before, c->end, "");
      continue;
    }
    for (size_t i = first; i < end; i++) {
      if (!going[i])
        continue;
      size_t last = i; /* the run i..last */
      while (last + 1 < end && going[last + 1])
        last++;
      remove_run(s, p, i, last, e);
      i = last;
    }
  }
  free(going);
  return NULL;
}

/* The clause's modifiers without `always` when the new type copies nothing. */
static char *modifiers_for(const omplens_fix__pclause *c, const char *type) {
  const char *m = c->modifiers ? c->modifiers : "";
  bool copies = !strcmp(type, "to") || !strcmp(type, "from") || !strcmp(type, "tofrom");
  omplens_fix__buf b = {0};
  omplens_fix__buf_str(&b, "");
  while (*m) {
    size_t n = strcspn(m, ",");
    char *one = omplens_fix__normalize(m, n);
    if (one && *one && (copies || strcmp(one, "always"))) {
      if (b.len)
        omplens_fix__buf_str(&b, ", ");
      omplens_fix__buf_str(&b, one);
    }
    free(one);
    m += n + (m[n] == ',');
  }
  return omplens_fix__buf_take(&b);
}

/* Gives map clause c, all its items, the type type; pre is the new
 * "MODIFIERS, type" and same_mods whether the modifiers stay as written. */
static void retype_clause_with(const omplens_fix__source *s, const omplens_fix__pclause *c,
                               const char *type, const char *pre, bool same_mods,
                               omplens_fix__edits *e) {
  if (c->type_begin != SIZE_MAX && same_mods) {
    omplens_fix__replace(e, s, c->type_begin, c->type_end, type);
  } else if (c->colon != SIZE_MAX) {
    omplens_fix__replace(e, s, c->open + 1, c->colon, pre);
  } else {
    omplens_fix__buf b = {0};
    omplens_fix__buf_printf(&b, "%s: ", pre);
    char *text = omplens_fix__buf_take(&b);
    if (text)
      omplens_fix__replace(e, s, c->open + 1, c->open + 1, text);
    else
      e->failed = 1;
    free(text);
  }
}

static void retype_clause(const omplens_fix__source *s, const omplens_fix__pclause *c,
                          const char *type, omplens_fix__edits *e) {
  char *mods = modifiers_for(c, type);
  omplens_fix__buf prefix = {0};
  if (mods)
    omplens_fix__buf_printf(&prefix, "%s%s%s", mods, *mods ? ", " : "", type);
  char *pre = omplens_fix__buf_take(&prefix);
  if (mods && pre)
    retype_clause_with(s, c, type, pre, !strcmp(mods, c->modifiers ? c->modifiers : ""), e);
  else
    e->failed = 1;
  free(mods);
  free(pre);
}

const char *omplens_fix__pragma_set_type(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                         size_t item, const char *type, omplens_fix__edits *e) {
  if (item >= p->num_items)
    return "the item is not in the directive as written";
  const omplens_fix__pclause *c = &p->clauses[p->items[item].clause];
  if (strcmp(c->name, "map"))
    return "the item is in a motion clause, which has no map type";
  char *mods = modifiers_for(c, type);
  if (!mods) {
    e->failed = 1;
    return NULL;
  }
  omplens_fix__buf prefix = {0};
  omplens_fix__buf_printf(&prefix, "%s%s%s", mods, *mods ? ", " : "", type);
  char *pre = omplens_fix__buf_take(&prefix);
  bool same_mods = !strcmp(mods, c->modifiers ? c->modifiers : "");
  free(mods);
  if (!pre) {
    e->failed = 1;
    return NULL;
  }
  if (c->num_items > 1) {
    omplens_fix__buf b = {0};
    omplens_fix__buf_printf(&b, " map(%s: %s)", pre, p->items[item].text);
    char *text = omplens_fix__buf_take(&b);
    remove_from_list(s, p, item, e);
    if (text)
      omplens_fix__replace(e, s, c->end, c->end, text);
    else
      e->failed = 1;
    free(text);
  } else {
    retype_clause_with(s, c, type, pre, same_mods, e);
  }
  free(pre);
  return NULL;
}

const char *omplens_fix__pragma_set_types(const omplens_fix__source *s,
                                          const omplens_fix__pragma *p, const size_t *items,
                                          size_t n, const char *type, omplens_fix__edits *e) {
  for (size_t k = 0; k < n; k++) {
    if (items[k] >= p->num_items)
      return "the item is not in the directive as written";
    if (strcmp(p->clauses[p->items[items[k]].clause].name, "map"))
      return "the item is in a motion clause, which has no map type";
  }
  for (size_t ci = 0; ci < p->num_clauses; ci++) {
    const omplens_fix__pclause *c = &p->clauses[ci];
    size_t moving = 0, one = SIZE_MAX;
    for (size_t i = c->first_item; i < c->first_item + c->num_items; i++)
      if (among(items, n, i)) {
        moving++;
        one = i;
      }
    if (!moving)
      continue;
    if (moving == c->num_items) { /* the clause's own type changes */
      retype_clause(s, c, type, e);
      continue;
    }
    if (moving == 1) {
      const char *why = omplens_fix__pragma_set_type(s, p, one, type, e);
      if (why)
        return why;
      continue;
    }
    /* Some stay: the clause is written again, the staying items first as
     * they were, then a clause of the new type with the moving ones (one
     * edit, so that no other item's edit overlaps it). */
    char *mods = modifiers_for(c, type);
    omplens_fix__buf b = {0};
    omplens_fix__buf_add(&b, s->text + c->begin, p->items[c->first_item].begin - c->begin);
    bool first = true;
    for (size_t i = c->first_item; i < c->first_item + c->num_items; i++)
      if (!among(items, n, i)) {
        omplens_fix__buf_printf(&b, "%s%.*s", first ? "" : ", ",
                                (int)(p->items[i].end - p->items[i].begin),
                                s->text + p->items[i].begin);
        first = false;
      }
    omplens_fix__buf_printf(&b, ") map(%s%s%s:", mods ? mods : "", mods && *mods ? ", " : "",
                            type);
    first = true;
    for (size_t i = c->first_item; i < c->first_item + c->num_items; i++)
      if (among(items, n, i)) {
        omplens_fix__buf_printf(&b, "%s %s", first ? "" : ",", p->items[i].text);
        first = false;
      }
    omplens_fix__buf_str(&b, ")");
    char *text = omplens_fix__buf_take(&b);
    if (mods && text)
      omplens_fix__replace(e, s, c->begin, c->end, text);
    else
      e->failed = 1;
    free(mods);
    free(text);
  }
  return NULL;
}

/* The new type of item i in changes[0..n) (NULL: it goes), or `none`
 * when no change names it. */
static const char *change_of(const omplens_fix__item_edit *changes, size_t n, size_t i,
                             const char *none) {
  for (size_t k = 0; k < n; k++)
    if (changes[k].item == i)
      return changes[k].type;
  return none;
}

/* Appends " map(MODIFIERS type: items...)" for the items of clause c that
 * changes give type, or " firstprivate(items...)" for that type (lead: no
 * space before it). */
static void add_typed_clause(omplens_fix__buf *b, const omplens_fix__pragma *p,
                             const omplens_fix__pclause *c, const omplens_fix__item_edit *changes,
                             size_t n, const char *type, bool lead) {
  bool fp = !strcmp(type, OMPLENS_FIX__FIRSTPRIVATE); /* a clause of its own */
  char *mods = fp ? NULL : modifiers_for(c, type);
  if (fp)
    omplens_fix__buf_printf(b, "%sfirstprivate(", lead ? "" : " ");
  else
    omplens_fix__buf_printf(b, "%smap(%s%s%s:", lead ? "" : " ", mods ? mods : "",
                            mods && *mods ? ", " : "", type);
  free(mods);
  bool first = true;
  for (size_t i = c->first_item; i < c->first_item + c->num_items; i++) {
    const char *t = change_of(changes, n, i, "");
    if (t && *t && !strcmp(t, type)) {
      omplens_fix__buf_printf(b, "%s%s", first ? (fp ? "" : " ") : ", ", p->items[i].text);
      first = false;
    }
  }
  omplens_fix__buf_str(b, ")");
}

const char *omplens_fix__pragma_change(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                       const omplens_fix__item_edit *changes, size_t n,
                                       omplens_fix__edits *e) {
  for (size_t k = 0; k < n; k++) {
    if (changes[k].item >= p->num_items)
      return "the item is not in the directive as written";
    if (changes[k].type && strcmp(p->clauses[p->items[changes[k].item].clause].name, "map"))
      return "the item is in a motion clause, which has no map type";
  }
  for (size_t ci = 0; ci < p->num_clauses; ci++) {
    const omplens_fix__pclause *c = &p->clauses[ci];
    size_t stay = 0, go = 0, types = 0; /* types: distinct new ones */
    const char *type = NULL;
    for (size_t i = c->first_item; i < c->first_item + c->num_items; i++) {
      const char *t = change_of(changes, n, i, "");
      stay += t && !*t;
      go += !t;
      if (t && *t && (!type || strcmp(t, type)))
        types++, type = t;
    }
    if (!go && !types)
      continue;
    if (!types) { /* removals only */
      if (!stay) {
        omplens_fix__replace(e, s, c->before, c->end, "");
        continue;
      }
      for (size_t i = c->first_item; i < c->first_item + c->num_items; i++) {
        if (change_of(changes, n, i, ""))
          continue;
        size_t last = i; /* the run i..last */
        while (last + 1 < c->first_item + c->num_items && !change_of(changes, n, last + 1, ""))
          last++;
        remove_run(s, p, i, last, e);
        i = last;
      }
      continue;
    }
    if (!stay && !go && types == 1 && strcmp(type, OMPLENS_FIX__FIRSTPRIVATE)) {
      /* the clause's own type changes */
      retype_clause(s, c, type, e);
      continue;
    }
    /* Written again: the staying items as they were, then a clause of
     * each new type with its items, in the order they come. One edit, so
     * that no other item's edit overlaps it. */
    omplens_fix__buf b = {0};
    omplens_fix__buf_str(&b, "");
    if (stay) {
      omplens_fix__buf_add(&b, s->text + c->begin, p->items[c->first_item].begin - c->begin);
      bool first = true;
      for (size_t i = c->first_item; i < c->first_item + c->num_items; i++) {
        const char *t = change_of(changes, n, i, "");
        if (t && !*t) {
          omplens_fix__buf_printf(&b, "%s%.*s", first ? "" : ", ",
                                  (int)(p->items[i].end - p->items[i].begin),
                                  s->text + p->items[i].begin);
          first = false;
        }
      }
      omplens_fix__buf_str(&b, ")");
    }
    for (size_t i = c->first_item; i < c->first_item + c->num_items; i++) {
      const char *t = change_of(changes, n, i, "");
      bool earlier = false; /* its type made its clause already */
      for (size_t j = c->first_item; t && *t && j < i && !earlier; j++) {
        const char *u = change_of(changes, n, j, "");
        earlier = u && *u && !strcmp(u, t);
      }
      if (t && *t && !earlier)
        add_typed_clause(&b, p, c, changes, n, t, b.len == 0);
    }
    char *text = omplens_fix__buf_take(&b);
    if (text)
      omplens_fix__replace(e, s, c->begin, c->end, text);
    else
      e->failed = 1;
    free(text);
  }
  return NULL;
}

const char *omplens_fix__pragma_add_clause(const omplens_fix__source *s,
                                           const omplens_fix__pragma *p, const char *clause,
                                           omplens_fix__edits *e) {
  omplens_fix__buf b = {0};
  omplens_fix__buf_printf(&b, " %s", clause);
  char *text = omplens_fix__buf_take(&b);
  if (!text) {
    e->failed = 1;
    return NULL;
  }
  omplens_fix__replace(e, s, p->last, p->last, text);
  free(text);
  return NULL;
}

const char *omplens_fix__pragma_remove(const omplens_fix__source *s, const omplens_fix__pragma *p,
                                       omplens_fix__edits *e) {
  if (!p->clean_start)
    return "code precedes the directive on its line";
  if (!p->clean_end)
    return "code follows the directive on its last line";
  omplens_fix__remove_lines(e, s, p->first_line, p->last_line);
  return NULL;
}
