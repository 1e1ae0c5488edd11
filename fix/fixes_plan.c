/* From findings to groups: each finding's directive and map item (the
 * annotator's location and variable, then the directive index), the rule
 * its category and item call for, and the group of findings one change
 * removes. Keep-resident fixes group by the loop they wrap, so that all the
 * items of that loop go into one `target data`; the others by directive,
 * item and rule. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fixes_internal.h"

typedef struct omplens_fix__code {
  uint64_t codeptr;
  int kind;
  const omplens_directive *dir;
  omplens_fix__file *file;
} code_entry;

int omplens_fix__runtime_kind(const omplens_fixer *fx, const omplens_event *e) {
  if (e->region >= fx->num_regions)
    return OMPLENS_RUNTIME_ANY;
  switch (fx->regions[e->region].kind) {
  case OMPLENS_CONSTRUCT_TARGET:
    return OMPLENS_RUNTIME_TARGET;
  case OMPLENS_CONSTRUCT_ENTER_DATA:
    return OMPLENS_RUNTIME_ENTER_DATA;
  case OMPLENS_CONSTRUCT_EXIT_DATA:
    return OMPLENS_RUNTIME_EXIT_DATA;
  case OMPLENS_CONSTRUCT_UPDATE:
    return OMPLENS_RUNTIME_UPDATE;
  default:
    return OMPLENS_RUNTIME_ANY;
  }
}

/* What the directive's own text and the file's age rule out. */
static const char *directive_text_unsafe(const omplens_directive *d, bool newer) {
  if (d->flags & OMPLENS_DIRF_MACRO)
    return "the directive is written in a macro: its text is the macro's, shared by every use";
  if (d->flags & (OMPLENS_DIRF_TEXT_ONLY | OMPLENS_DIRF_TEXT_INCOMPLETE))
    return "the directive was only read from the text (libclang could not parse the file)";
  if (newer)
    return "the source is newer than the program that ran (stale): rebuild and record again";
  return NULL;
}

const char *omplens_fix__directive_unsafe(const omplens_directive *d, const char *path,
                                          bool newer) {
  const char *why = directive_text_unsafe(d, newer);
  if (!why && omplens_fix__is_header(path))
    why = "the directive is in a header, and the units that include it are not known here";
  return why;
}

const char *omplens_fix__site_unsafe(omplens_fixer *fx, const omplens_directive *d,
                                     omplens_fix__file *f) {
  const char *why = directive_text_unsafe(d, f->newer_than_binary);
  return why ? why : omplens_fix__header_unsafe(fx, f);
}

/* The device memory API routine an operation's code address is a call of
 * (the annotator's location names it), or NULL. */
static const char *api_routine(omplens_fixer *fx, uint64_t codeptr, unsigned *line) {
  omplens_location loc;
  if (!fx->annot || omplens_annotate_location(fx->annot, codeptr, &loc))
    return NULL;
  const char *k = loc.directive.kind;
  *line = loc.directive.line ? loc.directive.line : loc.line;
  return k && strstr(k, "omp_target_") ? k : NULL;
}

/* The directive at a code address: the annotator's location, then the
 * index. *why (owned) explains a NULL. */
static const omplens_directive *locate(omplens_fixer *fx, uint64_t codeptr, int kind,
                                       omplens_fix__file **file, const char **why) {
  *file = NULL;
  omplens_location loc;
  if (!fx->annot) {
    *why = "no annotator: the directive's source is unknown";
    return NULL;
  }
  omplens_annotate_location(fx->annot, codeptr, &loc);
  if (!loc.file || !loc.line) {
    *why = omplens_fix__ownf(fx, "the directive has no source line (%s)",
                             loc.note ? loc.note : "no debug info");
    return NULL;
  }
  *file = omplens_fix__file_get(fx, loc.file, loc.module);
  if (!*file) {
    *why = "out of memory";
    return NULL;
  }
  if (!(*file)->dwarf_unit)
    (*file)->dwarf_unit = loc.unit;
  if ((*file)->src_rc) {
    *why = omplens_fix__ownf(fx, "the source %s cannot be read", loc.file);
    return NULL;
  }
  const char *routine = loc.directive.kind;
  if (routine && strstr(routine, "omp_target_")) {
    *why = omplens_fix__ownf(fx, "the operation is a call of %s at %s:%u, not a directive: the "
                             "change is to the code around the call",
                             routine, omplens_fix__short_name(loc.file), loc.line);
    return NULL;
  }
  omplens_directive_match m;
  int rc =
      omplens_directive_find(fx->index, loc.file, loc.line, loc.column, loc.function, kind, &m);
  if (rc) {
    *why = omplens_fix__ownf(fx, "the directive index failed: %s", omplens_directives_strerror(rc));
    return NULL;
  }
  if (m.flags & OMPLENS_MATCHF_STALE) {
    *why = "the source changed after the build (stale): the line may not be the directive that ran";
    return NULL;
  }
  if (m.directive && (m.directive->flags & OMPLENS_DIRF_INACTIVE)) {
    *why = omplens_fix__ownf(fx,
                             "the directive is in an `#if` branch that the parse of %s left out "
                             "(%s): give the build's flags with --compile-commands",
                             loc.file,
                             (m.flags & OMPLENS_MATCHF_GUESSED_FLAGS)
                                 ? "it has no compile_commands.json entry"
                                 : "its compile_commands.json entry defines other macros");
    return NULL;
  }
  if (m.flags & OMPLENS_MATCHF_PARTIAL) {
    *why = omplens_fix__ownf(fx, "libclang could not fully parse %s (%s)%s", loc.file,
                             m.diagnostic ? m.diagnostic : "errors",
                             (m.flags & OMPLENS_MATCHF_GUESSED_FLAGS)
                                 ? ", parsed without the build's flags: give them with "
                                   "--compile-commands"
                                 : "");
    return NULL;
  }
  if (m.confidence != OMPLENS_MATCH_EXACT || !m.directive) {
    *why = omplens_fix__ownf(fx, "the directive at %s:%u is not known exactly (%s%s%s)", loc.file,
                             loc.line, omplens_directive_confidence_name(m.confidence),
                             m.rule ? ": " : "", m.rule ? m.rule : "");
    return NULL;
  }
  return m.directive;
}

/* The slot of (codeptr, kind) in fx->code_slots: its entry's, or the empty
 * one where it goes. */
