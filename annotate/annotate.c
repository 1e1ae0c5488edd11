/* Annotator: the runtime's own words first (ident_t psource and map names,
 * recorded when the collector was preloaded), DWARF second, ELF symbols last. */
#include "omplens_annotate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate_internal.h"
#include "omplens_directives.h"
#include "omplens_symbolize.h"

/* The map item and variable an argument's name gives. The trace keeps
 * each name once, so the name's pointer is its key. */
typedef struct arg_var {
  const char *key;         /* the argument's name; NULL: an empty slot */
  const char *item, *name;
} arg_var;

/* What is known of one code address: where it is, and the directive. */
typedef struct located {
  omplens_location loc;
  omplens_source_file file; /* the source as DWARF's unit names it */
  omplens_directive_match match;
  int placed;  /* loc and file are worked out */
  int done;    /* and the directive (or API call) looked up */
  int matched; /* match holds the index's answer */
  const omplens_api_call *call; /* an API call's own address: the call */
} located;

typedef struct code_entry {
  uint64_t codeptr;
  uint32_t region; /* a region with this codeptr that has a source, or any;
                      OMPLENS_NO_REGION for an op's own address */
  located *found;  /* worked out at the first ask, or NULL */
} code_entry;

struct omplens_annotator {
  const omplens_trace *trace;
  omplens_symbolizer *sym;   /* NULL when it could not be created */
  code_entry *codes;         /* open addressing, power-of-two capacity */
  size_t cap_codes;
  omplens_directive_index *directives; /* created on first use */
  int directives_failed;
  char *compile_commands;    /* option, or NULL */
  char **owned;              /* every string handed out */
  size_t num_owned, cap_owned;
  int said_flags;            /* the note on the build's flags was given */
  arg_var *arg_vars; /* a hash table by name, made on first use: a loop
                        that maps new buffers each time makes a list of
                        arguments each time, all of the same names */
  size_t num_arg_vars, cap_arg_vars;
  /* Each list of arguments sorted when first asked: an operation finds
   * its argument by binary search, where a construct can map hundreds. */
  omplens_map_lists arg_lists;
  omplens_path_memo *paths;  /* made on first use */
};

const char *omplens_annotate_strerror(int err) {
  switch (err) {
  case OMPLENS_ANNOTATE_OK: return "success";
  case OMPLENS_ANNOTATE_EINVAL: return "invalid argument";
  case OMPLENS_ANNOTATE_ENOMEM: return "out of memory";
  case OMPLENS_ANNOTATE_ENOTFOUND: return "no source information";
  default: return "unknown error";
  }
}

const char *omplens_location_via_name(int via) {
  switch (via) {
  case OMPLENS_VIA_RUNTIME: return "runtime";
  case OMPLENS_VIA_DEBUG_INFO: return "debug-info";
  case OMPLENS_VIA_SYMBOL: return "symbol";
  default: return "none";
  }
}

static size_t slot_of(uint64_t key, size_t cap) {
  key ^= key >> 29;
  key *= 0xbf58476d1ce4e5b9ULL;
  key ^= key >> 32;
  return (size_t)key & (cap - 1);
}

static size_t code_slot(const code_entry *codes, size_t cap, uint64_t codeptr) {
  size_t j = slot_of(codeptr, cap);
  while (codes[j].codeptr && codes[j].codeptr != codeptr)
    j = (j + 1) & (cap - 1);
  return j;
}

/* Doubles the table; sized by distinct codeptrs (a program has hundreds),
 * not by regions (millions in a long run). */
static int grow_codes(omplens_annotator *a) {
  size_t cap = a->cap_codes ? 2 * a->cap_codes : 64;
  code_entry *codes = calloc(cap, sizeof *codes);
  if (!codes)
    return OMPLENS_ANNOTATE_ENOMEM;
  for (size_t i = 0; i < a->cap_codes; i++)
    if (a->codes[i].codeptr)
      codes[code_slot(codes, cap, a->codes[i].codeptr)] = a->codes[i];
  free(a->codes);
  a->codes = codes;
  a->cap_codes = cap;
  return 0;
}

/* The slot of codeptr, made for region when new; NULL without memory. */
static code_entry *add_code(omplens_annotator *a, uint64_t codeptr, uint32_t region,
                            size_t *used) {
  size_t j = code_slot(a->codes, a->cap_codes, codeptr);
  if (a->codes[j].codeptr)
    return &a->codes[j];
  if (2 * (*used + 1) > a->cap_codes) {
    if (grow_codes(a))
      return NULL;
    j = code_slot(a->codes, a->cap_codes, codeptr);
  }
  ++*used;
  a->codes[j] = (code_entry){codeptr, region, NULL};
  return &a->codes[j];
}

/* Keeps one region per codeptr, preferring one whose entry call was seen.
 * The other sites are ops' own code addresses: calls of the device memory
 * API (omp_target_memcpy, ...), which belong to no construct. */
