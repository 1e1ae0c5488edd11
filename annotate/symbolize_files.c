/* The source files of a compile unit as DWARF names them, and the MD5 that
 * clang records for each in a DWARF 5 line table (DW_LNCT_MD5): what proves
 * that a source on disk is the one that was built. libdw 0.188 reads the
 * file names but hands out no checksum, so the line table's header is read
 * here, as far as its file entries. Any malformed header gives "no MD5". */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <gelf.h>

#include "symbolize_internal.h"

/* DWARF 5 forms, for elfutils releases whose dwarf.h lacks some. */
enum {
  FORM_STRX = 0x1a, FORM_LINE_STRP = 0x1f, FORM_DATA16 = 0x1e,
  FORM_STRX1 = 0x25, FORM_STRX2 = 0x26, FORM_STRX3 = 0x27, FORM_STRX4 = 0x28,
  LNCT_MD5 = 0x5,
};

typedef struct reader {
  const uint8_t *p, *end;
  bool big_endian;
  bool dwarf64;
  bool ok;
} reader;

static bool take(reader *r, size_t n)
{
  r->ok = r->ok && (size_t)(r->end - r->p) >= n;
  return r->ok;
}

static uint64_t fixed(reader *r, size_t n)
{
  uint64_t v = 0;
  if (!take(r, n))
    return 0;
  for (size_t i = 0; i < n; i++)
    v |= (uint64_t)r->p[r->big_endian ? n - 1 - i : i] << (8 * i);
  r->p += n;
  return v;
}

static uint64_t uleb(reader *r)
{
  uint64_t v = 0;
  for (unsigned shift = 0; take(r, 1); shift += 7) {
    uint8_t b = *r->p++;
    if (shift < 64)
      v |= (uint64_t)(b & 0x7f) << shift;
    if ((b & 0x80) == 0)
      return v;
  }
  return 0;
}

static void skip(reader *r, uint64_t n)
{
  if (take(r, n > SIZE_MAX ? SIZE_MAX : (size_t)n))
    r->p += n;
}

static size_t fixed_size(uint64_t form, bool dwarf64)
{
  switch (form) {
  case DW_FORM_data1: case DW_FORM_flag: case DW_FORM_strx1:
    return 1;
  case DW_FORM_data2: case DW_FORM_strx2:
    return 2;
  case DW_FORM_strx3:
    return 3;
  case DW_FORM_data4: case DW_FORM_strx4:
    return 4;
  case DW_FORM_data8:
    return 8;
  case FORM_DATA16:
    return 16;
  case DW_FORM_strp: case FORM_LINE_STRP: case DW_FORM_sec_offset:
    return dwarf64 ? 8 : 4;
  default:
    return 0;
  }
}

/* Steps over one value of form; a data16 value is copied to data16. */
static void value(reader *r, uint64_t form, uint8_t *data16)
{
  size_t n = fixed_size(form, r->dwarf64);
  if (form == FORM_DATA16 && data16 != NULL && take(r, 16))
    memcpy(data16, r->p, 16);
  if (n > 0)
    skip(r, n);
  else if (form == DW_FORM_string)
    while (take(r, 1) && *r->p++ != 0)
      ;
  else if (form == DW_FORM_udata || form == DW_FORM_sdata || form == FORM_STRX)
    uleb(r);
  else if (form == DW_FORM_block)
    skip(r, uleb(r));
  else if (form == DW_FORM_block1 || form == DW_FORM_block2 || form == DW_FORM_block4)
    skip(r, fixed(r, form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4));
  else
    r->ok = false;
}

#define MAX_FORMATS 16

typedef struct entry_format {
  size_t count;
  uint64_t content[MAX_FORMATS], form[MAX_FORMATS];
} entry_format;

/* Every entry has at least one field of at least one byte (its path), so
 * a table of n entries cannot outrun the section. */
static void read_format(reader *r, entry_format *f)
{
  f->count = (size_t)fixed(r, 1);
  r->ok = r->ok && f->count <= MAX_FORMATS;
  for (size_t i = 0; r->ok && i < f->count; i++) {
    f->content[i] = uleb(r);
    f->form[i] = uleb(r);
  }
}

/* Reads entry `want` of the file table (or steps over them all): its MD5
 * into md5 when it has one. */
static bool read_files(reader *r, size_t want, size_t count, uint8_t md5[16])
{
  entry_format f;
  read_format(r, &f);
  uint64_t n = uleb(r);
  r->ok = r->ok && (n == 0 || f.count > 0);
  bool found = false;
  for (uint64_t i = 0; r->ok && i < n; i++)
    for (size_t k = 0; r->ok && k < f.count; k++) {
      bool mine = i == want && f.content[k] == LNCT_MD5 && f.form[k] == FORM_DATA16;
      value(r, f.form[k], mine ? md5 : NULL);
      found = found || (mine && r->ok);
    }
  /* The table must be the one libdw read: same number of files. */
  return r->ok && n == count && found;
}

