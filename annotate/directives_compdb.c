/* Compile arguments for libclang: from compile_commands.json when there is
 * one (given, or found next to the source or in a build/ directory above
 * it), else from the command DWARF recorded (directives_producer.c), else
 * defaults. Only the flags that change what the preprocessor and
 * parser see are kept (-I, -D, -std, ...): code generation, dependency and
 * offloading flags make libclang fail or plan several jobs, and a gcc-only
 * flag would stop the parse. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "directives_internal.h"

#define MAX_PARENTS 16

typedef struct compdb_entry {
  char *file;      /* absolute */
  char *directory; /* absolute */
  omplens_directives__args args;
} compdb_entry;

struct omplens_directives__compdb {
  char *path;
  compdb_entry *entries;
  size_t num_entries, cap_entries;
};

/* ---- argument vectors ---- */

bool omplens_directives__args_add(omplens_directives__args *a, const char *s)
{
  char *copy = strdup(s);
  if (copy == NULL)
    return false;
  if (omplens_directives__vec_push(&a->argv, sizeof(copy), &copy) == NULL) {
    free(copy);
    return false;
  }
  return true;
}

void omplens_directives__args_free(omplens_directives__args *a)
{
  for (size_t i = 0; i < a->argv.len; i++)
    free(OMPLENS_DIRECTIVES__AT(a->argv, char *, i));
  omplens_directives__vec_free(&a->argv);
}

static const char *arg_at(const omplens_directives__args *a, size_t i)
{
  return OMPLENS_DIRECTIVES__AT(a->argv, char *, i);
}

/* ---- paths ---- */

static bool file_exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join_path(const char *dir, const char *name)
{
  if (name[0] == '/' || dir == NULL || dir[0] == '\0')
    return strdup(name);
  size_t n = strlen(dir) + strlen(name) + 2;
  char *out = malloc(n);
  if (out != NULL)
    snprintf(out, n, "%s/%s", dir, name);
  return out;
}

/* realpath when the file exists, else the joined name. */
static char *absolute(const char *dir, const char *name)
{
  char *joined = join_path(dir, name);
  if (joined == NULL)
    return NULL;
  char *real = realpath(joined, NULL);
  if (real == NULL)
    return joined;
  free(joined);
  return real;
}

