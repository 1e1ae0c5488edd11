/* omplens collector: an OMPT tool loaded through OMP_TOOL_LIBRARIES.
 *
 * It records target constructs, data operations and kernel submissions into
 * a trace file (docs/trace-format.md). Inside callbacks it never allocates,
 * never takes a lock and never prints to stdout: each host thread writes into
 * its own stream, taken from a pool mapped once at start-up. */
#include <omp-tools.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "callpath.h"
#include "collector_internal.h"
#include "hasher.h"
#include "modules.h"
#include "mpi_env.h"
#include "omplens_trace.h"
#include "ompt_events.h"
#include "trace_writer.h"

#define EXPORT __attribute__((visibility("default")))

/* Threads beyond this many are not recorded (their events count as dropped). */
#define MAX_THREADS 1024
/* Device-to-host copies awaiting their hash at the end of their construct. */
#define MAX_PENDING 64

/* Program addresses of strings this thread already wrote (direct-mapped). */
#define SEEN_STRINGS 256
/* Call paths this thread already defined in its stream (direct-mapped). */
#define SEEN_PATHS 64
/* Frames searched for a directive's call site when no wrapper saw the call:
 * the runtime's own frames lie between the callback and the program. */
#define RUNTIME_FRAMES 32

typedef struct thread_state {
  omplens_tw_stream stream;
  int region_device;              /* device of the innermost open construct */
  /* A host-to-device copy whose source is being hashed while it runs. */
  int copy_ticket;                /* hasher ticket, or -1 */
  const void *copy_src;
  size_t copy_bytes;
  uint32_t npending;
  omplens_tw_op pending[MAX_PENDING];
  uint64_t seen[SEEN_STRINGS];
  uint64_t path_keys[SEEN_PATHS];
  uint32_t path_ids[SEEN_PATHS];
  uint32_t paths_defined;
  omplens_callpath__cache unwinds; /* the last unwind per call site */
  /* Open constructs on this thread, and a bit per nesting level (the 64th
   * and deeper share the last): set when the construct began while the
   * program had paused the tool, whose end and operations then go
   * unrecorded. */
  uint32_t nesting;
  uint64_t unrecorded;
} thread_state;

/* The runtime entry call in progress on this thread, as the wrapper saw it
 * (pointers into the caller's frame, valid until the call returns). Kept
 * apart from thread_state so that calls made before the tool starts count. */
typedef struct entry_call {
  const char *loc;
  uint64_t caller;
  int nowait;
  int32_t nargs;
  void *const *bases, *const *begins;
  const int64_t *sizes, *types;
  void *const *names;
  uint32_t path_len;              /* the caller's call path */
  uint64_t path[OMPLENS_TF_MAX_PATH];
} entry_call;

typedef struct collector {
  omplens_tw writer;
  thread_state *pool;             /* MAX_THREADS states, mapped at start-up */
  _Atomic uint32_t pool_used;
  _Atomic int num_devices;        /* highest initialized device + 1 */
  _Atomic int finished;
  _Atomic int paused;             /* omp_control_tool pause or end */
  _Atomic int ended;              /* omp_control_tool end: for good */
  int active;
  char path[4096];
} collector;

static collector g;

/* omp_target_memcpy_async calls whose copy has not run yet (a ring; an
 * entry is free, being filled, ready, or being taken). */
#define ASYNC_COPIES 64
enum { ASYNC_FREE, ASYNC_FILLING, ASYNC_READY, ASYNC_TAKING };
typedef struct async_copy {
  _Atomic uint32_t state;
  uint64_t dst, src, bytes, caller;
  uint32_t path_len;
  uint64_t path[OMPLENS_TF_MAX_PATH];
} async_copy;
static async_copy async_copies[ASYNC_COPIES];
static _Atomic uint32_t async_next;
static __thread thread_state *tls_state;
static __thread entry_call tls_call;
/* Deferred target tasks (nowait) this thread created since its last wait
 * for them, and the wait in progress (nested waits: its depth). Apart from
 * thread_state so that a thread that only waits claims no stream until it
 * has something to write. */
