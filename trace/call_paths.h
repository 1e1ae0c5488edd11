/* Internal to the trace reader: the table of distinct call paths (CALL_PATH
 * records, docs/trace-format.md). Paths are interned across threads; path
 * 0 is "unknown". A thread's records name paths by stream-local ids, mapped
 * while that thread's chunks are decoded. */
#ifndef OMPLENS_CALL_PATHS_H
#define OMPLENS_CALL_PATHS_H

#include <stddef.h>
#include <stdint.h>

typedef struct omplens_cp_table {
  uint64_t *frames;          /* all paths' frames, path after path */
  size_t num_frames, cap_frames;
  uint32_t *first;           /* per path: its first frame; first[num] ends it */
  size_t num_paths, cap_paths;  /* num_paths counts path 0 */
  uint32_t *slots;           /* open addressing over paths, by frames */
  size_t cap_slots;
  uint32_t *local;           /* the decoded thread's ids -> paths */
  size_t cap_local;
  uint64_t *op_paths;        /* own-codeptr ops: event << 32 | path, by event */
  size_t num_op_paths, cap_op_paths;
} omplens_cp_table;

/* Interns a path of n (>= 1) frames; *path is its index. 0 or -ENOMEM. */
int omplens_cp__intern(omplens_cp_table *t, const uint64_t *frames, uint32_t n, uint32_t *path);
/* The decoded thread's id -> path mapping; ids past the table are unknown. */
void omplens_cp__thread_start(omplens_cp_table *t);
int omplens_cp__set_local(omplens_cp_table *t, uint64_t id, uint32_t path);
uint32_t omplens_cp__local(const omplens_cp_table *t, uint64_t id);
/* Notes the path of an own-codeptr op by its decode index; once the events
 * are ordered, places them (slot: decode index -> final index). */
int omplens_cp__note_op(omplens_cp_table *t, uint32_t decode_index, uint32_t path);
void omplens_cp__place_ops(omplens_cp_table *t, const uint32_t *slot);
uint32_t omplens_cp__op_path(const omplens_cp_table *t, uint32_t event);
const uint64_t *omplens_cp__frames(const omplens_cp_table *t, uint32_t path, size_t *n);
void omplens_cp__free(omplens_cp_table *t);

#endif
