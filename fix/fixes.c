/* The fixer's public side: creating and destroying it, the source files it
 * reads, the strings it owns, and the views of its fixes (per finding, the
 * list, one merged patch, a printout). Deciding the fixes is in
 * fixes_plan.c and fixes_rules.c. Design note: docs/fixes.md. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "directives_internal.h" /* the index's plain parses */
#include "fixes_internal.h"
#include "libclang_dl.h"

const char *omplens_fix_strerror(int err) {
  switch (err) {
  case OMPLENS_FIX_OK:
    return "success";
  case OMPLENS_FIX_EINVAL:
    return "invalid argument (no fixer, trace or analysis, or a finding of another analysis)";
  case OMPLENS_FIX_ENOMEM:
    return "out of memory";
  case OMPLENS_FIX_ENOTFOUND:
    return "no fix covers it";
  default:
    return "unknown fix error";
  }
}

const char *omplens_fix_kind_name(int kind) {
  static const char *const names[] = {"manual",         "keep-resident", "keep-resident-caller",
                                      "drop-copy-back", "remove-item",   "remove-directive",
                                      "guard",          "hoist-alloc",   "map-alloc",
                                      "zero-on-device", "add-exit-data", "init-on-device",
                                      "fill-on-device", "firstprivate"};
  return kind >= 0 && (size_t)kind < sizeof names / sizeof *names ? names[kind] : "unknown";
}

const char *omplens_fix_confidence_name(int confidence) {
  switch (confidence) {
  case OMPLENS_FIXC_CHECKED:
    return "checked";
  case OMPLENS_FIXC_ASSUMED:
    return "assumed";
  default:
    return "manual";
  }
}

/* ---- owned strings ---- */

const char *omplens_fix__own(omplens_fixer *fx, char *s) {
  if (!s)
    return NULL;
  if (!omplens_fix__room(&fx->owned, fx->num_owned, &fx->cap_owned, sizeof *fx->owned, 64)) {
    free(s);
    return NULL;
  }
  fx->owned[fx->num_owned++] = s;
  return s;
}

static size_t text_slot(const omplens_fixer *fx, const char *s, uint64_t h) {
  size_t i = (size_t)h & (fx->cap_texts - 1);
  while (fx->texts[i] && strcmp(fx->texts[i], s))
    i = (i + 1) & (fx->cap_texts - 1);
  return i;
}

static uint64_t text_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3u;
  return h;
}

static bool texts_grow(omplens_fixer *fx) {
  size_t cap = fx->cap_texts ? 2 * fx->cap_texts : 256;
  const char **old = fx->texts;
  size_t old_cap = fx->cap_texts;
  fx->texts = calloc(cap, sizeof *fx->texts);
  if (!fx->texts) {
    fx->texts = old;
    return false;
  }
  fx->cap_texts = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i])
      fx->texts[text_slot(fx, old[i], text_hash(old[i]))] = old[i];
  free(old);
  return true;
}

/* Owns text s like omplens_fix__own, but a text already owned is returned
 * instead (s is freed): equal texts share one copy. */
static const char *own_text(omplens_fixer *fx, char *s) {
  if (!s)
    return NULL;
  if ((fx->num_texts + 1) * 2 > fx->cap_texts && !texts_grow(fx))
    return omplens_fix__own(fx, s);
  uint64_t h = text_hash(s);
  size_t i = text_slot(fx, s, h);
  if (fx->texts[i]) {
    free(s);
    return fx->texts[i];
  }
  char *fit = realloc(s, strlen(s) + 1); /* text buffers grow by doubling */
  const char *owned = omplens_fix__own(fx, fit ? fit : s);
  if (owned) {
    fx->texts[i] = owned;
    fx->num_texts++;
  }
  return owned;
}

/* Formatted texts are kept once each: a reason repeats for every finding
 * of its directive (8,859 copies of "the directive has no source line
 * ..." at 1M events, 0.8 MB; 5.9 MB in the stress mix). */
const char *omplens_fix__ownf(omplens_fixer *fx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  return n < 0 ? NULL : own_text(fx, s);
}

/* ---- lifetime ---- */