static __thread uint32_t tls_deferred;
static __thread struct {
  uint32_t depth;
  uint8_t kind;
  uint64_t begin_ns, codeptr;
} tls_wait;
static thread_state overflow_state; /* shared sink once the pool is used up */

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n > sizeof line - 2)
    n = sizeof line - 2;
  line[n++] = '\n';
  ssize_t k = write(STDERR_FILENO, line, (size_t)n);
  (void)k;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's state, claimed from the pool on first use. */
static thread_state *self(void) {
  thread_state *ts = tls_state;
  if (ts)
    return ts;
  uint32_t i = atomic_fetch_add(&g.pool_used, 1);
  if (i >= MAX_THREADS) {
    ts = &overflow_state;
    ts->stream.dead = 1;
    ts->stream.w = &g.writer;
  } else {
    ts = &g.pool[i];
    omplens_tw_stream_init(&ts->stream, &g.writer, (uint64_t)gettid());
    ts->copy_ticket = -1;
  }
  tls_state = ts;
  return ts;
}

/* The host may be reported as -1, as omp_get_initial_device() or as the
 * number of devices (LLVM host offload); devices are 0..num_devices-1. */
static int is_host(int dev) {
  int n = atomic_load_explicit(&g.num_devices, memory_order_relaxed);
  return dev < 0 || (n > 0 && dev >= n);
}

/* ---- regions of interest (omp_control_tool) ---------------------------- */

static int is_paused(void) { return atomic_load_explicit(&g.paused, memory_order_relaxed); }

static uint64_t nesting_bit(uint32_t level) { return 1ull << (level < 63 ? level : 63); }

/* Whether this thread's operations go unrecorded now: the tool is paused,
 * or the construct they belong to began while it was. */
static int unrecorded(const thread_state *ts) {
  return is_paused() || (ts->nesting && (ts->unrecorded & nesting_bit(ts->nesting - 1)));
}

/* A construct begins: 1 when it is to be recorded. */
static int open_construct(thread_state *ts) {
  int skip = is_paused();
  uint64_t bit = nesting_bit(ts->nesting++);
  ts->unrecorded = skip ? ts->unrecorded | bit : ts->unrecorded & ~bit;
  return !skip;
}

/* A construct ends: 1 when its begin was recorded. */
static int close_construct(thread_state *ts) {
  if (!ts->nesting)
    return 1; /* its begin was not seen here: its end is written, as always */
  return !(ts->unrecorded & nesting_bit(--ts->nesting));
}

enum { TOOL_FLUSH = 3 };            /* omp_control_tool_flush (omp.h) */
enum { TOOL_SUCCESS = 0, TOOL_IGNORED = 1 }; /* omp_control_tool_result_t */

/* OMPT's tool control (omp_control_tool): start, pause, flush, end. The
 * commands that change the state are recorded with their time; flush has
 * nothing to do (every record is in the file as soon as it is written).
 * Returns omp_control_tool_success, or omp_control_tool_ignored for what
 * omplens does not know and for a start after an end. */

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg,
                           const void *codeptr_ra) {
  (void)modifier, (void)arg, (void)codeptr_ra;
  int pause = command == OMPLENS_TOOL_PAUSE || command == OMPLENS_TOOL_END;
  if (command == TOOL_FLUSH)
    return TOOL_SUCCESS;
  if ((!pause && command != OMPLENS_TOOL_START) || atomic_load(&g.ended))
    return TOOL_IGNORED;
  int end = command == OMPLENS_TOOL_END;
  if (end)
    atomic_store(&g.ended, 1);
  /* A pause while paused changes nothing; an end does (no start follows). */
  if (atomic_exchange(&g.paused, pause) != pause || end)
    omplens_tw_tool(&self()->stream, now_ns(), (int)command);
  return TOOL_SUCCESS;
}

