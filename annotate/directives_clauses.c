/* Reading a normalized "#pragma omp ..." line: the directive name, its
 * kind, and the clauses with their list items. libclang's C API exposes no
 * clauses, so this is the one place where map types, modifiers and items
 * come from; it works on text, for `#pragma` and `_Pragma` alike. */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "directives_internal.h"

#define NONE OMPLENS_DIRECTIVES__NONE

typedef omplens_directives__span span;
typedef omplens_directives__parsed parsed;

typedef struct cursor {
  const char *s;
  uint32_t i, n;
} cursor;

/* ---- characters ---- */

static bool is_word_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (c >= '0' && c <= '9');
}

static void skip_spaces(cursor *c)
{
  while (c->i < c->n && c->s[c->i] == ' ')
    c->i++;
}

static span read_word(cursor *c)
{
  span w = {c->i, c->i};
  while (w.end < c->n && is_word_char(c->s[w.end]))
    w.end++;
  c->i = w.end;
  return w;
}

static bool span_is(const char *s, span w, const char *word)
{
  size_t len = strlen(word);
  return w.begin != NONE && w.end - w.begin == len &&
         memcmp(s + w.begin, word, len) == 0;
}

static span trim(const char *s, span w)
{
  while (w.begin < w.end && s[w.begin] == ' ')
    w.begin++;
  while (w.end > w.begin && s[w.end - 1] == ' ')
    w.end--;
  return w;
}

/* i at an opening bracket; the index of its partner, or n. Brackets inside
 * string literals do not count. */
static uint32_t closing(const char *s, uint32_t i, uint32_t n)
{
  int depth = 0;
  for (; i < n; i++) {
    char c = s[i];
    if (c == '"' || c == '\'') {
      for (i++; i < n && s[i] != c; i++)
        i += s[i] == '\\';
      continue;
    }
    depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
    if (depth == 0)
      return i;
  }
  return n;
}

/* Next top-level occurrence of sep in [from, to) ("::" is no ':'). */
static uint32_t find_top(const char *s, uint32_t from, uint32_t to, char sep)
{
  for (uint32_t i = from; i < to; i++) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') {
      i = closing(s, i, to);
      continue;
    }
    if (c == ':' && sep == ':' && i + 1 < to && s[i + 1] == ':') {
      i++;
      continue;
    }
    if (c == sep)
      return i;
  }
  return NONE;
}

/* ---- directive names ---- */

/* Words that make up target directive names; none of them is a clause. */
static bool is_directive_word(const char *s, span w)
{
  static const char *const words[] = {"target", "data", "enter", "exit",
                                      "update", "teams", "distribute",
                                      "parallel", "for", "simd", "loop"};
  for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
    if (span_is(s, w, words[k]))
      return true;
  return false;
}

static int kind_of_name(const char *s, span name, bool *combined)
{
  *combined = false;
  if (span_is(s, name, "target data"))
    return OMPLENS_DIRECTIVE_TARGET_DATA;
  if (span_is(s, name, "target enter data"))
    return OMPLENS_DIRECTIVE_TARGET_ENTER_DATA;
  if (span_is(s, name, "target exit data"))
    return OMPLENS_DIRECTIVE_TARGET_EXIT_DATA;
  if (span_is(s, name, "target update"))
    return OMPLENS_DIRECTIVE_TARGET_UPDATE;
  if (name.end - name.begin >= 6 && memcmp(s + name.begin, "target", 6) == 0 &&
      (name.end - name.begin == 6 || s[name.begin + 6] == ' ')) {
    *combined = name.end - name.begin > 6;
    return OMPLENS_DIRECTIVE_TARGET;
  }
  return 0;
}

/* Leaves c after "omp", or returns false for another pragma. */
static bool skip_head(cursor *c)
{
  c->i = 7; /* "#pragma" */
  skip_spaces(c);
  span omp = read_word(c);
  if (!span_is(c->s, omp, "omp"))
    return false;
  skip_spaces(c);
  return true;
}