static int copy_options(omplens_fixer *fx, const omplens_fix_options *opt) {
  char cwd[4096];
  const char *base = opt && opt->base_dir ? opt->base_dir : getcwd(cwd, sizeof cwd);
  fx->base_fixed = opt && opt->base_dir; /* else the sources' root, once planned */
  fx->base_dir = strdup(base ? base : ".");
  if (!fx->base_dir)
    return OMPLENS_FIX_ENOMEM;
  if (opt && opt->no_diff && !(fx->no_diff = strdup(opt->no_diff)))
    return OMPLENS_FIX_ENOMEM;
  size_t n = opt ? opt->num_extra_args : 0;
  fx->args = calloc(n + 1, sizeof *fx->args);
  if (!fx->args)
    return OMPLENS_FIX_ENOMEM;
  for (size_t i = 0; i < n; i++)
    if (!(fx->args[fx->num_args++] = strdup(opt->extra_args[i])))
      return OMPLENS_FIX_ENOMEM;
  if (opt && opt->index) {
    fx->index = opt->index;
  } else {
    fx->own_index = true;
    /* A failed index is NULL, which the finder accepts: then every fix is
     * manual, with the reason. */
    omplens_directive_index_create(opt ? opt->directive_options : NULL, &fx->index);
  }
  /* The index's plain parses are the fixer's when made with the same
   * arguments: a unit is parsed once for both. */
  if (!fx->num_args)
    omplens_fix_share_parses(fx->index);
  return 0;
}

void omplens_fix_share_parses(omplens_directive_index *index) {
  omplens_directives__on_plain_unit(index, omplens_fix__unit_parsed);
}

int omplens_fixer_create(const omplens_trace *t, const omplens_analysis *a,
                         omplens_annotator *annot, const omplens_fix_options *opt,
                         omplens_fixer **out) {
  *out = NULL;
  if (!t || !a)
    return OMPLENS_FIX_EINVAL;
  omplens_fixer *fx = calloc(1, sizeof *fx);
  if (!fx)
    return OMPLENS_FIX_ENOMEM;
  fx->trace = t;
  fx->analysis = a;
  fx->annot = annot;
  fx->events = omplens_trace_events(t, &fx->num_events);
  fx->regions = omplens_trace_regions(t, &fx->num_regions);
  fx->findings = omplens_analysis_findings(a, &fx->num_findings);
  const omplens_program_total *tot = omplens_analysis_total(a);
  fx->run_ns = tot ? tot->run_ns : 0;
  int rc = copy_options(fx, opt);
  if (rc) {
    omplens_fixer_destroy(fx);
    return rc;
  }
  *out = fx;
  return 0;
}

static void file_free(omplens_fix__file *f) {
  if (!f)
    return;
  free(f->bodies);
  omplens_fix__units_free(f);
  free(f->path);
  omplens_fix__source_free(&f->src);
  f->scanned.kept = false;
  omplens_fix__pragma_free(&f->scanned);
  if (!f->ast_rc)
    omplens_fix__ast_free(&f->ast);
  free(f->calls);
  free(f);
}

void omplens_fix__kept_free(omplens_fix__group *g) {
  for (size_t i = 0; i < g->num_kept; i++) {
    free(g->kept[i].text);
    free(g->kept[i].declaration);
    free(g->kept[i].span.lo_text);
    free(g->kept[i].span.end_text);
  }
  free(g->kept);
  g->kept = NULL;
  g->num_kept = 0;
}

static void group_free(omplens_fix__group *g) {
  omplens_fix__kept_free(g);
  free(g->findings);
  free(g->site_of);
  free(g->sites);
  free(g->more_items);
  free(g->left);
  omplens_fix__group_items_free(g);
  omplens_fix__buf_free(&g->reason);
  omplens_fix__buf_free(&g->recipe);
  omplens_fix__buf_free(&g->summary);
  omplens_fix__buf_free(&g->note);
  omplens_fix__buf_free(&g->account);
  omplens_fix__edits_free(&g->edits);
  free(g->clause_changes);
}

void omplens_fix__whatif_free(omplens_fixer *fx);

void omplens_fixer_destroy(omplens_fixer *fx) {
  if (!fx)
    return;
  for (size_t i = 0; i < fx->num_files; i++)
    file_free(fx->files[i]);
  free(fx->files);
  omplens_names_free(&fx->file_index);
  free(fx->codes);
  free(fx->code_slots);
  free(fx->group_slots);
  omplens_fix__deletes_free(fx);
  omplens_fix__ops_free(fx);
  for (size_t i = 0; i < fx->num_groups; i++)
    group_free(&fx->groups[i]);
  free(fx->groups);
  free(fx->sourceless);
  free(fx->fixes);
  free(fx->entries);
  free(fx->fix_of_finding);
  free(fx->place_of_finding);
  free(fx->patch[0]);
  free(fx->patch[1]);
  free(fx->skipped);
  omplens_fix__whatif_free(fx);
  for (size_t i = 0; i < fx->num_owned; i++)
    free(fx->owned[i]);
  free(fx->owned);
  free(fx->texts);
  for (size_t i = 0; i < fx->num_args; i++)
    free(fx->args[i]);
  free(fx->args);
  free(fx->no_diff);
  free(fx->base_dir);
  if (fx->own_index)
    omplens_directive_index_destroy(fx->index);
  free(fx);
}

