/* Kernel launches that clang leaves without a line of their own.
 *
 * clang 19 emits the code that launches a `#pragma omp target` region (the
 * kernel argument set-up and the call to __tgt_target_kernel) without debug
 * locations, so the line table stretches the previous statement's row over
 * it: the launch's return address symbolizes to the statement before the
 * directive. (docs/symbolize.md has the details and the measurements.)
 *
 * The region's host fallback, run when the launch fails, does carry the
 * directive's location, and it is the code right after the call:
 *  - at -O0, a call to __omp_offloading_<ids>_<function>_l<line> on a row of
 *    the pragma's line (that function's DW_AT_decl_line);
 *  - optimized, that function inlined there, with the pragma as the call
 *    site of its DW_TAG_inlined_subroutine.
 * Both are looked for right after the return address and nowhere else, and
 * the -O0 form only counts when the code there really calls the entry. */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <gelf.h>

#include "symbolize_internal.h"

/* Bytes from the return address to the fallback: a test, a branch, maybe
 * a register cleared and padding that aligns the fallback's loop (-O1). */
#define LAUNCH_WINDOW 48
/* Bytes of the fallback's row searched for the call to the entry point. */
#define FALLBACK_SCAN 256

typedef omplens_symbolize__position directive;

/* What the checks share: one call site in one CU. */
typedef struct launch {
  omplens_symbolizer *s;
  const omplens_symbolize__module *m;
  Dwarf_Die cudie, scopedie;
  Dwarf_Lines *lines;
  size_t count;
  uint64_t addr; /* DWARF address of the call: codeptr - 1 */
  bool oom;
} launch;

static Dwarf_Addr row_addr(const launch *l, size_t row)
{
  Dwarf_Addr addr = 0;
  dwarf_lineaddr(dwarf_onesrcline(l->lines, row), &addr);
  return addr;
}

static int row_line(const launch *l, size_t row)
{
  int line = 0;
  dwarf_lineno(dwarf_onesrcline(l->lines, row), &line);
  return line;
}

static bool row_ends_sequence(const launch *l, size_t row)
{
  bool end = true;
  dwarf_lineendsequence(dwarf_onesrcline(l->lines, row), &end);
  return end;
}

/* Index of the first row of the line table that starts after addr. */
static size_t first_row_after(const launch *l, uint64_t addr)
{
  size_t lo = 0, hi = l->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (row_addr(l, mid) <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The first row after the call that has a line, within the window: the
 * test and branch after the call may get a row of line 0 of their own. */
static bool find_fallback_row(const launch *l, size_t *row)
{
  for (size_t i = first_row_after(l, l->addr); i < l->count; i++) {
    if (row_ends_sequence(l, i) || row_addr(l, i) - (l->addr + 1) > LAUNCH_WINDOW)
      return false;
    if (row_line(l, i) > 0) {
      *row = i;
      return true;
    }
  }
  return false;
}

/* Optimized code records each call to a declared function as a
 * DW_TAG_call_site; the launch, made by the compiler, has none. A call site
 * at this return address is an ordinary call, whatever follows it. */
static bool is_declared_call(const launch *l)
{
  Dwarf_Die scopedie = l->scopedie, *scopes = NULL, child;
  int known = omplens_symbolize__declared_call_at(l->s, &scopedie, l->addr);
  if (known >= 0)
    return known == 1;
  int count = dwarf_getscopes(&scopedie, l->addr, &scopes);
  bool found = false;
  if (count > 0 && dwarf_child(&scopes[0], &child) == 0) {
    do {
      int tag = dwarf_tag(&child);
      Dwarf_Attribute attr;
      Dwarf_Addr ret = 0;
      if ((tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) &&
          (dwarf_formaddr(dwarf_attr(&child, DW_AT_call_return_pc, &attr), &ret) == 0 ||
           dwarf_formaddr(dwarf_attr(&child, DW_AT_low_pc, &attr), &ret) == 0))
        found = ret == l->addr + 1;
    } while (!found && dwarf_siblingof(&child, &child) == 0);
  }
  free(scopes);
  return found;
}

static bool chain_has(Dwarf_Die *chain, int count, Dwarf_Off offset)
{
  for (int i = 0; i < count; i++) {
    if (dwarf_dieoffset(&chain[i]) == offset)
      return true;
  }
  return false;
}

/* Optimized code: the outermost inlined offload entry point at fallback,
 * unless the call itself is inside it (a call in the region's body). */
static bool find_inlined_entry(launch *l, uint64_t fallback, directive *dir)
{
  Dwarf_Die *chain = NULL, *here = NULL;
  int count = omplens_symbolize__function_chain(l->s, &l->scopedie, fallback, &chain);
  int found = -1;
  for (int i = 0; i < count; i++) {
    if (dwarf_tag(&chain[i]) == DW_TAG_inlined_subroutine &&
        omplens_symbolize__is_offload_entry(omplens_symbolize__die_name(&chain[i])))
      found = i;
  }
  if (found >= 0) {
    int here_count = omplens_symbolize__function_chain(l->s, &l->scopedie, l->addr, &here);
    if (chain_has(here, here_count, dwarf_dieoffset(&chain[found])))
      found = -1;
    free(here);
  }
  if (found >= 0)
    *dir = omplens_symbolize__call_site(l->s, &l->scopedie, &chain[found], &l->oom);
  free(chain);
  return found >= 0 && dir->line > 0;
}

/* Declaration line and file of die. Not dwarf_decl_file: libdw 0.188
 * refuses file number 0, which DWARF 5 (and clang) use for the main file. */
static bool decl_location(launch *l, Dwarf_Die *die, directive *decl)
{
  Dwarf_Attribute attr;
  Dwarf_Word file = 0, line = 0;
  if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), &file) != 0 ||
      dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_line, &attr), &line) != 0)
    return false;
  decl->file = omplens_symbolize__cu_file(l->s, &l->scopedie, file, &l->oom);
  decl->line = line <= UINT32_MAX ? (uint32_t)line : 0;
  return decl->file != NULL;
}