static size_t code_slot(const omplens_fixer *fx, uint64_t codeptr, int kind) {
  size_t mask = fx->cap_code_slots - 1;
  uint64_t key = (codeptr ^ (uint64_t)(unsigned)kind << 56) * 0x9e3779b97f4a7c15ULL;
  size_t j = (size_t)(key >> 20) & mask;
  for (uint32_t e; (e = fx->code_slots[j]) != OMPLENS_FIX__NONE; j = (j + 1) & mask)
    if (fx->codes[e].codeptr == codeptr && fx->codes[e].kind == kind)
      break;
  return j;
}

/* Replaces *slots by an empty table (every slot NONE) twice as large, or
 * of first slots when there was none; false (and *slots kept) without
 * memory. */
static bool empty_slots(uint32_t **slots, size_t *cap, size_t first) {
  size_t n = *cap ? 2 * *cap : first;
  uint32_t *p = malloc(n * sizeof *p);
  if (!p)
    return false;
  memset(p, 0xff, n * sizeof *p);
  free(*slots);
  *slots = p;
  *cap = n;
  return true;
}

/* Keeps the slots at most half full; false without memory. */
static bool code_slots_room(omplens_fixer *fx) {
  if (2 * (fx->num_codes + 1) <= fx->cap_code_slots)
    return true;
  if (!empty_slots(&fx->code_slots, &fx->cap_code_slots, 64))
    return false;
  for (size_t i = 0; i < fx->num_codes; i++)
    fx->code_slots[code_slot(fx, fx->codes[i].codeptr, fx->codes[i].kind)] = (uint32_t)i;
  return true;
}

const omplens_directive *omplens_fix__directive_of(omplens_fixer *fx, uint64_t codeptr,
                                                   int runtime_kind, omplens_fix__file **file) {
  if (fx->cap_code_slots) {
    uint32_t e = fx->code_slots[code_slot(fx, codeptr, runtime_kind)];
    if (e != OMPLENS_FIX__NONE) {
      *file = fx->codes[e].file;
      return fx->codes[e].dir;
    }
  }
  const char *why;
  const omplens_directive *d = locate(fx, codeptr, runtime_kind, file, &why);
  if (!code_slots_room(fx) ||
      !omplens_fix__room(&fx->codes, fx->num_codes, &fx->cap_codes, sizeof *fx->codes, 16))
    return d;
  fx->code_slots[code_slot(fx, codeptr, runtime_kind)] = (uint32_t)fx->num_codes;
  fx->codes[fx->num_codes++] = (code_entry){codeptr, runtime_kind, d, *file};
  return d;
}

/* The item of dir that the event's variable names: one written in a clause,
 * else the construct's implicit map of it (*implicit; *item SIZE_MAX). */
static bool pick_item(omplens_fixer *fx, const omplens_directive *dir, const omplens_event *e,
                      size_t *item, const omplens_implicit_map **implicit, const char **why) {
  omplens_variable v = {0};
  bool named = fx->annot && !omplens_annotate_variable(fx->annot, e, &v) && v.name;
  size_t found = SIZE_MAX, count = 0;
  *implicit = NULL;
  for (size_t i = 0; named && i < dir->num_items; i++)
    if (dir->items[i].var && !strcmp(dir->items[i].var, v.name)) {
      if (!count++ || (v.item && !strcmp(dir->items[i].text, v.item)))
        found = i;
    }
  if (count > 1) {
    /* Several items of one variable: only the exact text decides. */
    found = SIZE_MAX;
    for (size_t i = 0; i < dir->num_items; i++)
      if (dir->items[i].var && !strcmp(dir->items[i].var, v.name) && v.item &&
          !strcmp(dir->items[i].text, v.item))
        found = i;
  }
  for (size_t i = 0; named && !count && i < dir->num_implicit; i++)
    if (dir->implicit[i].treatment == OMPLENS_IMPLICIT_MAP &&
        !strcmp(dir->implicit[i].var, v.name))
      *implicit = &dir->implicit[i];
  if (found == SIZE_MAX && !named && dir->num_items == 1)
    found = 0;
  if (found == SIZE_MAX && !*implicit) {
    *why = named      ? omplens_fix__ownf(fx, "no map item of the directive matches %s", v.item)
           : v.unnamed ? v.unnamed
                       : "the map item is unknown";
    return false;
  }
  *item = found;
  return true;
}

bool omplens_fix__same_item(const omplens_fix__site *a, const omplens_fix__site *b) {
  return a->dir == b->dir && a->item == b->item && a->implicit == b->implicit;
}

static size_t item_hash(const omplens_fix__site *s) {
  uint64_t h = (uint64_t)(uintptr_t)s->dir ^ ((uint64_t)s->item * 0x9e3779b97f4a7c15ULL) ^
               ((uint64_t)(uintptr_t)s->implicit << 17);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 29;
  return (size_t)h;
}

void omplens_fix__group_items_free(omplens_fix__group *g) {
  free(g->item_first);
  free(g->item_next);
  g->item_first = g->item_next = NULL;
}

bool omplens_fix__group_items(omplens_fix__group *g) {
  if (g->item_first)
    return true;
  size_t n = g->num_findings, cap = 4;
  while (cap < 2 * n)
    cap *= 2;
  size_t *last = malloc(cap * sizeof *last); /* per slot: the item's latest finding */
  g->item_first = malloc((n ? n : 1) * sizeof *g->item_first);
  g->item_next = malloc((n ? n : 1) * sizeof *g->item_next);
  if (!last || !g->item_first || !g->item_next) {
    free(last);
    omplens_fix__group_items_free(g);
    return false;
  }
  for (size_t j = 0; j < cap; j++)
    last[j] = SIZE_MAX;
  for (size_t k = 0; k < n; k++) {
    size_t j = item_hash(omplens_fix__site_at(g, k)) & (cap - 1);
    while (last[j] != SIZE_MAX && !omplens_fix__same_item(omplens_fix__site_at(g, last[j]), omplens_fix__site_at(g, k)))
      j = (j + 1) & (cap - 1);
    g->item_next[k] = SIZE_MAX;
    if (last[j] == SIZE_MAX) {
      g->item_first[k] = k;
    } else {
      g->item_first[k] = g->item_first[last[j]];
      g->item_next[last[j]] = k;
    }
    last[j] = k;
  }
  free(last);
  return true;
}

