/* Module map of the running process, read with dl_iterate_phdr. */
#include "modules.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

typedef struct walk {
  omplens_module_emit emit;
  void *emit_ctx;
  char exe[4096];
} walk;

/* Finds the GNU build-id note among the module's PT_NOTE segments. */
static uint8_t find_build_id(const struct dl_phdr_info *info, const uint8_t **id) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
    const uint8_t *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
      const uint8_t *name = p + sizeof *n;
      const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
      const uint8_t *next = desc + ((n->n_descsz + 3) & ~3u);
      if (next > end)
        break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
        *id = desc;
        return (uint8_t)(n->n_descsz > 20 ? 20 : n->n_descsz);
      }
      p = next;
    }
  }
  return 0;
}

static int each_phdr(struct dl_phdr_info *info, size_t size, void *ctx) {
  walk *w = ctx;
  uint64_t low = UINT64_MAX, high = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uint64_t a = info->dlpi_addr + ph->p_vaddr;
    if (a < low)
      low = a;
    if (a + ph->p_memsz > high)
      high = a + ph->p_memsz;
  }
  if (high == 0)
    return 0;
  const char *path = info->dlpi_name;
  if (!path || !*path)
    path = w->exe; /* the main program has an empty name */
  if (!strncmp(path, "linux-vdso", 10))
    return 0;
  const uint8_t *id = NULL;
  uint8_t idlen = find_build_id(info, &id);
  w->emit(w->emit_ctx, info->dlpi_addr, low, high, id, idlen, path);
  return 0;
}

int omplens_collector__each_module(void *ctx, omplens_module_emit emit, void *emit_ctx) {
  static walk w; /* called once, at start-up */
  w.emit = emit;
  w.emit_ctx = emit_ctx;
  ssize_t n = readlink("/proc/self/exe", w.exe, sizeof w.exe - 1);
  w.exe[n > 0 ? n : 0] = 0;
  dl_iterate_phdr(each_phdr, &w);
  return 0;
}
