/* omplens trace library: the on-disk trace format shared by the collector
 * (writer) and the analysis side (reader). The format is described in
 * docs/trace-format.md.
 *
 * Reader API: a trace is decoded, chunk by chunk, into one array of
 * normalized events sorted by begin time, plus a table of construct
 * instances ("regions"); the file itself is not kept in memory. Every function returns 0 or a negative
 * OMPLENS_TRACE_E* code; omplens_trace_strerror() explains a code. */
#ifndef OMPLENS_TRACE_H
#define OMPLENS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device number used for the host after normalization, whatever number the
 * runtime gave it (LLVM host offload: number of devices; others: -1). */
#define OMPLENS_HOST (-1)
#define OMPLENS_NO_REGION UINT32_MAX

/* Event kinds, after normalization. The OMPT _async variants of data ops map
 * onto the same kinds (with OMPLENS_EVF_ASYNC set). */
enum omplens_event_kind {
  OMPLENS_EV_ALLOC = 1,  /* device allocation: host_addr -> dev_addr, bytes */
  OMPLENS_EV_H2D = 2,    /* host -> device copy; hash = hash of host source */
  OMPLENS_EV_D2H = 3,    /* device -> host copy; hash = hash of host dest   */
  OMPLENS_EV_DELETE = 4, /* device free of dev_addr (bytes often 0)         */
  OMPLENS_EV_ASSOCIATE = 5,
  OMPLENS_EV_DISASSOCIATE = 6,
  OMPLENS_EV_D2D = 7,    /* device -> device copy (peer_device is source)   */
  OMPLENS_EV_KERNEL = 8, /* kernel submission (target_submit)               */
};

/* Construct kinds, as ompt_target_t without the nowait variants. */
enum omplens_construct_kind {
  OMPLENS_CONSTRUCT_TARGET = 1,
  OMPLENS_CONSTRUCT_ENTER_DATA = 2,
  OMPLENS_CONSTRUCT_EXIT_DATA = 3,
  OMPLENS_CONSTRUCT_UPDATE = 4,
};

enum omplens_event_flags {
  OMPLENS_EVF_HASHED = 1u << 0,  /* hash is valid */
  OMPLENS_EVF_ASYNC = 1u << 1,   /* reported by an OMPT _async data op */
  OMPLENS_EVF_EARLY_HASH = 1u << 2, /* D2H hashed at op end, not construct end */
  OMPLENS_EVF_OWN_CODEPTR = 1u << 3, /* codeptr is the op's own (no construct) */
};

/* One normalized event, 56 bytes: a trace holds one per operation, and
 * the events are most of a report's memory. Times are nanoseconds since the
 * trace's start. An event names its directive's code address by a site: an
 * index into the trace's table of distinct code addresses,
 * omplens_trace_sites(), whose entry 0 is 0 (unknown).
 *
 * Bit-fields keep it small; each bounds what a trace can hold (the reader
 * checks, docs/trace-format.md "What the reader does with damage"): times
 * and sizes below 2^48 (78 hours; 256 TiB), 4096 host threads (the collector
 * records 1024), 2^24 - 1 sites. A bit-field has no address: copy it. */
typedef struct omplens_event {
  uint64_t host_addr;      /* host-side buffer (0 for kernels and deletes) */
  uint64_t dev_addr;       /* device-side buffer                           */
  uint64_t hash;           /* omplens_content_hash() of the host-side bytes */
  uint64_t begin_ns : 48;
  uint64_t thread : 12;    /* index of the host thread within this trace   */
  uint64_t kind : 4;       /* enum omplens_event_kind                      */
  uint64_t end_ns : 48;
  int64_t device : 16;     /* device side of the op, >= 0                  */
  uint64_t bytes : 48;     /* kernels: number of teams                     */
  int64_t peer_device : 16;/* D2D: source device; otherwise OMPLENS_HOST   */
  uint32_t region;         /* index into regions, or OMPLENS_NO_REGION     */
  uint32_t site : 24;      /* directive's code address (construct's, op's) */
  uint32_t flags : 8;      /* enum omplens_event_flags                     */
} omplens_event;

/* The bounds of the bit-fields above. */
#define OMPLENS_EVENT_MAX_NS ((UINT64_C(1) << 48) - 1)    /* times, in ns  */
#define OMPLENS_EVENT_MAX_BYTES ((UINT64_C(1) << 48) - 1) /* bytes, teams  */
#define OMPLENS_MAX_SITES ((UINT32_C(1) << 24) - 1)      /* with site 0   */

