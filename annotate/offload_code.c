/* Whether a program holds offload code: the sections clang writes for
 * -fopenmp-targets (the device images and the table of offload entries). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "omplens_annotate.h"

static int offload_section(const char *name) {
  static const char *const names[] = {".llvm.offloading", "omp_offloading_entries",
                                      "llvm_offload_entries", ".omp_offloading.entries"};
  for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
    if (!strcmp(name, names[i]))
      return 1;
  return 0;
}

int omplens_annotate_offload_code(const char *path) {
  int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0)
    return -1;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  size_t strndx;
  int found = elf && elf_kind(elf) == ELF_K_ELF && !elf_getshdrstrndx(elf, &strndx) ? 0 : -1;
  for (Elf_Scn *scn = NULL; found == 0 && (scn = elf_nextscn(elf, scn)) != NULL;) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr))
      found = offload_section(elf_strptr(elf, strndx, shdr.sh_name));
  }
  elf_end(elf);
  close(fd);
  return found;
}
