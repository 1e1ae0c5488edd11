/* String interning for the symbolizer: every string handed to a caller is
 * stored here once, so that results stay valid until destroy and repeated
 * file names cost one copy. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
 * and "." ones. ".." is kept here: a symlinked directory makes dropping it
 * wrong (without_parents asks the file system). */
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

/* Drops each `x/..` pair of path (absolute, its components clean), in
 * place. */
static void drop_parents(char *path)
{
  size_t out = 0;
  for (const char *p = path; *p != '\0';) {
    const char *end = strchr(p + 1, '/');
    size_t n = end != NULL ? (size_t)(end - p) : strlen(p); /* "/name" */
    if (n == 3 && p[1] == '.' && p[2] == '.') {
      while (out > 0 && path[out - 1] != '/')
        out--;
      if (out > 0)
        out--;
    } else {
      memmove(path + out, p, n);
      out += n;
    }
    p += n;
  }
  path[out] = '\0';
  if (out == 0)
    strcpy(path, "/");
}

/* path without its `..` components where the file system shows the
 * shorter path is the same file (`build/../src/a.c`); a symlinked
 * directory, or a file that is not there, keeps them. Caller frees. */
static char *without_parents(const char *path)
{
  char *short_path = path[0] == '/' && strstr(path, "/../") ? strdup(path) : NULL;
  if (short_path == NULL)
    return NULL;
  drop_parents(short_path);
  struct stat a, b;
  if (stat(path, &a) != 0 || stat(short_path, &b) != 0 || a.st_dev != b.st_dev ||
      a.st_ino != b.st_ino) {
    free(short_path);
    return NULL;
  }
  return short_path;
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
  char *shorter = without_parents(joined);
  const char *interned = omplens_symbolize__intern(t, shorter != NULL ? shorter : joined, oom);
  free(shorter);
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