bool omplens_symbolize__line_table_md5(const uint8_t *section, size_t size, bool big_endian,
                                       uint64_t offset, size_t index, size_t count,
                                       uint8_t md5[16])
{
  if (section == NULL || offset >= size)
    return false;
  reader r = {section + offset, section + size, big_endian, false, true};
  uint64_t length = fixed(&r, 4);
  if (length == 0xffffffffu) {
    r.dwarf64 = true;
    length = fixed(&r, 8);
  }
  if (!r.ok || length > (uint64_t)(r.end - r.p))
    return false;
  r.end = r.p + length;
  if (fixed(&r, 2) < 5) /* DWARF 4 and older record no checksum */
    return false;
  skip(&r, 2);                       /* address_size, segment_selector_size */
  fixed(&r, r.dwarf64 ? 8 : 4);      /* header_length */
  skip(&r, 5);                       /* min_inst .. line_range */
  uint64_t opcode_base = fixed(&r, 1);
  skip(&r, opcode_base > 0 ? opcode_base - 1 : 0);
  entry_format dirs;
  read_format(&r, &dirs);
  uint64_t num_dirs = uleb(&r);
  r.ok = r.ok && (num_dirs == 0 || dirs.count > 0);
  for (uint64_t i = 0; r.ok && i < num_dirs; i++)
    for (size_t k = 0; r.ok && k < dirs.count; k++)
      value(&r, dirs.form[k], NULL);
  return read_files(&r, index, count, md5);
}

/* .debug_line of the module's DWARF, found once (libdw has already
 * decompressed it in place). */
static const Elf_Data *debug_line(omplens_symbolize__module *m)
{
  if (m->line_data_done)
    return m->line_data;
  m->line_data_done = true;
  Elf *elf = dwarf_getelf(m->dwarf);
  size_t shstrndx;
  if (elf == NULL || elf_getshdrstrndx(elf, &shstrndx) != 0)
    return NULL;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    const char *name = gelf_getshdr(scn, &shdr) != NULL
                           ? elf_strptr(elf, shstrndx, shdr.sh_name) : NULL;
    if (name != NULL && strcmp(name, ".debug_line") == 0 &&
        (shdr.sh_flags & SHF_COMPRESSED) == 0) {
      m->line_data = elf_getdata(scn, NULL);
      const char *ident = elf_getident(elf, NULL);
      m->line_big_endian = ident != NULL && ident[EI_DATA] == ELFDATA2MSB;
      break;
    }
  }
  return m->line_data;
}

/* Index of path in the unit's file table, or -1. */
static long file_index(omplens_symbolizer *s, Dwarf_Die *cudie, const char *dir,
                       const char *path, size_t *count, bool *oom)
{
  Dwarf_Files *files;
  if (dwarf_getsrcfiles(cudie, &files, count) != 0)
    return -1;
  for (size_t i = 0; i < *count && !*oom; i++) /* interned: equal names, one pointer */
    if (omplens_symbolize__intern_path(&s->strings, dir,
                                       dwarf_filesrc(files, i, NULL, NULL), oom) == path)
      return (long)i;
  return -1;
}

int omplens_symbolize__source_file(omplens_symbolizer *s, omplens_symbolize__module *m,
                                   uint64_t codeptr, const char *name,
                                   omplens_source_file *out)
{
  bool oom = false;
  const omplens_symbolize__cu_range *cu =
      m->dwarf != NULL ? omplens_symbolize__module_find_cu(m, codeptr - 1 - m->bias) : NULL;
  Dwarf_Die cudie;
  const char *dir = NULL;
  if (cu != NULL) {
    cudie = cu->cudie;
    dir = omplens_symbolize__comp_dir(&cudie);
    out->comp_dir = omplens_symbolize__intern(&s->strings, dir, &oom);
    const char *unit = dwarf_diename(&cudie);
    if (unit != NULL && (unit[0] == '/' || dir != NULL))
      out->unit = omplens_symbolize__intern_path(&s->strings, dir, unit, &oom);
  }
  if (name[0] == '/' || dir != NULL)
    out->path = omplens_symbolize__intern_path(&s->strings, dir, name, &oom);
  if (cu == NULL || out->path == NULL || oom)
    return oom ? OMPLENS_SYMBOLIZE_ENOMEM : 0;
  size_t count = 0;
  long index = file_index(s, &cudie, dir, out->path, &count, &oom);
  out->listed = index >= 0;
  Dwarf_Attribute attr;
  Dwarf_Word offset;
  const Elf_Data *data = index >= 0 ? debug_line(m) : NULL;
  if (data != NULL && dwarf_formudata(dwarf_attr(&cudie, DW_AT_stmt_list, &attr), &offset) == 0)
    out->has_md5 = omplens_symbolize__line_table_md5(data->d_buf, data->d_size,
                                                     m->line_big_endian, offset,
                                                     (size_t)index, count, out->md5);
  return oom ? OMPLENS_SYMBOLIZE_ENOMEM : 0;
}