/* The list of a reduction clause's argument ("+: a, b[0:n]") starts after
 * its one ':' outside brackets that is not part of "::". */
static const char *reduction_list(const char *arg) {
  int depth = 0;
  for (const char *p = arg; *p; p++) {
    depth += (*p == '[' || *p == '(') - (*p == ']' || *p == ')');
    if (*p == ':' && p[1] == ':')
      p++;
    else if (*p == ':' && !depth)
      return p + 1;
  }
  return NULL;
}

bool omplens_fix__reduction_var(const omplens_directive *d, const char *var) {
  size_t n = strlen(var);
  for (size_t i = 0; i < d->num_clauses; i++) {
    const char *p = d->clauses[i].kind == OMPLENS_CLAUSE_REDUCTION && d->clauses[i].argument
                        ? reduction_list(d->clauses[i].argument)
                        : NULL;
    while (p && *p) { /* each list item: its leading name */
      while (*p == ' ' || *p == ',')
        p++;
      if (!strncmp(p, var, n) && !(isalnum((unsigned char)p[n]) || p[n] == '_'))
        return true;
      for (int depth = 0; *p && (*p != ',' || depth); p++)
        depth += (*p == '[' || *p == '(') - (*p == ']' || *p == ')');
    }
  }
  return false;
}

/* An operation no item of the source names (none is found, or the
 * source is not read): the runtime's name of its item, else whether the
 * runtime made it for a pointer (an attachment, or the pointers' own
 * storage), into s, for the texts. */
static void runtime_names(omplens_fixer *fx, const omplens_event *e, omplens_fix__site *s) {
  omplens_variable v;
  if (!fx->annot)
    return;
  if (!omplens_annotate_variable(fx->annot, e, &v)) {
    s->named = v.item;
    return;
  }
  s->attach = v.attach;
  if (v.pointer)
    s->pointer =
        omplens_fix__ownf(fx, "the pointer%s %s", strchr(v.pointer, ',') ? "s" : "", v.pointer);
}

static bool resolve_site(omplens_fixer *fx, const omplens_finding *f, omplens_fix__site *s) {
  memset(s, 0, sizeof *s);
  const omplens_event *e = &fx->events[f->instances[0].event];
  const char *why = NULL;
  s->dir = omplens_fix__directive_of(fx, f->codeptr, omplens_fix__runtime_kind(fx, e), &s->file);
  if (!s->dir) {
    const char *w2;
    omplens_fix__file *file;
    locate(fx, f->codeptr, omplens_fix__runtime_kind(fx, e), &file, &w2); /* for the reason */
    s->reason = w2;
    s->api = api_routine(fx, f->codeptr, &s->api_line);
    s->file = s->api ? file : NULL;
    omplens_variable v;
    if (s->api && !omplens_annotate_variable(fx->annot, e, &v) && v.item)
      s->var = omplens_fix__ownf(fx, "%s", v.item); /* the call's argument */
    else if (!s->api)
      runtime_names(fx, e, s);
    return false;
  }
  s->item = SIZE_MAX;
  size_t item;
  const omplens_implicit_map *implicit;
  const char *item_why = NULL;
  if (pick_item(fx, s->dir, e, &item, &implicit, &item_why)) { /* named even without a diff */
    s->item = item;
    s->implicit = implicit;
    s->var = implicit ? implicit->var : s->dir->items[item].var;
  } else {
    runtime_names(fx, e, s);
  }
  why = omplens_fix__site_unsafe(fx, s->dir, s->file);
  if (why && (s->dir->flags & OMPLENS_DIRF_MACRO) && s->dir->macro)
    why = omplens_fix__ownf(fx, "%s (macro %s)", why, s->dir->macro);
  s->reason = why ? why : item_why;
  return !s->reason;
}

/* ---- choosing the rule ---- */

bool omplens_fix__unreferenced(const omplens_directive *d, size_t item) {
  /* A macro's or a text-only directive's body is not known well enough. */
  unsigned unsure = OMPLENS_DIRF_MACRO | OMPLENS_DIRF_TEXT_ONLY | OMPLENS_DIRF_TEXT_INCOMPLETE;
  if (d->kind != OMPLENS_DIRECTIVE_TARGET || (d->flags & unsure) ||
      d->items[item].use != OMPLENS_USE_UNREFERENCED || d->items[item].callees_may_use ||
      !d->items[item].var ||
      d->items[item].clause_kind != OMPLENS_CLAUSE_MAP)
    return false;
  return true;
}

static bool copies_to(int t) { return t == OMPLENS_MAP_TO || t == OMPLENS_MAP_TOFROM; }

/* Rules whose groups take no finding of another rule: a reset is never
 * given a keep-resident recipe. */
static bool separate(int rule) {
  return rule == OMPLENS_FIX_INIT_ON_DEVICE || rule == OMPLENS_FIX__SWAP_ON_DEVICE ||
         rule == OMPLENS_FIX__HOST_HOLDS;
}

/* The rule of a category whose change is to the program's code whatever the
 * directive (MANUAL for the others); *why says why there is no diff. */
static int recipe_rule(int category, const char **why) {
  switch (category) {
  case OMPLENS_CAT_REINIT:
    *why = "the host statement that resets the data cannot be located";
    return OMPLENS_FIX_INIT_ON_DEVICE;
  case OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER:
    *why = "keeping a result on the device instead of copying it through the host is a "
           "change to the code, not to the directive";
    return OMPLENS_FIX__SWAP_ON_DEVICE;
  default:
    return OMPLENS_FIX_MANUAL;
  }
}

/* Why a duplicate that no region can keep gets no diff. */
static const char *duplicate_why(const omplens_event *e, int dk) {
  if (e->kind == OMPLENS_EV_D2H)
    return "the host receives bytes it still holds as far as the trace shows, but the trace "
           "cannot see the host write its copy: whether the copy back is needed cannot be "
           "proven";
  if (dk == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA)
    return "`target enter data` copies only when it maps the buffer anew: the mapping ended "
           "between the copies, and where to keep it alive is a choice across directives";
  return "the copy is made by a directive no rule changes for a duplicate";
}

/* Whether every copy back of finding f brings back what its construct
 * sent: a duplicate copy back that is also a round trip each time. */
static bool round_trips(omplens_fixer *fx, const omplens_finding *f) {
  return f->num_instances > 0 && omplens_fix__all_returned_as_sent(fx, f->instances, f->num_instances);
}

