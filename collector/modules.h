/* Internal: enumerates the modules loaded in this process for the trace
 * header (path, load base, mapped range, GNU build-id). */
#ifndef OMPLENS_COLLECTOR_MODULES_H
#define OMPLENS_COLLECTOR_MODULES_H

#include <stdint.h>

typedef void (*omplens_module_emit)(void *emit_ctx, uint64_t base, uint64_t low,
                                    uint64_t high, const uint8_t *id, uint8_t idlen,
                                    const char *path);

/* Calls emit once per loaded module; the main executable is named by its
 * /proc/self/exe path. Returns 0. */
int omplens_collector__each_module(void *ctx, omplens_module_emit emit, void *emit_ctx);

#endif
