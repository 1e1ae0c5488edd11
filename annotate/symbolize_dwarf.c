/* DWARF lookups within one opened module: the line of an address, the
 * function it is in and the inlined calls that lead to it. */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "symbolize_internal.h"

const char *omplens_symbolize__die_name(Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  if (name == NULL)
    name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  return name;
}

const char *omplens_symbolize__comp_dir(Dwarf_Die *cudie)
{
  Dwarf_Attribute attr;
  return dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
}

const char *omplens_symbolize__cu_file(omplens_symbolizer *s, Dwarf_Die *cudie,
                                       Dwarf_Word index, bool *oom)
{
  Dwarf_Files *files;
  size_t count;
  if (dwarf_getsrcfiles(cudie, &files, &count) != 0 || index >= count)
    return NULL;
  return omplens_symbolize__intern_path(
      &s->strings, omplens_symbolize__comp_dir(cudie), dwarf_filesrc(files, index, NULL, NULL),
      oom);
}

static uint32_t udata_attr(Dwarf_Die *die, unsigned name)
{
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (dwarf_formudata(dwarf_attr(die, name, &attr), &value) != 0)
    return 0;
  return value > UINT32_MAX ? 0 : (uint32_t)value;
}

omplens_symbolize__position
omplens_symbolize__call_site(omplens_symbolizer *s, Dwarf_Die *cudie,
                             Dwarf_Die *inlined, bool *oom)
{
  omplens_symbolize__position at = {0};
  Dwarf_Attribute attr;
  Dwarf_Word file = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &file) == 0)
    at.file = omplens_symbolize__cu_file(s, cudie, file, oom);
  at.line = udata_attr(inlined, DW_AT_call_line);
  at.column = udata_attr(inlined, DW_AT_call_column);
  return at;
}

omplens_symbolize__position
omplens_symbolize__row_position(omplens_symbolizer *s, Dwarf_Die *cudie,
                                Dwarf_Line *row, bool *oom)
{
  omplens_symbolize__position at = {0};
  int line = 0, column = 0;
  dwarf_lineno(row, &line);
  dwarf_linecol(row, &column);
  at.file = omplens_symbolize__intern_path(
      &s->strings, omplens_symbolize__comp_dir(cudie), dwarf_linesrc(row, NULL, NULL), oom);
  at.line = line > 0 ? (uint32_t)line : 0;
  at.column = column > 0 ? (uint32_t)column : 0;
  return at;
}