static uint64_t hash_bytes(const void *p, size_t n) {
  return omplens_hasher__hash(p, n);
}

/* ---- callbacks ------------------------------------------------------- */

static void write_string_once(thread_state *ts, const char *text);

/* The device's type ("generic-64bit" for host offload, the plugin's name on
 * a GPU) goes into the trace with its number. */
static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                 ompt_function_lookup_t lookup, const char *doc) {
  int cur = atomic_load(&g.num_devices);
  while (device_num + 1 > cur &&
         !atomic_compare_exchange_weak(&g.num_devices, &cur, device_num + 1))
    ;
  thread_state *ts = self();
  write_string_once(ts, type);
  omplens_tw_device(&ts->stream, now_ns(), device_num, (uint64_t)(uintptr_t)type);
}

static void on_device_finalize(int device_num) {}

static void on_device_load(int device_num, const char *filename, int64_t offset,
                           void *vma, size_t bytes, void *host_addr, void *device_addr,
                           uint64_t module_id) {}

static int construct_kind(ompt_target_t kind, int *nowait) {
  *nowait = kind >= ompt_target_nowait;
  return *nowait ? (int)kind - 8 : (int)kind;
}

/* Hashes the deferred device-to-host copies of the ending construct: by now
 * the runtime has synchronized, so their host destinations hold the data. */
static void flush_pending(thread_state *ts) {
  for (uint32_t i = 0; i < ts->npending; i++) {
    omplens_tw_op *op = &ts->pending[i];
    op->hash = hash_bytes((const void *)(uintptr_t)op->host_addr, op->bytes);
    op->hashed = 1;
    omplens_tw_op_write(&ts->stream, op);
  }
  ts->npending = 0;
}

void omplens_collector__begin_call(const char *loc, const void *caller, int nowait,
                                   int32_t nargs, void *const *bases, void *const *begins,
                                   const int64_t *sizes, const int64_t *types,
                                   void *const *names) {
  tls_call = (entry_call){loc,   (uint64_t)(uintptr_t)caller, nowait, nargs, bases, begins,
                          sizes, types, names, 0, {0}};
  /* Unwound here, a few frames above the program (the wrappers): cheaper
   * than from the callback, below the runtime's frames. */
  thread_state *ts = g.active && !is_paused() ? self() : NULL;
  if (ts && !ts->stream.dead)
    tls_call.path_len = omplens_callpath__capture(tls_call.caller, 6, tls_call.path,
                                                  OMPLENS_TF_MAX_PATH, &ts->unwinds);
}

void omplens_collector__end_call(void) { tls_call.caller = 0; }

void omplens_collector__async_copy(const void *dst, const void *src, size_t bytes,
                                   const void *caller) {
  thread_state *ts = g.active && !is_paused() ? self() : NULL;
  if (!ts || ts->stream.dead)
    return;
  for (uint32_t k = 0; k < ASYNC_COPIES; k++) { /* the first free entry from the next one */
    async_copy *c = &async_copies[atomic_fetch_add(&async_next, 1) % ASYNC_COPIES];
    uint32_t free_state = ASYNC_FREE;
    if (!atomic_compare_exchange_strong(&c->state, &free_state, ASYNC_FILLING))
      continue;
    c->dst = (uint64_t)(uintptr_t)dst;
    c->src = (uint64_t)(uintptr_t)src;
    c->bytes = bytes;
    c->caller = (uint64_t)(uintptr_t)caller;
    c->path_len = omplens_callpath__capture(c->caller, 6, c->path, OMPLENS_TF_MAX_PATH,
                                            &ts->unwinds);
    atomic_store_explicit(&c->state, ASYNC_READY, memory_order_release);
    return;
  }
}

/* The recorded omp_target_memcpy_async call of a copy from src to dst, if
 * there is one: its caller and path into *out, the entry freed. */