/* Zeros that `target enter data` or `target data` sends with `map(to:)`:
 * whether another buffer sent them before or the same one did (its device
 * copy released in between), the device can make them itself. */
static bool zeros_entering(const omplens_fixer *fx, const omplens_finding *f,
                           const omplens_event *e, int dk, int mt) {
  return e->kind == OMPLENS_EV_H2D &&
         (dk == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA || dk == OMPLENS_DIRECTIVE_TARGET_DATA) &&
         mt == OMPLENS_MAP_TO && omplens_fix__all_zero(fx, f);
}

/* The rule for a finding on an item of directive kind dk and map type mt
 * (MANUAL with *why otherwise). */
static int rule_for(omplens_fixer *fx, const omplens_finding *f, int dk, int mt,
                    const char **why) {
  const omplens_event *e = &fx->events[f->instances[0].event];
  bool region = dk == OMPLENS_DIRECTIVE_TARGET || dk == OMPLENS_DIRECTIVE_TARGET_DATA;
  /* An enter data inside a loop, with its exit data: a region around the
   * loop keeps the mapping alive, and the enter data then finds it present. */
  bool entering = dk == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA;
  /* A copy back of bytes the host holds already. */
  bool back_again = e->kind == OMPLENS_EV_D2H &&
                    (f->category == OMPLENS_CAT_DUPLICATE_SAME_BUFFER ||
                     f->category == OMPLENS_CAT_DUPLICATE_OTHER_BUFFER);
  if (back_again && region && mt == OMPLENS_MAP_TOFROM && round_trips(fx, f))
    return OMPLENS_FIX_DROP_COPY_BACK; /* the same bytes again, because they never changed */
  /* An exit data or update sends nothing in: its copies back are checked
   * against the copy into the buffer before them, every one of them (a
   * kernel that makes new values before one is the host-holds case). */
  if (back_again &&
      (dk == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA || dk == OMPLENS_DIRECTIVE_TARGET_UPDATE) &&
      mt == OMPLENS_MAP_FROM && round_trips(fx, f) && omplens_fix__every_copy_back_returned(fx, f))
    return OMPLENS_FIX_DROP_COPY_BACK;
  if (back_again && f->category == OMPLENS_CAT_DUPLICATE_SAME_BUFFER &&
      dk == OMPLENS_DIRECTIVE_TARGET && (mt == OMPLENS_MAP_FROM || mt == OMPLENS_MAP_TOFROM))
    return OMPLENS_FIX_KEEP_RESIDENT; /* a kernel's copy back each step: kept on the device
                                         across the loop, it comes back once */
  if (back_again) {
    /* The host is the receiver: it holds the bytes. */
    *why = "whether the host may skip a copy back depends on when kernels write the data, "
           "which the trace cannot show";
    return OMPLENS_FIX__HOST_HOLDS;
  }
  switch (f->category) {
  case OMPLENS_CAT_DUPLICATE_SAME_BUFFER:
    if (e->kind == OMPLENS_EV_H2D && region && copies_to(mt))
      return OMPLENS_FIX_KEEP_RESIDENT;
    if (e->kind == OMPLENS_EV_H2D && dk == OMPLENS_DIRECTIVE_TARGET_UPDATE)
      return OMPLENS_FIX_REMOVE_ITEM; /* as a round trip: the device still holds it */
    if (zeros_entering(fx, f, e, dk, mt)) /* a workspace zeroed per call: no wrap needed */
      return OMPLENS_FIX_ZERO_ON_DEVICE;
    if (e->kind == OMPLENS_EV_H2D && entering && copies_to(mt))
      return OMPLENS_FIX_KEEP_RESIDENT;
    *why = duplicate_why(e, dk);
    return OMPLENS_FIX_MANUAL;
  case OMPLENS_CAT_DUPLICATE_OTHER_BUFFER:
    if (zeros_entering(fx, f, e, dk, mt))
      return OMPLENS_FIX_ZERO_ON_DEVICE;
    if (!omplens_fix__all_zero(fx, f) && mt == OMPLENS_MAP_TO &&
        (entering || dk == OMPLENS_DIRECTIVE_TARGET_DATA)) /* filled_entering looked */
      *why = "the content is not all zeros, and the source shows no one value assigned to "
             "its elements before the directive (an assignment a macro expands is not read): "
             "how the other buffer got the same bytes cannot be derived";
    else if (!omplens_fix__all_zero(fx, f))
      *why = "the content is not all zeros, and only what a `map(to:)` of `target enter data` "
             "or `target data` sends is made on the device instead: how the other buffer got "
             "the same bytes cannot be derived";
    else if (e->kind == OMPLENS_EV_H2D && mt != OMPLENS_MAP_NONE)
      *why = omplens_fix__ownf(fx,
                               "the zeros are sent by a `map(%s:)` of `%s`: only the zeros of a "
                               "`map(to:)` of `target enter data` or `target data` are made on "
                               "the device instead",
                               omplens_map_type_name(mt), omplens_directive_kind_name(dk));
    else
      *why = "only the zeros of a `map(to:)` of `target enter data` or `target data` are made "
             "on the device instead";
    return OMPLENS_FIX_MANUAL;
  case OMPLENS_CAT_ROUND_TRIP:
    if (e->kind == OMPLENS_EV_D2H && (dk == OMPLENS_DIRECTIVE_TARGET_UPDATE ||
                                      ((region || dk == OMPLENS_DIRECTIVE_TARGET_EXIT_DATA) &&
                                       (mt == OMPLENS_MAP_FROM || mt == OMPLENS_MAP_TOFROM))))
      return OMPLENS_FIX_DROP_COPY_BACK;
    if (e->kind == OMPLENS_EV_H2D && dk == OMPLENS_DIRECTIVE_TARGET_UPDATE)
      return OMPLENS_FIX_REMOVE_ITEM;
    /* An enter data's trip returns what its exit data brought back: kept
     * alive across the loop, as a duplicate's, the mapping holds it. */
    if (e->kind == OMPLENS_EV_H2D && (region || entering) && copies_to(mt))
      return OMPLENS_FIX_KEEP_RESIDENT;
    *why = "the trip is completed by `target enter data`: the mapping ended in between, "
           "and where to keep it alive is a choice across directives";
    return OMPLENS_FIX_MANUAL;
  case OMPLENS_CAT_REPEATED_ALLOC:
    if (mt == OMPLENS_MAP_ALLOC && dk != OMPLENS_DIRECTIVE_TARGET_ENTER_DATA)
      return OMPLENS_FIX_HOIST_ALLOC;
    if ((region && (copies_to(mt) || mt == OMPLENS_MAP_FROM)) || (entering && copies_to(mt)))
      return OMPLENS_FIX_KEEP_RESIDENT;
    *why = "the allocations come from `target enter data`: its matching exit data decides "
           "the lifetime";
    return OMPLENS_FIX_MANUAL;
  case OMPLENS_CAT_UNUSED_ALLOC:
    if (dk == OMPLENS_DIRECTIVE_TARGET_DATA || dk == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA)
      return OMPLENS_FIX_REMOVE_ITEM;
    *why = "the allocation belongs to a kernel's own map";
    return OMPLENS_FIX_MANUAL;
  case OMPLENS_CAT_REINIT:
    return OMPLENS_FIX_INIT_ON_DEVICE; /* the rule decides from the source */
  case OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER:
    return recipe_rule(f->category, why);
  case OMPLENS_CAT_UNUSED_TRANSFER:
    if (dk == OMPLENS_DIRECTIVE_TARGET_UPDATE)
      return OMPLENS_FIX_REMOVE_ITEM;
    if ((dk == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA || dk == OMPLENS_DIRECTIVE_TARGET_DATA) &&
        copies_to(mt))
      return OMPLENS_FIX_MAP_ALLOC;
    *why = "the copy is made by a kernel's own map";
    return OMPLENS_FIX_MANUAL;
  default:
    *why = "unknown category";
    return OMPLENS_FIX_MANUAL;
  }
}