static bool is_function(Dwarf_Die *die)
{
  int tag = dwarf_tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* Records one inlined instance; its call site is in the next function out. */
static bool push_inline(omplens_symbolizer *s, Dwarf_Die *cudie, Dwarf_Die *die,
                        const char *name, omplens_source_loc *out, bool *oom)
{
  if (out->num_inline == OMPLENS_SYMBOLIZE_MAX_INLINE) {
    out->flags |= OMPLENS_SYMF_INLINE_TRUNCATED;
    return false;
  }
  omplens_inline_frame *f = &out->inlined[out->num_inline++];
  omplens_symbolize__position at = omplens_symbolize__call_site(s, cudie, die, oom);
  f->function = name;
  f->call_file = at.file;
  f->call_line = at.line;
  f->call_column = at.column;
  return true;
}

int omplens_symbolize__walk_functions(omplens_symbolizer *s, Dwarf_Die *cudie,
                                      Dwarf_Die *chain, int count, omplens_source_loc *out)
{
  bool oom = false, caller_pending = false;
  for (int i = 0; i < count; i++) {
    if (!is_function(&chain[i]))
      continue;
    bool concrete = dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine;
    const char *name = omplens_symbolize__intern(
        &s->strings, omplens_symbolize__die_name(&chain[i]), &oom);
    /* Compiler-made functions (OpenMP task entries) may have no DWARF name;
     * the concrete one is the ELF symbol around the address. */
    if (name == NULL && concrete)
      name = out->symbol;
    if (out->function == NULL)
      out->function = name;
    if (caller_pending)
      out->inlined[out->num_inline - 1].caller = name;
    if (concrete)
      break;
    caller_pending = push_inline(s, cudie, &chain[i], name, out, &oom);
  }
  return oom ? OMPLENS_SYMBOLIZE_ENOMEM : 0;
}

/* The innermost subprogram or inlined instance below parent whose code
 * holds addr, into *out. Namespaces and types hold no code but hold
 * functions: they are searched through. (libdw 0.188's dwarf_getscopes
 * prunes them, so it finds nothing in a function of a namespace.) */
static bool innermost_function(Dwarf_Die *parent, uint64_t addr, Dwarf_Die *out, int depth)
{
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0)
    return false;
  do {
    int tag = dwarf_tag(&child);
    bool code = is_function(&child) || tag == DW_TAG_lexical_block;
    bool holder = tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
                  tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
    if (code && dwarf_haspc(&child, addr) > 0) {
      bool deeper = innermost_function(&child, addr, out, depth + 1);
      if (!deeper && is_function(&child))
        *out = child;
      return deeper || is_function(&child);
    }
    if (holder && innermost_function(&child, addr, out, depth + 1))
      return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

int omplens_symbolize__function_chain(omplens_symbolizer *s, Dwarf_Die *scopedie,
                                      uint64_t addr, Dwarf_Die **chain)
{
  int count = omplens_symbolize__scopes_at(s, scopedie, addr, chain);
  if (count >= 0) {
    int inner = 0;
    while (inner < count && !is_function(&(*chain)[inner]))
      inner++;
    memmove(*chain, *chain + inner, (size_t)(count - inner) * sizeof **chain);
    return count - inner;
  }
  /* Not in the unit's function index: libdw's walk of the whole unit. */
  Dwarf_Die *scopes = NULL;
  count = dwarf_getscopes(scopedie, addr, &scopes);
  int inner = 0;
  while (inner < count && !is_function(&scopes[inner]))
    inner++;
  *chain = NULL;
  Dwarf_Die found;
  int chain_count = 0;
  if (inner < count)
    chain_count = dwarf_getscopes_die(&scopes[inner], chain);
  else if (innermost_function(scopedie, addr, &found, 0))
    chain_count = dwarf_getscopes_die(&found, chain);
  free(scopes);
  if (chain_count <= 0) {
    free(*chain);
    *chain = NULL;
    return 0;
  }
  return chain_count;
}

static int fill_functions(omplens_symbolizer *s,
                          const omplens_symbolize__cu_range *cu, uint64_t addr,
                          omplens_source_loc *out)
{
  Dwarf_Die scopedie = cu->scopedie, *chain = NULL;
  int count = omplens_symbolize__function_chain(s, &scopedie, addr, &chain);
  int err = omplens_symbolize__walk_functions(s, &scopedie, chain, count, out);
  free(chain);
  return err;
}

static int fill_line(omplens_symbolizer *s, Dwarf_Die *cudie, Dwarf_Line *line,
                     omplens_source_loc *out)
{
  bool oom = false;
  omplens_symbolize__position at =
      omplens_symbolize__row_position(s, cudie, line, &oom);
  out->file = at.file;
  out->line = at.line;
  out->column = at.column;
  return oom ? OMPLENS_SYMBOLIZE_ENOMEM : 0;
}

int omplens_symbolize__lookup_dwarf(omplens_symbolizer *s,
                                    const omplens_symbolize__module *m,
                                    uint64_t codeptr, omplens_source_loc *out)
{
  /* codeptr is a return address: the call is the instruction before it,
   * and may be the last of its line or even of its function. */
  uint64_t addr = codeptr - 1 - m->bias;
  const omplens_symbolize__cu_range *cu =
      omplens_symbolize__module_find_cu(m, addr);
  if (cu == NULL)
    return 1;
  Dwarf_Die cudie = cu->cudie;
  Dwarf_Line *line = dwarf_getsrc_die(&cudie, addr);
  if (line == NULL)
    return 1;
  int err = fill_line(s, &cudie, line, out);
  if (err == 0)
    err = fill_functions(s, cu, addr, out);
  if (err == 0)
    err = omplens_symbolize__fix_kernel_launch(s, m, cu, addr, out);
  return err;
}

/* ---- where a function was inlined near an address ---- */

/* The instance nearest to addr among count instances: its range nearest
 * to addr (the first instance on ties). False when none has code. */
static bool nearest_instance(const Dwarf_Die *instances, int count, uint64_t addr,
                             Dwarf_Die *die, Dwarf_Addr *at)
{
  bool found = false;
  uint64_t best = 0;
  for (int i = 0; i < count; i++) {
    Dwarf_Die d = instances[i];
    Dwarf_Addr base, start, end;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(&d, off, &base, &start, &end)) > 0) {
      uint64_t dist = addr < start ? start - addr : addr < end ? 0 : addr - end + 1;
      if (start < end && (!found || dist < best)) {
        *die = d;
        *at = start;
        best = dist;
        found = true;
      }
    }
  }
  return found;
}

static int index_of(Dwarf_Die *chain, int count, Dwarf_Die *die)
{
  for (int i = 0; i < count; i++)
    if (dwarf_dieoffset(&chain[i]) == dwarf_dieoffset(die))
      return i;
  return -1;
}

/* The concrete function of a chain (its first subprogram), or NULL. */
static Dwarf_Die *concrete(Dwarf_Die *chain, int count)
{
  for (int i = 0; i < count; i++)
    if (dwarf_tag(&chain[i]) == DW_TAG_subprogram)
      return &chain[i];
  return NULL;
}

int omplens_symbolize__inlined_near(omplens_symbolizer *s, const omplens_symbolize__module *m,
                                    uint64_t codeptr, const char *bare, size_t len,
                                    omplens_source_loc *out)
{
  uint64_t addr = codeptr - 1 - m->bias;
  const omplens_symbolize__cu_range *cu = omplens_symbolize__module_find_cu(m, addr);
  if (cu == NULL)
    return 0;
  Dwarf_Die scopedie = cu->scopedie, *here = NULL, *there = NULL, *instances = NULL;
  int here_count = omplens_symbolize__function_chain(s, &scopedie, addr, &here);
  Dwarf_Die *function = concrete(here, here_count), *other;
  int count = function != NULL ? omplens_symbolize__instances_named(s, &scopedie, function, bare,
                                                                    len, &instances)
                               : 0;
  Dwarf_Die nearest;
  Dwarf_Addr start;
  bool found = nearest_instance(instances, count, addr, &nearest, &start);
  free(instances);
  int there_count = found ? omplens_symbolize__function_chain(s, &scopedie, start, &there) : 0;
  int at = there_count > 0 ? index_of(there, there_count, &nearest) : -1;
  int err = 0;
  /* The same concrete function: the instance's callers are the call's. */
  bool same = at >= 0 && (other = concrete(there + at, there_count - at)) != NULL &&
              dwarf_dieoffset(other) == dwarf_dieoffset(function);
  if (same) {
    out->function = NULL;
    out->num_inline = 0;
    err = omplens_symbolize__walk_functions(s, &scopedie, there + at, there_count - at, out);
  }
  free(here);
  free(there);
  return err != 0 ? err : same;
}