/* The target directive name at c: the longest run of directive words not
 * followed by '(' (a clause). */
static span target_name(cursor *c)
{
  span name = {c->i, c->i};
  while (c->i < c->n) {
    uint32_t save = c->i;
    skip_spaces(c);
    span w = read_word(c);
    bool clause = c->i < c->n && c->s[c->i] == '(';
    if (w.begin == w.end || clause || !is_directive_word(c->s, w)) {
      c->i = save;
      break;
    }
    name.end = w.end;
  }
  return name;
}

static bool standalone_word(const char *s, span w)
{
  static const char *const words[] = {
      "barrier", "taskwait", "taskyield", "flush",    "cancel",
      "cancellation", "depobj", "scan",  "interop",  "error",
      "requires", "threadprivate", "declare", "allocate", "begin",
      "end",     "assumes",  "nothing"};
  for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
    if (span_is(s, w, words[k]))
      return true;
  return false;
}

bool omplens_directives__takes_body(const char *text, uint32_t len)
{
  cursor c = {text, 0, len};
  if (len < 7 || !skip_head(&c))
    return true; /* a foreign pragma stands before a statement, if at all */
  uint32_t start = c.i;
  span first = read_word(&c);
  if (standalone_word(text, first))
    return false;
  c.i = start;
  span name = target_name(&c);
  bool combined;
  int kind = kind_of_name(text, name, &combined);
  return kind == 0 || kind == OMPLENS_DIRECTIVE_TARGET ||
         kind == OMPLENS_DIRECTIVE_TARGET_DATA;
}

/* ---- clauses ---- */

typedef struct clause_name {
  const char *name;
  int kind;
} clause_name;

static int clause_kind(const char *s, span w)
{
  static const clause_name names[] = {
      {"map", OMPLENS_CLAUSE_MAP},
      {"to", OMPLENS_CLAUSE_TO},
      {"from", OMPLENS_CLAUSE_FROM},
      {"nowait", OMPLENS_CLAUSE_NOWAIT},
      {"device", OMPLENS_CLAUSE_DEVICE},
      {"depend", OMPLENS_CLAUSE_DEPEND},
      {"if", OMPLENS_CLAUSE_IF},
      {"defaultmap", OMPLENS_CLAUSE_DEFAULTMAP},
      {"private", OMPLENS_CLAUSE_PRIVATE},
      {"firstprivate", OMPLENS_CLAUSE_FIRSTPRIVATE},
      {"is_device_ptr", OMPLENS_CLAUSE_IS_DEVICE_PTR},
      {"has_device_addr", OMPLENS_CLAUSE_HAS_DEVICE_ADDR},
      {"use_device_ptr", OMPLENS_CLAUSE_USE_DEVICE_PTR},
      {"use_device_addr", OMPLENS_CLAUSE_USE_DEVICE_ADDR},
      {"reduction", OMPLENS_CLAUSE_REDUCTION},
  };
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
    if (span_is(s, w, names[k].name))
      return names[k].kind;
  return OMPLENS_CLAUSE_OTHER;
}

static int map_type_of(const char *s, span w)
{
  static const char *const types[] = {"to",    "from",    "tofrom",
                                      "alloc", "release", "delete"};
  static const int values[] = {OMPLENS_MAP_TO,    OMPLENS_MAP_FROM,
                               OMPLENS_MAP_TOFROM, OMPLENS_MAP_ALLOC,
                               OMPLENS_MAP_RELEASE, OMPLENS_MAP_DELETE};
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
    if (span_is(s, w, types[k]))
      return values[k];
  return OMPLENS_MAP_NONE;
}

