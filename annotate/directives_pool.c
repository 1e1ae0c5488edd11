/* Memory for the directive index: a bump pool for what the index hands out
 * (freed all at once by destroy, so callers never free a directive), and a
 * growable array for the transient data of one translation unit. */
#include <stdlib.h>
#include <string.h>

#include "directives_internal.h"

#define CHUNK_SIZE (64u * 1024u)
#define ALIGN 16u

struct omplens_directives__chunk {
  omplens_directives__chunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};

static omplens_directives__chunk *new_chunk(size_t size)
{
  omplens_directives__chunk *c = malloc(sizeof(*c) + size);
  if (c != NULL) {
    c->next = NULL;
    c->used = 0;
    c->size = size;
  }
  return c;
}

void *omplens_directives__pool_alloc(omplens_directives__pool *p, size_t size)
{
  size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  if (size == 0)
    size = ALIGN;
  omplens_directives__chunk *c = p->head;
  if (c == NULL || c->size - c->used < size) {
    c = new_chunk(size > CHUNK_SIZE ? size : CHUNK_SIZE);
    if (c == NULL)
      return NULL;
    /* A big block goes behind the head so the head's free space stays. */
    if (p->head != NULL && size > CHUNK_SIZE) {
      c->next = p->head->next;
      p->head->next = c;
    } else {
      c->next = p->head;
      p->head = c;
    }
  }
  void *out = c->data + c->used;
  c->used += size;
  memset(out, 0, size);
  return out;
}

char *omplens_directives__pool_strndup(omplens_directives__pool *p,
                                       const char *s, size_t n)
{
  char *out = omplens_directives__pool_alloc(p, n + 1);
  if (out != NULL && n > 0)
    memcpy(out, s, n);
  return out;
}

char *omplens_directives__pool_strdup(omplens_directives__pool *p,
                                      const char *s)
{
  return s == NULL ? NULL : omplens_directives__pool_strndup(p, s, strlen(s));
}

void omplens_directives__pool_free(omplens_directives__pool *p)
{
  omplens_directives__chunk *c = p->head;
  while (c != NULL) {
    omplens_directives__chunk *next = c->next;
    free(c);
    c = next;
  }
  p->head = NULL;
}

void *omplens_directives__vec_push(omplens_directives__vec *v, size_t elem,
                                   const void *value)
{
  if (v->len == v->cap) {
    size_t cap = v->cap == 0 ? 16 : v->cap * 2;
    void *data = realloc(v->data, cap * elem);
    if (data == NULL)
      return NULL;
    v->data = data;
    v->cap = cap;
  }
  void *slot = (unsigned char *)v->data + v->len * elem;
  memcpy(slot, value, elem);
  v->len++;
  return slot;
}

void *omplens_directives__vec_push_named(omplens_directives__vec *v, size_t elem,
                                         const void *value, omplens_names *names,
                                         const char *name)
{
  void *slot = omplens_directives__vec_push(v, elem, value);
  if (slot != NULL && omplens_names_put(names, name, v->len - 1) != 0) {
    v->len--;
    return NULL;
  }
  return slot;
}

void omplens_directives__vec_free(omplens_directives__vec *v)
{
  free(v->data);
  v->data = NULL;
  v->len = v->cap = 0;
}

char *omplens_directives__strndup(const char *s, size_t n)
{
  char *out = malloc(n + 1);
  if (out != NULL) {
    memcpy(out, s, n);
    out[n] = '\0';
  }
  return out;
}