/* A duplicate that `target enter data` sends with `map(to:)` (or any
 * directive's duplicate of another buffer, which no wrap removes), whose
 * every element holds the one non-zero value the source assigns to the
 * variable before the directive (`w[i] = 1.0;`): the device can fill it. */
static bool filled_entering(omplens_fixer *fx, const omplens_finding *f,
                            const omplens_fix__site *s, int mt) {
  const omplens_event *e = &fx->events[f->instances[0].event];
  int dk = s->dir->kind;
  const char *why;
  if (e->kind != OMPLENS_EV_H2D || mt != OMPLENS_MAP_TO || omplens_fix__all_zero(fx, f) ||
      !(dk == OMPLENS_DIRECTIVE_TARGET_ENTER_DATA ||
        (dk == OMPLENS_DIRECTIVE_TARGET_DATA &&
         f->category == OMPLENS_CAT_DUPLICATE_OTHER_BUFFER)) ||
      (f->category != OMPLENS_CAT_DUPLICATE_SAME_BUFFER &&
       f->category != OMPLENS_CAT_DUPLICATE_OTHER_BUFFER) ||
      !s->file || !omplens_fix__file_ast(fx, s->file, &why))
    return false;
  const char *v = omplens_fix__fill_value(fx, s->file, s);
  if (!v)
    return false;
  uint32_t *ev = malloc(f->num_instances * sizeof *ev);
  for (size_t i = 0; ev && i < f->num_instances; i++)
    ev[i] = f->instances[i].event;
  bool filled = ev && omplens_fix__filled(fx, ev, f->num_instances, strtod(v, NULL));
  free(ev);
  return filled;
}

/* The rule for a finding at a resolved site (MANUAL with *why otherwise).
 * An implicit map is an item whose clause is not written: the rules that
 * change a map type write it (drop-copy-back adds `map(to: VAR)`); those
 * that move or remove the item have no text to work on. */
static int choose(omplens_fixer *fx, const omplens_finding *f, const omplens_fix__site *s,
                  const char **why) {
  if (!s->implicit && omplens_fix__unreferenced(s->dir, s->item))
    return OMPLENS_FIX_REMOVE_ITEM; /* whatever moved it, nothing needs it */
  int mt = s->implicit ? s->implicit->map_type : s->dir->items[s->item].map_type;
  if (!s->implicit && (omplens_fix__overwritten_next(fx, f, s) || filled_entering(fx, f, s, mt)))
    return OMPLENS_FIX_ZERO_ON_DEVICE; /* the next kernel sets it, or a kernel fills it */
  int rule = rule_for(fx, f, s->dir->kind, mt, why);
  if (!s->implicit || rule == OMPLENS_FIX_MANUAL || rule == OMPLENS_FIX_DROP_COPY_BACK ||
      separate(rule))
    return rule;
  *why = omplens_fix__ownf(fx,
                           "%s has no map clause at line %u: the construct maps it implicitly "
                           "(`%s`), and the change needs a written item",
                           s->var, s->dir->pragma.line, omplens_map_type_name(mt));
  return OMPLENS_FIX_MANUAL;
}

/* ---- groups ---- */

static omplens_fix__group *new_group(omplens_fixer *fx) {
  if (!omplens_fix__room(&fx->groups, fx->num_groups, &fx->cap_groups, sizeof *fx->groups, 16))
    return NULL;
  omplens_fix__group *g = &fx->groups[fx->num_groups++];
  memset(g, 0, sizeof *g);
  g->loop = OMPLENS_FIX__NONE;
  g->leftover = SIZE_MAX;
  g->joined = SIZE_MAX;
  g->next_same_key = OMPLENS_FIX__NONE - 1; /* not keyed */
  return g;
}

/* Whether two sites without an item of the source are told as one: the
 * same runtime name, or the same pointers. */
static bool same_runtime_name(const omplens_fix__site *a, const omplens_fix__site *b) {
  return a->named == b->named &&
         (a->pointer == b->pointer || (a->pointer && b->pointer && !strcmp(a->pointer, b->pointer)));
}

/* Whether a and b are the same site, field by field. */
static bool same_site(const omplens_fix__site *a, const omplens_fix__site *b) {
  if (a->file != b->file || a->dir != b->dir || a->item != b->item || a->implicit != b->implicit ||
      a->var != b->var || a->reason != b->reason || a->api != b->api ||
      a->api_line != b->api_line || a->call != b->call || a->num_more_calls != b->num_more_calls ||
      !same_runtime_name(a, b))
    return false;
  for (size_t i = 0; i < a->num_more_calls && i < OMPLENS_FIX__MORE_CALLS; i++)
    if (a->more_calls[i] != b->more_calls[i])
      return false;
  return true;
}

