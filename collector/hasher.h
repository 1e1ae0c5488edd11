/* Internal: content hashes of transfer buffers, computed off the program's
 * critical path where possible. One background thread takes jobs from a
 * fixed table of slots (atomics and futexes, no mutex, no malloc). Hashes
 * are omplens_content_hash(), whose large buffers are defined on their two
 * halves: the value is the same whether one thread or two computed it. */
#ifndef OMPLENS_COLLECTOR_HASHER_H
#define OMPLENS_COLLECTOR_HASHER_H

#include <stddef.h>
#include <stdint.h>

#include "omplens_trace.h" /* OMPLENS_HASH_SPLIT, the hash's definition */


/* Starts the background thread; without it every hash is computed inline.
 * Called once, outside any callback. Returns 0 or -1. */
int omplens_hasher__start(void);

/* The hash, computed here and on the background thread together. */
uint64_t omplens_hasher__hash(const void *p, size_t n);

/* Starts hashing [p, p+n) in the background and returns a ticket (>= 0), or
 * -1 when it was not possible (then hash inline). The bytes must not change
 * until the ticket is collected. */
int omplens_hasher__post(const void *p, size_t n);
/* Waits for a posted hash and frees its ticket. */
uint64_t omplens_hasher__collect(int ticket);

#endif
