/* String interning for the symbolizer: every string handed to a caller is
 * stored here once, so that results stay valid until destroy and repeated
 * file names cost one copy. */
#include <stdlib.h>
#include <string.h>

#include "symbolize_internal.h"

/* FNV-1a: short strings, no adversary, and no dependency. */
static uint64_t hash_string(const char *str)
{
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char *p = (const unsigned char *)str; *p != '\0'; p++) {
    h ^= *p;
    h *= 1099511628211ull;
  }
  return h;
}

/* Slot holding str, or the empty slot where it belongs. */
static char **find_slot(char **slots, size_t cap, const char *str)
{
  size_t i = (size_t)hash_string(str) & (cap - 1);
  while (slots[i] != NULL && strcmp(slots[i], str) != 0)
    i = (i + 1) & (cap - 1);
  return &slots[i];
}

static bool grow(omplens_symbolize__strings *t)
{
  size_t cap = t->cap == 0 ? 64 : t->cap * 2;
  char **slots = calloc(cap, sizeof(*slots));
  if (slots == NULL)
    return false;
  for (size_t i = 0; i < t->cap; i++) {
    if (t->slots[i] != NULL)
      *find_slot(slots, cap, t->slots[i]) = t->slots[i];
  }
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return true;
}

const char *omplens_symbolize__intern(omplens_symbolize__strings *t,
                                      const char *str, bool *oom)
{
  if (str == NULL)
    return NULL;
  if ((t->count + 1) * 2 > t->cap && !grow(t)) {
    *oom = true;
    return NULL;
  }
  char **slot = find_slot(t->slots, t->cap, str);
  if (*slot == NULL) {
    *slot = strdup(str);
    if (*slot == NULL) {
      *oom = true;
      return NULL;
    }
    t->count++;
  }
  return *slot;
}

/* Appends the components of path to out (which has room), dropping empty
 * and "." ones. ".." is kept: resolving it would need the file system, and
 * a symlinked directory makes it wrong anyway. */
static void append_components(char *out, size_t *len, const char *path)
{
  while (*path != '\0') {
    const char *end = strchr(path, '/');
    size_t n = end != NULL ? (size_t)(end - path) : strlen(path);
    bool skip = n == 0 || (n == 1 && path[0] == '.');
    if (!skip) {
      if (*len > 0 && out[*len - 1] != '/')
        out[(*len)++] = '/';
      memcpy(out + *len, path, n);
      *len += n;
    }
    path += n + (end != NULL);
  }
  out[*len] = '\0';
}

const char *omplens_symbolize__intern_path(omplens_symbolize__strings *t,
                                           const char *dir, const char *name,
                                           bool *oom)
{
  if (name == NULL)
    return NULL;
  if (name[0] == '/' || dir == NULL)
    dir = "";
  char *joined = malloc(strlen(dir) + strlen(name) + 3);
  if (joined == NULL) {
    *oom = true;
    return NULL;
  }
  size_t len = 0;
  if (dir[0] == '/' || name[0] == '/')
    joined[len++] = '/';
  joined[len] = '\0';
  append_components(joined, &len, dir);
  append_components(joined, &len, name);
  const char *interned = omplens_symbolize__intern(t, joined, oom);
  free(joined);
  return interned;
}

void omplens_symbolize__strings_free(omplens_symbolize__strings *t)
{
  for (size_t i = 0; i < t->cap; i++)
    free(t->slots[i]);
  free(t->slots);
  t->slots = NULL;
  t->cap = t->count = 0;
}