/* ---- files ---- */

omplens_fix__file *omplens_fix__file_get(omplens_fixer *fx, const char *path, const char *module) {
  size_t known = omplens_names_get(&fx->file_index, path);
  if (known != OMPLENS_NAMES_NONE)
    return fx->files[known];
  if (fx->num_files == fx->cap_files) {
    size_t cap = fx->cap_files ? 2 * fx->cap_files : 8;
    omplens_fix__file **p = realloc(fx->files, cap * sizeof *p);
    if (!p)
      return NULL;
    fx->files = p;
    fx->cap_files = cap;
  }
  omplens_fix__file *f = calloc(1, sizeof *f);
  if (!f || !(f->path = strdup(path))) {
    free(f);
    return NULL;
  }
  if (omplens_names_put(&fx->file_index, f->path, fx->num_files)) {
    free(f->path);
    free(f);
    return NULL;
  }
  f->ast_rc = 1;
  f->src_rc = omplens_fix__source_load(path, &f->src);
  /* A source newer than the binary may not be what was run. */
  struct stat ss, sb;
  f->newer_than_binary =
      module && !stat(path, &ss) && !stat(module, &sb) &&
      (ss.st_mtim.tv_sec > sb.st_mtim.tv_sec ||
       (ss.st_mtim.tv_sec == sb.st_mtim.tv_sec && ss.st_mtim.tv_nsec > sb.st_mtim.tv_nsec));
  fx->files[fx->num_files++] = f;
  return f;
}

const char *const *omplens_fix__file_args(omplens_fixer *fx, omplens_fix__file *f, size_t *n) {
  return omplens_fix__unit_args(fx, f, 0, n);
}

bool omplens_fix__file_ast(omplens_fixer *fx, omplens_fix__file *f, const char **why) {
  if (f->ast_rc == 1) {
    size_t n;
    const char *const *args = omplens_fix__file_args(fx, f, &n);
    const char *unit = f->num_units ? f->units[0].path : NULL;
    f->ast_rc = omplens_fix__ast_parse_in(f->path, unit, args, n, &f->ast);
  }
  if (f->ast_rc) { /* no libclang is loaded here after a crash: it would crash too */
    *why = f->ast_rc == OMPLENS_FIX__ECRASHED ? "libclang crashed parsing the file"
           : omplens_libclang_load()          ? "libclang could not parse the file"
                                              : omplens_libclang_strerror();
    return false;
  }
  if (f->ast.errors && f->header && f->num_units && strcmp(f->units[0].path, f->path)) {
    *why = omplens_fix__ownf(fx, "libclang could not parse %s fully through %s (%s)",
                             omplens_fix__short_name(f->path),
                             omplens_fix__short_name(f->units[0].path),
                             f->ast.first_error ? f->ast.first_error : "errors");
    return false;
  }
  if (f->ast.errors) {
    *why = omplens_fix__ownf(fx, "libclang could not parse the file fully (%s)",
                             f->ast.first_error ? f->ast.first_error : "errors");
    return false;
  }
  return true;
}

void omplens_fix__file_dirs(omplens_fixer *fx, omplens_fix__file *f) {
  if (f->dirs_done)
    return;
  f->dirs_done = true;
  if (omplens_directive_list(fx->index, f->path, &f->dirs, &f->num_dirs)) {
    f->dirs = NULL;
    f->num_dirs = 0;
  }
}

/* ---- views ---- */

static int derived(omplens_fixer *fx) {
  if (!fx)
    return OMPLENS_FIX_EINVAL;
  if (!fx->derived) {
    fx->derived = true;
    fx->derive_rc = omplens_fix__derive(fx);
  }
  return fx->derive_rc;
}

int omplens_fix_for_finding(omplens_fixer *fx, size_t finding, const omplens_fix **out) {
  *out = NULL;
  int rc = derived(fx);
  if (rc)
    return rc;
  if (finding >= fx->num_findings)
    return OMPLENS_FIX_EINVAL;
  if (fx->fix_of_finding[finding] == SIZE_MAX)
    return OMPLENS_FIX_ENOTFOUND;
  *out = &fx->fixes[fx->fix_of_finding[finding]];
  return 0;
}