bool omplens_fix__add_finding(omplens_fix__group *g, size_t finding, const omplens_fix__site *s) {
  if (g->num_findings == g->cap_findings) {
    size_t cap = g->cap_findings ? 2 * g->cap_findings : 4;
    size_t *p = realloc(g->findings, cap * sizeof *p);
    uint32_t *q = p ? realloc(g->site_of, cap * sizeof *q) : NULL;
    if (p)
      g->findings = p;
    if (!q)
      return false;
    g->site_of = q;
    g->cap_findings = cap;
  }
  bool shared = g->num_sites && same_site(&g->sites[g->num_sites - 1], s);
  if (!shared) {
    if (g->num_sites == UINT32_MAX ||
        !omplens_fix__room(&g->sites, g->num_sites, &g->cap_sites, sizeof *g->sites, 4))
      return false;
    g->sites[g->num_sites++] = *s;
  }
  g->findings[g->num_findings] = finding;
  g->site_of[g->num_findings++] = (uint32_t)(g->num_sites - 1);
  omplens_fix__group_items_free(g); /* made for the findings before */
  return true;
}

static bool resident_kind(int kind) {
  return kind == OMPLENS_FIX_KEEP_RESIDENT || kind == OMPLENS_FIX_KEEP_RESIDENT_CALLER;
}

/* What a group is found by: its rule and, for keep-resident, the loop it
 * wraps (edit file, loop, directive file); else its directive item. */
/* What one change covers: the items a wrap keeps around one loop, the
 * zero items of one directive (one kernel zeroes them), else one item. */
enum { SCOPE_LOOP, SCOPE_DIRECTIVE, SCOPE_ITEM };

static int group_scope(int kind) {
  if (resident_kind(kind))
    return SCOPE_LOOP;
  return kind == OMPLENS_FIX_ZERO_ON_DEVICE ? SCOPE_DIRECTIVE : SCOPE_ITEM;
}

static size_t group_hash(int kind, const omplens_fix__site *s, uint32_t loop,
                         const omplens_fix__file *at) {
  uint64_t h = (uint64_t)(unsigned)kind * 0x9e3779b97f4a7c15ULL;
  int scope = group_scope(kind);
  if (scope == SCOPE_LOOP) {
    h ^= (uint64_t)(uintptr_t)at * 0xff51afd7ed558ccdULL;
    h ^= ((uint64_t)loop << 32) ^ (uint64_t)(uintptr_t)s->file * 0xc4ceb9fe1a85ec53ULL;
  } else {
    h ^= (uint64_t)(uintptr_t)s->dir * 0xff51afd7ed558ccdULL;
    if (scope == SCOPE_ITEM)
      h ^= (uint64_t)s->item * 0xc4ceb9fe1a85ec53ULL ^ (uint64_t)(s->implicit != NULL);
  }
  return (size_t)(h ^ h >> 29);
}

static uint32_t *group_slot(omplens_fixer *fx, size_t hash) {
  return &fx->group_slots[hash & (fx->cap_group_slots - 1)];
}

/* Puts group i in its key's chain (the table grown to stay half empty);
 * false without memory, when lookups miss it and a new group is made. */
static bool key_group(omplens_fixer *fx, size_t i) {
  if (2 * (fx->num_keyed + 1) > fx->cap_group_slots) {
    if (!empty_slots(&fx->group_slots, &fx->cap_group_slots, 256))
      return false;
    fx->num_keyed = 0;
    for (size_t k = 0; k < i; k++) /* every group before i was keyed */
      if (fx->groups[k].next_same_key != OMPLENS_FIX__NONE - 1) {
        const omplens_fix__group *g = &fx->groups[k];
        uint32_t *head = group_slot(fx, group_hash(g->kind, &g->site, g->loop, g->edit_file));
        fx->groups[k].next_same_key = *head;
        *head = (uint32_t)k;
        fx->num_keyed++;
      }
  }
  const omplens_fix__group *g = &fx->groups[i];
  uint32_t *head = group_slot(fx, group_hash(g->kind, &g->site, g->loop, g->edit_file));
  fx->groups[i].next_same_key = *head;
  *head = (uint32_t)i;
  fx->num_keyed++;
  return true;
}

/* The group a finding joins: same rule and, for keep-resident, same loop;
 * else same directive and item. A manual group whose intended rule only a
 * recipe gives takes no finding that needs another change. Groups are
 * found through their key, so planning stays linear in findings. */
static omplens_fix__group *group_for(omplens_fixer *fx, int kind, int intended,
                                     const omplens_fix__site *s, uint32_t loop,
                                     omplens_fix__file *at) {
  /* Without a directive item nothing can be shared. */
  bool shared = s->dir && (s->item != SIZE_MAX || s->implicit);
  int scope = group_scope(kind);
  uint32_t i = shared && fx->cap_group_slots ? *group_slot(fx, group_hash(kind, s, loop, at))
                                             : OMPLENS_FIX__NONE;
  for (; i != OMPLENS_FIX__NONE; i = fx->groups[i].next_same_key) {
    omplens_fix__group *g = &fx->groups[i];
    if (g->kind != kind || g->leftover != SIZE_MAX ||
        (g->intended != intended && (separate(g->intended) || separate(intended))))
      continue;
    /* one wrap per loop, for the directives of one file: their items are
     * translated through that file's parse */
    if (scope == SCOPE_LOOP
            ? g->edit_file == at && g->loop == loop && g->site.file == s->file
            : scope == SCOPE_DIRECTIVE ? g->site.dir == s->dir && !s->implicit && !g->site.implicit
                                       : omplens_fix__same_item(&g->site, s))
      return g;
  }
  omplens_fix__group *g = new_group(fx);
  if (g) {
    g->kind = kind;
    g->intended = intended;
    g->site = *s;
    g->edit_file = at;
    g->loop = loop;
    if (shared)
      key_group(fx, (size_t)(g - fx->groups));
  }
  return g;
}

/* A finding without a directive: one group for the findings of a code
 * address, category and item (as the runtime names it). */
