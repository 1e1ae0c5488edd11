/* Wrappers of libomptarget's entry points, active when the collector is
 * LD_PRELOADed (omplens run does so). LLVM passes these calls what OMPT does
 * not: the directive's source location (ident_t psource, exact even at -O2)
 * and each map item's name, base, size and map type. The wrappers hand them
 * to the collector and call the real entry point unchanged.
 *
 * A wrapper sits between the program and libomptarget, so the return address
 * the runtime reports through OMPT points into the wrapper; the collector
 * replaces it with the wrapper's own caller. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "collector_internal.h"

#define EXPORT __attribute__((visibility("default")))

/* ident_t and the prefix of KernelArgsTy (stable since LLVM 16, version 1). */
typedef struct ident {
  int32_t reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
} ident;

typedef struct kernel_args {
  uint32_t version, num_args;
  void **bases, **begins;
  int64_t *sizes, *types;
  void **names, **mappers;
  uint64_t tripcount;
  uint64_t flags; /* version >= 2: bit 0 is NoWait */
} kernel_args;

/* The real entry point, looked up once; NULL if libomptarget lacks it. */
static void *real_symbol(_Atomic(void *) *slot, const char *name) {
  void *f = atomic_load_explicit(slot, memory_order_acquire);
  if (!f) {
    f = dlsym(RTLD_NEXT, name);
    atomic_store_explicit(slot, f, memory_order_release);
  }
  return f;
}

static void missing(const char *name) {
  static const char msg[] = "omplens: libomptarget entry point not found: ";
  ssize_t k = write(STDERR_FILENO, msg, sizeof msg - 1);
  k = write(STDERR_FILENO, name, __builtin_strlen(name));
  k = write(STDERR_FILENO, "\n", 1);
  (void)k;
}

static const char *loc_text(const ident *loc) {
  return loc ? loc->psource : (const char *)0;
}

/* ---- kernels ---------------------------------------------------------- */

typedef int (*kernel_fn)(ident *, int64_t, int32_t, int32_t, void *, kernel_args *);
typedef int (*kernel_nowait_fn)(ident *, int64_t, int32_t, int32_t, void *, kernel_args *,
                                int32_t, void *, int32_t, void *);

static void begin_kernel_call(ident *loc, kernel_args *a, const void *caller, int nowait) {
  if (a && a->version >= 2)
    nowait |= (int)(a->flags & 1);
  if (a && a->version >= 1)
    omplens_collector__begin_call(loc_text(loc), caller, nowait, (int32_t)a->num_args, a->bases,
                                  a->begins, a->sizes, a->types, a->names);
  else
    omplens_collector__begin_call(loc_text(loc), caller, nowait, 0, 0, 0, 0, 0, 0);
}

EXPORT int __tgt_target_kernel(ident *loc, int64_t device, int32_t teams, int32_t threads,
                               void *host_ptr, kernel_args *args) {
  static _Atomic(void *) slot;
  kernel_fn real = (kernel_fn)real_symbol(&slot, "__tgt_target_kernel");
  if (!real) {
    missing("__tgt_target_kernel");
    return 1; /* offload failure: the program runs its host fallback */
  }
  begin_kernel_call(loc, args, __builtin_return_address(0), 0);
  int rc = real(loc, device, teams, threads, host_ptr, args);
  omplens_collector__end_call();
  return rc;
}

EXPORT int __tgt_target_kernel_nowait(ident *loc, int64_t device, int32_t teams, int32_t threads,
                                      void *host_ptr, kernel_args *args, int32_t ndeps,
                                      void *deps, int32_t nnoalias, void *noalias) {
  static _Atomic(void *) slot;
  kernel_nowait_fn real = (kernel_nowait_fn)real_symbol(&slot, "__tgt_target_kernel_nowait");
  if (!real) {
    missing("__tgt_target_kernel_nowait");
    return 1;
  }
  begin_kernel_call(loc, args, __builtin_return_address(0), 1);
  int rc = real(loc, device, teams, threads, host_ptr, args, ndeps, deps, nnoalias, noalias);
  omplens_collector__end_call();
  return rc;
}