static bool take_async_copy(const void *src, const void *dst, size_t bytes, async_copy *out) {
  for (uint32_t k = 0; k < ASYNC_COPIES; k++) {
    async_copy *c = &async_copies[k];
    uint32_t ready = ASYNC_READY;
    if (atomic_load_explicit(&c->state, memory_order_relaxed) != ASYNC_READY ||
        !atomic_compare_exchange_strong(&c->state, &ready, ASYNC_TAKING))
      continue;
    if (c->dst != (uint64_t)(uintptr_t)dst || c->src != (uint64_t)(uintptr_t)src ||
        c->bytes != bytes) { /* another copy's: put it back */
      atomic_store_explicit(&c->state, ASYNC_READY, memory_order_release);
      continue;
    }
    out->caller = c->caller;
    out->path_len = c->path_len;
    memcpy(out->path, c->path, c->path_len * sizeof *c->path);
    atomic_store_explicit(&c->state, ASYNC_FREE, memory_order_release);
    return true;
  }
  return false;
}

/* Writes the text at a program address once per thread (cache permitting). */
static void write_string_once(thread_state *ts, const char *text) {
  uint64_t p = (uint64_t)(uintptr_t)text;
  if (!text)
    return;
  uint64_t *slot = &ts->seen[(p >> 3) % SEEN_STRINGS];
  if (*slot == p)
    return;
  *slot = p;
  omplens_tw_string(&ts->stream, p, text);
}

/* Records the call path of the region or op about to be written: its
 * frames the first time this thread meets it, else its id. */
static void write_call_path(thread_state *ts, const uint64_t *frames, uint32_t n) {
  if (!n)
    return;
  uint64_t key = omplens_tf__path_key(frames, n);
  uint32_t slot = (uint32_t)(key % SEEN_PATHS);
  if (ts->path_keys[slot] == key) {
    omplens_tw_call_path(&ts->stream, ts->path_ids[slot], NULL, 0);
    return;
  }
  ts->path_keys[slot] = key;
  ts->path_ids[slot] = ++ts->paths_defined;
  omplens_tw_call_path(&ts->stream, ts->path_ids[slot], frames, n);
}

/* The call path above a call site the runtime reported, unwound from the
 * callback (no wrapper saw the call). */
static void write_runtime_call_path(thread_state *ts, uint64_t codeptr) {
  uint64_t frames[OMPLENS_TF_MAX_PATH];
  if (ts->stream.dead) /* nothing is written (the shared sink of threads beyond the pool) */
    return;
  uint32_t n = omplens_callpath__capture(codeptr, RUNTIME_FRAMES, frames, OMPLENS_TF_MAX_PATH,
                                         &ts->unwinds);
  write_call_path(ts, frames, n);
}

/* Records the entry call that opens the region about to begin. */
static void write_entry_call(thread_state *ts, const entry_call *c) {
  write_string_once(ts, c->loc);
  int32_t n = c->nargs > 0 && c->bases && c->begins && c->sizes && c->types ? c->nargs : 0;
  omplens_tw_call(&ts->stream, (uint64_t)(uintptr_t)c->loc, c->caller, (uint32_t)n);
  for (int32_t i = 0; i < n; i++) {
    const char *name = c->names ? (const char *)c->names[i] : NULL;
    write_string_once(ts, name);
    omplens_tw_arg(&ts->stream, (uint64_t)(uintptr_t)c->bases[i],
                   (uint64_t)(uintptr_t)c->begins[i], (uint64_t)c->sizes[i],
                   (uint64_t)c->types[i], (uint64_t)(uintptr_t)name);
  }
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                          ompt_data_t *task_data, ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr_ra) {
  thread_state *ts = self();
  uint64_t t = now_ns();
  if (endpoint == ompt_scope_begin && !open_construct(ts)) {
    tls_call.caller = 0;
    return;
  }
  if (endpoint != ompt_scope_begin && !close_construct(ts))
    return;
  if (endpoint == ompt_scope_begin) {
    int nowait;
    int ck = construct_kind(kind, &nowait);
    uint64_t codeptr = (uint64_t)(uintptr_t)codeptr_ra;
    if (tls_call.caller) { /* inside a wrapped entry call: the wrapper's caller */
      codeptr = tls_call.caller;
      nowait |= tls_call.nowait;
      write_entry_call(ts, &tls_call);
      write_call_path(ts, tls_call.path, tls_call.path_len);
      tls_call.caller = 0;
    } else {
      write_runtime_call_path(ts, codeptr);
    }
    uint64_t id = omplens_tw_region_begin(&ts->stream, t, ck, nowait, device_num, codeptr);
    if (target_data)
      target_data->value = id;
    ts->region_device = device_num;
  } else {
    flush_pending(ts);
    omplens_tw_region_end(&ts->stream, t);
  }
}

