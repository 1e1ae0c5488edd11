/* The translation units a file is parsed through, and which headers are the
 * program's own. A source is its own unit. A header is parsed through the
 * sources of the compile database that include it (the directive index's
 * includer lookup), else the DWARF compile unit that holds its code, with
 * their flags, never alone when one is known: alone
 * it lacks what its includers declare before it. A directive in a header
 * may be changed when the program owns the header: not under /usr, and
 * inside the program's source tree, the deepest directory holding both the
 * compile database and the units that include the header. The change then
 * reaches every unit that includes it; it must compile in each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "directives_internal.h" /* the index's includers and parse arguments */
#include "fixes_internal.h"

#define MAX_PARENTS 16 /* as far up as the index looks for compile_commands.json */
#define MAX_INCLUDERS 4 /* what omplens_directives__compdb_includers hands back */

bool omplens_fix__is_header(const char *path) {
  const char *dot = strrchr(path, '.');
  const char *const ext[] = {".h", ".hh", ".hpp", ".hxx", ".inc", ".inl", NULL};
  for (size_t i = 0; dot && ext[i]; i++)
    if (!strcmp(dot, ext[i]))
      return true;
  return false;
}

static bool add_unit(omplens_fix__file *f, char *path) {
  omplens_fix__unit *u = realloc(f->units, (f->num_units + 1) * sizeof *u);
  if (!u || !path) {
    free(path);
    if (u)
      f->units = u;
    return false;
  }
  f->units = u;
  f->units[f->num_units++] = (omplens_fix__unit){path, NULL, 0, false, -2};
  return true;
}

/* The sources of the compile database that include header f. */
static void add_includers(omplens_fixer *fx, omplens_fix__file *f) {
  char *real = realpath(f->path, NULL);
  omplens_directives__vec found = {0};
  if (omplens_directives__compdb_includers(fx->index, real ? real : f->path, &found))
    found.len = 0; /* out of memory: the header alone */
  char **paths = found.data;
  size_t i = 0;
  while (i < found.len && add_unit(f, paths[i])) /* a failed add frees its path */
    i++;
  for (i++; i < found.len; i++)
    free(paths[i]);
  f->includers_capped = found.len >= MAX_INCLUDERS;
  omplens_directives__vec_free(&found);
  free(real);
}

/* A file the build only includes (a header, or a .c file that another
 * #includes), as the directive index decides it from the build's records
 * (not from dwarf_unit, which a caller's file may borrow from its callee). */
static bool included(omplens_fixer *fx, const omplens_fix__file *f) {
  char *real = realpath(f->path, NULL);
  bool unit = omplens_directives__is_unit(fx->index, real ? real : f->path, NULL, NULL);
  free(real);
  return !unit;
}

size_t omplens_fix__file_units(omplens_fixer *fx, omplens_fix__file *f) {
  if (!f->units_done) {
    f->units_done = true;
    f->header = fx->index ? included(fx, f) : omplens_fix__is_header(f->path);
    if (f->header && fx->index)
      add_includers(fx, f);
    if (f->header && !f->num_units && f->dwarf_unit && strcmp(f->dwarf_unit, f->path)) {
      add_unit(f, strdup(f->dwarf_unit)); /* no compile database: the unit DWARF names, */
      f->includers_capped = true;         /* one of those that include it */
    }
    if (!f->num_units)
      add_unit(f, strdup(f->path));
  }
  return f->num_units;
}

void omplens_fix__units_free(omplens_fix__file *f) {
  for (size_t u = 0; u < f->num_units; u++) {
    for (size_t i = 0; i < f->units[u].num_args; i++)
      free(f->units[u].args[i]);
    free(f->units[u].args);
    free(f->units[u].path);
  }
  free(f->units);
  f->units = NULL;
  f->num_units = 0;
}

/* A unit is parsed as the directive index parses it (the compile
 * database's -D, -I and -std, its language), so that the fixer sees the
 * code the build compiled: the `#ifdef OMP_OFFLOAD` branch, not the other
 * one. */
static void make_args(omplens_fixer *fx, omplens_fix__unit *u) {
  omplens_directives__args ix = {0};
  if (fx->index && omplens_directives__build_args(fx->index, u->path, &ix))
    omplens_directives__args_free(&ix); /* out of memory: none of its own */
  size_t k = ix.argv.len;
  char **args = calloc(k + fx->num_args + 1, sizeof *args);
  if (!args) {
    omplens_directives__args_free(&ix);
    return;
  }
  if (k)
    memcpy(args, ix.argv.data, k * sizeof *args);
  for (size_t i = 0; i < fx->num_args; i++)
    if (!(args[k++] = strdup(fx->args[i])))
      k--;
  u->args = args;
  u->num_args = k;
  free(ix.argv.data); /* its strings are u->args' now */
}