/* Host threads a trace can hold: the event's thread index is 12 bits (the
 * collector records at most 1024); the reader skips the chunks of others. */
#define OMPLENS_MAX_THREADS 4096

/* One dynamic instance of a target construct (target, enter/exit data,
 * update; a `target data` region shows as an enter and an exit). */
typedef struct omplens_region {
  uint64_t begin_ns;
  uint64_t end_ns;    /* == begin_ns when the end was never recorded */
  uint64_t codeptr;   /* copies of one directive (unrolled, inlined) whose
                         entry calls name the same source share the first
                         copy's codeptr */
  /* From the runtime entry call, when the collector could see it (LD_PRELOAD):
   * the directive's location as the compiler wrote it, ";file;function;line;
   * column;;" (NULL when unknown), and its map arguments. */
  const char *source;
  uint32_t first_arg; /* index into omplens_trace_args() */
  uint32_t call_path; /* omplens_trace_call_path(); 0 when unknown */
  uint16_t thread;    /* index of the host thread, as an event's */
  int16_t device;
  uint16_t num_args;  /* at most OMPLENS_MAX_CALL_ARGS */
  uint8_t kind;       /* enum omplens_construct_kind */
  uint8_t nowait;
} omplens_region;     /* 48 bytes: a long trace holds one per construct */

/* Map arguments a region keeps of its entry call: a call with more (a
 * struct of tens of thousands of mapped members) keeps its first ones. */
#define OMPLENS_MAX_CALL_ARGS 65535

/* Map-type bits of omplens_map_arg.type (LLVM's OpenMP offload ABI). */
enum omplens_map_bits {
  OMPLENS_MAPBIT_TO = 0x01,
  OMPLENS_MAPBIT_FROM = 0x02,
  OMPLENS_MAPBIT_ALWAYS = 0x04,
  OMPLENS_MAPBIT_DELETE = 0x08,
  OMPLENS_MAPBIT_PTR_AND_OBJ = 0x10,
  OMPLENS_MAPBIT_TARGET_PARAM = 0x20,
  OMPLENS_MAPBIT_RETURN_PARAM = 0x40, /* use_device_ptr, use_device_addr */
  OMPLENS_MAPBIT_LITERAL = 0x100,
  OMPLENS_MAPBIT_IMPLICIT = 0x200,
  OMPLENS_MAPBIT_CLOSE = 0x400,
  OMPLENS_MAPBIT_PRESENT = 0x1000,
};

/* One map argument of a directive's entry call. A LITERAL argument passes
 * a value (a firstprivate scalar, a loop's counter), not a buffer: the
 * reader keeps no value (base and begin are 0), so that the lists of a
 * construct run with other values are one list, and no operation is ever
 * taken for it. */
typedef struct omplens_map_arg {
  uint64_t base, begin, size;
  uint64_t type;     /* enum omplens_map_bits; MEMBER_OF in the top 16 */
  const char *name;  /* ";a[0:n];file;line;column;;" (with -g), or NULL */
} omplens_map_arg;

/* One construct's list of n map arguments, searched by address: order[]
 * gets the places 0..n-1 sorted by begin, size and place
 * (omplens_map_args_sort), and omplens_map_args_find() gives the first
 * buffer argument that begins at addr and is bytes long, or UINT32_MAX.
 * omplens_map_arg_is() says whether an argument is that buffer, and
 * omplens_map_arg_holds() whether its buffer holds addr: a literal is no
 * buffer. */
void omplens_map_args_sort(const omplens_map_arg *list, uint32_t n, uint32_t *order);
uint32_t omplens_map_args_find(const omplens_map_arg *list, const uint32_t *order, uint32_t n,
                               uint64_t addr, uint64_t bytes);
static inline bool omplens_map_arg_is(const omplens_map_arg *a, uint64_t addr, uint64_t bytes) {
  return a->begin == addr && a->size == bytes && !(a->type & OMPLENS_MAPBIT_LITERAL);
}
static inline bool omplens_map_arg_holds(const omplens_map_arg *a, uint64_t addr) {
  return addr >= a->begin && addr < a->begin + a->size && !(a->type & OMPLENS_MAPBIT_LITERAL);
}