int omplens_fix_for_leftover(omplens_fixer *fx, size_t leftover, const omplens_fix **out) {
  *out = NULL;
  int rc = derived(fx);
  if (rc)
    return rc;
  size_t g = fx->first_leftover + leftover;
  if (g < fx->first_leftover || g >= fx->num_groups || fx->groups[g].leftover != leftover)
    return OMPLENS_FIX_ENOTFOUND;
  *out = &fx->fixes[g];
  return 0;
}

unsigned omplens_fix_call_loop(omplens_fixer *fx, size_t finding) {
  if (derived(fx) || finding >= fx->num_findings)
    return 0;
  return omplens_fix__call_loop(fx, finding);
}

const char *omplens_fix_account(omplens_fixer *fx, size_t finding) {
  if (derived(fx) || finding >= fx->num_findings || fx->fix_of_finding[finding] == SIZE_MAX)
    return NULL;
  const omplens_fix__group *g = &fx->groups[fx->fix_of_finding[finding]];
  return g->account.len && (g->account_all || omplens_fix__claims_held(fx, &fx->findings[finding]))
             ? g->account.data
             : NULL;
}

const char *omplens_fix_storage(omplens_fixer *fx, size_t finding, const char **where) {
  *where = NULL;
  if (derived(fx) || finding >= fx->num_findings)
    return NULL;
  return omplens_fix__storage(fx, finding, where);
}

int omplens_fix_suggest(omplens_fixer *fx, const omplens_finding *f, omplens_fix *out) {
  memset(out, 0, sizeof *out);
  if (!fx || !f || f < fx->findings || f >= fx->findings + fx->num_findings)
    return OMPLENS_FIX_EINVAL;
  const omplens_fix *fix;
  int rc = omplens_fix_for_finding(fx, (size_t)(f - fx->findings), &fix);
  if (!rc)
    *out = *fix;
  return rc;
}

/* Whether site s is of variable name. */
static bool names(const omplens_fix__site *s, const char *name) {
  return s->var && !strcmp(s->var, name);
}

/* Whether unreferenced group g removes directive d's item of variable
 * name: its own, one of its findings', or one it took in. */
static bool removes_item(const omplens_fix__group *g, const omplens_directive *d, const char *name) {
  if (g->site.dir != d || g->leftover != SIZE_MAX)
    return false;
  bool found = names(&g->site, name);
  for (size_t k = 0; !found && k < g->num_sites; k++)
    found = names(&g->sites[k], name);
  for (size_t k = 0; !found && k < g->num_more_items; k++)
    found = names(&g->more_items[k], name);
  return found;
}

int omplens_fix_for_unreferenced(omplens_fixer *fx, uint64_t codeptr, const char *name,
                                 const omplens_fix **out) {
  *out = NULL;
  int rc = derived(fx);
  if (rc)
    return rc;
  if (!name)
    return OMPLENS_FIX_EINVAL;
  omplens_fix__file *file;
  const omplens_directive *d =
      omplens_fix__directive_of(fx, codeptr, OMPLENS_RUNTIME_TARGET, &file);
  /* Its own fix first (which may remove other items of the construct
   * too), else that of a finding on the same item. */
  for (size_t i = 0; d && i < fx->num_groups; i++)
    if (fx->groups[i].unreferenced && removes_item(&fx->groups[i], d, name)) {
      *out = &fx->fixes[i];
      return 0;
    }
  for (size_t i = 0; d && i < fx->num_groups; i++) {
    const omplens_fix__group *g = &fx->groups[i];
    if (g->leftover == SIZE_MAX && !g->taken && g->site.dir == d && names(&g->site, name)) {
      *out = &fx->fixes[i];
      return 0;
    }
  }
  return OMPLENS_FIX_ENOTFOUND;
}

int omplens_fix_list(omplens_fixer *fx, const omplens_fix **fixes, size_t *count) {
  *fixes = NULL;
  *count = 0;
  int rc = derived(fx);
  if (rc)
    return rc;
  *fixes = fx->fixes;
  *count = fx->num_groups;
  return 0;
}

/* ---- the sources' root ---- */

bool omplens_fix__has_diff(const omplens_fix__group *g) {
  return g->kind != OMPLENS_FIX_MANUAL && g->edits.n && !g->edits.failed;
}