/* Where die's code starts, or 0. Through its ranges: dwarf_lowpc of libdw
 * 0.188 fails on the DIEs of a split (.dwo) unit. */
static Dwarf_Addr code_start(Dwarf_Die *die)
{
  Dwarf_Addr base, start, end;
  return dwarf_ranges(die, 0, &base, &start, &end) > 0 ? start : 0;
}

/* The entry point of this CU declared at `at`: its code address, or 0. */
static Dwarf_Addr entry_declared_at(launch *l, const directive *at)
{
  Dwarf_Die *entries;
  int count = omplens_symbolize__offload_entries(l->s, &l->scopedie, &entries);
  for (int i = 0; i < count; i++) {
    directive decl = {0};
    if (decl_location(l, &entries[i], &decl) && decl.line == at->line &&
        strcmp(decl.file, at->file) == 0)
      return code_start(&entries[i]);
  }
  return 0;
}

/* Whether the x86-64 code in [start, end) (DWARF addresses) holds a direct
 * call (E8 rel32) to target. A byte scan, not a decoder: a false E8 would
 * also have to land exactly on the entry point. */
static bool code_calls(const omplens_symbolize__module *m, uint64_t start,
                       uint64_t end, uint64_t target)
{
  Dwarf_Addr elf_bias, offset = start + m->bias;
  GElf_Ehdr ehdr;
  Elf *elf = dwfl_module_getelf(m->dwmod, &elf_bias);
  if (elf == NULL || gelf_getehdr(elf, &ehdr) == NULL || ehdr.e_machine != EM_X86_64)
    return false;
  Elf_Scn *scn = dwfl_module_address_section(m->dwmod, &offset, &elf_bias);
  Elf_Data *data = scn != NULL ? elf_getdata(scn, NULL) : NULL;
  if (data == NULL || data->d_buf == NULL || offset >= data->d_size)
    return false;
  const uint8_t *code = data->d_buf;
  size_t stop = data->d_size - offset < end - start ? data->d_size : offset + (end - start);
  for (size_t i = offset; i + 5 <= stop; i++) {
    uint32_t rel = (uint32_t)code[i + 1] | (uint32_t)code[i + 2] << 8 |
                   (uint32_t)code[i + 3] << 16 | (uint32_t)code[i + 4] << 24;
    uint64_t next = start + (i - offset) + 5;
    if (code[i] == 0xe8 && next + (uint64_t)(int64_t)(int32_t)rel == target)
      return true;
  }
  return false;
}

/* Where the rows of `line` starting at row end (at most FALLBACK_SCAN on). */
static uint64_t line_extent(const launch *l, size_t row, int line)
{
  uint64_t start = row_addr(l, row);
  while (row < l->count && !row_ends_sequence(l, row) && row_line(l, row) == line)
    row++;
  uint64_t end = row < l->count ? row_addr(l, row) : start;
  return end > start && end - start < FALLBACK_SCAN ? end : start + FALLBACK_SCAN;
}

/* -O0: a row at the fallback address on an entry point's declaration line,
 * whose code calls that entry point. */
static bool find_called_entry(launch *l, size_t row, directive *dir)
{
  uint64_t fallback = row_addr(l, row);
  for (; row < l->count && !l->oom && row_addr(l, row) == fallback; row++) {
    *dir = omplens_symbolize__row_position(l->s, &l->cudie,
                                           dwarf_onesrcline(l->lines, row), &l->oom);
    Dwarf_Addr entry = dir->file != NULL ? entry_declared_at(l, dir) : 0;
    if (entry != 0 &&
        code_calls(l->m, fallback, line_extent(l, row, row_line(l, row)), entry))
      return true;
  }
  return false;
}

int omplens_symbolize__fix_kernel_launch(omplens_symbolizer *s,
                                         const omplens_symbolize__module *m,
                                         const omplens_symbolize__cu_range *cu,
                                         uint64_t addr, omplens_source_loc *out)
{
  launch l = {.s = s, .m = m, .cudie = cu->cudie, .scopedie = cu->scopedie,
              .addr = addr};
  size_t row = 0;
  if (dwarf_getsrclines(&l.cudie, &l.lines, &l.count) != 0 ||
      !find_fallback_row(&l, &row) || is_declared_call(&l))
    return 0;
  directive dir = {0};
  bool found = find_inlined_entry(&l, row_addr(&l, row), &dir) ||
               find_called_entry(&l, row, &dir);
  if (l.oom)
    return OMPLENS_SYMBOLIZE_ENOMEM;
  /* Interned strings: equal files are the same pointer. */
  if (!found || (dir.line == out->line && dir.file == out->file))
    return 0;
  out->table_line = out->line;
  out->table_column = out->column;
  out->file = dir.file;
  out->line = dir.line;
  out->column = dir.column;
  out->flags |= OMPLENS_SYMF_KERNEL_LAUNCH;
  return 0;
}