typedef struct op_shape {
  uint8_t kind, async;
  int device, peer;
  uint64_t host, dev;
} op_shape;

/* Normalizes an OMPT data op into host side / device side. */
static op_shape shape_op(ompt_target_data_op_t optype, void *src, int src_dev, void *dst,
                         int dst_dev) {
  op_shape s = {0, (uint8_t)(optype >= ompt_target_data_alloc_async), 0, OMPLENS_HOST, 0, 0};
  int base = s.async ? (int)optype - 16 : (int)optype;
  uint64_t sa = (uint64_t)(uintptr_t)src, da = (uint64_t)(uintptr_t)dst;
  switch (base) {
  case ompt_target_data_transfer_to_device:
    s.kind = is_host(src_dev) ? OMPLENS_EV_H2D : OMPLENS_EV_D2D;
    s.peer = is_host(src_dev) ? OMPLENS_HOST : src_dev;
    s.device = dst_dev;
    s.host = is_host(src_dev) ? sa : 0;
    s.dev = da;
    break;
  case ompt_target_data_transfer_from_device:
    if (is_host(dst_dev)) {
      s.kind = OMPLENS_EV_D2H;
      s.device = src_dev;
      s.host = da;
      s.dev = sa;
    } else { /* a device-to-device copy seen from the source */
      s.kind = OMPLENS_EV_D2D;
      s.device = dst_dev;
      s.peer = src_dev;
      s.dev = da;
    }
    break;
  case ompt_target_data_delete:
    s.kind = OMPLENS_EV_DELETE;
    s.device = src_dev;
    s.dev = sa;
    break;
  case ompt_target_data_alloc:
    s.kind = OMPLENS_EV_ALLOC;
    s.device = dst_dev;
    s.host = sa;
    s.dev = da;
    break;
  case ompt_target_data_associate:
  case ompt_target_data_disassociate:
    s.kind = base == ompt_target_data_associate ? OMPLENS_EV_ASSOCIATE : OMPLENS_EV_DISASSOCIATE;
    s.device = dst_dev;
    s.host = sa;
    s.dev = da;
    break;
  default:
    break;
  }
  return s;
}

/* A host-to-device copy's source is hashed on the hasher thread while the
 * runtime copies it: the host does not write it during the copy. */
static void begin_copy_hash(ompt_target_data_op_t optype, void *src, int src_dev, void *dst,
                            int dst_dev, size_t bytes) {
  op_shape s = shape_op(optype, src, src_dev, dst, dst_dev);
  if (s.kind != OMPLENS_EV_H2D || !s.host || bytes < OMPLENS_HASH_SPLIT)
    return;
  thread_state *ts = self();
  if (ts->copy_ticket >= 0) /* an older one never ended: collect it */
    omplens_hasher__collect(ts->copy_ticket);
  ts->copy_src = (const void *)(uintptr_t)s.host;
  ts->copy_bytes = bytes;
  ts->copy_ticket = omplens_hasher__post(ts->copy_src, bytes);
}