/* Cuts dir (absolute) to its longest common directory with path's. */
static void common_dir(char *dir, const char *path) {
  size_t n = 0, last = 0;
  while (dir[n] && dir[n] == path[n]) {
    if (dir[n] == '/')
      last = n;
    n++;
  }
  if (!dir[n] && (path[n] == '/' || !path[n]))
    return; /* dir holds path */
  dir[last ? last : 1] = 0;
}

/* The directory every file the fixes edit is under (every file the fixer
 * read when no fix has a diff): diffs name files from there, wherever
 * omplens runs. (Not the git work tree above it: a program built under
 * another project's tree, in its ignored build directory, would get paths
 * through that tree.) */
void omplens_fix__find_sources_root(omplens_fixer *fx) {
  if (fx->base_fixed)
    return;
  char *root = NULL;
  for (int any = 0; any < 2 && !root; any++)
    for (size_t i = 0; i < fx->num_groups; i++) {
      const omplens_fix__group *g = &fx->groups[i];
      const omplens_fix__file *f = g->edit_file ? g->edit_file : g->site.file;
      if (!f || f->path[0] != '/' || (!any && !omplens_fix__has_diff(g)))
        continue;
      if (!root) {
        root = strdup(f->path);
        char *slash = root ? strrchr(root, '/') : NULL;
        if (slash)
          *(slash == root ? slash + 1 : slash) = 0;
      } else {
        common_dir(root, f->path);
      }
    }
  if (!root)
    return;
  if (!*root)
    strcpy(root, "/");
  free(fx->base_dir);
  fx->base_dir = root;
}

/* The display name of a file: relative to base_dir when under it. */
static const char *display_name(const omplens_fixer *fx, const char *path, int relative) {
  size_t n = strlen(fx->base_dir);
  while (n > 1 && fx->base_dir[n - 1] == '/')
    n--;
  if (relative && !strncmp(path, fx->base_dir, n) && path[n] == '/')
    return path + n + 1;
  return path;
}

/* Merges the edits of every fix with a diff, per file, in list order. */
/* Adds g's edits to all unless they overlap what all holds (all is then
 * unchanged); true when added. */
static bool add_if_apart(omplens_fix__edits *all, const omplens_fix__group *g) {
  omplens_fix__edits trial;
  if (!omplens_fix__edits_merged(all, &g->edits, &trial))
    return false;
  omplens_fix__edits_free(all);
  *all = trial;
  return true;
}

/* The fix whose wrap took in group g's items (omplens_fix__group.joined,
 * followed to the last), when it has a diff; else SIZE_MAX. */
static size_t taken_in_by(const omplens_fixer *fx, size_t g) {
  size_t last = SIZE_MAX;
  for (size_t j = fx->groups[g].joined; j != SIZE_MAX && j < fx->num_groups; j = fx->groups[j].joined)
    last = j;
  return last != SIZE_MAX && fx->fixes[last].diff ? last : SIZE_MAX;
}

/* First pass of a patch: whether group g waits, because a later fix's
 * edits hold its change. Second pass (again): whether it is still held,
 * that fix being in the patch. */
static bool held(const omplens_fixer *fx, size_t g, bool again) {
  size_t by = taken_in_by(fx, g);
  return by != SIZE_MAX && (!again || !fx->groups[by].left_out);
}

static void skip(omplens_fixer *fx, size_t g, omplens_fix__file *file, omplens_fix__buf *skipped) {
  fx->groups[g].left_out = true;
  omplens_fix__buf_printf(skipped, "%s%s:%u (%s of %s)", skipped->len ? ", " : "",
                          display_name(fx, file->path, 1), fx->fixes[g].line,
                          omplens_fix_kind_name(fx->fixes[g].kind),
                          omplens_fix__item_text(&fx->groups[g].site));
}

/* Every fix with a diff on file whose edits keep apart from the earlier
 * ones', in all, checked with one parse; false (all emptied, nothing left
 * out) when that merged file does not compile. The common case. */
