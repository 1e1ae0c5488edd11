/* Internal API of the trace writer, used by the collector and by the
 * synthetic-trace generator. Lock-free: each host thread owns one stream;
 * streams claim chunks of the file with one atomic add and write records
 * into a shared mapping of that chunk, so every record reaches the page cache
 * as soon as it is written and survives a crash of the process.
 * No function here calls malloc. */
#ifndef OMPLENS_TRACE_WRITER_H
#define OMPLENS_TRACE_WRITER_H

#include <stdatomic.h>
#include <stdint.h>

#include "trace_format.h"

typedef struct omplens_tw {
  int fd;
  uint64_t start_ns;              /* monotonic ns at start */
  _Atomic uint64_t next_offset;   /* next free chunk offset */
  _Atomic uint64_t dropped;       /* records lost */
  _Atomic uint32_t num_threads;
  uint32_t chunk_bytes;           /* payload bytes per chunk */
} omplens_tw;

#define OMPLENS_TW_MAX_NESTING 8

typedef struct omplens_tw_stream {
  omplens_tw *w;
  omplens_tf_chunk *chunk;        /* mapped chunk, NULL before the first */
  uint8_t *payload;
  uint32_t used, capacity, seq, thread;
  uint64_t os_tid;
  omplens_tf_state st;
  uint32_t regions_begun;         /* local region counter */
  uint32_t depth;                 /* open regions on this thread */
  uint64_t open[OMPLENS_TW_MAX_NESTING]; /* their ids */
  int dead;                       /* mapping failed: drop further records */
} omplens_tw_stream;

/* Process metadata for the header. argv is NULL-terminated (may be NULL). */
typedef struct omplens_tw_header {
  int32_t pid;
  int in_job;             /* 0: not an MPI rank (no RANK item)         */
  int32_t rank, job_size; /* MPI rank and job size (0: unknown)          */
  const char *job;        /* the job's id from the launcher, or NULL     */
  const char *exe;
  char *const *argv;
  uint64_t start_realtime_ns;
  uint64_t start_monotonic_ns;
  int (*each_module)(void *ctx, void (*emit)(void *emit_ctx, uint64_t base, uint64_t low,
                                             uint64_t high, const uint8_t *id, uint8_t idlen,
                                             const char *path),
                     void *emit_ctx);   /* enumerates loaded modules; may be NULL */
  void *each_module_ctx;
} omplens_tw_header;

/* Creates path (O_EXCL) and writes the header. Returns 0 or -errno. */
int omplens_tw_open(omplens_tw *w, const char *path, const omplens_tw_header *h,
                    uint32_t chunk_bytes);
/* Writes the END chunk and closes the file. Streams must be finished first. */
int omplens_tw_close(omplens_tw *w, uint64_t end_monotonic_ns, int exit_status);

/* Streams live in caller storage (zeroed before first use). */
void omplens_tw_stream_init(omplens_tw_stream *s, omplens_tw *w, uint64_t os_tid);
/* Unmaps the current chunk; its records are already in the file. */
void omplens_tw_stream_finish(omplens_tw_stream *s);

/* Region ids are (thread << 32 | local sequence + 1); 0 means none. */
uint64_t omplens_tw_region_begin(omplens_tw_stream *s, uint64_t t_ns, int kind,
                                 int nowait, int device, uint64_t codeptr);
void omplens_tw_region_end(omplens_tw_stream *s, uint64_t t_ns);

typedef struct omplens_tw_op {
  uint64_t begin_ns, end_ns;      /* monotonic */
  uint64_t host_addr, dev_addr, bytes, hash;
  uint64_t region;                /* region id or 0 */
  uint64_t own_codeptr;           /* op's own codeptr when region == 0 */
  int device, peer;               /* device side; peer device (D2D) or -1 */
  uint8_t kind;                   /* enum omplens_event_kind */
  uint8_t hashed, async, early;
} omplens_tw_op;

void omplens_tw_op_write(omplens_tw_stream *s, const omplens_tw_op *op);
void omplens_tw_kernel(omplens_tw_stream *s, uint64_t begin_ns, uint64_t end_ns,
                       int device, uint64_t teams, uint64_t region);
/* type_ptr: the address of the runtime's device type string, whose text
 * the caller writes first with omplens_tw_string(); 0 when unknown. */
void omplens_tw_device(omplens_tw_stream *s, uint64_t t_ns, int device, uint64_t type_ptr);
/* The program's omp_control_tool command at t_ns: start (1), pause (2) or
 * end (4) (enum omplens_tool_command). */
void omplens_tw_tool(omplens_tw_stream *s, uint64_t t_ns, int command);
/* The thread waited from begin_ns to end_ns at a task synchronization
 * construct (kind: enum omplens_wait_kind) at code address codeptr, while
 * deferred target tasks it had created were outstanding. */
void omplens_tw_wait(omplens_tw_stream *s, uint64_t begin_ns, uint64_t end_ns, int kind,
                     uint64_t codeptr);

/* Entry-call details (LLVM passes them to __tgt_* entry points): the text at
 * a program address (the directive's ident_t psource, a map-name string),
 * the call itself, and each map argument. CALL and its ARGs describe the
 * next region this stream begins. */
void omplens_tw_string(omplens_tw_stream *s, uint64_t ptr, const char *text);
void omplens_tw_call(omplens_tw_stream *s, uint64_t loc_ptr, uint64_t caller, uint32_t nargs);
/* The call path of the next region this stream begins, or of its next op
 * with an own codeptr: the stream-local id of a path, with its frames
 * (return addresses: the directive's own call site, then its callers,
 * innermost first; at most OMPLENS_TF_MAX_PATH)
 * the first time the stream uses the id, else frames NULL and n 0. */
void omplens_tw_call_path(omplens_tw_stream *s, uint32_t id, const uint64_t *frames, uint32_t n);
void omplens_tw_arg(omplens_tw_stream *s, uint64_t base, uint64_t begin, uint64_t size,
                    uint64_t map_type, uint64_t name_ptr);

#endif