static int index_regions(omplens_annotator *a) {
  size_t n, nsites, used = 0;
  const omplens_region *r = omplens_trace_regions(a->trace, &n);
  const uint64_t *sites = omplens_trace_sites(a->trace, &nsites);
  if (grow_codes(a))
    return OMPLENS_ANNOTATE_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    if (!r[i].codeptr)
      continue;
    code_entry *c = add_code(a, r[i].codeptr, (uint32_t)i, &used);
    if (!c)
      return OMPLENS_ANNOTATE_ENOMEM;
    if (!r[c->region].source && r[i].source)
      c->region = (uint32_t)i;
  }
  for (size_t i = 1; i < nsites; i++)
    if (sites[i] && !add_code(a, sites[i], OMPLENS_NO_REGION, &used))
      return OMPLENS_ANNOTATE_ENOMEM;
  return 0;
}

/* The entry of a directive's code address, or NULL. */
static code_entry *code_of(const omplens_annotator *a, uint64_t codeptr) {
  if (!codeptr || !a->cap_codes)
    return NULL;
  size_t j = slot_of(codeptr, a->cap_codes);
  while (a->codes[j].codeptr) {
    if (a->codes[j].codeptr == codeptr)
      return &a->codes[j];
    j = (j + 1) & (a->cap_codes - 1);
  }
  return NULL;
}

int omplens_annotator_create(const omplens_trace *t, const omplens_annotate_options *opt,
                             omplens_annotator **out) {
  *out = NULL;
  const omplens_trace_info *info = omplens_trace_get_info(t);
  if (!info)
    return OMPLENS_ANNOTATE_EINVAL;
  omplens_annotator *a = calloc(1, sizeof *a);
  if (!a)
    return OMPLENS_ANNOTATE_ENOMEM;
  a->trace = t;
  if (opt && opt->compile_commands && !(a->compile_commands = strdup(opt->compile_commands))) {
    free(a);
    return OMPLENS_ANNOTATE_ENOMEM;
  }
  /* A failed symbolizer leaves a NULL that lookups accept: the runtime's
   * locations still work without it. */
  omplens_symbolizer_create(info->modules, info->num_modules, &a->sym);
  int rc = index_regions(a);
  if (rc) {
    omplens_annotator_destroy(a);
    return rc;
  }
  *out = a;
  return 0;
}

omplens_symbolizer *omplens_annotate__symbolizer(const omplens_annotator *a) { return a->sym; }

const omplens_trace *omplens_annotate__trace(const omplens_annotator *a) { return a->trace; }

omplens_path_memo **omplens_annotate__path_memo(omplens_annotator *a) { return &a->paths; }

void omplens_annotator_destroy(omplens_annotator *a) {
  if (!a)
    return;
  omplens_symbolizer_destroy(a->sym);
  omplens_directive_index_destroy(a->directives);
  free(a->compile_commands);
  for (size_t i = 0; i < a->num_owned; i++)
    free(a->owned[i]);
  free(a->owned);
  for (size_t i = 0; i < a->cap_codes; i++)
    free(a->codes[i].found);
  free(a->arg_vars);
  omplens_map_lists_free(&a->arg_lists);
  free(a->codes);
  omplens_annotate__path_memo_free(a->paths);
  free(a);
}

/* Copies [s, s+n) into a string the annotator owns. */
static const char *own(omplens_annotator *a, const char *s, size_t n) {
  if (a->num_owned == a->cap_owned) {
    size_t cap = a->cap_owned ? 2 * a->cap_owned : 32;
    char **p = realloc(a->owned, cap * sizeof *p);
    if (!p)
      return NULL;
    a->owned = p;
    a->cap_owned = cap;
  }
  char *c = malloc(n + 1);
  if (!c)
    return NULL;
  memcpy(c, s, n);
  c[n] = 0;
  a->owned[a->num_owned++] = c;
  return c;
}

/* Splits ";f1;f2;f3;...;;" (LLVM's ident_t and map-name format) into up to
 * max fields; returns how many were found. */
static int split_fields(const char *s, const char **start, size_t *len, int max) {
  if (!s || *s != ';')
    return 0;
  int n = 0;
  for (const char *p = s + 1; *p && n < max;) {
    const char *semi = strchr(p, ';');
    if (!semi)
      break;
    start[n] = p;
    len[n++] = (size_t)(semi - p);
    p = semi + 1;
  }
  return n;
}

