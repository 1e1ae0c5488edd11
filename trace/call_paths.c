/* The reader's table of call paths: see call_paths.h. */
#include "call_paths.h"
#include "omplens_bulk.h"
#include "trace_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>



static size_t path_len(const omplens_cp_table *t, uint32_t p) {
  return t->first[p + 1] - t->first[p];
}

/* The slot holding these frames, or the empty one they would take. */
static size_t find_slot(const omplens_cp_table *t, const uint32_t *slots, size_t cap,
                        const uint64_t *f, uint32_t n) {
  size_t j = (size_t)omplens_tf__path_key(f, n) & (cap - 1);
  while (slots[j]) {
    uint32_t p = slots[j];
    if (path_len(t, p) == n && !memcmp(t->frames + t->first[p], f, n * sizeof *f))
      break;
    j = (j + 1) & (cap - 1);
  }
  return j;
}

static int rehash(omplens_cp_table *t) {
  size_t cap = t->cap_slots ? 2 * t->cap_slots : 64;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return -ENOMEM;
  for (uint32_t p = 1; p < t->num_paths; p++)
    slots[find_slot(t, slots, cap, t->frames + t->first[p], (uint32_t)path_len(t, p))] = p;
  free(t->slots);
  t->slots = slots;
  t->cap_slots = cap;
  return 0;
}

static int start_table(omplens_cp_table *t) {
  if (t->num_paths)
    return 0;
  if (omplens_bulk_grow((void **)&t->first, &t->cap_paths, 2, sizeof *t->first))
    return -ENOMEM;
  t->first[0] = t->first[1] = 0;
  t->num_paths = 1;
  return 0;
}

int omplens_cp__intern(omplens_cp_table *t, const uint64_t *frames, uint32_t n, uint32_t *path) {
  *path = 0;
  if (!n || start_table(t) || (2 * (t->num_paths + 1) > t->cap_slots && rehash(t)))
    return n ? -ENOMEM : 0;
  size_t j = find_slot(t, t->slots, t->cap_slots, frames, n);
  if (t->slots[j]) {
    *path = t->slots[j];
    return 0;
  }
  if (t->num_paths >= UINT32_MAX - 1 ||
      omplens_bulk_grow((void **)&t->frames, &t->cap_frames, t->num_frames + n, sizeof *t->frames) ||
      omplens_bulk_grow((void **)&t->first, &t->cap_paths, t->num_paths + 2, sizeof *t->first))
    return -ENOMEM;
  memcpy(t->frames + t->num_frames, frames, n * sizeof *frames);
  t->num_frames += n;
  uint32_t p = (uint32_t)t->num_paths++;
  t->first[p + 1] = (uint32_t)t->num_frames;
  t->slots[j] = p;
  *path = p;
  return 0;
}

void omplens_cp__thread_start(omplens_cp_table *t) {
  if (t->local)
    memset(t->local, 0, t->cap_local * sizeof *t->local);
}

/* Ids are dense from 1 in the writer; one far beyond the paths seen is
 * damage, and names no path rather than a huge table. */
int omplens_cp__set_local(omplens_cp_table *t, uint64_t id, uint32_t path) {
  if (!id || id > 4 * (uint64_t)t->num_paths + 1024)
    return 0;
  size_t old = t->cap_local;
  if (omplens_bulk_grow((void **)&t->local, &t->cap_local, (size_t)id + 1, sizeof *t->local))
    return -ENOMEM;
  memset(t->local + old, 0, (t->cap_local - old) * sizeof *t->local);
  t->local[id] = path;
  return 0;
}

uint32_t omplens_cp__local(const omplens_cp_table *t, uint64_t id) {
  return id < t->cap_local ? t->local[id] : 0;
}

int omplens_cp__note_op(omplens_cp_table *t, uint32_t decode_index, uint32_t path) {
  if (omplens_bulk_grow((void **)&t->op_paths, &t->cap_op_paths, t->num_op_paths + 1, sizeof *t->op_paths))
    return -ENOMEM;
  t->op_paths[t->num_op_paths++] = (uint64_t)decode_index << 32 | path;
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

void omplens_cp__place_ops(omplens_cp_table *t, const uint32_t *slot) {
  for (size_t i = 0; i < t->num_op_paths; i++) {
    uint64_t v = t->op_paths[i];
    t->op_paths[i] = (uint64_t)slot[v >> 32] << 32 | (v & 0xffffffffu);
  }
  if (t->num_op_paths) /* qsort wants a non-NULL base even for 0 items */
    qsort(t->op_paths, t->num_op_paths, sizeof *t->op_paths, cmp_u64);
}

uint32_t omplens_cp__op_path(const omplens_cp_table *t, uint32_t event) {
  size_t lo = 0, hi = t->num_op_paths;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint32_t e = (uint32_t)(t->op_paths[mid] >> 32);
    if (e == event)
      return (uint32_t)t->op_paths[mid];
    if (e < event)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

const uint64_t *omplens_cp__frames(const omplens_cp_table *t, uint32_t path, size_t *n) {
  if (!t || !path || path >= t->num_paths) {
    if (n)
      *n = 0;
    return NULL;
  }
  if (n)
    *n = path_len(t, path);
  return t->frames + t->first[path];
}

void omplens_cp__free(omplens_cp_table *t) {
  omplens_bulk_free(t->frames);
  omplens_bulk_free(t->first);
  free(t->slots);
  omplens_bulk_free(t->local);
  omplens_bulk_free(t->op_paths);
  memset(t, 0, sizeof *t);
}