static uint64_t end_copy_hash(thread_state *ts, const void *src, size_t bytes) {
  int ticket = ts->copy_ticket;
  if (ticket < 0)
    return hash_bytes(src, bytes);
  ts->copy_ticket = -1;
  uint64_t h = omplens_hasher__collect(ticket);
  return ts->copy_src == src && ts->copy_bytes == bytes ? h : hash_bytes(src, bytes);
}

static void on_target_data_op_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                                  ompt_data_t *target_data, ompt_id_t *host_op_id,
                                  ompt_target_data_op_t optype, void *src_addr,
                                  int src_device_num, void *dest_addr, int dest_device_num,
                                  size_t bytes, const void *codeptr_ra) {
  uint64_t t = now_ns();
  if (endpoint == ompt_scope_begin) {
    if (host_op_id) /* the op's begin time travels in its host_op_id */
      *host_op_id = t;
    if (unrecorded(self()))
      return;
    begin_copy_hash(optype, src_addr, src_device_num, dest_addr, dest_device_num, bytes);
    return;
  }
  thread_state *ts = self();
  if (unrecorded(ts)) {
    if (ts->copy_ticket >= 0) { /* its hash was posted at the begin */
      omplens_hasher__collect(ts->copy_ticket);
      ts->copy_ticket = -1;
    }
    return;
  }
  op_shape s = shape_op(optype, src_addr, src_device_num, dest_addr, dest_device_num);
  if (!s.kind)
    return;
  omplens_tw_op op = {.begin_ns = host_op_id && *host_op_id ? *host_op_id : t, .end_ns = t,
                      .host_addr = s.host, .dev_addr = s.dev, .bytes = bytes,
                      .region = target_data ? target_data->value : 0,
                      .own_codeptr = (uint64_t)(uintptr_t)codeptr_ra, .device = s.device,
                      .peer = s.peer, .kind = s.kind, .async = s.async};
  int hashable = bytes && s.host && (s.kind == OMPLENS_EV_H2D || s.kind == OMPLENS_EV_D2H);
  if (hashable && s.kind == OMPLENS_EV_D2H && op.region && ts->npending < MAX_PENDING) {
    ts->pending[ts->npending++] = op;
    return;
  }
  if (hashable) {
    const void *host = (const void *)(uintptr_t)s.host;
    op.hash = s.kind == OMPLENS_EV_H2D ? end_copy_hash(ts, host, bytes) : hash_bytes(host, bytes);
    op.hashed = 1;
    op.early = s.kind == OMPLENS_EV_D2H && op.region;
  }
  async_copy call;
  if (!op.region && take_async_copy(src_addr, dest_addr, bytes, &call)) {
    op.own_codeptr = call.caller; /* the copy an omp_target_memcpy_async asked for */
    write_call_path(ts, call.path, call.path_len);
  } else if (!op.region) { /* a device memory API call: its own call path */
    write_runtime_call_path(ts, op.own_codeptr);
  }
  omplens_tw_op_write(&ts->stream, &op);
}

static void on_target_submit_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                                 ompt_id_t *host_op_id, unsigned int requested_num_teams) {
  uint64_t t = now_ns();
  if (endpoint == ompt_scope_begin) {
    if (host_op_id)
      *host_op_id = t;
    return;
  }
  thread_state *ts = self();
  if (unrecorded(ts))
    return;
  uint64_t begin = host_op_id && *host_op_id ? *host_op_id : t;
  uint64_t region = target_data ? target_data->value : 0;
  if (!region && ts->stream.depth && ts->stream.depth <= OMPLENS_TW_MAX_NESTING)
    region = ts->stream.open[ts->stream.depth - 1]; /* LLVM 19 passes no target_data here */
  omplens_tw_kernel(&ts->stream, begin, t, ts->region_device, requested_num_teams, region);
}

/* ---- host waits for deferred target tasks ------------------------------ */

/* A `target nowait` creates a deferred target task on the encountering
 * thread (LLVM runs it on a hidden helper thread). */
