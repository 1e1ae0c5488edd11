/* Internals of the symbolizer (annotate/omplens_symbolize.h). Not installed;
 * shared by the annotate/symbolize*.c files only. Design: docs/symbolize.md. */
#ifndef OMPLENS_SYMBOLIZE_INTERNAL_H
#define OMPLENS_SYMBOLIZE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "omplens_symbolize.h"

/* One address range of one compilation unit, in the module's DWARF
 * address space. The table is sorted by start; max_end is the largest end
 * among this entry and all before it, which bounds the backward scan when
 * ranges overlap. */
typedef struct omplens_symbolize__cu_range {
  uint64_t start, end;
  uint64_t max_end;
  Dwarf_Die cudie;   /* owner of the line table                         */
  Dwarf_Die scopedie;/* owner of the DIE tree: the split unit for a skeleton,
                        else the same as cudie                           */
} omplens_symbolize__cu_range;

/* One module of the load map, and what opening its file told us. */
typedef struct omplens_symbolize__module {
  char *path;
  uint64_t base, low, high;
  uint8_t build_id[20];
  uint8_t build_id_len;
  bool opened;       /* the file was looked at (whatever came of it)      */
  int status;        /* OK, or why nothing in this module is attributed   */
  unsigned flags;    /* OMPLENS_SYMF_VERIFIED                             */
  Dwfl *dwfl;        /* one session per module: modules come and go alone */
  Dwfl_Module *dwmod;
  Dwarf *dwarf;      /* NULL when the module has no DWARF                 */
  Dwarf_Addr bias;   /* run-time address - DWARF address                  */
  omplens_symbolize__cu_range *ranges;
  size_t num_ranges;
  struct omplens_symbolize__symbols *symbols; /* by address (symbolize_symbols.c) */
  Elf_Data *line_data; /* .debug_line, for the MD5s (symbolize_files.c) */
  bool line_data_done; /* looked for                                   */
  bool line_big_endian;
} omplens_symbolize__module;

/* Interned strings: each distinct string is stored once and lives until
 * the symbolizer is destroyed. Open addressing, power-of-two capacity. */
typedef struct omplens_symbolize__strings {
  char **slots;
  size_t cap, count;
} omplens_symbolize__strings;

typedef struct omplens_symbolize__cached {
  uint64_t codeptr;
  bool used;
  omplens_source_loc loc;
} omplens_symbolize__cached;

typedef struct omplens_symbolize__unit_functions omplens_symbolize__unit_functions;

struct omplens_symbolizer {
  omplens_symbolize__module *modules; /* sorted by low */
  size_t num_modules;
  omplens_symbolize__strings strings;
  omplens_symbolize__cached *cache;   /* open addressing on codeptr */
  size_t cache_cap, cache_count;
  /* per unit, its functions by address (symbolize_functions.c) */
  struct omplens_symbolize__unit_functions **units;
  size_t num_units, cap_units;
};

/* symbolize_symbols.c: the ELF symbol holding addr (a module address, as
 * dwfl_module_addrinfo takes), its name (libdw's) and *offset into it; NULL
 * when none. The table is read on first use and freed with the module. */
typedef struct omplens_symbolize__symbols omplens_symbolize__symbols;
const char *omplens_symbolize__symbol_at(omplens_symbolize__module *m, uint64_t addr,
                                         uint64_t *offset);
void omplens_symbolize__symbols_free(omplens_symbolize__symbols *t);

/* symbolize_module.c */
/* Opens m's file once: build-id check, DWARF, CU table. Sets m->status.
 * Returns 0, or ENOMEM (m is then left closed and may be retried). */
int omplens_symbolize__module_open(omplens_symbolize__module *m);
void omplens_symbolize__module_close(omplens_symbolize__module *m);
/* The CU whose ranges contain addr (DWARF terms), or NULL. */
const omplens_symbolize__cu_range *
omplens_symbolize__module_find_cu(const omplens_symbolize__module *m,
                                  uint64_t addr);

/* A place in the source; file absolute when DWARF allows, and interned. */
typedef struct omplens_symbolize__position {
  const char *file;
  uint32_t line;    /* 0 unknown */
  uint32_t column;  /* 0 unknown */
} omplens_symbolize__position;

/* symbolize_dwarf.c */
/* Fills file, line, column, function and the inline chain of out for
 * codeptr in m; out->symbol must be set already. Returns 0, 1 when DWARF
 * has no line for the address, or OMPLENS_SYMBOLIZE_ENOMEM. */
int omplens_symbolize__lookup_dwarf(omplens_symbolizer *s,
                                    const omplens_symbolize__module *m,
                                    uint64_t codeptr, omplens_source_loc *out);
/* omplens_symbolize_inlined_near() in module m, out already symbolized. */
int omplens_symbolize__inlined_near(omplens_symbolizer *s, const omplens_symbolize__module *m,
                                    uint64_t codeptr, const char *bare, size_t len,
                                    omplens_source_loc *out);
/* Name of a subprogram or inlined instance, through abstract_origin and
 * specification, else its linkage name; NULL-tolerant. */
const char *omplens_symbolize__die_name(Dwarf_Die *die);
/* Where the line-table row is. */
omplens_symbolize__position
omplens_symbolize__row_position(omplens_symbolizer *s, Dwarf_Die *cudie,
                                Dwarf_Line *row, bool *oom);