static char *dir_of(const char *path)
{
  const char *slash = strrchr(path, '/');
  if (slash == NULL)
    return strdup(".");
  return omplens_directives__strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* ---- shell words ---- */

static bool flush_word(omplens_directives__args *out, omplens_directives__vec *w,
                       bool *have)
{
  char nul = '\0';
  if (!*have)
    return true;
  bool ok = omplens_directives__vec_push(w, 1, &nul) != NULL &&
            omplens_directives__args_add(out, w->data);
  w->len = 0;
  *have = false;
  return ok;
}

int omplens_directives__split_command(const char *cmd,
                                      omplens_directives__args *out)
{
  omplens_directives__vec w = {0};
  bool have = false, ok = true;
  char quote = 0;
  for (const char *p = cmd; *p != '\0' && ok; p++) {
    char c = *p;
    if (quote == 0 && (c == ' ' || c == '\t' || c == '\n')) {
      ok = flush_word(out, &w, &have);
      continue;
    }
    have = true;
    if (quote == 0 && (c == '"' || c == '\'')) {
      quote = c;
      continue;
    }
    if (quote == c) {
      quote = 0;
      continue;
    }
    if (c == '\\' && quote != '\'' && p[1] != '\0')
      c = *++p;
    ok = omplens_directives__vec_push(&w, 1, &c) != NULL;
  }
  ok = ok && flush_word(out, &w, &have);
  omplens_directives__vec_free(&w);
  return ok ? 0 : OMPLENS_DIRECTIVES_ENOMEM;
}

/* ---- reading the database ---- */

static int entry_args(json_t *obj, compdb_entry *e)
{
  json_t *arguments = json_object_get(obj, "arguments");
  if (json_is_array(arguments)) {
    for (size_t i = 0; i < json_array_size(arguments); i++) {
      const char *s = json_string_value(json_array_get(arguments, i));
      if (s != NULL && !omplens_directives__args_add(&e->args, s))
        return OMPLENS_DIRECTIVES_ENOMEM;
    }
    return 0;
  }
  const char *command = json_string_value(json_object_get(obj, "command"));
  return command != NULL ? omplens_directives__split_command(command, &e->args)
                         : 0;
}

static int read_entry(json_t *obj, compdb_entry *e)
{
  const char *dir = json_string_value(json_object_get(obj, "directory"));
  const char *file = json_string_value(json_object_get(obj, "file"));
  if (dir == NULL || file == NULL)
    return 1; /* not an entry: skipped */
  e->directory = absolute(NULL, dir);
  e->file = absolute(dir, file);
  if (e->directory == NULL || e->file == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  return entry_args(obj, e);
}

static void free_entry(compdb_entry *e)
{
  free(e->file);
  free(e->directory);
  omplens_directives__args_free(&e->args);
}

static int read_entries(json_t *root, omplens_directives__compdb *db)
{
  size_t n = json_array_size(root);
  db->entries = calloc(n > 0 ? n : 1, sizeof(*db->entries));
  if (db->entries == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  db->cap_entries = n > 0 ? n : 1;
  for (size_t i = 0; i < n; i++) {
    compdb_entry *e = &db->entries[db->num_entries];
    int err = read_entry(json_array_get(root, i), e);
    if (err < 0) {
      free_entry(e);
      return err;
    }
    if (err == 0)
      db->num_entries++;
    else
      free_entry(e);
  }
  return 0;
}

int omplens_directives__compdb_load(const char *path,
                                    omplens_directives__compdb **out)
{
  *out = NULL;
  json_error_t jerr;
  json_t *root = json_load_file(path, 0, &jerr);
  if (root == NULL || !json_is_array(root)) {
    json_decref(root);
    return OMPLENS_DIRECTIVES_ECOMPDB;
  }
  omplens_directives__compdb *db = calloc(1, sizeof(*db));
  int err = db != NULL ? 0 : OMPLENS_DIRECTIVES_ENOMEM;
  if (err == 0 && (db->path = strdup(path)) == NULL)
    err = OMPLENS_DIRECTIVES_ENOMEM;
  if (err == 0)
    err = read_entries(root, db);
  json_decref(root);
  if (err != 0) {
    omplens_directives__compdb_free(db);
    return err;
  }
  *out = db;
  return 0;
}

int omplens_directives__compdb_new(const char *path,
                                   omplens_directives__compdb **out)
{
  *out = calloc(1, sizeof(**out));
  if (*out != NULL && ((*out)->path = strdup(path)) != NULL)
    return 0;
  free(*out);
  *out = NULL;
  return OMPLENS_DIRECTIVES_ENOMEM;
}

static bool grow_entries(omplens_directives__compdb *db)
{
  if (db->num_entries < db->cap_entries)
    return true;
  size_t cap = db->cap_entries > 0 ? 2 * db->cap_entries : 16;
  compdb_entry *e = realloc(db->entries, cap * sizeof(*e));
  if (e == NULL)
    return false;
  db->entries = e;
  db->cap_entries = cap;
  return true;
}

int omplens_directives__compdb_add(omplens_directives__compdb *db,
                                   const char *directory, const char *file,
                                   omplens_directives__args *args)
{
  if (!grow_entries(db))
    return OMPLENS_DIRECTIVES_ENOMEM;
  compdb_entry *e = &db->entries[db->num_entries];
  *e = (compdb_entry){.directory = absolute(NULL, directory),
                      .file = absolute(directory, file)};
  if (e->directory == NULL || e->file == NULL) {
    free_entry(e);
    return OMPLENS_DIRECTIVES_ENOMEM;
  }
  e->args = *args; /* taken over */
  *args = (omplens_directives__args){0};
  db->num_entries++;
  return 0;
}

void omplens_directives__compdb_free(omplens_directives__compdb *db)
{
  if (db == NULL)
    return;
  for (size_t i = 0; i < db->num_entries; i++)
    free_entry(&db->entries[i]);
  free(db->entries);
  free(db->path);
  free(db);
}

/* ---- finding the entry for a file ---- */

static size_t common_prefix(const char *a, const char *b)
{
  size_t n = 0;
  while (a[n] != '\0' && a[n] == b[n])
    n++;
  return n;
}

/* The file's own entry; for a header (no entry of its own), the entry of the
 * source nearest to it, whose include paths are the best guess. */
static const compdb_entry *find_entry(const omplens_directives__compdb *db,
                                      const char *file, bool *exact)
{
  const compdb_entry *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < db->num_entries; i++) {
    const compdb_entry *e = &db->entries[i];
    if (strcmp(e->file, file) == 0) {
      *exact = true;
      return e;
    }
    size_t len = common_prefix(e->file, file);
    if (best == NULL || len > best_len) {
      best = e;
      best_len = len;
    }
  }
  *exact = false;
  return best;
}

static omplens_directives__compdb *cached_db(omplens_directive_index *ix,
                                             const char *path)
{
  for (size_t i = 0; i < ix->compdbs.len; i++) {
    omplens_directives__compdb *db =
        OMPLENS_DIRECTIVES__AT(ix->compdbs, omplens_directives__compdb *, i);
    if (strcmp(db->path, path) == 0)
      return db;
  }
  omplens_directives__compdb *db = NULL;
  if (omplens_directives__compdb_load(path, &db) != 0)
    return NULL; /* a broken database found by search is just not used */
  if (omplens_directives__vec_push(&ix->compdbs, sizeof(db), &db) == NULL) {
    omplens_directives__compdb_free(db);
    return NULL;
  }
  return db;
}

int omplens_directives__compdb_preload(omplens_directive_index *ix)
{
  struct stat st;
  if (stat(ix->compdb_path, &st) != 0)
    return OMPLENS_DIRECTIVES_ECOMPDB;
  if (S_ISDIR(st.st_mode)) {
    char *file = join_path(ix->compdb_path, "compile_commands.json");
    if (file == NULL)
      return OMPLENS_DIRECTIVES_ENOMEM;
    free(ix->compdb_path);
    ix->compdb_path = file;
  }
  omplens_directives__compdb *db = NULL;
  int err = omplens_directives__compdb_load(ix->compdb_path, &db);
  if (err == 0 && !omplens_directives__vec_push(&ix->compdbs, sizeof(db), &db)) {
    omplens_directives__compdb_free(db);
    err = OMPLENS_DIRECTIVES_ENOMEM;
  }
  return err;
}

static char *probe_dir(const char *dir)
{
  static const char *const names[] = {"compile_commands.json",
                                      "build/compile_commands.json"};
  for (size_t k = 0; k < 2; k++) {
    char *p = join_path(dir, names[k]);
    if (p != NULL && file_exists(p))
      return p;
    free(p);
  }
  return NULL;
}

/* compile_commands.json in the file's directory or a parent, directly or
 * in build/. */
static omplens_directives__compdb *search_db(omplens_directive_index *ix,
                                             const char *file)
{
  char *dir = dir_of(file);
  omplens_directives__compdb *db = NULL;
  for (int depth = 0; dir != NULL && depth < MAX_PARENTS && db == NULL; depth++) {
    char *found = probe_dir(dir);
    if (found != NULL) {
      db = cached_db(ix, found);
      free(found);
    }
    char *parent = strcmp(dir, "/") == 0 ? NULL : dir_of(dir);
    free(dir);
    dir = parent;
  }
  free(dir);
  return db;
}

/* The file's own entry in compile_commands.json, else its recorded
 * command, else (a header) the nearest entry of either, in that order. */
static const compdb_entry *entry_for(omplens_directive_index *ix,
                                     const char *file, bool *exact)
{
  omplens_directives__compdb *db =
      ix->compdb_path != NULL ? cached_db(ix, ix->compdb_path)
                              : search_db(ix, file);
  *exact = false;
  const compdb_entry *e = db != NULL ? find_entry(db, file, exact) : NULL;
  if (e != NULL && *exact)
    return e;
  const omplens_directives__compdb *recorded = omplens_directives__producer_db(ix);
  const compdb_entry *r = recorded != NULL ? find_entry(recorded, file, exact) : NULL;
  if (r != NULL && *exact)
    return r;
  *exact = false;
  return e != NULL ? e : r;
}

int omplens_directives__compdb_compiles(omplens_directive_index *ix, const char *file)
{
  bool exact = false;
  const compdb_entry *e = entry_for(ix, file, &exact);
  int cu = exact ? 1 : omplens_directives__is_cu_source(ix, file);
  if (cu >= 0)
    return cu;
  return e != NULL ? 0 : -1;
}

/* ---- building the arguments ---- */

typedef struct kept_flag {
  const char *name;
  bool path;      /* its value is a path: made absolute */
} kept_flag;

/* Flags whose value may be joined (-Ifoo, --sysroot=x) or separate. */
static const kept_flag *kept(const char *arg, size_t *name_len)
{
  static const kept_flag flags[] = {
      {"-I", true},        {"-D", false},      {"-U", false},
      {"-isystem", true},  {"-iquote", true},  {"-idirafter", true},
      {"-include", true},  {"-imacros", true}, {"-isysroot", true},
      {"--sysroot", true}};
  for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
    size_t n = strlen(flags[k].name);
    if (strncmp(arg, flags[k].name, n) != 0)
      continue;
    /* -include-pch is not -include: long names stand alone or take '='. */
    if (n == 2 || arg[n] == '\0' || arg[n] == '=') {
      *name_len = n;
      return &flags[k];
    }
  }
  return NULL;
}

static bool kept_alone(const char *arg)
{
  static const char *const prefixes[] = {"-std=", "--std=", "-fopenmp-version=",
                                         "-ansi", "-nostdinc", "-m32", "-m64",
                                         "--target=", "-stdlib=", "-fms-extensions",
                                         /* what the build lets pass that clang
                                          * rejects by default */
                                         "-Wno-", "-fpermissive"};
  for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
    if (strncmp(arg, prefixes[k], strlen(prefixes[k])) == 0)
      return true;
  return false;
}

/* -Ivalue, --sysroot=value, or the flag and its value as two arguments. */
static bool add_flag(omplens_directives__args *out, const kept_flag *f,
                     const char *value, const char *dir)
{
  char *v = f->path ? absolute(dir, value) : strdup(value);
  if (v == NULL)
    return false;
  size_t flen = strlen(f->name);
  bool joined = flen == 2 || strcmp(f->name, "--sysroot") == 0;
  bool ok;
  if (joined) {
    size_t n = flen + strlen(v) + 2;
    char *arg = malloc(n);
    ok = arg != NULL;
    if (ok) {
      snprintf(arg, n, "%s%s%s", f->name, flen == 2 ? "" : "=", v);
      ok = omplens_directives__args_add(out, arg);
    }
    free(arg);
  } else {
    ok = omplens_directives__args_add(out, f->name) &&
         omplens_directives__args_add(out, v);
  }
  free(v);
  return ok;
}

/* Whether a kept flag agrees with the language chosen: a -std= of the
 * other language would make clang refuse the pair. */
static bool same_language(const char *arg, bool cxx)
{
  bool std = strncmp(arg, "-std=", 5) == 0 || strncmp(arg, "--std=", 6) == 0;
  return !std || (strstr(arg, "++") != NULL) == cxx;
}

/* The entry's flags that change what the parser sees; the language is
 * decided once (build_args), so -x is not copied. */
static bool keep_entry_flags(const compdb_entry *e, bool cxx, omplens_directives__args *out)
{
  size_t n = e->args.argv.len;
  bool ok = true;
  for (size_t i = 1; i < n && ok; i++) { /* argv[0] is the compiler */
    const char *a = arg_at(&e->args, i);
    size_t flen = 0;
    const kept_flag *f = kept(a, &flen);
    if (f != NULL) {
      const char *value = a[flen] == '=' ? a + flen + 1 : a + flen;
      if (*value == '\0' && i + 1 < n)
        value = arg_at(&e->args, ++i);
      if (*value != '\0')
        ok = add_flag(out, f, value, e->directory);
    } else if (kept_alone(a) && same_language(a, cxx)) {
      ok = omplens_directives__args_add(out, a);
    } else if (strcmp(a, "-x") == 0) {
      i++;
    }
  }
  return ok;
}

/* Whether the entry's command compiles C++: its last -x says so, else its
 * -std=, else its driver (clang++ and g++ compile a .c file as C++; clang++
 * records itself in DWARF as `clang --driver-mode=g++`), else the file's
 * extension (by_extension). */
static bool entry_is_cxx(const compdb_entry *e, bool by_extension)
{
  const char *lang = NULL, *std = NULL;
  bool cxx_driver = false;
  size_t n = e->args.argv.len;
  for (size_t i = 1; i < n; i++) {
    const char *a = arg_at(&e->args, i);
    if (strncmp(a, "--driver-mode=", 14) == 0)
      cxx_driver = strcmp(a + 14, "g++") == 0;
    else if (strcmp(a, "-x") == 0 && i + 1 < n)
      lang = arg_at(&e->args, ++i);
    else if (strncmp(a, "-x", 2) == 0 && a[2] != '\0')
      lang = a + 2;
    else if (strncmp(a, "-std=", 5) == 0 || strncmp(a, "--std=", 6) == 0)
      std = strchr(a, '=') + 1;
  }
  if (lang != NULL)
    return strncmp(lang, "c++", 3) == 0;
  if (std != NULL)
    return strstr(std, "++") != NULL;
  const char *cc = n > 0 ? arg_at(&e->args, 0) : "";
  const char *base = strrchr(cc, '/') != NULL ? strrchr(cc, '/') + 1 : cc;
  return cxx_driver || strstr(base, "++") != NULL || by_extension;
}

static bool add_include(omplens_directives__args *out, const char *dir)
{
  return dir == NULL || (omplens_directives__args_add(out, "-I") &&
                         omplens_directives__args_add(out, dir));
}

int omplens_directives__build_args(omplens_directive_index *ix,
                                   const char *main_path,
                                   omplens_directives__args *out)
{
  bool exact = false;
  const compdb_entry *e = entry_for(ix, main_path, &exact);
  /* A source is parsed in the language its command compiled it in, else
   * the one its DWARF compile unit records; a header alone in that of the
   * nearest entry, unless its own extension says C++; without an entry,
   * by extension. */
  bool own = omplens_directives__is_cxx(main_path);
  bool cxx = own;
  int compiled_in = exact ? -1 : omplens_directives__cu_language(ix, main_path);
  if (e != NULL && exact)
    cxx = entry_is_cxx(e, own);
  else if (compiled_in >= 0) /* DWARF's unit says, without the command */
    cxx = compiled_in == 1;
  else if (e != NULL && omplens_directives__is_header(main_path))
    cxx = own || entry_is_cxx(e, omplens_directives__is_cxx(e->file));
  /* A source without an entry of its own borrows another's flags: a guess. */
  out->from_compdb = exact || (e != NULL && omplens_directives__is_header(main_path));
  char *dir = dir_of(main_path);
  bool ok = dir != NULL;
  /* Named always: a header parsed alone has no extension clang knows, and
   * a .c file built by clang++ is C++. */
  ok = ok && omplens_directives__args_add(out, "-x") &&
       omplens_directives__args_add(out, cxx ? "c++" : "c");
  ok = ok && (e == NULL || keep_entry_flags(e, cxx, out));
  ok = ok && add_include(out, dir) && add_include(out, ix->comp_dir);
  for (size_t i = 0; ok && i < ix->num_extra_args; i++)
    ok = omplens_directives__args_add(out, ix->extra_args[i]);
  free(dir);
  return ok ? 0 : OMPLENS_DIRECTIVES_ENOMEM;
}

/* ---- the database as a list of sources (directives_includers.c) ---- */

const omplens_directives__compdb *
omplens_directives__compdb_for(omplens_directive_index *ix, const char *file)
{
  return ix->compdb_path != NULL ? cached_db(ix, ix->compdb_path) : search_db(ix, file);
}

size_t omplens_directives__compdb_size(const omplens_directives__compdb *db)
{
  return db != NULL ? db->num_entries : 0;
}

const char *omplens_directives__compdb_file(const omplens_directives__compdb *db, size_t i)
{
  return db != NULL && i < db->num_entries ? db->entries[i].file : NULL;
}

static bool push_path(omplens_directives__vec *v, const char *dir, const char *value)
{
  char *path = absolute(dir, value);
  if (path == NULL || !omplens_directives__vec_push(v, sizeof(path), &path)) {
    free(path);
    return false;
  }
  return true;
}

int omplens_directives__compdb_include_dirs(const omplens_directives__compdb *db,
                                            size_t i, omplens_directives__vec *quote,
                                            omplens_directives__vec *angle)
{
  if (db == NULL || i >= db->num_entries)
    return 0;
  const compdb_entry *e = &db->entries[i];
  size_t n = e->args.argv.len;
  bool ok = true;
  for (size_t k = 1; k < n && ok; k++) {
    const char *a = arg_at(&e->args, k);
    size_t flen = 0;
    const kept_flag *f = kept(a, &flen);
    bool search = f != NULL && (strcmp(f->name, "-I") == 0 || strcmp(f->name, "-iquote") == 0 ||
                                strcmp(f->name, "-isystem") == 0 ||
                                strcmp(f->name, "-idirafter") == 0);
    if (!search)
      continue;
    const char *value = a[flen] == '=' ? a + flen + 1 : a + flen;
    if (*value == '\0' && k + 1 < n)
      value = arg_at(&e->args, ++k);
    if (*value != '\0')
      ok = push_path(strcmp(f->name, "-iquote") == 0 ? quote : angle, e->directory, value);
  }
  return ok ? 0 : OMPLENS_DIRECTIVES_ENOMEM;
}