/* The sorted orders of a trace's lists of map arguments (its
 * omplens_trace_args(), nargs of them), each list made once: order[] holds
 * a sorted list's places at its span of indices, and sorted[] its length
 * + 1 at its first index and OMPLENS_MAP_LIST_INSIDE at the others (0:
 * not in a sorted list). A list that overlaps one sorted with other bounds
 * (lists the reader could not share) is not sorted. A zeroed value is
 * empty; free with omplens_map_lists_free. */
#define OMPLENS_MAP_LIST_INSIDE UINT32_MAX
typedef struct omplens_map_lists {
  uint32_t *order, *sorted;
} omplens_map_lists;
/* The order of the list of n arguments at args[first], sorted now unless
 * it was; NULL when it overlaps another or memory is short. */
const uint32_t *omplens_map_lists_sort(omplens_map_lists *l, const omplens_map_arg *args,
                                       size_t nargs, uint32_t first, uint32_t n);
/* That list's order if it is sorted, else NULL; reads only (threads may
 * share it once the lists they ask for are sorted). */
const uint32_t *omplens_map_lists_order(const omplens_map_lists *l, uint32_t first, uint32_t n);
void omplens_map_lists_free(omplens_map_lists *l);

/* Allocation lifetimes, as the detectors define them: each ALLOC of a
 * trace's events and the DELETE that ends it, the first DELETE of its
 * (device, dev_addr) before that address is allocated again. Kept per
 * allocation, not per event. build: 0, or -1 without memory (l is then
 * empty); free with omplens_lifetimes_free. delete_of: the DELETE ending
 * the ALLOC at event index alloc, or UINT32_MAX (none, or not an ALLOC);
 * *at (0 at first) is where the last one asked was, so that asking in
 * event order is a short search. */
typedef struct omplens_lifetimes {
  uint32_t *allocs;  /* event index of each ALLOC, in event order */
  uint32_t *deletes; /* by allocation: its DELETE's event index, or UINT32_MAX */
  size_t count;
} omplens_lifetimes;
int omplens_lifetimes_build(omplens_lifetimes *l, const omplens_event *events, size_t n);
uint32_t omplens_lifetimes_delete_of(const omplens_lifetimes *l, uint32_t alloc, size_t *at);
void omplens_lifetimes_free(omplens_lifetimes *l);

typedef struct omplens_module {
  const char *path;
  uint64_t base;      /* load address (l_addr)        */
  uint64_t low, high; /* mapped range of the module   */
  uint8_t build_id[20];
  uint8_t build_id_len;
} omplens_module;

typedef struct omplens_trace_info {
  uint32_t version;
  int32_t pid;
  int32_t rank;          /* MPI rank from the launcher, -1 outside a job   */
  int32_t job_size;      /* ranks in the job, 0 when unknown               */
  const char *job;       /* the launcher's job id, NULL when none was told */
  const char *exe;
  const char *cmdline;   /* arguments joined with spaces, shell-quoted */
  uint64_t start_realtime_ns; /* wall clock at start, ns since the epoch */
  uint64_t duration_ns;  /* start to finish (or last event if incomplete) */
  int complete;          /* 1 when the program finished normally          */
  int exit_status;       /* valid when complete                           */
  int num_devices;       /* highest device number seen + 1                */
  uint64_t dropped;      /* events the collector could not record         */
  size_t num_modules;
  const omplens_module *modules;
} omplens_trace_info;

typedef struct omplens_trace omplens_trace;

enum omplens_trace_error {
  OMPLENS_TRACE_OK = 0,
  OMPLENS_TRACE_EIO = -1,       /* cannot open or read the file (errno kept) */
  OMPLENS_TRACE_ENOTTRACE = -2, /* not an omplens trace (bad magic)          */
  OMPLENS_TRACE_EVERSION = -3,  /* written by a newer omplens                */
  OMPLENS_TRACE_ECORRUPT = -4,  /* header unreadable                         */
  OMPLENS_TRACE_ENOMEM = -5,
  OMPLENS_TRACE_ETOOBIG = -6,   /* exceeds the reader's limits               */
  OMPLENS_TRACE_EINVAL = -7,    /* bad argument (an empty window)            */
};

const char *omplens_trace_strerror(int err);

