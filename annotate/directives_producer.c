/* Compile commands recorded in DWARF: clang's -grecord-command-line (and
 * its alias -grecord-gcc-switches) appends the driver's command line to
 * each compile unit's DW_AT_producer. Without a compile_commands.json
 * entry, a unit is parsed with that command, read here from the program's
 * ELF files into a compile database of its own (one entry per compile
 * unit: DW_AT_name in DW_AT_comp_dir). Every unit's DW_AT_name is kept
 * too, command or not: the files the build compiled, as opposed to those
 * they include. Design notes: docs/directives.md,
 * "Compile arguments". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "directives_internal.h"

/* ---- the producer string (outside input: any bytes) ---- */

/* clang escapes a space and a backslash inside an argument with a
 * backslash (EscapeSpacesAndBackslashes) and joins the arguments with
 * spaces; the version before them is written as is. */
static int split_words(const char *s, omplens_directives__args *out)
{
  omplens_directives__vec w = {0};
  bool ok = true;
  for (const char *p = s; ok; p++) {
    char c = *p;
    if (c == ' ' || c == '\0') {
      char nul = '\0';
      if (w.len > 0)
        ok = omplens_directives__vec_push(&w, 1, &nul) != NULL &&
             omplens_directives__args_add(out, w.data);
      w.len = 0;
      if (c == '\0')
        break;
      continue;
    }
    if (c == '\\' && p[1] != '\0')
      c = *++p;
    ok = omplens_directives__vec_push(&w, 1, &c) != NULL;
  }
  omplens_directives__vec_free(&w);
  return ok ? 0 : OMPLENS_DIRECTIVES_ENOMEM;
}

static const char *word_at(const omplens_directives__args *a, size_t i)
{
  return OMPLENS_DIRECTIVES__AT(a->argv, char *, i);
}

/* The command starts at the compiler, the word before the first option;
 * the words before it are the version, which must be clang's: gcc's
 * producer (-grecord-gcc-switches, on by default) leaves out -D, -U and
 * -I, so it is not the build's flags. 0 when there is no command. */
static size_t command_start(const omplens_directives__args *words)
{
  size_t first_option = 0;
  while (first_option < words->argv.len && word_at(words, first_option)[0] != '-')
    first_option++;
  if (first_option < 2 || first_option == words->argv.len)
    return 0;
  for (size_t i = 0; i + 1 < first_option; i++)
    if (strstr(word_at(words, i), "clang") != NULL)
      return first_option - 1;
  return 0;
}

int omplens_directives__producer_command(const char *producer,
                                         omplens_directives__args *out)
{
  omplens_directives__args words = {0};
  int err = producer != NULL ? split_words(producer, &words) : 0;
  size_t start = err == 0 ? command_start(&words) : 0;
  for (size_t i = start; err == 0 && start > 0 && i < words.argv.len; i++)
    if (!omplens_directives__args_add(out, word_at(&words, i)))
      err = OMPLENS_DIRECTIVES_ENOMEM;
  omplens_directives__args_free(&words);
  if (err != 0)
    return err;
  return start > 0 ? 0 : 1;
}

/* ---- the compile units of the program's ELF files ---- */

static const char *unit_string(Dwarf_Die *die, unsigned name)
{
  Dwarf_Attribute attr;
  return dwarf_formstring(dwarf_attr(die, name, &attr));
}

/* The language the unit was compiled in: 1 C++, 0 C, -1 neither said. */
static int unit_language(Dwarf_Die *cudie)
{
  Dwarf_Attribute attr;
  Dwarf_Word lang = 0;
  if (dwarf_formudata(dwarf_attr(cudie, DW_AT_language, &attr), &lang) != 0)
    return -1;
  switch (lang) {
  case DW_LANG_C_plus_plus:
  case DW_LANG_C_plus_plus_03:
  case DW_LANG_C_plus_plus_11:
  case DW_LANG_C_plus_plus_14:
    return 1;
  case DW_LANG_C89:
  case DW_LANG_C:
  case DW_LANG_C99:
  case DW_LANG_C11:
    return 0;
  default:
    return -1;
  }
}

/* The unit's primary source, made absolute, among the index's: the files
 * the build compiled, whatever their commands say, and their language. */