/* Fills loc from the runtime's ";file;function;line;column;;"; 0 if usable. */
static int from_runtime(omplens_annotator *a, const char *source, omplens_location *loc) {
  const char *f[4];
  size_t n[4];
  if (split_fields(source, f, n, 4) < 4)
    return -1;
  unsigned line = (unsigned)strtoul(f[2], NULL, 10);
  if (!line || (n[0] == 7 && !strncmp(f[0], "unknown", 7)))
    return -1; /* built without -g: clang writes ";unknown;unknown;0;0;;" */
  loc->file = own(a, f[0], n[0]);
  loc->function = own(a, f[1], n[1]);
  loc->line = line;
  loc->column = (unsigned)strtoul(f[3], NULL, 10);
  loc->via = OMPLENS_VIA_RUNTIME;
  return loc->file ? 0 : -1;
}

static const char *symbol_note(int status) {
  switch (status) {
  case OMPLENS_SYM_NO_DEBUG_INFO:
    return "no debug info: rebuild with -g (or -gline-tables-only) to see the source line";
  case OMPLENS_SYM_BUILD_ID_MISMATCH:
    return "the binary was rebuilt after the run (build-id differs): not attributed";
  case OMPLENS_SYM_MODULE_MISSING:
    return "the binary no longer exists: not attributed";
  case OMPLENS_SYM_MODULE_UNREADABLE:
    return "the binary cannot be read as ELF: not attributed";
  case OMPLENS_SYM_NO_MODULE:
    return "the address is in no module of the recorded load map";
  default:
    return "no source information";
  }
}

/* The runtime and DWARF name files as the compiler was given them, from
 * its working directory (DW_AT_comp_dir): the unit that holds the code
 * makes the name absolute, and says which MD5 it compiled. A relative name
 * stays as it is when no unit is known. */
static void source_file(omplens_annotator *a, uint64_t codeptr, omplens_location *loc,
                        omplens_source_file *file) {
  if (omplens_symbolize_source_file(a->sym, codeptr, loc->file, file) == 0 && file->path)
    loc->file = file->path;
  loc->unit = file->unit;
}