static unsigned modifier_of(const char *s, span w)
{
  if (span_is(s, w, "always"))
    return OMPLENS_MAPMOD_ALWAYS;
  if (span_is(s, w, "close"))
    return OMPLENS_MAPMOD_CLOSE;
  if (span_is(s, w, "present"))
    return OMPLENS_MAPMOD_PRESENT;
  if (span_is(s, w, "mapper"))
    return OMPLENS_MAPMOD_MAPPER;
  if (span_is(s, w, "iterator"))
    return OMPLENS_MAPMOD_ITERATOR;
  if (span_is(s, w, "ompx_hold"))
    return OMPLENS_MAPMOD_HOLD;
  return 0;
}

/* The words before the ':' of a map, to or from clause. */
static void read_modifiers(const char *s, span prefix, unsigned *mods,
                           int *type)
{
  cursor c = {s, prefix.begin, prefix.end};
  while (c.i < c.n) {
    if (!is_word_char(s[c.i])) {
      c.i++;
      continue;
    }
    span w = read_word(&c);
    if (c.i < c.n && s[c.i] == '(') /* mapper(id), iterator(...) */
      c.i = closing(s, c.i, c.n) + 1;
    int t = map_type_of(s, w);
    if (t != OMPLENS_MAP_NONE)
      *type = t;
    else
      *mods |= modifier_of(s, w);
  }
}

/* The base variable of an item: a in a[0:n], s in s.x, p in (*p)[0:n],
 * x in ns::x. */
static span base_var(const char *s, span item)
{
  uint32_t i = item.begin;
  while (i < item.end && (s[i] == '*' || s[i] == '&' || s[i] == '(' || s[i] == ' '))
    i++;
  if (item.end - i > 6 && !memcmp(s + i, "this->", 6)) /* a member, as the runtime names it */
    i += 6;
  span v = {NONE, NONE};
  while (i < item.end && is_word_char(s[i]) && !(s[i] >= '0' && s[i] <= '9')) {
    v.begin = i;
    while (i < item.end && is_word_char(s[i]))
      i++;
    v.end = i;
    if (i + 1 < item.end && s[i] == ':' && s[i + 1] == ':')
      i += 2; /* a qualified name: keep its last part */
    else
      break;
  }
  return v;
}

static int default_map_type(int kind)
{
  if (kind == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA)
    return OMPLENS_MAP_TO;
  if (kind == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA)
    return OMPLENS_MAP_FROM;
  return OMPLENS_MAP_TOFROM;
}

static bool push_items(parsed *p, const char *s, span list,
                       omplens_directives__item_draft proto)
{
  uint32_t from = list.begin;
  while (from < list.end) {
    uint32_t comma = find_top(s, from, list.end, ',');
    uint32_t to = comma == NONE ? list.end : comma;
    proto.text = trim(s, (span){from, to});
    if (proto.text.begin < proto.text.end) {
      proto.var = base_var(s, proto.text);
      if (!omplens_directives__vec_push(&p->items, sizeof(proto), &proto))
        return false;
    }
    from = to + 1;
  }
  return true;
}

/* map([modifiers,] [type:] list), to([modifiers:] list), from(...). */
static bool data_clause(parsed *p, const char *s, int kind, span arg,
                        uint32_t clause)
{
  omplens_directives__item_draft proto = {kind, OMPLENS_MAP_NONE, 0, clause,
                                          {NONE, NONE}, {NONE, NONE}};
  span list = arg;
  uint32_t colon = find_top(s, arg.begin, arg.end, ':');
  if (colon != NONE) {
    read_modifiers(s, (span){arg.begin, colon}, &proto.modifiers,
                   &proto.map_type);
    list.begin = colon + 1;
  }
  if (kind == OMPLENS_CLAUSE_TO)
    proto.map_type = OMPLENS_MAP_TO;
  else if (kind == OMPLENS_CLAUSE_FROM)
    proto.map_type = OMPLENS_MAP_FROM;
  else if (proto.map_type == OMPLENS_MAP_NONE) {
    proto.map_type = default_map_type(p->kind);
    proto.modifiers |= OMPLENS_MAPMOD_TYPE_IMPLIED;
  }
  return push_items(p, s, list, proto);
}

