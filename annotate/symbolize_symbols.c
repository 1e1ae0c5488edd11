/* A module's ELF symbols by address, read once: dwfl_module_addrinfo
 * scans the whole symbol table on every call, which made symbolizing
 * quadratic in the functions of a program with thousands of directives.
 * The choice follows libdw's: among the sized symbols holding the address,
 * the one starting closest below it, a global one before a weak one before
 * a local one, the first in the table on a tie. An address no sized symbol
 * holds, or a crowded neighbourhood, is left to libdw. */
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "symbolize_internal.h"

typedef struct symbol {
  GElf_Addr start, end;
  const char *name; /* libdw's, valid while the module is open */
  uint32_t index;
  uint8_t rank; /* 0 global, 1 weak, 2 other */
} symbol;

struct omplens_symbolize__symbols {
  symbol *v;
  size_t n;
};

static int by_start(const void *a, const void *b)
{
  const symbol *x = a, *y = b;
  if (x->start != y->start)
    return (x->start > y->start) - (x->start < y->start);
  return (x->index > y->index) - (x->index < y->index);
}

static omplens_symbolize__symbols *read_symbols(Dwfl_Module *mod)
{
  omplens_symbolize__symbols *t = calloc(1, sizeof(*t));
  int count = mod != NULL ? dwfl_module_getsymtab(mod) : -1;
  if (t == NULL || count <= 0)
    return t;
  t->v = malloc((size_t)count * sizeof(*t->v));
  if (t->v == NULL)
    return t;
  for (int i = 1; i < count; i++) {
    GElf_Sym sym;
    GElf_Addr addr;
    GElf_Word shndx;
    const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
    int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
    if (name == NULL || sym.st_size == 0 || shndx == SHN_UNDEF ||
        (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE && type != STT_GNU_IFUNC))
      continue;
    t->v[t->n++] = (symbol){addr, addr + sym.st_size, name, (uint32_t)i,
                            (uint8_t)(bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2)};
  }
  qsort(t->v, t->n, sizeof(*t->v), by_start);
  return t;
}

void omplens_symbolize__symbols_free(omplens_symbolize__symbols *t)
{
  if (t != NULL)
    free(t->v);
  free(t);
}

const char *omplens_symbolize__symbol_at(omplens_symbolize__module *m, uint64_t addr,
                                         uint64_t *offset)
{
  if (m->symbols == NULL)
    m->symbols = read_symbols(m->dwmod);
  const omplens_symbolize__symbols *t = m->symbols;
  size_t lo = 0, hi = t != NULL ? t->n : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->v[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* Back from the last symbol starting at or before addr: the first that
   * holds it starts closest; then the best of those starting there. */
  const symbol *best = NULL;
  for (size_t k = lo, seen = 0; k-- > 0 && seen < 64; seen++) {
    const symbol *s = &t->v[k];
    if (best != NULL && s->start < best->start)
      break;
    if (addr < s->end && (best == NULL || s->rank < best->rank ||
                          (s->rank == best->rank && s->index < best->index)))
      best = s;
  }
  if (best == NULL) {
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(m->dwmod, addr, &off, &sym, NULL, NULL, NULL);
    *offset = off;
    return name;
  }
  *offset = addr - best->start;
  return best->name;
}
