/* libclang, loaded on first need (see libclang_dl.h). */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libclang_dl.h"

/* Set by annotate/directives.cmake from the libclang found at build time. */
#ifndef OMPLENS_LIBCLANG_SONAME
#define OMPLENS_LIBCLANG_SONAME "libclang-19.so.19"
#endif
#ifndef OMPLENS_LIBCLANG_PATH
#define OMPLENS_LIBCLANG_PATH "/usr/lib/llvm-19/lib/" OMPLENS_LIBCLANG_SONAME
#endif

static omplens_libclang table;
static const omplens_libclang *loaded;
static char why[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlopen() of name, or NULL with the loader's reason in why. */
static void *open_library(const char *name)
{
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    snprintf(why, sizeof(why), "libclang could not be loaded (%s)",
             e != NULL ? e : name);
  }
  return h;
}

static void *open_any(void)
{
  const char *chosen = getenv("OMPLENS_LIBCLANG");
  if (chosen != NULL && chosen[0] != '\0')
    return open_library(chosen);
  void *h = open_library(OMPLENS_LIBCLANG_SONAME);
  return h != NULL ? h : open_library(OMPLENS_LIBCLANG_PATH);
}

/* Fills the table; false (with why) on the first missing function. */
static int resolve(void *h)
{
  /* POSIX guarantees that dlsym's void * converts to a function pointer. */
#define OMPLENS_LIBCLANG__RESOLVE(name)                                        \
  table.name = (__typeof__(table.name))dlsym(h, "clang_" #name);               \
  if (table.name == NULL) {                                                    \
    snprintf(why, sizeof(why),                                                 \
             "libclang could not be loaded (it lacks clang_" #name ")");      \
    return 0;                                                                  \
  }
  OMPLENS_LIBCLANG_FUNCTIONS(OMPLENS_LIBCLANG__RESOLVE)
#undef OMPLENS_LIBCLANG__RESOLVE
  return 1;
}

/* ---- the libraries' code, given back between parses ----
 * Loading libclang runs LLVM's static constructors, spread over libLLVM's
 * 120 MB of code: the kernel maps each page they touch with its
 * neighbours (fault-around), and 50 MB of code stays resident, of which a
 * parse then runs 20. The pages are the file's, unchanged: dropping them
 * from the process (MADV_DONTNEED) costs only the faults that bring back
 * what runs again. The objects are those dlopen() added, but for any
 * with text relocations; of each, the whole pages of its executable
 * segments. */
#define MAX_CODE_RANGES 64
typedef struct code_range {
  uintptr_t begin, end;
} code_range;
static code_range code[MAX_CODE_RANGES];
static size_t num_code;

/* The load addresses of the objects present before dlopen(). */
typedef struct object_set {
  uintptr_t base[256];
  size_t n;
  int full;
} object_set;

static int note_object(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  object_set *s = data;
  if (s->n < sizeof(s->base) / sizeof(s->base[0]))
    s->base[s->n++] = info->dlpi_addr;
  else
    s->full = 1;
  return 0;
}

/* Whether the object's code was patched when it was loaded (text
 * relocations): its code pages are then the process's own, not the
 * file's, and dropping them would lose the patches. */
static int has_text_relocations(const struct dl_phdr_info *info)
{
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
      continue;
    for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
         d->d_tag != DT_NULL; d++)
      if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
        return 1;
  }
  return 0;
}

static int note_new_code(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  const object_set *before = data;
  for (size_t i = 0; i < before->n; i++)
    if (before->base[i] == info->dlpi_addr)
      return 0;
  if (has_text_relocations(info))
    return 0;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < info->dlpi_phnum && num_code < MAX_CODE_RANGES; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || (ph->p_flags & PF_W))
      continue;
    uintptr_t b = (info->dlpi_addr + ph->p_vaddr + page - 1) & ~(page - 1);
    uintptr_t e = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(page - 1);
    if (e > b)
      code[num_code++] = (code_range){b, e};
  }
  return 0;
}

void omplens_libclang_release_code(void)
{
  for (size_t i = 0; i < num_code; i++)
    madvise((void *)code[i].begin, code[i].end - code[i].begin, MADV_DONTNEED);
}

static void load_once(void)
{
  object_set before = {0};
  dl_iterate_phdr(note_object, &before);
  void *h = open_any();
  if (h != NULL && !before.full) {
    dl_iterate_phdr(note_new_code, &before);
    omplens_libclang_release_code(); /* what the constructors touched */
  }
  /* Never dlclose()d, not even a library that lacks a function: LLVM's
   * static destructors do not survive being unloaded. */
  if (h != NULL && resolve(h)) {
    why[0] = '\0';
    loaded = &table;
  }
}

const omplens_libclang *omplens_libclang_load(void)
{
  pthread_once(&once, load_once);
  return loaded;
}

static char identity[768];
static pthread_once_t identity_once = PTHREAD_ONCE_INIT;

/* The library the loader would take, named and stat'ed without loading it:
 * OMPLENS_LIBCLANG, else the build's path (where Debian puts the soname). */
static void read_identity(void)
{
  const char *chosen = getenv("OMPLENS_LIBCLANG");
  const char *path = chosen != NULL && chosen[0] != '\0' ? chosen : OMPLENS_LIBCLANG_PATH;
  struct stat st;
  if (stat(path, &st) == 0)
    snprintf(identity, sizeof(identity), "%s %lld %lld.%09ld", path, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  else
    snprintf(identity, sizeof(identity), "%s", path);
}

const char *omplens_libclang_identity(void)
{
  pthread_once(&identity_once, read_identity);
  return identity;
}

const char *omplens_libclang_strerror(void)
{
  return why;
}