/* Reads and decodes a trace file. On success *out is a new trace (caller
 * frees with omplens_trace_close). Damaged chunks after a readable header do
 * not fail the call: they are skipped, counted and reported through
 * omplens_trace_damage(). On failure *out is NULL. */
int omplens_trace_open(const char *path, omplens_trace **out);

/* How far a long call has got, for a progress line: `done` of `total`
 * units of work. It is called now and then (a chunk of the trace, 64k
 * events), never per event; from the threads doing the work, two at once
 * at times, so that figures may arrive out of order (keep the largest).
 * On success the last call, if any, has done == total. It must be cheap
 * and thread-safe. */
typedef void omplens_progress_fn(void *ctx, uint64_t done, uint64_t total);

typedef struct omplens_trace_open_options {
  omplens_progress_fn *progress; /* NULL: not told */
  void *progress_ctx;            /* its first argument */
} omplens_trace_open_options;

/* omplens_trace_open, telling opts->progress (opts may be NULL) of the
 * bytes decoded: each record is decoded twice, and the events are sorted
 * between the passes, which counts as a third of a pass. */
int omplens_trace_open_with(const char *path, const omplens_trace_open_options *opts,
                            omplens_trace **out);
/* Reads a trace's header alone (pid, rank, job, executable, command line,
 * start time): a trace without events, cheap whatever the file's size. */
int omplens_trace_open_header(const char *path, omplens_trace **out);
/* Decodes a trace from memory (the fuzzer's entry point). The bytes are
 * copied as needed; the caller keeps ownership of data. */
int omplens_trace_open_memory(const void *data, size_t size, omplens_trace **out);
void omplens_trace_close(omplens_trace *t);

/* All pointers below are valid until omplens_trace_close(t). NULL t gives
 * NULL / 0. */
const omplens_trace_info *omplens_trace_get_info(const omplens_trace *t);
const omplens_event *omplens_trace_events(const omplens_trace *t, size_t *count);
const omplens_region *omplens_trace_regions(const omplens_trace *t, size_t *count);
const omplens_map_arg *omplens_trace_args(const omplens_trace *t, size_t *count);
/* Region r's map arguments, *n of them (as many of its num_args as the
 * trace holds); NULL and 0 when it has none. */
const omplens_map_arg *omplens_trace_region_args(const omplens_trace *t, const omplens_region *r,
                                                 uint32_t *n);
/* The distinct code addresses of the events' directives, indexed by
 * omplens_event.site; entry 0 is 0 (unknown), so count >= 1 for any trace. */
const uint64_t *omplens_trace_sites(const omplens_trace *t, size_t *count);
/* The index of codeptr in omplens_trace_sites(), or 0 when it is not there
 * (also for a NULL t). Every region's codeptr is there: a caller can keep a
 * flag per site instead of a set of code addresses. */
uint32_t omplens_trace_site_index(const omplens_trace *t, uint64_t codeptr);
/* The code address of e's directive: omplens_trace_sites(t)[e->site], or 0
 * (also for a NULL t or e). */
uint64_t omplens_trace_codeptr(const omplens_trace *t, const omplens_event *e);
/* Call paths: the user calls that led to a construct or a device memory
 * API call, as return addresses (symbolize each like a codeptr): first the
 * directive's own call site (the construct's codeptr before copies of one
 * directive, inlined or unrolled, share the first copy's), then its
 * callers, innermost first. Path 0 is unknown (older traces, an unwind that failed, a
 * program not built with unwind tables). Returns the path's frames and
 * their number in *count, or NULL and 0 for path 0 or one out of range. */
const uint64_t *omplens_trace_call_path(const omplens_trace *t, uint32_t path, size_t *count);
/* The most frames a call path holds (one longer was cut). */
#define OMPLENS_CALL_PATH_MAX 9u
/* The call path of event number `event`: its region's, or for an op of
 * the device memory API (own codeptr) its own; 0 when unknown. */
uint32_t omplens_trace_event_call_path(const omplens_trace *t, size_t event);
/* Human-readable description of damage found while reading, or NULL. */
const char *omplens_trace_damage(const omplens_trace *t);
const char *omplens_trace_path(const omplens_trace *t);
/* The runtime's type string of a device (OMPT device_initialize:
 * "generic-64bit" for host offload with LLVM, the plugin's name on a GPU),
 * or NULL when the trace does not say (older traces, devices numbered
 * OMPLENS_TRACE_TYPED_DEVICES or more). */