static omplens_fix__group *sourceless_group(omplens_fixer *fx, const omplens_finding *f,
                                            int intended, const omplens_fix__site *s) {
  for (size_t k = 0; k < fx->num_sourceless; k++) {
    omplens_fix__group *g = &fx->groups[fx->sourceless[k]];
    if (g->codeptr == f->codeptr && g->category == f->category && same_runtime_name(&g->site, s))
      return g;
  }
  if (!omplens_fix__room(&fx->sourceless, fx->num_sourceless, &fx->cap_sourceless,
                         sizeof *fx->sourceless, 16))
    return NULL;
  omplens_fix__group *g =
      group_for(fx, OMPLENS_FIX_MANUAL, intended, s, OMPLENS_FIX__NONE, s->file);
  if (g) {
    g->codeptr = f->codeptr;
    g->category = f->category;
    fx->sourceless[fx->num_sourceless++] = (size_t)(g - fx->groups);
  }
  return g;
}

static int plan_finding(omplens_fixer *fx, size_t i) {
  const omplens_finding *f = &fx->findings[i];
  omplens_fix__site s;
  const char *why = NULL;
  int kind = OMPLENS_FIX_MANUAL, intended = OMPLENS_FIX_MANUAL;
  uint32_t loop = OMPLENS_FIX__NONE, call = OMPLENS_FIX__NONE, more[OMPLENS_FIX__MORE_CALLS];
  size_t num_more = 0;
  omplens_fix__file *at = NULL;
  if (!f->num_instances) {
    memset(&s, 0, sizeof s);
    s.reason = "the finding has no instance";
  } else if (resolve_site(fx, f, &s)) {
    kind = intended = choose(fx, f, &s, &why);
    if (kind == OMPLENS_FIX__SWAP_ON_DEVICE || kind == OMPLENS_FIX__HOST_HOLDS)
      kind = OMPLENS_FIX_MANUAL;
    if (kind == OMPLENS_FIX_KEEP_RESIDENT &&
        !omplens_fix__resident_loop(fx, &s, f, &loop, &call, more, &num_more, &at, &why))
      kind = OMPLENS_FIX_MANUAL;
    if (kind == OMPLENS_FIX_KEEP_RESIDENT && call != OMPLENS_FIX__NONE)
      kind = OMPLENS_FIX_KEEP_RESIDENT_CALLER;
    if (kind == OMPLENS_FIX_MANUAL)
      s.reason = why;
  } else if (s.dir && (s.item != SIZE_MAX || s.implicit)) {
    intended = choose(fx, f, &s, &why); /* for the recipe */
  } else if (s.api && s.file && !strcmp(s.api, "omp_target_alloc") &&
             f->category == OMPLENS_CAT_REPEATED_ALLOC) {
    kind = intended = OMPLENS_FIX_HOIST_ALLOC; /* the call moves out of its loop */
  } else {
    intended = recipe_rule(f->category, &why);
  }
  s.call = call;
  s.num_more_calls = kind == OMPLENS_FIX_MANUAL ? 0 : num_more;
  memcpy(s.more_calls, more, s.num_more_calls * sizeof *more);
  omplens_fix__group *g = f->num_instances && !s.dir && kind == OMPLENS_FIX_MANUAL
                             ? sourceless_group(fx, f, intended, &s)
                             : group_for(fx, kind, intended, &s, loop, at ? at : s.file);
  if (!g || !omplens_fix__add_finding(g, i, &s))
    return OMPLENS_FIX_ENOMEM;
  if (kind == OMPLENS_FIX_REMOVE_ITEM && !s.implicit &&
      omplens_fix__unreferenced(s.dir, s.item)) {
    g->unreferenced = true;
    g->codeptr = f->codeptr;
  }
  if (kind == OMPLENS_FIX_MANUAL && !g->reason.len && s.reason)
    omplens_fix__buf_str(&g->reason, s.reason);
  return 0;
}

/* Items of executed kernels that their body never names, without a finding
 * of the detectors: a group each (the report lists them as findings). */
static int plan_unreferenced(omplens_fixer *fx) {
  size_t nsites;
  omplens_trace_sites(fx->trace, &nsites);
  bool *seen = calloc(nsites + 1, sizeof *seen); /* a region of the site came before */
  if (!seen)
    return OMPLENS_FIX_ENOMEM;
  for (size_t r = 0; r < fx->num_regions; r++) {
    uint32_t site = omplens_trace_site_index(fx->trace, fx->regions[r].codeptr);
    bool first = !seen[site];
    seen[site] = true;
    if (fx->regions[r].kind != OMPLENS_CONSTRUCT_TARGET)
      continue;
    omplens_fix__file *file;
    const omplens_directive *d =
        !first ? NULL
               : omplens_fix__directive_of(fx, fx->regions[r].codeptr, OMPLENS_RUNTIME_TARGET, &file);
    for (size_t k = 0; d && k < d->num_unreferenced; k++) {
      size_t i = (size_t)(d->unreferenced[k] - d->items);
      if (i >= d->num_items || !d->items[i].var ||
          !omplens_fix__moved(fx, fx->regions[r].codeptr, d->items[i].var))
        continue;
      bool grouped = false; /* a finding's fix covers it already */
      for (size_t g = 0; g < fx->num_groups && !grouped; g++)
        grouped = fx->groups[g].site.dir == d && fx->groups[g].site.item == i;
      if (grouped)
        continue;
      omplens_fix__site s = {.file = file, .dir = d, .item = i, .var = d->items[i].var,
                             .call = OMPLENS_FIX__NONE};
      s.reason = omplens_fix__site_unsafe(fx, d, file);
      if (!s.reason && !omplens_fix__unreferenced(d, i))
        s.reason = "the body calls functions, which may use the item";
      omplens_fix__group *g = group_for(fx, s.reason ? OMPLENS_FIX_MANUAL : OMPLENS_FIX_REMOVE_ITEM,
                                        OMPLENS_FIX_REMOVE_ITEM, &s, OMPLENS_FIX__NONE, file);
      if (!g) {
        free(seen);
        return OMPLENS_FIX_ENOMEM;
      }
      g->unreferenced = true;
      g->intended = OMPLENS_FIX_REMOVE_ITEM;
      g->codeptr = fx->regions[r].codeptr;
      if (s.reason)
        omplens_fix__buf_str(&g->reason, s.reason);
    }
  }
  free(seen);
  return 0;
}

int omplens_fix__publish(omplens_fixer *fx, size_t i);
void omplens_fix__whatif_free(omplens_fixer *fx);

/* Moves the findings whose items left group gi's wrap (g->left) to manual
 * groups of their items, which the derivation builds after it: the wrap
 * keeps what it can prove, and each item left out says why. */