static bool all_fit(omplens_fixer *fx, omplens_fix__file *file, omplens_fix__edits *all,
                    omplens_fix__buf *skipped) {
  omplens_fix__buf apart = {0};
  for (int again = 0; again < 2; again++)
    for (size_t g = 0; g < fx->num_groups; g++)
      if (fx->fixes[g].diff && fx->groups[g].edit_file == file && held(fx, g, false) == again &&
          !held(fx, g, true) && !add_if_apart(all, &fx->groups[g]))
        skip(fx, g, file, &apart);
  const char *why;
  if (all->n && omplens_fix__edits_ok(fx, file, all, &why)) {
    if (apart.len)
      omplens_fix__buf_printf(skipped, "%s%s", skipped->len ? ", " : "", apart.data);
    omplens_fix__buf_free(&apart);
    return true;
  }
  omplens_fix__buf_free(&apart);
  for (size_t g = 0; g < fx->num_groups; g++)
    if (fx->groups[g].edit_file == file)
      fx->groups[g].left_out = false;
  omplens_fix__edits_free(all);
  *all = (omplens_fix__edits){0};
  return false;
}

/* Else fix by fix, in list order: a fix whose edits overlap the earlier
 * ones' or break the merged file is left out and named in skipped. */
static void one_by_one(omplens_fixer *fx, omplens_fix__file *file, omplens_fix__edits *all,
                       omplens_fix__buf *skipped) {
  for (size_t n = 0; n < 2 * fx->num_groups; n++) {
    size_t g = n % fx->num_groups;
    bool again = n >= fx->num_groups;
    const omplens_fix__group *gr = &fx->groups[g];
    if (!fx->fixes[g].diff || gr->edit_file != file || held(fx, g, false) != again ||
        held(fx, g, true))
      continue;
    omplens_fix__edits trial;
    const char *why;
    if (omplens_fix__edits_merged(all, &gr->edits, &trial) &&
        omplens_fix__edits_ok(fx, file, &trial, &why)) {
      omplens_fix__edits_free(all);
      *all = trial;
    } else {
      omplens_fix__edits_free(&trial);
      skip(fx, g, file, skipped);
    }
  }
}

/* Both patches (absolute and relative paths) at once: which fixes go in
 * does not depend on how the paths are written. */
static int build_patch(omplens_fixer *fx) {
  omplens_fix__buf out[2] = {{0}, {0}}, skipped = {0};
  omplens_fix__buf_str(&out[0], "");
  omplens_fix__buf_str(&out[1], "");
  for (size_t fi = 0; fi < fx->num_files; fi++) {
    omplens_fix__file *file = fx->files[fi];
    omplens_fix__edits all = {0};
    if (!all_fit(fx, file, &all, &skipped))
      one_by_one(fx, file, &all, &skipped);
    for (int relative = 0; relative < 2; relative++)
      omplens_fix__diff(&file->src, &all, display_name(fx, file->path, relative), &out[relative]);
    omplens_fix__edits_free(&all);
  }
  for (int relative = 0; relative < 2; relative++) {
    free(fx->patch[relative]);
    fx->patch[relative] = omplens_fix__buf_take(&out[relative]);
  }
  free(fx->skipped);
  fx->skipped = omplens_fix__buf_take(&skipped);
  if (fx->skipped && !*fx->skipped) {
    free(fx->skipped);
    fx->skipped = NULL;
  }
  return fx->patch[0] && fx->patch[1] ? 0 : OMPLENS_FIX_ENOMEM;
}

int omplens_fix_base_dir(omplens_fixer *fx, const char **dir, int *all_under) {
  *dir = NULL;
  int rc = derived(fx);
  if (rc)
    return rc;
  *dir = fx->base_dir;
  if (all_under) {
    *all_under = 1;
    for (size_t i = 0; i < fx->num_groups; i++)
      if (fx->fixes[i].diff && display_name(fx, fx->groups[i].edit_file->path, 1)[0] == '/')
        *all_under = 0;
  }
  return 0;
}

int omplens_fix_patch(omplens_fixer *fx, int relative, const char **patch, const char **skipped) {
  *patch = NULL;
  if (skipped)
    *skipped = NULL;
  int rc = derived(fx);
  if (rc)
    return rc;
  relative = relative != 0;
  if (!fx->patch[relative] && (rc = build_patch(fx)))
    return rc;
  *patch = fx->patch[relative];
  if (skipped)
    *skipped = fx->skipped;
  return 0;
}

/* The events removed at once by a set of fixes: a bit per event, so that
 * the union of a loop's fixes (a million events, many of them named twice)
 * needs neither a list of every mention nor its sort. */
typedef struct event_set {
  uint64_t *bits;
  size_t limit; /* events */
} event_set;

static void set_add(event_set *s, uint32_t ev) {
  if (ev < s->limit)
    s->bits[ev >> 6] |= 1ull << (ev & 63);
}

