/* The fixture's run-time half: the load map, and a wrapper that records
 * the return address of each kernel launch.
 *
 * Kept apart from fixture.c because clang declares __tgt_target_kernel
 * itself when it lowers a target region; defining it in the same file
 * would clash with that declaration. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

typedef int (*kernel_launch_fn)(void *loc, int64_t device, int32_t teams,
                                int32_t threads, void *host_ptr, void *args);
typedef void (*data_op_fn)(void *loc, int64_t device, int32_t count,
                           void **bases, void **ptrs, int64_t *sizes,
                           int64_t *types, void **names, void **mappers);

/* These wrappers interpose libomptarget's entry points: the program's calls
 * bind here, and each prints its return address, which is what the OMPT
 * runtime reports as the directive's codeptr_ra. */
int __tgt_target_kernel(void *loc, int64_t device, int32_t teams,
                        int32_t threads, void *host_ptr, void *args)
{
  printf("target kernel %p\n", __builtin_return_address(0));
  kernel_launch_fn next =
      (kernel_launch_fn)dlsym(RTLD_NEXT, "__tgt_target_kernel");
  if (next == NULL)
    return 1; /* non-zero makes the program run the host fallback */
  return next(loc, device, teams, threads, host_ptr, args);
}

/* Forwards one data directive to libomptarget under its own name. */
static void forward_data_op(const char *entry, void *loc, int64_t device,
                            int32_t count, void **bases, void **ptrs,
                            int64_t *sizes, int64_t *types, void **names,
                            void **mappers)
{
  data_op_fn next = (data_op_fn)dlsym(RTLD_NEXT, entry);
  if (next != NULL)
    next(loc, device, count, bases, ptrs, sizes, types, names, mappers);
}

#define FIXTURE_DATA_OP(entry, kind)                                         \
  void entry(void *loc, int64_t device, int32_t count, void **bases,          \
             void **ptrs, int64_t *sizes, int64_t *types, void **names,       \
             void **mappers)                                                  \
  {                                                                           \
    printf("target " kind " %p\n", __builtin_return_address(0));            \
    forward_data_op(#entry, loc, device, count, bases, ptrs, sizes, types,    \
                    names, mappers);                                          \
  }

FIXTURE_DATA_OP(__tgt_target_data_begin_mapper, "begin")
FIXTURE_DATA_OP(__tgt_target_data_update_mapper, "update")
FIXTURE_DATA_OP(__tgt_target_data_end_mapper, "end")

static void print_build_id(const struct dl_phdr_info *info)
{
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
    const unsigned char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
      size_t name_sz = (nh->n_namesz + 3u) & ~3u;
      size_t desc_sz = (nh->n_descsz + 3u) & ~3u;
      const unsigned char *desc = p + sizeof(*nh) + name_sz;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
          memcmp(p + sizeof(*nh), "GNU", 4) == 0) {
        for (unsigned j = 0; j < nh->n_descsz; j++)
          printf("%02x", desc[j]);
        return;
      }
      p = desc + desc_sz;
    }
  }
  printf("-");
}

static int print_module(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  (void)arg;
  uint64_t low = UINT64_MAX, high = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uint64_t start = info->dlpi_addr + ph->p_vaddr;
    if (start < low)
      low = start;
    if (start + ph->p_memsz > high)
      high = start + ph->p_memsz;
  }
  char exe[4096];
  const char *path = info->dlpi_name;
  if (path[0] == '\0') { /* the main program has no name here */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    path = exe;
  }
  if (high == 0 || path[0] == '\0')
    return 0;
  printf("module 0x%llx 0x%llx 0x%llx ", (unsigned long long)info->dlpi_addr,
         (unsigned long long)low, (unsigned long long)high);
  print_build_id(info);
  printf(" %s\n", path);
  return 0;
}

void fixture_print_modules(void)
{
  dl_iterate_phdr(print_module, NULL);
}
