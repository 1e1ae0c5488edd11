/* Opening one module of the load map: the file must be the one that ran
 * (build-id), then its DWARF is indexed by address once.
 *
 * The index is built here rather than asked of libdw: libdw 0.188 finds a
 * CU by address only through .debug_aranges, which clang does not emit by
 * default, so dwarf_addrdie and dwfl_module_getsrc fail on ordinary
 * `clang -g` binaries. Walking every CU's ranges works with or without it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwelf.h>

#include "symbolize_internal.h"

/* NULL: libdwfl's default search (next to the file, then /usr/lib/debug,
 * by build-id or .gnu_debuglink) for split-off debug info. */
static char *omplens_symbolize__debuginfo_path = NULL;

static const Dwfl_Callbacks omplens_symbolize__callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &omplens_symbolize__debuginfo_path,
};

typedef struct range_list {
  omplens_symbolize__cu_range *items;
  size_t count, cap;
} range_list;

static bool range_push(range_list *list, const omplens_symbolize__cu_range *r)
{
  if (list->count == list->cap) {
    size_t cap = list->cap == 0 ? 64 : list->cap * 2;
    void *items = realloc(list->items, cap * sizeof(*list->items));
    if (items == NULL)
      return false;
    list->items = items;
    list->cap = cap;
  }
  list->items[list->count++] = *r;
  return true;
}

/* Adds every address range of one CU. Ranges at 0 are code the linker
 * discarded (COMDAT duplicates), which nothing is loaded at. */
static bool add_cu_ranges(range_list *list, Dwarf_Die *cudie,
                          Dwarf_Die *scopedie)
{
  omplens_symbolize__cu_range r = {.cudie = *cudie, .scopedie = *scopedie};
  Dwarf_Addr base, start, end;
  ptrdiff_t off = 0;
  while ((off = dwarf_ranges(cudie, off, &base, &start, &end)) > 0) {
    if (start == 0 || start >= end)
      continue;
    r.start = start;
    r.end = end;
    if (!range_push(list, &r))
      return false;
  }
  return true;
}

static int compare_ranges(const void *a, const void *b)
{
  const omplens_symbolize__cu_range *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Type units hold no code; a skeleton's DIE tree lives in its split unit
 * when that was found, while its line table stays in the skeleton. */
static bool add_unit(range_list *list, uint8_t unit_type, Dwarf_Die *cudie,
                     Dwarf_Die *subdie)
{
  if (unit_type == DW_UT_type || unit_type == DW_UT_split_type)
    return true;
  bool split = unit_type == DW_UT_skeleton && subdie->addr != NULL;
  return add_cu_ranges(list, cudie, split ? subdie : cudie);
}

static int build_cu_table(omplens_symbolize__module *m)
{
  range_list list = {0};
  Dwarf_CU *cu = NULL;
  Dwarf_Half version;
  uint8_t unit_type;
  Dwarf_Die cudie, subdie;
  while (dwarf_get_units(m->dwarf, cu, &cu, &version, &unit_type, &cudie,
                         &subdie) == 0) {
    if (!add_unit(&list, unit_type, &cudie, &subdie)) {
      free(list.items);
      return OMPLENS_SYMBOLIZE_ENOMEM;
    }
  }
  if (list.count) /* qsort wants a non-NULL base even for 0 items */
    qsort(list.items, list.count, sizeof(*list.items), compare_ranges);
  uint64_t max_end = 0;
  for (size_t i = 0; i < list.count; i++) {
    if (list.items[i].end > max_end)
      max_end = list.items[i].end;
    list.items[i].max_end = max_end;
  }
  m->ranges = list.items;
  m->num_ranges = list.count;
  return 0;
}

/* A recorded build-id must match the file's; no recorded id means the path
 * is all we have, and the result is not marked verified. */
static void check_build_id(omplens_symbolize__module *m)
{
  Dwarf_Addr elf_bias;
  Elf *elf = dwfl_module_getelf(m->dwmod, &elf_bias);
  const void *id = NULL;
  ssize_t len = elf != NULL ? dwelf_elf_gnu_build_id(elf, &id) : -1;
  if (m->build_id_len == 0)
    return;
  if (len != (ssize_t)m->build_id_len || memcmp(id, m->build_id, (size_t)len) != 0) {
    m->status = OMPLENS_SYM_BUILD_ID_MISMATCH;
    return;
  }
  m->flags |= OMPLENS_SYMF_VERIFIED;
}

/* Reports the file to a fresh libdwfl session at the recorded load base.
 * With add_p_vaddr, base is l_addr itself: the bias added to every vaddr. */
static int report_file(omplens_symbolize__module *m, int fd)
{
  m->dwfl = dwfl_begin(&omplens_symbolize__callbacks);
  if (m->dwfl == NULL) {
    close(fd);
    return OMPLENS_SYMBOLIZE_ENOMEM;
  }
  dwfl_report_begin(m->dwfl);
  m->dwmod = dwfl_report_elf(m->dwfl, m->path, m->path, fd, m->base, true);
  if (m->dwmod == NULL) {
    close(fd); /* consumed only on success */
    m->status = OMPLENS_SYM_MODULE_UNREADABLE;
  }
  dwfl_report_end(m->dwfl, NULL, NULL);
  return 0;
}

int omplens_symbolize__module_open(omplens_symbolize__module *m)
{
  m->opened = true;
  m->status = OMPLENS_SYM_OK;
  int fd = open(m->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    bool gone = errno == ENOENT || errno == ENOTDIR;
    m->status = gone ? OMPLENS_SYM_MODULE_MISSING : OMPLENS_SYM_MODULE_UNREADABLE;
    return 0;
  }
  int err = report_file(m, fd);
  if (err == 0 && m->status == OMPLENS_SYM_OK)
    check_build_id(m);
  if (err == 0 && m->status == OMPLENS_SYM_OK) {
    m->dwarf = dwfl_module_getdwarf(m->dwmod, &m->bias);
    if (m->dwarf != NULL)
      err = build_cu_table(m);
  }
  if (err != 0) {
    omplens_symbolize__module_close(m);
    m->opened = false;
  }
  return err;
}

void omplens_symbolize__module_close(omplens_symbolize__module *m)
{
  omplens_symbolize__symbols_free(m->symbols);
  m->symbols = NULL;
  free(m->ranges);
  m->ranges = NULL;
  m->num_ranges = 0;
  if (m->dwfl != NULL)
    dwfl_end(m->dwfl);
  m->dwfl = NULL;
  m->dwmod = NULL;
  m->dwarf = NULL;
}

const omplens_symbolize__cu_range *
omplens_symbolize__module_find_cu(const omplens_symbolize__module *m,
                                  uint64_t addr)
{
  /* Last range starting at or before addr, then back while an earlier one
   * could still reach past addr. */
  size_t lo = 0, hi = m->num_ranges;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->ranges[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i-- > 0 && m->ranges[i].max_end > addr;) {
    if (addr < m->ranges[i].end)
      return &m->ranges[i];
  }
  return NULL;
}