/* ---- the device memory API's asynchronous copy -------------------------- */

typedef int (*memcpy_async_fn)(void *, const void *, size_t, size_t, size_t, int, int, int,
                               void **);

/* The copy runs later in a task, whose code address is the runtime's: the
 * collector matches it to this call. (omp_depend_t is a pointer.) */
EXPORT int omp_target_memcpy_async(void *dst, const void *src, size_t length, size_t dst_offset,
                                   size_t src_offset, int dst_device, int src_device,
                                   int depobj_count, void **depobj_list) {
  static _Atomic(void *) slot;
  memcpy_async_fn real = (memcpy_async_fn)real_symbol(&slot, "omp_target_memcpy_async");
  if (!real) {
    missing("omp_target_memcpy_async");
    return 1; /* OpenMP's failure value for the memory routines */
  }
  omplens_collector__async_copy((const char *)dst + dst_offset, (const char *)src + src_offset,
                                length, __builtin_return_address(0));
  return real(dst, src, length, dst_offset, src_offset, dst_device, src_device, depobj_count,
              depobj_list);
}

/* ---- data mappers ------------------------------------------------------ */

/* The mapper entry points the wrappers cover, written once. */
#define OMPLENS_MAPPERS(X)                                                     \
  X(__tgt_target_data_begin_mapper)                                            \
  X(__tgt_target_data_end_mapper)                                              \
  X(__tgt_target_data_update_mapper)
#define OMPLENS_NOWAIT_MAPPERS(X)                                              \
  X(__tgt_target_data_begin_nowait_mapper)                                     \
  X(__tgt_target_data_end_nowait_mapper)                                       \
  X(__tgt_target_data_update_nowait_mapper)

typedef void (*mapper_fn)(ident *, int64_t, int32_t, void **, void **, int64_t *, int64_t *,
                          void **, void **);
typedef void (*mapper_nowait_fn)(ident *, int64_t, int32_t, void **, void **, int64_t *,
                                 int64_t *, void **, void **, int32_t, void *, int32_t, void *);

#define OMPLENS_MAPPER_WRAPPER(fn)                                                         \
  EXPORT void fn(ident *loc, int64_t device, int32_t n, void **bases, void **begins,      \
                 int64_t *sizes, int64_t *types, void **names, void **mappers) {          \
    static _Atomic(void *) slot;                                                           \
    mapper_fn real = (mapper_fn)real_symbol(&slot, #fn);                                   \
    if (!real) {                                                                           \
      missing(#fn);                                                                        \
      return;                                                                              \
    }                                                                                      \
    omplens_collector__begin_call(loc_text(loc), __builtin_return_address(0), 0, n, bases,    \
                                  begins, sizes, types, names);                            \
    real(loc, device, n, bases, begins, sizes, types, names, mappers);                     \
    omplens_collector__end_call();                                                         \
  }
OMPLENS_MAPPERS(OMPLENS_MAPPER_WRAPPER)

#define OMPLENS_NOWAIT_MAPPER_WRAPPER(fn)                                                  \
  EXPORT void fn(ident *loc, int64_t device, int32_t n, void **bases, void **begins,      \
                 int64_t *sizes, int64_t *types, void **names, void **mappers,            \
                 int32_t ndeps, void *deps, int32_t nnoalias, void *noalias) {            \
    static _Atomic(void *) slot;                                                           \
    mapper_nowait_fn real = (mapper_nowait_fn)real_symbol(&slot, #fn);                     \
    if (!real) {                                                                           \
      missing(#fn);                                                                        \
      return;                                                                              \
    }                                                                                      \
    omplens_collector__begin_call(loc_text(loc), __builtin_return_address(0), 1, n, bases,    \
                                  begins, sizes, types, names);                            \
    real(loc, device, n, bases, begins, sizes, types, names, mappers, ndeps, deps,         \
         nnoalias, noalias);                                                               \
    omplens_collector__end_call();                                                         \
  }
OMPLENS_NOWAIT_MAPPERS(OMPLENS_NOWAIT_MAPPER_WRAPPER)