static int add_source(omplens_directive_index *ix, const char *dir, const char *name,
                      int language)
{
  size_t n = strlen(dir != NULL ? dir : "") + strlen(name) + 2;
  char *joined = malloc(n);
  if (joined == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  snprintf(joined, n, "%s/%s", name[0] != '/' && dir != NULL ? dir : "", name);
  omplens_directives__cu_source unit = {realpath(joined, NULL), language};
  free(joined);
  if (unit.path == NULL) /* a source gone since the build is nobody's unit here */
    return 0;
  if (omplens_names_get(&ix->cu_source_index, unit.path) != OMPLENS_NAMES_NONE) {
    free(unit.path); /* the first unit of a source answers for it */
    return 0;
  }
  if (omplens_directives__vec_push_named(&ix->cu_sources, sizeof(unit), &unit,
                                         &ix->cu_source_index, unit.path) == NULL) {
    free(unit.path);
    return OMPLENS_DIRECTIVES_ENOMEM;
  }
  return 0;
}

/* One entry for a unit that recorded its command; the skeleton of a split
 * unit (-gsplit-dwarf) has it in its .dwo. Every unit's source is kept. */
static int add_unit(omplens_directive_index *ix, omplens_directives__compdb *db,
                    Dwarf_Die *cudie, Dwarf_Die *subdie)
{
  const char *producer = unit_string(cudie, DW_AT_producer);
  if (producer == NULL && subdie != NULL)
    producer = unit_string(subdie, DW_AT_producer);
  const char *name = unit_string(cudie, DW_AT_name);
  const char *dir = unit_string(cudie, DW_AT_comp_dir);
  if (name == NULL)
    return 0;
  int language = unit_language(cudie);
  if (language < 0 && subdie != NULL)
    language = unit_language(subdie);
  int added = add_source(ix, dir, name, language);
  if (producer == NULL || added != 0)
    return added;
  omplens_directives__args args = {0};
  int err = omplens_directives__producer_command(producer, &args);
  if (err == 0)
    err = omplens_directives__compdb_add(db, dir != NULL ? dir : "/", name, &args);
  omplens_directives__args_free(&args);
  return err < 0 ? err : 0;
}

/* A file that cannot be opened or has no DWARF adds nothing. */
static int read_binary(omplens_directive_index *ix, omplens_directives__compdb *db,
                       const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
  int err = 0;
  Dwarf_CU *cu = NULL;
  Dwarf_Half version;
  uint8_t unit_type;
  Dwarf_Die cudie, subdie;
  while (err == 0 && dw != NULL &&
         dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
    bool split = unit_type == DW_UT_skeleton && subdie.addr != NULL;
    err = add_unit(ix, db, &cudie, split ? &subdie : NULL);
  }
  dwarf_end(dw);
  close(fd);
  return err;
}

const omplens_directives__compdb *
omplens_directives__producer_db(omplens_directive_index *ix)
{
  if (ix->recorded_read || ix->num_binaries == 0)
    return ix->recorded;
  ix->recorded_read = true;
  omplens_directives__compdb *db = NULL;
  int err = omplens_directives__compdb_new("(DWARF DW_AT_producer)", &db);
  for (size_t i = 0; err == 0 && i < ix->num_binaries; i++)
    err = read_binary(ix, db, ix->binaries[i]);
  /* Out of memory: parsed as without the commands, which the note says,
   * and without the list of units. */
  for (size_t i = 0; err != 0 && i < ix->cu_sources.len; i++)
    free(OMPLENS_DIRECTIVES__AT(ix->cu_sources, omplens_directives__cu_source, i).path);
  if (err != 0) {
    ix->cu_sources.len = 0;
    omplens_names_free(&ix->cu_source_index);
  }
  if (err != 0 || omplens_directives__compdb_size(db) == 0) {
    omplens_directives__compdb_free(db);
    db = NULL;
  }
  ix->recorded = db;
  return db;
}

static const omplens_directives__cu_source *find_source(omplens_directive_index *ix,
                                                        const char *file)
{
  omplens_directives__producer_db(ix);
  size_t i = omplens_names_get(&ix->cu_source_index, file);
  return i != OMPLENS_NAMES_NONE
             ? &OMPLENS_DIRECTIVES__AT(ix->cu_sources, omplens_directives__cu_source, i)
             : NULL;
}

int omplens_directives__is_cu_source(omplens_directive_index *ix, const char *file)
{
  if (find_source(ix, file) != NULL)
    return 1;
  return ix->cu_sources.len > 0 ? 0 : -1;
}

int omplens_directives__cu_language(omplens_directive_index *ix, const char *file)
{
  const omplens_directives__cu_source *u = find_source(ix, file);
  return u != NULL ? u->language : -1;
}