static int split_left(omplens_fixer *fx, size_t gi) {
  if (!fx->groups[gi].left)
    return 0;
  size_t kept = 0, n = fx->groups[gi].num_findings;
  /* One group per item left, with its own reason (an item leaves whole):
   * made at its first finding, its index kept there for the others. */
  size_t *made = malloc((n ? n : 1) * sizeof *made);
  if (!made || !omplens_fix__group_items(&fx->groups[gi])) {
    free(made);
    return OMPLENS_FIX_ENOMEM;
  }
  for (size_t k = 0; k < n; k++) {
    omplens_fix__group *g = &fx->groups[gi]; /* new_group may move the groups */
    if (!g->left[k]) {
      g->findings[kept] = g->findings[k];
      g->site_of[kept++] = g->site_of[k];
      continue;
    }
    omplens_fix__site s = *omplens_fix__site_at(g, k);
    size_t finding = g->findings[k], first = g->left[g->item_first[k]] ? g->item_first[k] : k;
    const char *why = g->left[k];
    int intended = g->kind == OMPLENS_FIX_MANUAL ? g->intended : g->kind;
    omplens_fix__group *m = first != k ? &fx->groups[made[first]] : new_group(fx);
    made[k] = m ? (size_t)(m - fx->groups) : SIZE_MAX;
    if (m && first == k) {
      m->kind = OMPLENS_FIX_MANUAL;
      m->intended = intended;
      m->site = s;
      m->edit_file = s.file;
      omplens_fix__buf_str(&m->reason, why);
    }
    if (!m || !omplens_fix__add_finding(m, finding, &s)) {
      free(made);
      return OMPLENS_FIX_ENOMEM;
    }
  }
  free(made);
  omplens_fix__group *g = &fx->groups[gi];
  g->num_findings = kept;
  free(g->left);
  g->left = NULL;
  g->num_left = 0;
  omplens_fix__group_items_free(g);
  /* The site is the first finding's, and a manual group's texts name its
   * items: when some left, they named items it no longer holds. */
  if (kept && !omplens_fix__same_item(&g->site, omplens_fix__site_at(g, 0)))
    g->site = *omplens_fix__site_at(g, 0);
  if (kept && kept < n && g->kind == OMPLENS_FIX_MANUAL) {
    omplens_fix__retext_manual(fx, g);
    omplens_fix__try_firstprivate(fx, g); /* its items that stay may be one number */
  }
  return 0;
}

static bool wraps(const omplens_fix__group *g) {
  return g->kind == OMPLENS_FIX_KEEP_RESIDENT || g->kind == OMPLENS_FIX_KEEP_RESIDENT_CALLER;
}

int omplens_fix__derive(omplens_fixer *fx) {
  fx->fix_of_finding = malloc((fx->num_findings + 1) * sizeof *fx->fix_of_finding);
  fx->place_of_finding = malloc((fx->num_findings + 1) * sizeof *fx->place_of_finding);
  if (!fx->fix_of_finding || !fx->place_of_finding)
    return OMPLENS_FIX_ENOMEM;
  int rc = 0;
  for (size_t i = 0; i < fx->num_findings && !rc; i++) {
    fx->fix_of_finding[i] = SIZE_MAX;
    rc = plan_finding(fx, i);
  }
  if (!rc)
    rc = plan_unreferenced(fx);
  size_t nlo;
  const omplens_leftover *lo = omplens_analysis_leftovers(fx->analysis, &nlo);
  fx->first_leftover = fx->num_groups;
  for (size_t i = 0; i < nlo && !rc; i++) {
    omplens_fix__group *g = new_group(fx);
    if (!g)
      return OMPLENS_FIX_ENOMEM;
    g->leftover = i;
    omplens_fix__build_leftover(fx, g, &lo[i]);
  }
  /* Wraps last: a wrap takes in the allocations hoisted out of its loop
   * (built by then, and listed). A group's kind changes only when it is
   * built, and only wraps leave items (the groups split off come after
   * the others, built in the second pass), so the groups come in the same
   * order either way. */
  size_t planned = fx->num_groups;
  for (size_t i = 0; i < planned && !rc; i++)
    if (fx->groups[i].leftover == SIZE_MAX && !wraps(&fx->groups[i])) {
      omplens_fix__build(fx, &fx->groups[i]);
      rc = split_left(fx, i);
    }
  fx->hoisted = malloc((planned + 1) * sizeof *fx->hoisted); /* none: no hoist is taken in */
  for (size_t i = 0; fx->hoisted && i < planned; i++)
    if (fx->groups[i].kind == OMPLENS_FIX_HOIST_ALLOC && fx->groups[i].num_kept)
      fx->hoisted[fx->num_hoisted++] = i;
  for (size_t i = 0; i < fx->num_groups && !rc; i++) /* split groups come after */
    if (fx->groups[i].leftover == SIZE_MAX && (i >= planned || wraps(&fx->groups[i]))) {
      omplens_fix__build(fx, &fx->groups[i]);
      rc = split_left(fx, i);
    }
  free(fx->hoisted);
  fx->hoisted = NULL;
  fx->num_hoisted = 0;
  if (!rc) /* an unused allocation's removal takes its copies */
    rc = omplens_fix__take_removed(fx);
  if (!rc) /* the items of a construct that one rule changes alike: one change */
    rc = omplens_fix__join_items(fx);
  if (!rc) /* and the changes of other rules to the same clauses */
    rc = omplens_fix__merge_changes(fx);
  fx->fixes = rc ? NULL : calloc(fx->num_groups + 1, sizeof *fx->fixes);
  if (!fx->fixes)
    return rc ? rc : OMPLENS_FIX_ENOMEM;
  omplens_fix__check_compiles(fx);
  rc = omplens_fix__take_joined(fx); /* after the checks: a wrap that fails keeps nothing */
  omplens_fix__find_sources_root(fx);
  for (size_t i = 0; i < fx->num_groups && !rc; i++) {
    omplens_fix__group *g = &fx->groups[i];
    rc = omplens_fix__publish(fx, i);
    for (size_t k = 0; k < g->num_findings; k++) {
      fx->fix_of_finding[g->findings[k]] = i;
      fx->place_of_finding[g->findings[k]] = (uint32_t)k;
    }
  }
  /* Per-event aids of planning and publishing, not needed once every fix
   * is out (built again if ever asked). */
  omplens_fix__deletes_free(fx);
  omplens_fix__ops_free(fx);
  omplens_fix__whatif_free(fx);
  return rc;
}