static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame,
                           ompt_data_t *new_task_data, int flags, int has_dependences,
                           const void *codeptr_ra) {
  (void)encountering_task_data, (void)encountering_task_frame, (void)new_task_data,
      (void)has_dependences, (void)codeptr_ra;
  if ((flags & ompt_task_target) && !(flags & ompt_task_undeferred))
    tls_deferred++;
}

/* The synchronization constructs that wait for a thread's tasks. */
static int wait_kind(ompt_sync_region_t kind) {
  switch (kind) {
  case ompt_sync_region_taskwait: return OMPLENS_WAIT_TASKWAIT;
  case ompt_sync_region_taskgroup: return OMPLENS_WAIT_TASKGROUP;
  case ompt_sync_region_barrier:
  case ompt_sync_region_barrier_implicit:
  case ompt_sync_region_barrier_explicit:
  case ompt_sync_region_barrier_implementation:
  case ompt_sync_region_barrier_implicit_workshare:
  case ompt_sync_region_barrier_implicit_parallel: return OMPLENS_WAIT_BARRIER;
  default: return 0;
  }
}

/* libomp calls this at every barrier of every thread: a thread that created
 * no deferred target task since its last wait returns after reading two
 * thread-locals. Otherwise the outermost wait is timed and written when it
 * ends (no lock, no allocation: the thread's own stream), and the thread's
 * deferred tasks count as waited for. Waits inside a target construct (the
 * host plugin runs kernels as parallel regions) are the construct's. */
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra) {
  (void)parallel_data, (void)task_data;
  if (endpoint == ompt_scope_begin) {
    if (tls_wait.depth) {
      tls_wait.depth++;
      return;
    }
    if (!tls_deferred)
      return;
    int k = wait_kind(kind);
    thread_state *ts = tls_state;
    if (!k || !g.active || is_paused() || (ts && ts->nesting))
      return;
    tls_wait.depth = 1;
    tls_wait.kind = (uint8_t)k;
    tls_wait.codeptr = (uint64_t)(uintptr_t)codeptr_ra;
    tls_wait.begin_ns = now_ns();
    return;
  }
  if (!tls_wait.depth || --tls_wait.depth)
    return;
  uint64_t t = now_ns();
  tls_deferred = 0;
  thread_state *ts = self();
  if (!ts->stream.dead && !is_paused())
    omplens_tw_wait(&ts->stream, tls_wait.begin_ns, t, tls_wait.kind, tls_wait.codeptr);
}

/* ---- start-up and finish --------------------------------------------- */