/* Where an inlined instance was called from (DW_AT_call_*). */
omplens_symbolize__position
omplens_symbolize__call_site(omplens_symbolizer *s, Dwarf_Die *cudie,
                             Dwarf_Die *inlined, bool *oom);
/* The physical nesting of the innermost subprogram or inlined instance
 * containing addr, innermost first, out to the CU. Returns the count (0 when
 * none) and sets *chain to a malloc'd array the caller frees. */
int omplens_symbolize__function_chain(omplens_symbolizer *s, Dwarf_Die *scopedie,
                                      uint64_t addr, Dwarf_Die **chain);
/* Fills out->function and out->inlined from chain (function_chain's),
 * walking the physical nesting outwards: each inlined instance, then the
 * concrete function. (dwarf_getscopes alone would jump from an inlined
 * instance to its abstract definition.) out->num_inline must be 0. */
int omplens_symbolize__walk_functions(omplens_symbolizer *s, Dwarf_Die *cudie,
                                      Dwarf_Die *chain, int count, omplens_source_loc *out);
/* symbolize_functions.c: the scopes (subprogram, inlined instances,
 * lexical blocks) holding addr, innermost first, down from the function of
 * the unit's index that holds it; *chain is malloc'd. -1 (and *chain NULL)
 * when the index knows no function there. */
int omplens_symbolize__scopes_at(omplens_symbolizer *s, Dwarf_Die *scopedie, uint64_t addr,
                                 Dwarf_Die **chain);
/* The inlined instances directly in function (a subprogram DIE of the
 * unit; through lexical blocks and other instances, not nested
 * subprograms) whose function's bare name is bare[0..len), in the order of
 * the DIE tree; *out is malloc'd (NULL when none). Returns the count, -1
 * when the index failed. */
int omplens_symbolize__instances_named(omplens_symbolizer *s, Dwarf_Die *scopedie,
                                       Dwarf_Die *function, const char *bare, size_t len,
                                       Dwarf_Die **out);
/* Whether the innermost scope at addr records a call site (DW_TAG_call_site)
 * returning to addr + 1: 1 or 0; -1 when the index knows no scope there. */
int omplens_symbolize__declared_call_at(omplens_symbolizer *s, Dwarf_Die *scopedie, uint64_t addr);
/* The unit's offload entry points (omplens_symbolize__is_offload_entry
 * names, with code), in the order of the DIE tree: *out is the unit's,
 * valid until the symbolizer is destroyed. Returns the count, -1 when the
 * index failed. */
int omplens_symbolize__offload_entries(omplens_symbolizer *s, Dwarf_Die *scopedie,
                                       Dwarf_Die **out);
/* Whether name is the host entry point of a target region, named by clang
 * __omp_offloading_<device>_<file>_<parent>_l<line>[_<count>]. */
bool omplens_symbolize__is_offload_entry(const char *name);
void omplens_symbolize__units_free(omplens_symbolizer *s);
/* DW_AT_comp_dir of the CU (the compiler's working directory), or NULL. */
const char *omplens_symbolize__comp_dir(Dwarf_Die *cudie);
/* Source file number `index` of the CU, made absolute and interned; NULL
 * if unknown, or when out of memory with *oom set. */
const char *omplens_symbolize__cu_file(omplens_symbolizer *s, Dwarf_Die *cudie,
                                       Dwarf_Word index, bool *oom);

/* symbolize_files.c */
/* The DW_LNCT_MD5 of file `index` in the DWARF 5 line table at offset of a
 * .debug_line section of size bytes, into md5; false when it has none, the
 * header is malformed, or it does not list count files. Reads nothing
 * outside [section, section + size). */
bool omplens_symbolize__line_table_md5(const uint8_t *section, size_t size, bool big_endian,
                                       uint64_t offset, size_t index, size_t count,
                                       uint8_t md5[16]);
/* Fills out (zeroed by the caller) for name in the CU of codeptr in m, an
 * opened module with status OK. Returns 0 or OMPLENS_SYMBOLIZE_ENOMEM. */
int omplens_symbolize__source_file(omplens_symbolizer *s, omplens_symbolize__module *m,
                                   uint64_t codeptr, const char *name,
                                   omplens_source_file *out);

/* symbolize_launch.c */
/* When the call at addr (DWARF terms: codeptr - 1) is an offload kernel
 * launch, moves out's location to the `#pragma omp target` (see
 * OMPLENS_SYMF_KERNEL_LAUNCH). Returns 0 or OMPLENS_SYMBOLIZE_ENOMEM; leaves
 * out alone when the pattern is absent. */
int omplens_symbolize__fix_kernel_launch(omplens_symbolizer *s,
                                         const omplens_symbolize__module *m,
                                         const omplens_symbolize__cu_range *cu,
                                         uint64_t addr, omplens_source_loc *out);

/* symbolize_strings.c */
/* Returns the interned copy of str (NULL str gives NULL), or NULL when out
 * of memory; *oom tells the two apart. */
const char *omplens_symbolize__intern(omplens_symbolize__strings *t,
                                      const char *str, bool *oom);
/* Interns dir/name with "." and empty components dropped; name alone when
 * it is absolute or dir is NULL. */
const char *omplens_symbolize__intern_path(omplens_symbolize__strings *t,
                                           const char *dir, const char *name,
                                           bool *oom);
void omplens_symbolize__strings_free(omplens_symbolize__strings *t);

#endif
