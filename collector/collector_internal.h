/* Internal: what the entry-point wrappers (interpose.c) tell the collector. */
#ifndef OMPLENS_COLLECTOR_INTERNAL_H
#define OMPLENS_COLLECTOR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Records a runtime entry call made from `caller` with the directive's
 * location string `loc`, whether it is asynchronous (nowait: LLVM 19's OMPT
 * never reports the nowait construct kinds) and its map arguments; the region the runtime begins
 * during the call is attributed to `caller` and gets these arguments. Does
 * nothing while the collector is inactive. Never allocates. */
void omplens_collector__begin_call(const char *loc, const void *caller, int nowait,
                                   int32_t nargs, void *const *bases, void *const *begins,
                                   const int64_t *sizes, const int64_t *types,
                                   void *const *names);
void omplens_collector__end_call(void);

/* Records an omp_target_memcpy_async call made from `caller`: the runtime
 * makes the copy later, in a task, from its own code and maybe on another
 * thread; the copy is given the call's code address and call path when its
 * addresses and size match. Never allocates, takes no lock. */
void omplens_collector__async_copy(const void *dst, const void *src, size_t bytes,
                                   const void *caller);

#endif