const char *const *omplens_fix__unit_args(omplens_fixer *fx, omplens_fix__file *f, size_t u,
                                          size_t *n) {
  omplens_fix__unit *unit = u < omplens_fix__file_units(fx, f) ? &f->units[u] : NULL;
  if (unit && !unit->args_done) {
    unit->args_done = true;
    make_args(fx, unit);
  }
  *n = unit && unit->args ? unit->num_args : fx->num_args;
  return (const char *const *)(unit && unit->args ? unit->args : fx->args);
}

/* ---- the program's source tree ---- */

static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return strdup(".");
  return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

static bool file_exists(const char *dir, const char *name) {
  char path[4200];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The directory of the compile database the index uses for header: the
 * one given, else the first above the header holding compile_commands.json
 * or build/compile_commands.json (where the index finds it). */
static char *compdb_dir(omplens_fixer *fx, const char *header) {
  if (fx->index->compdb_path) {
    char *real = realpath(fx->index->compdb_path, NULL);
    char *dir = real ? dir_of(real) : NULL;
    free(real);
    return dir;
  }
  char *dir = dir_of(header);
  for (int depth = 0; dir && depth < MAX_PARENTS; depth++) {
    if (file_exists(dir, "compile_commands.json") ||
        file_exists(dir, "build/compile_commands.json"))
      return dir;
    char *parent = strcmp(dir, "/") ? dir_of(dir) : NULL;
    free(dir);
    dir = parent;
  }
  free(dir);
  return NULL;
}

/* Cuts dir (in place) to the deepest directory that holds both it and
 * other. */
static void common_dir(char *dir, const char *other) {
  size_t n = 0, cut = 0;
  for (; dir[n] && dir[n] == other[n]; n++)
    if (dir[n] == '/')
      cut = n;
  if ((!dir[n] && (other[n] == '/' || !other[n])))
    return; /* other is inside dir */
  dir[cut ? cut : 1] = 0;
}

static bool inside(const char *path, const char *dir) {
  size_t n = strlen(dir);
  return !strcmp(dir, "/") || (!strncmp(path, dir, n) && path[n] == '/');
}

/* The program's source tree for header f: the deepest directory holding
 * its compile database and the units that include it; the units' alone
 * when only / holds both (a build directory far from the sources). */
static char *source_tree(omplens_fixer *fx, omplens_fix__file *f, bool *with_compdb) {
  char *units = dir_of(f->units[0].path);
  for (size_t u = 1; units && u < f->num_units; u++)
    common_dir(units, f->units[u].path);
  char *tree = compdb_dir(fx, f->path);
  if (tree && units)
    common_dir(tree, units);
  *with_compdb = tree && strcmp(tree, "/");
  if (!*with_compdb) {
    free(tree);
    return units;
  }
  free(units);
  return tree;
}

const char *omplens_fix__header_unsafe(omplens_fixer *fx, omplens_fix__file *f) {
  if (!omplens_fix__file_units(fx, f) || !f->header)
    return f->header ? "out of memory" : NULL;
  if (f->header_why)
    return f->header_why;
  char *real = realpath(f->path, NULL);
  const char *path = real ? real : f->path;
  if (inside(path, "/usr"))
    f->header_why = "the directive is in a system header (under /usr): the change belongs to "
                    "the library that ships it";
  else if (!strcmp(f->units[0].path, f->path))
    f->header_why = "the directive is in a header that neither the compile database nor the "
                    "debug info shows included by a source: which units a change would reach "
                    "is unknown (give the build's compile_commands.json with "
                    "--compile-commands)";
  bool with_compdb = false;
  char *tree = f->header_why ? NULL : source_tree(fx, f, &with_compdb);
  if (!f->header_why && (!tree || !inside(path, tree)))
    f->header_why = omplens_fix__ownf(
        fx, "the directive is in a header outside the program's source tree (%s, which holds "
            "%s that include%s it): the program does not own it",
        tree ? tree : "unknown",
        with_compdb          ? "compile_commands.json and the units"
        : f->num_units > 1 ? "the units"
                           : "the unit",
        with_compdb || f->num_units > 1 ? "" : "s");
  free(tree);
  free(real);
  return f->header_why;
}

void omplens_fix__header_note(omplens_fixer *fx, omplens_fix__file *f, omplens_fix__buf *b) {
  if (!omplens_fix__file_units(fx, f) || !f->header || f->header_why)
    return;
  omplens_fix__buf_printf(b, "%s%s is a header of the program: the change reaches every unit "
                          "that includes it (%s",
                          b->len ? " " : "", omplens_fix__short_name(f->path),
                          f->includers_capped ? "at least " : "");
  for (size_t u = 0; u < f->num_units; u++)
    omplens_fix__buf_printf(b, "%s%s", u ? ", " : "", omplens_fix__short_name(f->units[u].path));
  omplens_fix__buf_printf(b, "), and compiles in each.");
}
