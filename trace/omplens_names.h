/* omplens names: a set of strings (file paths, mostly), each kept with a
 * number, found in constant time.
 *
 * The analysis asks "have I seen this path, and where is its record?" once
 * per directive, finding or included file; a list searched with strcmp
 * made that the files times the directives (docs/performance.md). The
 * caller keeps its records in a list of its own and the map gives the
 * index. Open addressing on XXH3 of the text, at most half full.
 *
 * The map does not copy the names: each must stay valid, unchanged, while
 * it is in the map. A zeroed omplens_names is an empty map. */
#ifndef OMPLENS_NAMES_H
#define OMPLENS_NAMES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct omplens_names_slot omplens_names_slot;

typedef struct omplens_names {
  omplens_names_slot *slots;
  size_t cap, count;
} omplens_names;

/* The value kept with name, or OMPLENS_NAMES_NONE when name is not in m
 * (m may be empty; name may be NULL, which is never in it). */
#define OMPLENS_NAMES_NONE ((size_t)-1)
size_t omplens_names_get(const omplens_names *m, const char *name);

/* Keeps name with value (an equal name already there gets the new value).
 * Returns 0, or -1 when name is NULL or memory is short (m is then
 * unchanged). */
int omplens_names_put(omplens_names *m, const char *name, size_t value);

/* Frees the map's own memory (not the names) and empties it. */
void omplens_names_free(omplens_names *m);

#ifdef __cplusplus
}
#endif

#endif