/* Names of private, firstprivate, reduction, ... lists: they keep a
 * variable out of the implicit maps. */
static bool listed_clause(parsed *p, const char *s, int kind, span arg,
                          bool list_first)
{
  span list = arg;
  uint32_t colon = find_top(s, arg.begin, arg.end, ':');
  if (colon != NONE) /* linear(list: step), the others (modifiers: list) */
    list = list_first ? (span){arg.begin, colon} : (span){colon + 1, arg.end};
  uint32_t from = list.begin;
  while (from < list.end) {
    uint32_t comma = find_top(s, from, list.end, ',');
    uint32_t to = comma == NONE ? list.end : comma;
    omplens_directives__listed l = {kind, base_var(s, trim(s, (span){from, to}))};
    if (l.var.begin != NONE &&
        !omplens_directives__vec_push(&p->listed, sizeof(l), &l))
      return false;
    from = to + 1;
  }
  return true;
}

static int category_slot(const char *s, span w)
{
  if (span_is(s, w, "scalar"))
    return OMPLENS_DIRECTIVES__DM_SCALAR;
  if (span_is(s, w, "aggregate"))
    return OMPLENS_DIRECTIVES__DM_AGGREGATE;
  if (span_is(s, w, "pointer"))
    return OMPLENS_DIRECTIVES__DM_POINTER;
  return -1; /* all, or none written */
}

/* defaultmap(behaviour[: category]) */
static void defaultmap_clause(parsed *p, const char *s, span arg)
{
  cursor c = {s, arg.begin, arg.end};
  skip_spaces(&c);
  span behaviour = read_word(&c);
  uint32_t colon = find_top(s, arg.begin, arg.end, ':');
  int slot = -1;
  if (colon != NONE) {
    cursor cc = {s, colon + 1, arg.end};
    skip_spaces(&cc);
    slot = category_slot(s, read_word(&cc));
  }
  int b = OMPLENS_DIRECTIVES__DM_MAP, type = map_type_of(s, behaviour);
  if (span_is(s, behaviour, "firstprivate"))
    b = OMPLENS_DIRECTIVES__DM_FIRSTPRIVATE;
  else if (span_is(s, behaviour, "none"))
    b = OMPLENS_DIRECTIVES__DM_NONE;
  else if (span_is(s, behaviour, "present"))
    type = OMPLENS_MAP_PRESENT;
  else if (type == OMPLENS_MAP_NONE)
    b = OMPLENS_DIRECTIVES__DM_DEFAULT_RULE;
  for (int k = 0; k < OMPLENS_DIRECTIVES__DM_SLOTS; k++)
    if (slot < 0 || slot == k) {
      p->dm_behaviour[k] = b;
      p->dm_map_type[k] = type;
    }
}

static bool is_listing(int kind)
{
  return kind == OMPLENS_CLAUSE_PRIVATE || kind == OMPLENS_CLAUSE_FIRSTPRIVATE ||
         kind == OMPLENS_CLAUSE_IS_DEVICE_PTR ||
         kind == OMPLENS_CLAUSE_HAS_DEVICE_ADDR ||
         kind == OMPLENS_CLAUSE_USE_DEVICE_PTR ||
         kind == OMPLENS_CLAUSE_USE_DEVICE_ADDR ||
         kind == OMPLENS_CLAUSE_REDUCTION;
}

static bool clause_contents(parsed *p, const char *s,
                            const omplens_directives__clause_draft *d,
                            uint32_t index)
{
  if (d->argument.begin == NONE)
    return true;
  if (d->kind == OMPLENS_CLAUSE_MAP || d->kind == OMPLENS_CLAUSE_TO ||
      d->kind == OMPLENS_CLAUSE_FROM)
    return data_clause(p, s, d->kind, d->argument, index);
  if (d->kind == OMPLENS_CLAUSE_DEFAULTMAP)
    defaultmap_clause(p, s, d->argument);
  bool linear = span_is(s, d->name, "linear");
  bool lists = is_listing(d->kind) || linear ||
               span_is(s, d->name, "lastprivate") ||
               span_is(s, d->name, "in_reduction");
  return !lists || listed_clause(p, s, d->kind, d->argument, linear);
}