#define OMPLENS_TRACE_TYPED_DEVICES 64
const char *omplens_trace_device_type(const omplens_trace *t, int device);

/* The program's omp_control_tool commands the trace records (version 4). */
enum omplens_tool_command {
  OMPLENS_TOOL_START = 1,
  OMPLENS_TOOL_PAUSE = 2,
  OMPLENS_TOOL_END = 4,
};

/* A stretch of the run in which the program had paused omplens
 * (omp_control_tool pause, or end, until start): nothing was recorded
 * then. end_ns is the trace's duration when it was never started again. */
typedef struct omplens_trace_pause {
  uint64_t begin_ns, end_ns;
} omplens_trace_pause;

/* The paused stretches, in time order and disjoint (NULL and 0 for a
 * trace never paused, and for one older than version 4). */
const omplens_trace_pause *omplens_trace_pauses(const omplens_trace *t, size_t *count);
/* The time the program had omplens paused, within [begin_ns, end_ns). */
uint64_t omplens_trace_paused_ns(const omplens_trace *t, uint64_t begin_ns, uint64_t end_ns);

/* Where a host thread waited for deferred target tasks (version 5). */
enum omplens_wait_kind {
  OMPLENS_WAIT_TASKWAIT = 1,
  OMPLENS_WAIT_TASKGROUP = 2,  /* the end of a taskgroup */
  OMPLENS_WAIT_BARRIER = 3,    /* an explicit or implicit barrier */
};
const char *omplens_wait_kind_name(int kind); /* "taskwait", "taskgroup", "barrier" */

/* A host thread's wait at a taskwait, a taskgroup's end or a barrier for
 * the target tasks of `nowait` constructs (docs/detectors.md, "Host
 * waits"). The collector records a wait of a thread that had created
 * deferred target tasks since its last one; the reader keeps those in
 * which a nowait region ended, and ties each to the one that ended last:
 * the work that released the thread. */
typedef struct omplens_trace_wait {
  uint64_t begin_ns;  /* the thread begins to wait                          */
  uint64_t end_ns;    /* regions[region].end_ns: the wait counted ends here */
  uint64_t sync_end_ns; /* the thread went on (end_ns <= sync_end_ns)       */
  uint64_t codeptr;   /* the taskwait's (or barrier's) code address, 0 unknown */
  uint32_t thread;    /* the host thread that waited                       */
  uint32_t region;    /* index into omplens_trace_regions(): a nowait one   */
  uint8_t kind;       /* enum omplens_wait_kind                             */
} omplens_trace_wait;

/* The waits, by begin_ns (NULL and 0 for none and for traces older than
 * version 5). */
const omplens_trace_wait *omplens_trace_waits(const omplens_trace *t, size_t *count);

/* Restricts the trace to a time window: from then on omplens_trace_events()
 * gives only the events whose begin_ns is in [begin_ns, end_ns) (a
 * contiguous part of the array, which is sorted by begin time), and event
 * numbers (omplens_trace_event_call_path) count from its first. Regions,
 * sites and the info (duration included) stay those of the whole trace.
 * end_ns may be UINT64_MAX (to the end). begin_ns >= end_ns: EINVAL, and
 * the trace is unchanged. */
int omplens_trace_set_window(omplens_trace *t, uint64_t begin_ns, uint64_t end_ns);
/* 1 and the window in *begin_ns, *end_ns when one is set; else 0. */
int omplens_trace_window(const omplens_trace *t, uint64_t *begin_ns, uint64_t *end_ns);

/* The content hash of a transfer's bytes: XXH3-64, except that a buffer of
 * OMPLENS_HASH_SPLIT bytes or more is hashed as omplens_hash_combine() of
 * the XXH3-64 of its two halves (first half: n / 2 bytes). */
#define OMPLENS_HASH_SPLIT (1u << 20)
uint64_t omplens_content_hash(const void *p, size_t n);
uint64_t omplens_hash_part(const void *p, size_t n); /* XXH3-64 of one half */
uint64_t omplens_hash_combine(uint64_t first_half, uint64_t second_half);
/* omplens_content_hash() of n zero bytes, without a buffer of n bytes. */
uint64_t omplens_content_hash_of_zeros(uint64_t n);

const char *omplens_event_kind_name(int kind);
const char *omplens_construct_kind_name(int kind);

#ifdef __cplusplus
}
#endif
#endif