static void from_symbolizer(omplens_annotator *a, uint64_t codeptr, omplens_location *loc,
                            omplens_source_file *file) {
  omplens_source_loc s;
  omplens_symbolize(a->sym, codeptr, &s);
  loc->module = s.module;
  loc->offset = s.module_offset;
  if (loc->via != OMPLENS_VIA_RUNTIME && s.status == OMPLENS_SYM_OK && s.file && s.line) {
    loc->file = s.file;
    loc->line = s.line;
    loc->column = s.column;
    loc->function = s.function;
    loc->via = OMPLENS_VIA_DEBUG_INFO;
  }
  if (loc->file) {
    source_file(a, codeptr, loc, file);
    return;
  }
  if (s.status == OMPLENS_SYM_NO_DEBUG_INFO && s.symbol) {
    char buf[512];
    int k = snprintf(buf, sizeof buf, "%s+0x%llx", s.symbol, (unsigned long long)s.symbol_offset);
    loc->function = own(a, buf, k < 0 ? 0 : (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1);
    loc->via = OMPLENS_VIA_SYMBOL;
  }
  loc->note = symbol_note(s.status);
}

static const char *confidence_name(int c) {
  switch (c) {
  case OMPLENS_MATCH_EXACT: return "exact";
  case OMPLENS_MATCH_NEAREST: return "nearest";
  case OMPLENS_MATCH_AMBIGUOUS: return "ambiguous";
  default: return NULL;
  }
}

/* The index reads the build's flags from compile_commands.json, else from
 * the commands the trace's modules recorded in DWARF. */
static int create_directives(omplens_annotator *a) {
  const omplens_trace_info *info = omplens_trace_get_info(a->trace);
  const char **binaries = calloc(info->num_modules + 1, sizeof *binaries);
  if (!binaries)
    return OMPLENS_ANNOTATE_ENOMEM;
  for (size_t i = 0; i < info->num_modules; i++)
    binaries[i] = info->modules[i].path;
  omplens_directive_options o = {.compile_commands = a->compile_commands,
                                 .binaries = binaries,
                                 .num_binaries = info->num_modules};
  int rc = omplens_directive_index_create(&o, &a->directives);
  free(binaries);
  return rc;
}

/* Looks the location up in the source (libclang), creating the index on
 * first use. Construct kinds and the finder's runtime kinds share their
 * numbering. */
struct omplens_directive_index *omplens_annotator_directives(omplens_annotator *a) {
  if (!a || a->directives_failed)
    return NULL;
  if (!a->directives && create_directives(a))
    a->directives_failed = 1;
  return a->directives;
}

/* Said once per process, on the first directive it concerns. */
static const char FLAGS_NOTE[] =
    "sources were parsed without the build's flags (their unit has no compile_commands.json "
    "entry and no -grecord-command-line command): pass --compile-commands FILE, made by "
    "CMAKE_EXPORT_COMPILE_COMMANDS=ON or bear -- make, or build with clang's -grecord-command-line";

static const char *stale_note(const omplens_source_file *file) {
  return file->has_md5 ? "the source changed after the build: its MD5 is not the one compiled"
                       : "the source changed after the build: the directive is no longer on this line";
}

/* What the index is asked about a location: the file as the unit that
 * holds the code names it, that unit (a header is parsed through it), and
 * the MD5 it compiled. */
static omplens_directive_query query_of(const omplens_location *loc,
                                        const omplens_source_file *file) {
  return (omplens_directive_query){.file = loc->file, .line = loc->line,
                                   .column = loc->column, .function = loc->function,
                                   .unit = file->unit,
                                   .md5 = file->has_md5 ? file->md5 : NULL,
                                   .pragma_line = loc->via == OMPLENS_VIA_RUNTIME};
}

static const char *lookup_note(int rc) {
  return rc == OMPLENS_DIRECTIVES_ENOENT ? "the source file is missing" : omplens_directives_strerror(rc);
}

/* The notes a match earns: the source changed, or (once) the build's flags
 * were guessed. */
static void match_notes(omplens_annotator *a, unsigned flags, const omplens_source_file *file,
                        omplens_location_directive *d) {
  d->partial_parse = !!(flags & OMPLENS_MATCHF_PARTIAL);
  d->stale = !!(flags & OMPLENS_MATCHF_STALE);
  if (d->stale) {
    d->note = stale_note(file);
  } else if ((flags & OMPLENS_MATCHF_GUESSED_FLAGS) && !a->said_flags) {
    d->note = FLAGS_NOTE;
    a->said_flags = 1;
  }
}

/* The directive at the location: the file and line decide, the runtime's
 * line being the pragma's own; the unit's MD5 tells an edited file. */
static void find_directive(omplens_annotator *a, const omplens_region *r, located *l,
                           const omplens_source_file *file) {
  omplens_location *loc = &l->loc;
  omplens_location_directive *d = &loc->directive;
  if (!loc->file || !omplens_annotator_directives(a))
    return; /* no source, or no index could be made */
  omplens_directive_query q = query_of(loc, file);
  q.runtime_kind = r ? r->kind : OMPLENS_RUNTIME_ANY;
  omplens_directive_match *m = &l->match;
  int rc = omplens_directive_find_query(a->directives, &q, m);
  if (rc) {
    d->note = lookup_note(rc);
    return;
  }
  l->matched = 1;
  d->confidence = confidence_name(m->confidence);
  for (size_t i = 0; i < m->num_candidates && i < 8; i++)
    d->candidate_lines[d->num_candidates++] = m->candidates[i]->pragma.line;
  match_notes(a, m->flags, file, d);
  if (!m->directive)
    return;
  d->kind = m->directive->name;
  d->text = m->directive->text;
  d->file = m->directive->pragma.file;
  d->line = m->directive->pragma.line;
  d->end_line = m->directive->pragma.end_line;
}

/* An op's own code address is the return address of a call of the device
 * memory API: the "directive" is that call, named after its routine, at its
 * own line; never a pragma nearby. */
static void find_api_call(omplens_annotator *a, located *l, const omplens_source_file *file) {
  omplens_location *loc = &l->loc;
  omplens_location_directive *d = &loc->directive;
  if (!loc->file || !omplens_annotator_directives(a))
    return;
  omplens_directive_query q = query_of(loc, file);
  omplens_api_call_match m;
  int rc = omplens_directive_find_api_call(a->directives, &q, &m);
  if (rc) {
    d->note = lookup_note(rc);
    return;
  }
  d->confidence = confidence_name(m.confidence);
  match_notes(a, m.flags, file, d);
  if (!m.call) {
    if (!d->note)
      d->note = m.confidence == OMPLENS_MATCH_AMBIGUOUS
                    ? "several calls of the device memory API are on this line"
                    : "no call of the device memory API is on this line";
    return;
  }
  l->call = m.call;
  d->kind = m.call->routine;
  d->text = m.call->text;
  d->file = m.call->call.file;
  d->line = m.call->call.line;
  d->end_line = m.call->call.end_line;
}

/* The region of a code entry; NULL for none, or for an API call's own
 * address. */
static const omplens_region *region_of(const omplens_annotator *a, const code_entry *c) {
  return c && c->region != OMPLENS_NO_REGION ? &omplens_trace_regions(a->trace, NULL)[c->region]
                                             : NULL;
}

/* Where codeptr is: from the region's runtime location first, then DWARF. */
static void place(omplens_annotator *a, const code_entry *c, uint64_t codeptr, located *l) {
  const omplens_region *r = region_of(a, c);
  if (r && r->source)
    from_runtime(a, r->source, &l->loc);
  from_symbolizer(a, codeptr, &l->loc, &l->file);
  l->placed = 1;
}

/* Where codeptr is and which directive. Made once per code address (every
 * finding asks again); omplens_annotate_prefetch() may have placed it. */
static const located *locate(omplens_annotator *a, uint64_t codeptr, located *scratch) {
  code_entry *c = code_of(a, codeptr);
  if (c && c->found && c->found->done)
    return c->found;
  located *l = c ? (c->found ? c->found : calloc(1, sizeof *l)) : NULL;
  if (!l) {
    l = scratch;
    memset(l, 0, sizeof *l);
  }
  if (!l->placed)
    place(a, c, codeptr, l);
  if (c && c->region == OMPLENS_NO_REGION) /* an API call's own address */
    find_api_call(a, l, &l->file);
  else
    find_directive(a, region_of(a, c), l, &l->file);
  l->done = 1;
  if (l != scratch)
    c->found = l;
  return l;
}

int omplens_annotate_prefetch(omplens_annotator *a, omplens_progress_fn *progress, void *ctx) {
  if (!a || !omplens_annotator_directives(a))
    return 0;
  size_t nregions, nsites;
  const omplens_region *r = omplens_trace_regions(a->trace, &nregions);
  const uint64_t *sites = omplens_trace_sites(a->trace, &nsites);
  const char **units = malloc((nregions + nsites + 1) * sizeof *units);
  if (!units)
    return OMPLENS_ANNOTATE_ENOMEM;
  /* In the order the run reached them: the regions, then the API calls. */
  size_t n = 0;
  for (size_t i = 0; i < nregions + nsites; i++) {
    uint64_t codeptr = i < nregions ? r[i].codeptr : sites[i - nregions];
    code_entry *c = codeptr ? code_of(a, codeptr) : NULL;
    if (c && !c->found && (c->found = calloc(1, sizeof *c->found))) {
      place(a, c, codeptr, c->found);
      if (c->found->file.unit)
        units[n++] = c->found->file.unit;
    }
  }
  int rc = omplens_directives_prefetch(a->directives, units, n, progress, ctx);
  free(units);
  return rc == OMPLENS_DIRECTIVES_ENOMEM ? OMPLENS_ANNOTATE_ENOMEM : 0;
}

int omplens_annotate_location(omplens_annotator *a, uint64_t codeptr, omplens_location *out) {
  memset(out, 0, sizeof *out);
  if (!a)
    return OMPLENS_ANNOTATE_EINVAL;
  located scratch;
  *out = locate(a, codeptr, &scratch)->loc;
  return out->via == OMPLENS_VIA_NONE ? OMPLENS_ANNOTATE_ENOTFOUND : 0;
}

/* The base variable of a map item: "a" of "a[0:n]", "s" of "s.x", "p" of "*p". */
static size_t base_name(const char *item, size_t n, size_t *skip) {
  size_t i = 0;
  while (i < n && (item[i] == '*' || item[i] == '(' || item[i] == '&' || item[i] == ' '))
    i++;
  /* A member in a method: the compiler names `x[0:n]` `this->x[0:n]`; its
   * variable is the member, as written. */
  if (n - i > 6 && !memcmp(item + i, "this->", 6))
    i += 6;
  size_t j = i;
  while (j < n && (item[j] == '_' || (item[j] >= 'a' && item[j] <= 'z') ||
                   (item[j] >= 'A' && item[j] <= 'Z') || (item[j] >= '0' && item[j] <= '9')))
    j++;
  *skip = i;
  return j - i;
}

/* The argument of region r that holds [addr, addr+bytes): an exact match of
 * begin and size first (the first of equal ones), else the one range that
 * contains addr. */
static const omplens_map_arg *match_arg(omplens_annotator *a, const omplens_region *r,
                                        uint64_t addr, uint64_t bytes) {
  size_t nargs;
  const omplens_map_arg *args = omplens_trace_args(a->trace, &nargs);
  if (r->first_arg >= nargs)
    return NULL;
  uint32_t first = r->first_arg, n = r->num_args;
  if (n > nargs - first)
    n = (uint32_t)(nargs - first);
  const uint32_t *order = omplens_map_lists_sort(&a->arg_lists, args, nargs, first, n);
  if (order) {
    uint32_t k = omplens_map_args_find(args + first, order, n, addr, bytes);
    if (k != UINT32_MAX)
      return &args[first + k];
  }
  const omplens_map_arg *within = NULL;
  int candidates = 0;
  for (uint32_t i = first; i < first + n; i++) {
    if (!order && omplens_map_arg_is(&args[i], addr, bytes))
      return &args[i];
    if (omplens_map_arg_holds(&args[i], addr)) {
      within = &args[i];
      candidates++;
    }
  }
  return candidates == 1 ? within : NULL;
}

/* Whether e, which no argument of region r names, is the runtime attaching
 * a pointer: a copy in of a pointer's bytes (64-bit on every offload
 * target) at a construct with an item reached through a pointer. */
static bool attaches(const omplens_annotator *a, const omplens_region *r, const omplens_event *e) {
  uint32_t n;
  const omplens_map_arg *args = omplens_trace_region_args(a->trace, r, &n);
  if (e->kind != OMPLENS_EV_H2D || e->bytes != 8)
    return false;
  for (uint32_t i = 0; i < n; i++)
    if (args[i].type & OMPLENS_MAPBIT_PTR_AND_OBJ)
      return true;
  return false;
}

static arg_var *arg_var_of(omplens_annotator *a, const char *key);

/* The pointer argument arg of region r goes through, as the program names
 * it: for an item reached through a pointer (PTR_AND_OBJ,
 * "this->re[0:this->n]") its pointer ("this->re"); for an argument with no
 * name whose members are such items (the part of an object that holds
 * their pointers, which LLVM maps as one) those pointers, joined by ", ";
 * NULL when it goes through none. Kept per argument. */
static const char *pointer_of(omplens_annotator *a, const omplens_region *r,
                              const omplens_map_arg *arg) {
  uint32_t n;
  const omplens_map_arg *args = omplens_trace_region_args(a->trace, r, &n);
  if (!args || arg < args || arg >= args + n)
    return NULL;
  uint32_t k = (uint32_t)(arg - args);
  arg_var *v = arg_var_of(a, (const char *)arg); /* keyed by the argument, not a name */
  if (!v)
    return NULL;
  if (v->key)
    return v->item;
  char buf[512];
  size_t len = 0;
  for (uint32_t i = 0; i < n; i++) {
    const omplens_map_arg *m = &args[i];
    bool mine = i == k || (uint32_t)(m->type >> 48) == k + 1; /* it, or its member */
    const char *f[1];
    size_t fn[1];
    if (!mine || !(m->type & OMPLENS_MAPBIT_PTR_AND_OBJ) ||
        split_fields(m->name, f, fn, 1) < 1 || !fn[0])
      continue;
    size_t end = 0; /* the pointer: the item up to its section */
    while (end < fn[0] && f[0][end] != '[')
      end++;
    if (end == fn[0] || len + end + 3 > sizeof buf)
      continue;
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%.*s", len ? ", " : "", (int)end, f[0]);
  }
  *v = (arg_var){(const char *)arg, len ? own(a, buf, len) : NULL, NULL};
  a->num_arg_vars++;
  return v->item;
}

/* The pointer the runtime attaches with e, which no argument of region r
 * names: the one of the item it mapped just before (the attachment follows
 * the copy or allocation of what the pointer points to), or NULL. */
static const char *attached_pointer(omplens_annotator *a, const omplens_region *r,
                                    const omplens_event *e) {
  size_t nev;
  const omplens_event *ev = omplens_trace_events(a->trace, &nev);
  if (e < ev || e >= ev + nev)
    return NULL;
  const omplens_event *p = e;
  for (int steps = 0; p > ev && steps < 32; steps++)
    if ((--p)->region == e->region)
      break;
  if (p == e || p->region != e->region || !p->host_addr)
    return NULL;
  const omplens_map_arg *arg = match_arg(a, r, p->host_addr, p->bytes);
  if (!arg || !arg->name || !(arg->type & OMPLENS_MAPBIT_PTR_AND_OBJ))
    return NULL;
  return pointer_of(a, r, arg);
}

/* The argument of region r whose item goes through the pointer stored
 * where e is, when e is the runtime's device copy of that pointer: its
 * allocation (or copy) of a pointer's bytes at the host address of a
 * pointer that a PTR_AND_OBJ item goes through (`state[:n]`, `state` a
 * global or a member). LLVM's runtime makes that copy to attach the item
 * and keeps it after the item is unmapped. NULL otherwise. */
static const omplens_map_arg *stored_pointer(const omplens_annotator *a, const omplens_region *r,
                                             const omplens_event *e) {
  uint32_t n;
  const omplens_map_arg *args = omplens_trace_region_args(a->trace, r, &n);
  if (e->bytes != 8 || e->kind != OMPLENS_EV_ALLOC)
    return NULL;
  for (uint32_t i = 0; args && i < n; i++)
    if ((args[i].type & OMPLENS_MAPBIT_PTR_AND_OBJ) && args[i].base == e->host_addr)
      return &args[i];
  return NULL;
}

/* Whether an item of clause kind ck and map type mt can make an op of this
 * event kind: copies in need to/tofrom, copies out from/tofrom, and every map
 * item allocates. */
static int item_fits(int event_kind, int ck, int mt) {
  if (ck == OMPLENS_CLAUSE_TO)
    return event_kind == OMPLENS_EV_H2D;
  if (ck == OMPLENS_CLAUSE_FROM)
    return event_kind == OMPLENS_EV_D2H;
  if (ck != OMPLENS_CLAUSE_MAP)
    return 0;
  switch (event_kind) {
  case OMPLENS_EV_H2D: return mt == OMPLENS_MAP_TO || mt == OMPLENS_MAP_TOFROM;
  case OMPLENS_EV_D2H: return mt == OMPLENS_MAP_FROM || mt == OMPLENS_MAP_TOFROM;
  case OMPLENS_EV_ALLOC: return mt != OMPLENS_MAP_RELEASE && mt != OMPLENS_MAP_DELETE;
  default: return 0;
  }
}

/* Which op of its kind e is within its region (0 for the first). Events are
 * sorted by begin time, so the scan stops where the region began. */
static size_t rank_in_region(const omplens_annotator *a, const omplens_event *e) {
  size_t n, rank = 0;
  const omplens_event *ev = omplens_trace_events(a->trace, &n);
  const omplens_region *r = &omplens_trace_regions(a->trace, NULL)[e->region];
  if (e < ev || e >= ev + n)
    return 0;
  for (const omplens_event *p = e; p > ev && p[-1].begin_ns >= r->begin_ns; p--)
    if (p[-1].region == e->region && p[-1].kind == e->kind)
      rank++;
  return rank;
}

/* Without the runtime's names: the directive's items that fit the op, the
 * guess being the one in the op's rank (items already present move nothing
 * and shift the order, so it is never certain). */
static int guess_variable(omplens_annotator *a, const omplens_event *e, omplens_variable *out) {
  located scratch;
  const located *l = locate(a, omplens_trace_codeptr(a->trace, e), &scratch);
  out->unnamed = "the trace has no map names (recorded with --no-preload), and the "
                 "directive's source is not found";
  if (!l->matched || !l->match.directive)
    return OMPLENS_ANNOTATE_ENOTFOUND;
  out->unnamed = "the trace has no map names (recorded with --no-preload), and no item "
                 "of the directive fits the operation";
  const omplens_directive *d = l->match.directive;
  const char *names[OMPLENS_VARIABLE_MAX_CANDIDATES];
  for (size_t i = 0; i < d->num_items && out->num_candidates < OMPLENS_VARIABLE_MAX_CANDIDATES; i++)
    if (d->items[i].var && item_fits(e->kind, d->items[i].clause_kind, d->items[i].map_type)) {
      names[out->num_candidates] = d->items[i].var;
      out->candidates[out->num_candidates++] = d->items[i].text;
    }
  for (size_t i = 0; i < d->num_implicit && out->num_candidates < OMPLENS_VARIABLE_MAX_CANDIDATES; i++)
    if (d->implicit[i].treatment == OMPLENS_IMPLICIT_MAP &&
        item_fits(e->kind, OMPLENS_CLAUSE_MAP, d->implicit[i].map_type)) {
      names[out->num_candidates] = d->implicit[i].var;
      out->candidates[out->num_candidates++] = d->implicit[i].var;
    }
  if (!out->num_candidates)
    return OMPLENS_ANNOTATE_ENOTFOUND;
  size_t pick = rank_in_region(a, e);
  if (pick >= out->num_candidates)
    pick = out->num_candidates - 1;
  out->item = out->candidates[pick];
  out->name = names[pick];
  out->certain = 0;
  out->unnamed = NULL;
  return 0;
}

/* Which argument of an API call names the buffer of its event: the
 * device pointer (omp_target_alloc's result, the one omp_target_free
 * frees, the destination of a copy to a device, the source of a copy to
 * the host), or the host pointer that is (dis)associated. */
static const omplens_api_argument *api_argument(const omplens_api_call *call, int kind) {
  size_t i;
  switch (kind) {
  case OMPLENS_EV_ALLOC: return call->result.text ? &call->result : NULL;
  case OMPLENS_EV_D2H: i = 1; break;
  default: i = 0; break; /* H2D, D2D: the destination; DELETE, (DIS)ASSOCIATE */
  }
  return i < call->num_args ? &call->args[i] : NULL;
}

/* An event of the device memory API: its variable is the call's argument
 * as written at the call's own line. */
static int api_variable(omplens_annotator *a, const omplens_event *e, omplens_variable *out) {
  located scratch;
  const located *l = locate(a, omplens_trace_codeptr(a->trace, e), &scratch);
  const omplens_api_argument *arg = l->call ? api_argument(l->call, e->kind) : NULL;
  if (!arg || !arg->text || l->loc.directive.stale) {
    out->unnamed = "the call's argument is not found in its source";
    return OMPLENS_ANNOTATE_ENOTFOUND;
  }
  out->item = arg->text;
  out->name = arg->var ? arg->var : arg->text;
  out->certain = 1;
  return 0;
}

static size_t arg_var_slot(const arg_var *t, size_t cap, const char *key) {
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ULL;
  size_t j = (size_t)(h >> 17) & (cap - 1);
  while (t[j].key && t[j].key != key)
    j = (j + 1) & (cap - 1);
  return j;
}

/* The slot of name key in a->arg_vars (key NULL in it when new), or NULL
 * without memory. */
static arg_var *arg_var_of(omplens_annotator *a, const char *key) {
  if (2 * (a->num_arg_vars + 1) > a->cap_arg_vars) {
    size_t cap = a->cap_arg_vars ? 2 * a->cap_arg_vars : 64;
    arg_var *t = calloc(cap, sizeof *t);
    if (!t)
      return NULL;
    for (size_t j = 0; j < a->cap_arg_vars; j++)
      if (a->arg_vars[j].key)
        t[arg_var_slot(t, cap, a->arg_vars[j].key)] = a->arg_vars[j];
    free(a->arg_vars);
    a->arg_vars = t;
    a->cap_arg_vars = cap;
  }
  return &a->arg_vars[arg_var_slot(a->arg_vars, a->cap_arg_vars, key)];
}

int omplens_annotate_variable(omplens_annotator *a, const omplens_event *e,
                              omplens_variable *out) {
  memset(out, 0, sizeof *out);
  if (!a || !e)
    return OMPLENS_ANNOTATE_EINVAL;
  if (e->flags & OMPLENS_EVF_OWN_CODEPTR)
    return api_variable(a, e, out);
  size_t nreg;
  const omplens_region *regions = omplens_trace_regions(a->trace, &nreg);
  if (e->region >= nreg || !e->host_addr) {
    out->unnamed = "the operation belongs to no construct the trace recorded";
    return OMPLENS_ANNOTATE_ENOTFOUND;
  }
  if (!regions[e->region].num_args) /* no runtime names: guess from the source */
    return guess_variable(a, e, out);
  const omplens_map_arg *arg = match_arg(a, &regions[e->region], e->host_addr, e->bytes);
  if (!arg && (arg = stored_pointer(a, &regions[e->region], e))) {
    out->pointer = pointer_of(a, &regions[e->region], arg);
    out->pointer_storage = 1;
    out->unnamed = "the runtime made it for the device's copy of the pointer that a map item "
                   "goes through, which no map item names";
    return OMPLENS_ANNOTATE_ENOTFOUND;
  }
  if (!arg) { /* the runtime's own copy or allocation */
    out->attach = attaches(a, &regions[e->region], e);
    if (out->attach)
      out->pointer = attached_pointer(a, &regions[e->region], e);
    out->unnamed = out->attach
                       ? "the runtime made it to attach a pointer: it writes the device "
                         "address of a map item reached through a pointer (`p[0:n]`, or a "
                         "member `x[0:n]` in a method) into the device's copy of that pointer"
                       : "the runtime made it for no single map item: none of the construct's "
                         "arguments begins at its host address (a pointer it attaches, "
                         "structure members allocated as one, or a mapper's part)";
    return OMPLENS_ANNOTATE_ENOTFOUND;
  }
  /* The item and its variable are made once per name. */
  arg_var *v = arg->name ? arg_var_of(a, arg->name) : NULL;
  if (arg->name && !v)
    return OMPLENS_ANNOTATE_ENOMEM;
  if (v && !v->key) {
    const char *f[1], *item = NULL, *name = NULL; /* NULL: no name */
    size_t n[1];
    /* libomptarget names an argument the compiler gave no name "unknown" */
    if (split_fields(arg->name, f, n, 1) >= 1 && n[0] &&
        !(n[0] == 7 && !memcmp(f[0], "unknown", 7))) {
      size_t skip, len = base_name(f[0], n[0], &skip);
      item = own(a, f[0], n[0]);
      name = len ? own(a, f[0] + skip, len) : item;
      if (!item || !name)
        return OMPLENS_ANNOTATE_ENOMEM;
    }
    *v = (arg_var){arg->name, item, name};
    a->num_arg_vars++;
  }
  if (!v || !v->item) {
    out->pointer = pointer_of(a, &regions[e->region], arg);
    out->unnamed = out->pointer ? "the runtime made it for the device's copy of the pointers "
                                  "that map items go through, which no map item names"
                                : "the runtime's map argument for it has no name";
    return OMPLENS_ANNOTATE_ENOTFOUND;
  }
  out->item = v->item;
  out->name = v->name;
  out->map_type = arg->type;
  out->certain = 1;
  return 0;
}

size_t omplens_annotate_unreferenced(omplens_annotator *a, uint64_t codeptr,
                                     omplens_unreferenced *out, size_t max) {
  if (!a)
    return 0;
  located scratch;
  const located *l = locate(a, codeptr, &scratch);
  const omplens_directive_match *m = &l->match;
  if (!l->matched || l->loc.directive.stale || m->confidence != OMPLENS_MATCH_EXACT ||
      !m->directive)
    return 0;
  const omplens_directive *d = m->directive;
  if (d->flags & OMPLENS_DIRF_MACRO) /* the body of a _Pragma macro is not seen */
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < d->num_unreferenced && n < max; i++) {
    const omplens_map_item *it = d->unreferenced[i];
    if (!it->var)
      continue;
    out[n++] = (omplens_unreferenced){it->text, it->var, !it->callees_may_use};
  }
  return n;
}