/* One clause at c: a name, then an optional parenthesized argument. */
static bool one_clause(parsed *p, cursor *c)
{
  const char *s = c->s;
  omplens_directives__clause_draft d = {0, {0, 0}, {0, 0}, {NONE, NONE}};
  d.name = read_word(c);
  if (d.name.begin == d.name.end) { /* not a clause: step over it */
    c->i++;
    return true;
  }
  d.kind = clause_kind(s, d.name);
  d.text = d.name;
  uint32_t after = c->i;
  skip_spaces(c);
  if (c->i < c->n && s[c->i] == '(') {
    uint32_t close = closing(s, c->i, c->n);
    d.argument = trim(s, (span){c->i + 1, close});
    c->i = close < c->n ? close + 1 : c->n;
    d.text.end = c->i;
  } else {
    c->i = after;
  }
  uint32_t index = (uint32_t)p->clauses.len;
  if (!omplens_directives__vec_push(&p->clauses, sizeof(d), &d))
    return false;
  return clause_contents(p, s, &d, index);
}

int omplens_directives__parse_pragma(const char *text, uint32_t len,
                                     omplens_directives__parsed *out)
{
  memset(out, 0, sizeof(*out));
  out->takes_body = true;
  cursor c = {text, 0, len};
  if (len < 7 || !skip_head(&c))
    return 0;
  out->name = target_name(&c);
  out->kind = kind_of_name(text, out->name, &out->combined);
  out->takes_body = omplens_directives__takes_body(text, len);
  if (out->kind == 0)
    return 0;
  while (c.i < c.n) {
    skip_spaces(&c);
    if (c.i < c.n && text[c.i] == ',')
      c.i++;
    else if (c.i < c.n && !one_clause(out, &c)) {
      omplens_directives__parsed_free(out);
      return OMPLENS_DIRECTIVES_ENOMEM;
    }
  }
  return 0;
}

void omplens_directives__parsed_free(omplens_directives__parsed *p)
{
  omplens_directives__vec_free(&p->clauses);
  omplens_directives__vec_free(&p->items);
  omplens_directives__vec_free(&p->listed);
}

const char *omplens_directives__cursor_name(int cursor_kind)
{
  switch (cursor_kind) {
  case CXCursor_OMPTargetDirective:
    return "target";
  case CXCursor_OMPTargetDataDirective:
    return "target data";
  case CXCursor_OMPTargetEnterDataDirective:
    return "target enter data";
  case CXCursor_OMPTargetExitDataDirective:
    return "target exit data";
  case CXCursor_OMPTargetUpdateDirective:
    return "target update";
  case CXCursor_OMPTargetParallelDirective:
    return "target parallel";
  case CXCursor_OMPTargetParallelForDirective:
    return "target parallel for";
  case CXCursor_OMPTargetParallelForSimdDirective:
    return "target parallel for simd";
  case CXCursor_OMPTargetParallelGenericLoopDirective:
    return "target parallel loop";
  case CXCursor_OMPTargetSimdDirective:
    return "target simd";
  case CXCursor_OMPTargetTeamsDirective:
    return "target teams";
  case CXCursor_OMPTargetTeamsDistributeDirective:
    return "target teams distribute";
  case CXCursor_OMPTargetTeamsDistributeParallelForDirective:
    return "target teams distribute parallel for";
  case CXCursor_OMPTargetTeamsDistributeParallelForSimdDirective:
    return "target teams distribute parallel for simd";
  case CXCursor_OMPTargetTeamsDistributeSimdDirective:
    return "target teams distribute simd";
  case CXCursor_OMPTargetTeamsGenericLoopDirective:
    return "target teams loop";
  default:
    return NULL;
  }
}
