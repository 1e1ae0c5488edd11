/* omplens symbolizer: maps the code addresses recorded in a trace (codeptr,
 * a return address) to source file, line, column, function and inline
 * chain, from the DWARF of the modules the profiled process had loaded.
 * Design notes: docs/symbolize.md.
 *
 * Functions return 0 or a negative OMPLENS_SYMBOLIZE_E* code;
 * omplens_symbolize_strerror() explains a code. Whether an address could be
 * attributed is not an error: it is the status of the result.
 *
 * A symbolizer is not thread-safe: give each thread its own, or lock. */
#ifndef OMPLENS_SYMBOLIZE_H
#define OMPLENS_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omplens_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inline frames kept per address; deeper chains are cut (innermost kept)
 * and flagged with OMPLENS_SYMF_INLINE_TRUNCATED. */
#define OMPLENS_SYMBOLIZE_MAX_INLINE 8

enum omplens_symbolize_error {
  OMPLENS_SYMBOLIZE_OK = 0,
  OMPLENS_SYMBOLIZE_EINVAL = -1, /* NULL symbolizer or result            */
  OMPLENS_SYMBOLIZE_ENOMEM = -2,
};

/* How far an address could be attributed. */
enum omplens_symbolize_status {
  OMPLENS_SYM_OK = 0,            /* file:line:column from DWARF              */
  OMPLENS_SYM_NO_DEBUG_INFO,     /* module read, no line for the address:
                                    function is the ELF symbol (+offset)    */
  OMPLENS_SYM_NO_MODULE,         /* address in no recorded module            */
  OMPLENS_SYM_BUILD_ID_MISMATCH, /* the file on disk is not the one that ran:
                                    nothing is attributed                   */
  OMPLENS_SYM_MODULE_MISSING,    /* the module's file no longer exists       */
  OMPLENS_SYM_MODULE_UNREADABLE, /* it exists but cannot be read as ELF      */
  OMPLENS_SYM_UNRESOLVED,        /* no symbolizer (an earlier failure)       */
};

enum omplens_symbolize_flags {
  /* The module recorded a build-id and the file on disk has the same. Without
   * it an OK result trusts the path alone. */
  OMPLENS_SYMF_VERIFIED = 1u << 0,
  /* codeptr returns from an offload kernel launch whose code clang left
   * without a line of its own; file/line/column are those of the
   * `#pragma omp target`, found through the region's host fallback, and
   * table_line/table_column keep what the line table said. */
  OMPLENS_SYMF_KERNEL_LAUNCH = 1u << 1,
  OMPLENS_SYMF_INLINE_TRUNCATED = 1u << 2,
};

/* One inlined call on the way to the address. */
typedef struct omplens_inline_frame {
  const char *function;   /* the inlined function                        */
  const char *call_file;  /* where it was inlined (a line of the caller) */
  uint32_t call_line;
  uint32_t call_column;   /* 0 when unknown                              */
  const char *caller;     /* function the call site is in                */
} omplens_inline_frame;

/* A symbolized address. Every string is owned by the symbolizer and valid
 * until omplens_symbolizer_destroy(); any of them may be NULL. */
typedef struct omplens_source_loc {
  int status;               /* enum omplens_symbolize_status               */
  unsigned flags;           /* enum omplens_symbolize_flags                */
  const char *module;       /* path as recorded; NULL with NO_MODULE       */
  uint64_t module_offset;   /* codeptr - base: the address in the file's
                               own terms, as `addr2line -e MODULE` takes it */
  const char *file;         /* source file, absolute when DWARF has comp_dir */
  uint32_t line;            /* line of the call (codeptr - 1), 0 unknown   */
  uint32_t column;          /* 0 when unknown                              */
  const char *function;     /* innermost function at the call, the inlined
                               one if any; with NO_DEBUG_INFO the ELF symbol */
  const char *symbol;       /* ELF symbol containing the call              */
  uint64_t symbol_offset;   /* codeptr - symbol start, as in `main+0x1a`   */
  uint32_t table_line;      /* with KERNEL_LAUNCH: the line table's answer */
  uint32_t table_column;
  size_t num_inline;        /* entries used in inlined[]                   */
  omplens_inline_frame inlined[OMPLENS_SYMBOLIZE_MAX_INLINE]; /* innermost
                               first; inlined[i].caller is inlined[i+1]'s
                               function, the last one's the real function */
} omplens_source_loc;