static void register_all(ompt_set_callback_t set_callback) {
#define OMPLENS_REGISTER(name, missing)                                                  \
  {                                                                                      \
    ompt_set_result_t r =                                                                \
        set_callback(ompt_callback_##name, (ompt_callback_t)(void (*)(void))on_##name);  \
    if (r == ompt_set_never || r == ompt_set_error)                                      \
      warn("omplens: the OpenMP runtime never reports " #name ": " missing);            \
  }
  OMPLENS_OMPT_EVENTS(OMPLENS_REGISTER)
#undef OMPLENS_REGISTER
}

static char *const *read_argv(void) {
  static char buf[65536];
  static char *argv[1024];
  FILE *f = fopen("/proc/self/cmdline", "rb");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  buf[n] = 0;
  size_t argc = 0;
  for (size_t i = 0; i < n && argc < 1023; i += strlen(buf + i) + 1)
    argv[argc++] = buf + i;
  argv[argc] = NULL;
  return argv;
}

static const char *exe_name(const char *exe) {
  const char *slash = strrchr(exe, '/');
  return slash ? slash + 1 : exe;
}

/* Creates the trace file in $OMPLENS_OUTPUT_DIR (default: the current
 * directory), named by rank too in an MPI job, so that the ranks of one
 * job never collide; a pid collision gets a numeric suffix. */
static int open_trace(void) {
  static char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  const char *dir = getenv("OMPLENS_OUTPUT_DIR");
  if (!dir || !*dir)
    dir = ".";
  struct timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  omplens_tw_header h = {.pid = getpid(), .exe = exe, .argv = read_argv(),
                         .start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u +
                                              (uint64_t)rt.tv_nsec,
                         .start_monotonic_ns = now_ns(),
                         .each_module = omplens_collector__each_module};
  int rank = 0, size = 0;
  h.in_job = omplens_mpi_rank(&rank, &size);
  h.rank = rank;
  h.job_size = size;
  static char job[128]; /* ranks of one job share it: a report merges them */
  if (h.in_job && omplens_mpi_job_id(job, sizeof job))
    h.job = job;
  char tag[16] = ""; /* "r3-" */
  if (h.in_job)
    snprintf(tag, sizeof tag, "r%d-", rank);
  int rc = -EEXIST;
  for (int k = 0; k < 100 && rc == -EEXIST; k++) {
    int len = k == 0 ? snprintf(g.path, sizeof g.path, "%s/omplens-%.200s-%s%d.trace", dir,
                              exe_name(exe), tag, (int)h.pid)
                     : snprintf(g.path, sizeof g.path, "%s/omplens-%.200s-%s%d.%d.trace", dir,
                              exe_name(exe), tag, (int)h.pid, k);
    if (len < 0 || (size_t)len >= sizeof g.path)
      return -ENAMETOOLONG;
    rc = omplens_tw_open(&g.writer, g.path, &h, 0);
  }
  return rc;
}

static void finish(void) {
  if (!g.active || atomic_exchange(&g.finished, 1))
    return;
  thread_state *ts = tls_state;
  if (ts && ts != &overflow_state)
    flush_pending(ts);
  uint64_t dropped = atomic_load(&g.writer.dropped);
  if (omplens_tw_close(&g.writer, now_ns(), -1))
    warn("omplens: could not finish the trace %s", g.path);
  if (dropped)
    warn("omplens: %llu events were not recorded (more than %d threads, or no space)",
         (unsigned long long)dropped, MAX_THREADS);
}

/* libomptarget attaches to OMPT through dlopen("libomp.so"); when that name
 * cannot be found, the tool sees no target event at all. Say so once. */
static void check_libomptarget_link(void) {
  void *h = dlopen("libomp.so", RTLD_LAZY | RTLD_NOLOAD);
  if (!h)
    h = dlopen("libomp.so", RTLD_LAZY);
  if (h) {
    dlclose(h);
    return;
  }
  warn("omplens: libomp.so is not on the library search path, so libomptarget will report "
       "no target events; add LLVM's lib directory to LD_LIBRARY_PATH (omplens run does)");
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num,
                      ompt_data_t *tool_data) {
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set_callback) {
    warn("omplens: the OpenMP runtime offers no ompt_set_callback; not profiling");
    return 0;
  }
  void *pool = mmap(NULL, sizeof(thread_state) * MAX_THREADS, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pool == MAP_FAILED) {
    warn("omplens: cannot reserve thread buffers; not profiling");
    return 0;
  }
  g.pool = pool;
  int rc = open_trace();
  if (rc) {
    warn("omplens: cannot create trace %s: %s; not profiling", g.path, strerror(-rc));
    munmap(pool, sizeof(thread_state) * MAX_THREADS);
    return 0;
  }
  g.active = 1;
  overflow_state.copy_ticket = -1;
  omplens_callpath__prime();
  omplens_hasher__start(); /* without it, hashes are computed inline */
  register_all(set_callback);
  check_libomptarget_link();
  atexit(finish); /* also covers exit paths that skip ompt finalize */
  return 1;
}

static void finalize(ompt_data_t *tool_data) { finish(); }

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  const char *off = getenv("OMPLENS_DISABLE");
  if (off && *off && strcmp(off, "0"))
    return NULL;
  return &result;
}