/* Predicts removing the set's events at once; frees the set. */
static int predict_set(omplens_fixer *fx, event_set *s, uint64_t *savings_ns, double *speedup,
                       size_t *num_removed) {
  size_t n = 0, words = s->limit / 64 + 1;
  for (size_t w = 0; w < words; w++)
    n += (size_t)__builtin_popcountll(s->bits[w]);
  uint32_t *ids = malloc((n + 1) * sizeof *ids);
  if (!ids) {
    free(s->bits);
    return OMPLENS_FIX_ENOMEM;
  }
  size_t k = 0;
  for (size_t w = 0; w < words; w++)
    for (uint64_t b = s->bits[w]; b; b &= b - 1)
      ids[k++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
  free(s->bits);
  omplens_fix joint = {0};
  joint.removed = ids;
  joint.num_removed = n;
  omplens_fix__predict(fx, &joint);
  free(ids);
  if (savings_ns)
    *savings_ns = joint.predicted_savings_ns;
  if (speedup)
    *speedup = joint.predicted_speedup;
  if (num_removed)
    *num_removed = n;
  return 0;
}

/* Adds to s the removed events of every fix with a diff that the patch
 * keeps; returns how many. */
static size_t add_patch_ops(const omplens_fixer *fx, event_set *s) {
  size_t n = 0;
  for (size_t i = 0; i < fx->num_groups; i++)
    if (fx->fixes[i].diff && !fx->groups[i].left_out)
      for (size_t k = 0; k < fx->fixes[i].num_removed; k++, n++)
        set_add(s, fx->fixes[i].removed[k]);
  return n;
}

static int new_set(const omplens_fixer *fx, event_set *s) {
  s->limit = fx->num_events;
  s->bits = calloc(s->limit / 64 + 1, sizeof *s->bits);
  return s->bits ? 0 : OMPLENS_FIX_ENOMEM;
}

int omplens_fix_predict_all(omplens_fixer *fx, uint64_t *savings_ns, double *speedup,
                            size_t *num_removed) {
  const char *patch;
  int rc = omplens_fix_patch(fx, 0, &patch, NULL); /* decides which fixes go in */
  event_set s;
  if (rc || (rc = new_set(fx, &s)))
    return rc;
  add_patch_ops(fx, &s);
  return predict_set(fx, &s, savings_ns, speedup, num_removed);
}

/* An operation and, for an allocation, its delete. */
static void add_op(const omplens_fixer *fx, event_set *s, uint32_t ev, size_t *alloc_at) {
  if (ev >= fx->num_events)
    return;
  set_add(s, ev);
  uint32_t del = omplens_fix__delete_of(fx, ev, alloc_at);
  if (del != OMPLENS_FIX__NONE)
    set_add(s, del);
}

int omplens_fix_predict_every(omplens_fixer *fx, const uint32_t *extra, size_t num_extra,
                              uint64_t *savings_ns, double *speedup, size_t *num_removed) {
  const char *patch;
  int rc = omplens_fix_patch(fx, 0, &patch, NULL);
  event_set s;
  if (rc || (rc = new_set(fx, &s)))
    return rc;
  if (!add_patch_ops(fx, &s) && !fx->whatif) {
    free(s.bits);
    return OMPLENS_FIX_ENOTFOUND; /* the findings' plain sum is the answer */
  }
  if (!fx->deletes_built)
    omplens_fix__deletes(fx);
  size_t at = 0;
  for (size_t i = 0; i < fx->num_findings; i++)
    for (size_t j = 0; j < fx->findings[i].num_instances; j++)
      add_op(fx, &s, fx->findings[i].instances[j].event, &at);
  for (size_t i = 0; i < num_extra; i++)
    add_op(fx, &s, extra[i], &at);
  return predict_set(fx, &s, savings_ns, speedup, num_removed);
}

static void print_fix(const omplens_fixer *fx, const omplens_fix *f, size_t n, FILE *out,
                      int relative) {
  fprintf(out, "fix %zu: %s [%s, %s]\n", n + 1, f->summary ? f->summary : "(no summary)",
          omplens_fix_kind_name(f->kind), omplens_fix_confidence_name(f->confidence));
  if (f->file)
    fprintf(out, "  at %s:%u\n", display_name(fx, f->file, relative), f->line);
  fprintf(out, "  findings:");
  for (size_t i = 0; i < f->num_findings; i++) {
    const omplens_finding *fd = &fx->findings[f->findings[i]];
    fprintf(out, " #%zu %s x%zu", f->findings[i], omplens_category_name(fd->category),
            fd->num_instances);
  }
  for (size_t i = 0; i < f->num_leftovers; i++)
    fprintf(out, " leftover #%zu", f->leftovers[i]);
  fprintf(out, "\n  removes %zu operations: predicted savings %" PRIu64 " ns, speedup %.3f\n",
          f->num_removed, f->predicted_savings_ns, f->predicted_speedup);
  if (f->manual)
    fprintf(out, "  %s:\n    %s\n", f->diff ? "note" : "manual", f->manual);
  if (f->diff)
    fputs(relative ? f->diff_relative : f->diff, out);
  fputc('\n', out);
}

int omplens_fix_print(omplens_fixer *fx, FILE *out, int relative) {
  int rc = derived(fx);
  if (rc)
    return rc;
  for (size_t i = 0; i < fx->num_groups; i++)
    if (!fx->groups[i].taken) /* another fix removes its item */
      print_fix(fx, &fx->fixes[i], i, out, relative);
  return ferror(out) ? OMPLENS_FIX_EINVAL : 0;
}

/* ---- the fix records of the groups ---- */

static char *group_diff(omplens_fixer *fx, const omplens_fix__group *g, int relative) {
  omplens_fix__buf b = {0};
  omplens_fix__buf_str(&b, "");
  omplens_fix__diff(&g->edit_file->src, &g->edits, display_name(fx, g->edit_file->path, relative),
                    &b);
  return omplens_fix__buf_take(&b);
}

/* Fills fx->fixes[i] from group i (edits already sorted). */
int omplens_fix__publish(omplens_fixer *fx, size_t i) {
  omplens_fix__group *g = &fx->groups[i];
  omplens_fix *f = &fx->fixes[i];
  memset(f, 0, sizeof *f);
  bool has_diff = omplens_fix__has_diff(g);
  if (has_diff && fx->no_diff) { /* the summary still tells the change */
    omplens_fix__buf_free(&g->reason);
    omplens_fix__buf_free(&g->recipe);
    omplens_fix__buf_str(&g->reason, fx->no_diff);
    omplens_fix__edits_free(&g->edits);
    has_diff = false;
  }
  f->kind = has_diff ? g->kind : OMPLENS_FIX_MANUAL;
  f->confidence = has_diff ? g->confidence : OMPLENS_FIXC_MANUAL;
  f->summary = own_text(fx, omplens_fix__buf_take(&g->summary));
  if (has_diff) {
    f->diff = own_text(fx, group_diff(fx, g, 0));
    f->diff_relative = own_text(fx, group_diff(fx, g, 1));
    omplens_fix__header_note(fx, g->edit_file, &g->note);
    if (g->note.len)
      f->manual = own_text(fx, omplens_fix__buf_take(&g->note));
  } else {
    omplens_fix__buf m = {0};
    omplens_fix__buf_printf(&m, "No diff: %s.", g->reason.len ? g->reason.data : "no rule applies");
    if (g->recipe.len)
      omplens_fix__buf_printf(&m, " Recipe: %s", g->recipe.data);
    f->manual = own_text(fx, omplens_fix__buf_take(&m));
  }
  omplens_fix__buf_free(&g->reason); /* read only here */
  omplens_fix__buf_free(&g->recipe);
  if (g->edit_file && g->edit_file != g->site.file && g->loop != OMPLENS_FIX__NONE) {
    f->file = g->edit_file->path; /* the caller's loop, through the call path */
    f->line = omplens_fix__line_of(&g->edit_file->src, g->edit_file->ast.nodes[g->loop].begin);
  } else if (g->site.file) {
    f->file = g->site.file->path;
    f->line = g->site.dir ? g->site.dir->pragma.line : 0;
  }
  f->findings = g->findings;
  f->num_findings = g->num_findings;
  f->unreferenced = g->unreferenced ? g->site.var : NULL;
  if (g->leftover != SIZE_MAX) {
    size_t *lo = malloc(sizeof *lo);
    if (lo) {
      *lo = g->leftover;
      omplens_fix__own(fx, (char *)lo);
      f->leftovers = lo;
      f->num_leftovers = 1;
    }
  }
  uint32_t *removed = NULL;
  size_t n = 0;
  if (has_diff && !omplens_fix__removed(fx, g, &removed, &n)) {
    f->removed = removed;
    f->num_removed = n;
    omplens_fix__own(fx, (char *)removed);
  }
  omplens_fix__predict(fx, f);
  return f->summary ? 0 : OMPLENS_FIX_ENOMEM;
}