/* What the compile unit holding an address records about one of its
 * source files. Strings are owned by the symbolizer and valid until
 * omplens_symbolizer_destroy(). */
typedef struct omplens_source_file {
  const char *path;      /* the name made absolute against comp_dir, "."
                            and empty components dropped; NULL when it is
                            relative and no comp_dir is known             */
  const char *comp_dir;  /* DW_AT_comp_dir: the compiler's working
                            directory, which relative names start from;
                            NULL when unknown                             */
  const char *unit;      /* the unit's DW_AT_name (the source that was
                            compiled: a header's code is parsed through
                            it), made absolute like path; NULL unknown    */
  int listed;            /* the unit's line table names path             */
  int has_md5;           /* listed with its MD5 (DW_LNCT_MD5, clang's
                            DWARF 5): the content that was compiled      */
  uint8_t md5[16];
} omplens_source_file;

typedef struct omplens_symbolizer omplens_symbolizer;

const char *omplens_symbolize_strerror(int err);
/* "ok", "no-debug-info", ...; "unknown" for other values. */
const char *omplens_symbolize_status_name(int status);

/* Creates a symbolizer for one process's load map. The modules are copied:
 * the caller's array and strings may go away afterwards. Files are opened
 * lazily, on the first address that falls in them. On success *out is new
 * (caller frees with omplens_symbolizer_destroy); on failure *out is NULL. */
int omplens_symbolizer_create(const omplens_module *modules, size_t count,
                              omplens_symbolizer **out);
/* Frees s and every string it handed out. NULL is accepted. */
void omplens_symbolizer_destroy(omplens_symbolizer *s);

/* Symbolizes one recorded code address. codeptr is taken as a return
 * address: the lookup is made at codeptr - 1, so the line is that of the
 * call. Results are cached per address. *out is always overwritten; a NULL s
 * (from a failed create) gives status UNRESOLVED and EINVAL. */
int omplens_symbolize(omplens_symbolizer *s, uint64_t codeptr,
                      omplens_source_loc *out);

/* Symbolizes codeptr as if its call were made where a function of the
 * same bare name (function_names.h) as `function` was inlined into the function holding it:
 * the instance nearest to the call. For calls clang left outside the
 * inlined instance their code belongs to (a target region's launch at -O3,
 * line 0 in the outer function's scope alone), whose own inline chain has
 * lost the calls that inlined it. Returns 1 with *out filled (function,
 * inline chain), 0 with *out as omplens_symbolize() gives it when the
 * function holding codeptr has no such instance (or `function` has no bare
 * name), or an error. The instances of a function are indexed by bare name
 * once per unit, so a lookup does not walk the function. */
int omplens_symbolize_inlined_near(omplens_symbolizer *s, uint64_t codeptr,
                                   const char *function, omplens_source_loc *out);

/* Looks name up in the compile unit that holds codeptr (taken as a return
 * address, like omplens_symbolize). name is absolute, or relative to the
 * compiler's working directory, as the runtime's `ident_t` and DWARF give
 * names. *out is always overwritten (zeroed when nothing is known). Returns
 * 0, whatever was found; EINVAL for a NULL s, name or out; ENOMEM. */
int omplens_symbolize_source_file(omplens_symbolizer *s, uint64_t codeptr,
                                  const char *name, omplens_source_file *out);

/* Writes a one-line description of loc into buf, like snprintf (returns the
 * length it needed, always terminates when size > 0):
 *   OK             "FILE:LINE:COLUMN (FUNCTION)"
 *   NO_DEBUG_INFO  "SYMBOL+0xOFF (MODULE)"
 *   others         "MODULE+0xOFFSET [STATUS]" or "[no-module]" */
int omplens_symbolize_format(const omplens_source_loc *loc, char *buf,
                             size_t size);

#ifdef __cplusplus
}
#endif
#endif
