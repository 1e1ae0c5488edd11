/* Trace reader: decodes a trace (docs/trace-format.md) into normalized events.
 * Input is untrusted: every length is checked, allocations are bounded by the
 * input size, and damage after a readable header is skipped and described
 * instead of failing the whole read. */
#include "asan.h"
#include "call_paths.h"
#include "omplens_bulk.h"
#include "omplens_trace.h"
#include "trace_format.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(OMPLENS_CALL_PATH_MAX == OMPLENS_TF_MAX_PATH, "the public bound is the format's");

/* Streamed stores (store_event) where the target has them, except under
 * AddressSanitizer, which checks plain stores only. */
#if defined(__SSE2__) && defined(__x86_64__) && !OMPLENS_ASAN
#define READER_STREAM 1
#else
#define READER_STREAM 0
#endif
#if READER_STREAM
#include <emmintrin.h>
#endif

#define MAX_HEADER_BYTES (16u << 20)
#define MAX_MODULES 4096u
#define MAX_DAMAGE_LINES 8
#define MAX_STACK 64

/* Where the bytes come from: a file descriptor or memory. */
typedef struct source {
  int fd;
  const uint8_t *mem;
  uint64_t size;
  int header_only; /* omplens_trace_open_header() */
} source;

typedef struct chunk_ref {
  uint64_t offset;
  uint32_t thread, seq, used;
  uint64_t base_ns;
} chunk_ref;

/* Program address -> text, from STRING records. */
typedef struct string_entry {
  uint64_t ptr;
  char *text;
} string_entry;

/* A TOOL record: the program's omp_control_tool command. */
typedef struct tool_command {
  uint64_t t;
  uint32_t command;
} tool_command;

struct omplens_trace {
  char *path;
  string_entry *strings; /* open addressing, power-of-two capacity */
  size_t num_strings, cap_strings;
  omplens_map_arg *args;
  uint64_t *arg_name_ptrs;   /* resolved into args[].name at the end */
  size_t num_args, cap_args, cap_arg_ptrs;
  uint32_t *list_slots;      /* SCAN: open addressing over the distinct
                                argument lists, by region index + 1 */
  size_t num_lists, cap_list_slots;
  uint64_t *region_loc_ptrs; /* resolved into regions[].source */
  size_t cap_region_ptrs;
  uint64_t device_type_ptrs[OMPLENS_TRACE_TYPED_DEVICES]; /* SCAN: by device */
  const char *device_types[OMPLENS_TRACE_TYPED_DEVICES];  /* resolved      */
  omplens_trace_info info;
  omplens_module *modules;
  char *strings_exe, *strings_cmd, *strings_job;
  omplens_event *events; /* sorted by begin time, exactly num_events */
  size_t num_events;
  omplens_region *regions;
  size_t num_regions, cap_regions;
  uint64_t *sites;           /* distinct codeptrs; sites[0] == 0 */
  size_t num_sites, cap_sites;
  uint32_t *site_slots;      /* open addressing over sites (site_find) */
  size_t cap_site_slots;     /* a power of two, or 0 */
  size_t *thread_region_base; /* first region index of each thread */
  size_t *thread_region_count;
  uint32_t num_threads;
  char *damage;
  size_t damage_len;
  unsigned damage_lines, damage_more;
  int quiet; /* damage is not recorded (the second decoding pass) */
  omplens_cp_table paths; /* call paths (CALL_PATH records) */
  tool_command *commands;  /* SCAN: TOOL records, made into pauses */
  size_t num_commands, cap_commands;
  omplens_trace_pause *pauses;
  size_t num_pauses;
  omplens_trace_wait *waits; /* WAIT records; then those tied to a region */
  size_t num_waits, cap_waits;
  uint64_t last_ns;
  /* omplens_trace_set_window: the events shown are events[window_first]
   * onwards, window_count of them (all when !windowed). */
  int windowed;
  uint64_t window_begin, window_end;
  size_t window_first, window_count;
  /* omplens_trace_open_with's hook, while reading: work done of total, in
   * payload bytes (two passes and the sort between them). */
  omplens_progress_fn *progress;
  void *progress_ctx;
  _Atomic uint64_t progress_done; /* PLACE adds from two threads */
  uint64_t progress_total;
};

_Static_assert(sizeof(omplens_event) == 56, "an event is 56 bytes: most of a report's memory");
_Static_assert(sizeof(omplens_region) == 48, "a region is 48 bytes: a long trace holds one per construct");

const char *omplens_trace_strerror(int err) {
  switch (err) {
  case OMPLENS_TRACE_OK: return "success";
  case OMPLENS_TRACE_EIO: return "cannot read the file";
  case OMPLENS_TRACE_ENOTTRACE: return "not an omplens trace (bad magic)";
  case OMPLENS_TRACE_EVERSION: return "trace written by a newer omplens (unsupported format version)";
  case OMPLENS_TRACE_ECORRUPT: return "trace header is damaged or truncated";
  case OMPLENS_TRACE_ENOMEM: return "out of memory";
  case OMPLENS_TRACE_ETOOBIG: return "trace exceeds the reader's limits";
  case OMPLENS_TRACE_EINVAL: return "invalid argument";
  default: return "unknown error";
  }
}

const char *omplens_event_kind_name(int kind) {
  static const char *const names[] = {
      [OMPLENS_EV_ALLOC] = "alloc",       [OMPLENS_EV_H2D] = "h2d",
      [OMPLENS_EV_D2H] = "d2h",           [OMPLENS_EV_DELETE] = "delete",
      [OMPLENS_EV_ASSOCIATE] = "associate", [OMPLENS_EV_DISASSOCIATE] = "disassociate",
      [OMPLENS_EV_D2D] = "d2d",           [OMPLENS_EV_KERNEL] = "kernel"};
  if (kind <= 0 || kind >= (int)(sizeof names / sizeof *names) || !names[kind])
    return "unknown";
  return names[kind];
}

const char *omplens_construct_kind_name(int kind) {
  switch (kind) {
  case OMPLENS_CONSTRUCT_TARGET: return "target";
  case OMPLENS_CONSTRUCT_ENTER_DATA: return "target enter data";
  case OMPLENS_CONSTRUCT_EXIT_DATA: return "target exit data";
  case OMPLENS_CONSTRUCT_UPDATE: return "target update";
  default: return "unknown";
  }
}

/* ---- small helpers --------------------------------------------------- */

static int read_at(const source *src, uint64_t off, void *buf, size_t n) {
  if (off > src->size || n > src->size - off)
    return -1;
  if (src->mem) {
    memcpy(buf, src->mem + off, n);
    return 0;
  }
  uint8_t *p = buf;
  while (n) {
    ssize_t k = pread(src->fd, p, n, (off_t)off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    p += k;
    n -= (size_t)k;
    off += (uint64_t)k;
  }
  return 0;
}

/* Grows *arr (element size es) so that it holds at least need elements. */

/* Appends one line to the damage list; past MAX_DAMAGE_LINES lines are only
 * counted, except the closing ones (force), which always get in. */
static void vdamage(omplens_trace *t, int force, const char *fmt, va_list ap) {
  if (t->quiet)
    return;
  if (!force && t->damage_lines >= MAX_DAMAGE_LINES) {
    t->damage_more++;
    return;
  }
  char line[256];
  int n = vsnprintf(line, sizeof line, fmt, ap);
  if (n < 0)
    return;
  size_t len = strlen(line);
  char *p = realloc(t->damage, t->damage_len + len + 2);
  if (!p)
    return;
  t->damage = p;
  memcpy(t->damage + t->damage_len, line, len);
  t->damage_len += len;
  t->damage[t->damage_len++] = '\n';
  t->damage[t->damage_len] = 0;
  t->damage_lines++;
}

static void damage(omplens_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void damage(omplens_trace *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdamage(t, 0, fmt, ap);
  va_end(ap);
}

static void damage_final(omplens_trace *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void damage_final(omplens_trace *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdamage(t, 1, fmt, ap);
  va_end(ap);
}

static char *dup_n(const uint8_t *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p)
    return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  for (size_t i = 0; i < n; i++) /* keep strings printable C strings */
    if (p[i] == 0)
      p[i] = ' ';
  return p;
}

/* ---- header ---------------------------------------------------------- */

/* Appends s to the command line, quoted when it has shell-special bytes. */
static void cmd_append(char **out, size_t *len, const char *s, size_t n) {
  int quote = n == 0;
  for (size_t i = 0; i < n && !quote; i++)
    quote = !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || strchr("-_./=:,+@%", s[i]));
  size_t need = *len + 4 * n + 4;
  char *p = realloc(*out, need);
  if (!p)
    return;
  *out = p;
  if (*len)
    p[(*len)++] = ' ';
  if (quote)
    p[(*len)++] = '\'';
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\'') {
      memcpy(p + *len, "'\\''", 4);
      *len += 4;
    } else {
      p[(*len)++] = s[i];
    }
  }
  if (quote)
    p[(*len)++] = '\'';
  p[*len] = 0;
}

static int parse_argv(omplens_trace *t, const uint8_t *v, uint32_t len) {
  size_t out_len = 0;
  char *out = NULL;
  for (uint32_t i = 0; i < len;) {
    const uint8_t *z = memchr(v + i, 0, len - i);
    size_t n = z ? (size_t)(z - (v + i)) : len - i;
    cmd_append(&out, &out_len, (const char *)v + i, n);
    i += (uint32_t)n + 1;
  }
  free(t->strings_cmd);
  t->strings_cmd = out ? out : calloc(1, 1);
  return t->strings_cmd ? 0 : -1;
}

static int parse_module(omplens_trace *t, const uint8_t *v, uint32_t len) {
  if (len < 45 || t->info.num_modules >= MAX_MODULES)
    return 0; /* ignored, not fatal */
  omplens_module *m = realloc(t->modules, (t->info.num_modules + 1) * sizeof *m);
  if (!m)
    return -1;
  t->modules = m;
  m += t->info.num_modules;
  memset(m, 0, sizeof *m);
  memcpy(&m->base, v, 8);
  memcpy(&m->low, v + 8, 8);
  memcpy(&m->high, v + 16, 8);
  m->build_id_len = v[24] > 20 ? 20 : v[24];
  memcpy(m->build_id, v + 25, m->build_id_len);
  m->path = dup_n(v + 45, len - 45);
  if (!m->path)
    return -1;
  t->info.num_modules++;
  return 0;
}

static int parse_tlv(omplens_trace *t, uint16_t type, const uint8_t *v, uint32_t len) {
  switch (type) {
  case OMPLENS_TF_TLV_PID:
    if (len >= 4)
      memcpy(&t->info.pid, v, 4);
    return 0;
  case OMPLENS_TF_TLV_RANK:
    if (len >= 8) {
      memcpy(&t->info.rank, v, 4);
      memcpy(&t->info.job_size, v + 4, 4);
      if (t->info.rank < 0 || t->info.job_size < 0)
        t->info.rank = -1, t->info.job_size = 0;
    }
    return 0;
  case OMPLENS_TF_TLV_JOB:
    free(t->strings_job);
    t->strings_job = len ? dup_n(v, len < 256 ? len : 256) : NULL;
    return !len || t->strings_job ? 0 : -1;
  case OMPLENS_TF_TLV_EXE:
    free(t->strings_exe);
    t->strings_exe = dup_n(v, len);
    return t->strings_exe ? 0 : -1;
  case OMPLENS_TF_TLV_ARGV:
    return parse_argv(t, v, len);
  case OMPLENS_TF_TLV_START:
    if (len >= 16)
      memcpy(&t->info.start_realtime_ns, v, 8);
    return 0;
  case OMPLENS_TF_TLV_MODULE:
    return parse_module(t, v, len);
  default:
    return 0; /* unknown items are skipped: newer minor additions */
  }
}

static int read_header(omplens_trace *t, const source *src, uint32_t *hdr_bytes) {
  uint8_t fixed[16];
  if (src->size < 8 || read_at(src, 0, fixed, 8))
    return OMPLENS_TRACE_ENOTTRACE;
  if (memcmp(fixed, OMPLENS_TF_MAGIC, 8))
    return OMPLENS_TRACE_ENOTTRACE;
  if (read_at(src, 0, fixed, 16))
    return OMPLENS_TRACE_ECORRUPT;
  memcpy(&t->info.version, fixed + 8, 4);
  memcpy(hdr_bytes, fixed + 12, 4);
  if (t->info.version > OMPLENS_TF_VERSION)
    return OMPLENS_TRACE_EVERSION;
  if (t->info.version == 0 || *hdr_bytes < 16 || *hdr_bytes > MAX_HEADER_BYTES ||
      *hdr_bytes % OMPLENS_TF_ALIGN)
    return OMPLENS_TRACE_ECORRUPT;
  uint64_t avail = src->size < *hdr_bytes ? src->size : *hdr_bytes;
  uint8_t *h = malloc(avail);
  if (!h)
    return OMPLENS_TRACE_ENOMEM;
  int rc = read_at(src, 0, h, avail) ? OMPLENS_TRACE_EIO : OMPLENS_TRACE_ECORRUPT;
  for (uint64_t off = 16; rc != OMPLENS_TRACE_EIO && off + 8 <= avail;) {
    uint16_t type;
    uint32_t len;
    memcpy(&type, h + off, 2);
    memcpy(&len, h + off + 4, 4);
    off += 8;
    if (type == OMPLENS_TF_TLV_END) {
      rc = OMPLENS_TRACE_OK;
      break;
    }
    if (len > avail - off)
      break;
    if (parse_tlv(t, type, h + off, len)) {
      rc = OMPLENS_TRACE_ENOMEM;
      break;
    }
    off += len;
  }
  free(h);
  return rc;
}

/* ---- chunk scan ------------------------------------------------------ */

static uint64_t chunk_span(uint32_t capacity) {
  uint64_t total = sizeof(omplens_tf_chunk) + (uint64_t)capacity;
  return (total + OMPLENS_TF_ALIGN - 1) / OMPLENS_TF_ALIGN * OMPLENS_TF_ALIGN;
}

static int is_zero(const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++)
    if (b[i])
      return 0;
  return 1;
}

static void read_end(omplens_trace *t, const source *src, uint64_t off) {
  omplens_tf_end e;
  if (read_at(src, off + sizeof(omplens_tf_chunk), &e, sizeof e)) {
    damage(t, "end record at offset %llu is truncated", (unsigned long long)off);
    return;
  }
  t->info.complete = 1;
  t->info.duration_ns = e.end_ns;
  t->info.dropped = e.dropped;
  t->info.exit_status = e.exit_status;
}

/* Validates the chunk at off; returns how far to advance. */
static uint64_t scan_one(omplens_trace *t, const source *src, uint64_t off,
                         chunk_ref **refs, size_t *n, size_t *cap, int *oom) {
  omplens_tf_chunk c;
  if (read_at(src, off, &c, sizeof c)) {
    damage(t, "file ends inside a chunk header at offset %llu (trace truncated)",
           (unsigned long long)off);
    return src->size - off;
  }
  if (c.magic != OMPLENS_TF_CHUNK_MAGIC) {
    if (!is_zero(&c, sizeof c))
      damage(t, "bad chunk at offset %llu: skipped", (unsigned long long)off);
    return OMPLENS_TF_ALIGN;
  }
  if (c.kind == OMPLENS_TF_CHUNK_END) {
    read_end(t, src, off);
    return OMPLENS_TF_ALIGN;
  }
  if (c.kind != OMPLENS_TF_CHUNK_EVENTS || c.capacity > OMPLENS_TF_MAX_CHUNK_BYTES ||
      c.used > c.capacity) {
    damage(t, "chunk at offset %llu has an invalid size or kind: skipped",
           (unsigned long long)off);
    return OMPLENS_TF_ALIGN;
  }
  uint64_t body = off + sizeof c;
  uint64_t used = c.used;
  if (body > src->size || used > src->size - body) {
    damage(t, "chunk at offset %llu is cut short (trace truncated)", (unsigned long long)off);
    used = body > src->size ? 0 : src->size - body;
  }
  if (omplens_bulk_grow((void **)refs, cap, *n + 1, sizeof **refs)) {
    *oom = 1;
    return src->size - off;
  }
  (*refs)[(*n)++] = (chunk_ref){off, c.thread, c.seq, (uint32_t)used, c.base_ns};
  return chunk_span(c.capacity);
}

/* Tells the progress hook, if any, of `bytes` more work done. */
static void progress_add(omplens_trace *t, uint64_t bytes) {
  if (!t->progress || !t->progress_total)
    return;
  uint64_t done = atomic_fetch_add_explicit(&t->progress_done, bytes, memory_order_relaxed) + bytes;
  t->progress(t->progress_ctx, done < t->progress_total ? done : t->progress_total,
              t->progress_total);
}

/* The sort between the passes counts as a third of a pass: on gen_trace
 * traces of 2M events it takes about 15 % of a read, each pass about
 * 40 %. */
static uint64_t sort_work(uint64_t payload) {
  return payload / 3;
}

static int cmp_chunk(const void *a, const void *b) {
  const chunk_ref *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* ---- record decoding -------------------------------------------------- */

/* The records are decoded twice. The first pass (SCAN) keeps the regions,
 * map arguments and strings, and of each event only its begin time. The
 * events' sorted order is computed from those times, and the second pass
 * (PLACE) writes each event straight into its slot of an array of the exact
 * size, streamed out a word at a time (store_event). Sorting the 56-byte
 * events after one pass would need either a second array of them or an
 * in-place permutation, whose random accesses cost more than decoding
 * again. */
enum pass { PASS_SCAN, PASS_PLACE };

/* What a record decoder returns. */
enum rec_result {
  REC_OK = 0,
  REC_BAD = -1,     /* undecodable: the rest of the chunk is skipped */
  REC_NOMEM = -2,
  REC_TOOBIG = -3,  /* more events than 32-bit slots can order (2^32 - 1) */
  REC_CHANGED = -4, /* PLACE met other records than SCAN: the file changed */
};

typedef struct thread_ctx {
  uint32_t thread;
  size_t stack[MAX_STACK];
  size_t depth;
  size_t base;        /* first region index of this thread */
  /* The entry call (CALL + ARG records) waiting for its region. */
  int call_pending;
  uint64_t call_loc, call_caller;
  size_t call_first_arg;
  uint32_t call_path; /* SCAN: the call path waiting for its region or op */
} thread_ctx;

typedef struct decoder {
  omplens_trace *t;
  enum pass pass;
  size_t num_events;     /* events decoded so far in this pass */
  uint64_t *begin;       /* SCAN: each event's begin time, in decode order */
  size_t max_events;     /* SCAN: room in begin (bounded by the payload bytes) */
  size_t *thread_first;  /* SCAN: first event of each thread's run of chunks */
  size_t num_thread_runs;
  const uint32_t *slot;  /* PLACE: each event's sorted position, in decode order */
  size_t num_regions;    /* PLACE: regions met so far (indices as in SCAN) */
  const uint32_t *region_site; /* PLACE: each region's site */
  uint64_t own_codeptr;  /* the op being decoded: its own codeptr, if flagged */
  int oom;               /* SCAN: a site could not be added */
  /* The split: PLACE's second thread starts at chunk split_chunk (the one
   * nearest the middle of the payload; 0: none), from the state SCAN
   * was in as it reached that chunk, copied when split_seen. */
  size_t split_chunk;
  int split_seen;
  thread_ctx split_tc;
  size_t split_events, split_regions;
} decoder;

typedef struct rec_ctx {
  const uint8_t *p, *end;
  omplens_tf_state st;
} rec_ctx;

static int dec_time(rec_ctx *r, uint64_t *t) {
  int64_t d;
  if (omplens_tf__get_sv(&r->p, r->end, &d))
    return -1;
  r->st.t += (uint64_t)d;
  *t = r->st.t;
  return 0;
}

/* Whether an event that begins at ts and lasts dur ns fits its fields
 * (OMPLENS_EVENT_MAX_NS: a run of 78 hours); a later time is damage. */
static int event_times_fit(uint64_t ts, uint64_t dur) {
  return ts <= OMPLENS_EVENT_MAX_NS && dur <= OMPLENS_EVENT_MAX_NS - ts;
}

static int dec_device(rec_ctx *r, int16_t *dev) {
  int64_t d;
  if (omplens_tf__get_sv(&r->p, r->end, &d) || d < -1 || d > 32767)
    return -1;
  *dev = (int16_t)d;
  return 0;
}

/* SCAN notes devices and times; PLACE, which may run on two threads, sees
 * the same again and leaves the trace alone. */
static void note_device(decoder *d, int16_t dev) {
  omplens_trace *t = d->t;
  if (d->pass == PASS_SCAN && dev >= 0 && dev + 1 > t->info.num_devices)
    t->info.num_devices = dev + 1;
}

static void note_time(decoder *d, uint64_t ns) {
  omplens_trace *t = d->t;
  if (d->pass == PASS_SCAN && ns > t->last_ns)
    t->last_ns = ns;
}

/* Where the pass decodes its next event: scratch, which end_event()
 * stores into its slot (PLACE); NULL past the events the pass can take. */
static omplens_event *next_event(decoder *d, omplens_event *scratch, int *why) {
  if (d->pass == PASS_SCAN) {
    *why = REC_TOOBIG;
    return d->num_events < d->max_events ? scratch : NULL;
  }
  *why = REC_CHANGED;
  return d->num_events < d->t->num_events ? scratch : NULL;
}

/* Writes event e into its slot. PLACE's slots are scattered over the
 * array: a plain store would first read each slot's lines from memory,
 * only to overwrite them, so the event is streamed out a word at a time. */
static void store_event(omplens_event *slot, const omplens_event *e) {
#if READER_STREAM
  long long w[sizeof *e / sizeof(long long)];
  memcpy(w, e, sizeof w);
  long long *to = (long long *)(void *)slot;
  for (size_t i = 0; i < sizeof w / sizeof *w; i++)
    _mm_stream_si64(to + i, w[i]);
#else
  *slot = *e;
#endif
}

/* Makes the streamed stores of this thread visible before it reports. */
static void stores_done(void) {
#if READER_STREAM
  _mm_sfence();
#endif
}

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

/* The slot of codeptr in a table of cap slots over sites: the one that
 * holds it, or the empty one it would take. */
static size_t site_slot(const uint32_t *slots, size_t cap, const uint64_t *sites,
                        uint64_t codeptr) {
  size_t j = (size_t)(codeptr * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
  while (slots[j] && sites[slots[j]] != codeptr)
    j = (j + 1) & (cap - 1);
  return j;
}

/* The site of a codeptr already added (PLACE only reads the table, so
 * that its threads can share it, and so do readers of the finished trace:
 * omplens_trace_site_index); 0 when it is not there. */
static uint32_t site_find(const omplens_trace *t, uint64_t codeptr) {
  if (!codeptr || !t->cap_site_slots)
    return 0;
  return t->site_slots[site_slot(t->site_slots, t->cap_site_slots, t->sites, codeptr)];
}

/* The site of codeptr: its index in t->sites, added when new. Returns 0
 * (the unknown site) when the tables cannot grow, and for the code
 * addresses past the OMPLENS_MAX_SITES an event can name. */
static uint32_t site_of(omplens_trace *t, uint64_t codeptr, int *oom) {
  if (!codeptr)
    return 0;
  if (t->num_sites > OMPLENS_MAX_SITES)
    return site_find(t, codeptr);
  if (2 * (t->num_sites + 1) > t->cap_site_slots) {
    size_t cap = t->cap_site_slots ? 2 * t->cap_site_slots : 256;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) {
      *oom = 1;
      return 0;
    }
    for (size_t i = 1; i < t->num_sites; i++)
      slots[site_slot(slots, cap, t->sites, t->sites[i])] = (uint32_t)i;
    free(t->site_slots);
    t->site_slots = slots;
    t->cap_site_slots = cap;
  }
  size_t j = site_slot(t->site_slots, t->cap_site_slots, t->sites, codeptr);
  if (t->site_slots[j])
    return t->site_slots[j];
  if (omplens_bulk_grow((void **)&t->sites, &t->cap_sites, t->num_sites + 1, sizeof *t->sites)) {
    *oom = 1;
    return 0;
  }
  t->sites[t->num_sites] = codeptr;
  t->site_slots[j] = (uint32_t)t->num_sites;
  return (uint32_t)t->num_sites++;
}

/* Ends the event that next_event() gave: SCAN keeps its begin time and
 * adds an own codeptr to the sites, PLACE gives the event its site, its
 * construct's or its own. */
static void end_event(decoder *d, omplens_event *e) {
  if (d->pass == PASS_SCAN) {
    d->begin[d->num_events] = e->begin_ns;
    if (e->flags & OMPLENS_EVF_OWN_CODEPTR)
      site_of(d->t, d->own_codeptr, &d->oom);
  } else {
    if (e->flags & OMPLENS_EVF_OWN_CODEPTR)
      e->site = site_find(d->t, d->own_codeptr);
    else if (e->region != OMPLENS_NO_REGION)
      e->site = d->region_site[e->region];
    store_event(&d->t->events[d->slot[d->num_events]], e);
  }
  d->num_events++;
}

/* Region index of an explicit id (thread << 32 | n, the thread's n-th). */
static uint32_t region_of_id(const omplens_trace *t, uint64_t id) {
  uint64_t th = id >> 32, k = id & 0xffffffffu;
  if (th < t->num_threads && k >= 1 && k <= t->thread_region_count[th])
    return (uint32_t)(t->thread_region_base[th] + k - 1);
  return OMPLENS_NO_REGION;
}

/* Attaches event e to its region per the record flags. An explicit id can
 * name a region of a thread decoded later, so it is resolved by PLACE. */
static int dec_region_ref(decoder *d, rec_ctx *r, thread_ctx *tc, uint8_t flags,
                          omplens_event *e) {
  if ((flags & OMPLENS_TF_F_NOREGION) && (flags & OMPLENS_TF_F_REGION))
    return REC_BAD; /* contradictory: the writer never sets both */
  if (flags & OMPLENS_TF_F_NOREGION)
    return REC_OK;
  if (flags & OMPLENS_TF_F_REGION) {
    uint64_t id;
    if (omplens_tf__get_uv(&r->p, r->end, &id))
      return REC_BAD;
    if (d->pass == PASS_PLACE)
      e->region = region_of_id(d->t, id);
    return REC_OK;
  }
  if (tc->depth && tc->depth <= MAX_STACK)
    e->region = (uint32_t)tc->stack[tc->depth - 1];
  return REC_OK;
}

/* What identifies argument i's name: its program address while reading
 * (SCAN keeps those), the interned text once resolve_regions() has
 * resolved them (equal text, same pointer). */
static uint64_t arg_name_key(const omplens_trace *t, size_t i) {
  return t->arg_name_ptrs ? t->arg_name_ptrs[i] : (uint64_t)(uintptr_t)t->args[i].name;
}

static int same_arg_list(const omplens_trace *t, const omplens_region *a,
                         const omplens_region *b) {
  if (a->num_args != b->num_args)
    return 0;
  for (uint32_t i = 0; i < a->num_args; i++) {
    const omplens_map_arg *x = &t->args[a->first_arg + i], *y = &t->args[b->first_arg + i];
    if (x->base != y->base || x->begin != y->begin || x->size != y->size || x->type != y->type ||
        arg_name_key(t, a->first_arg + i) != arg_name_key(t, b->first_arg + i))
      return 0;
  }
  return 1;
}

static uint64_t hash_arg_list(const omplens_trace *t, const omplens_region *g) {
  uint64_t h = g->num_args;
  for (uint32_t i = 0; i < g->num_args; i++) {
    const omplens_map_arg *a = &t->args[g->first_arg + i];
    h = mix64(h ^ a->base) ^ mix64(a->begin + a->size) ^ a->type ^
        arg_name_key(t, g->first_arg + i);
  }
  return mix64(h);
}

/* The slot of g's list in a table of cap slots (region index + 1): the one
 * holding an equal list, or the empty one it would take. */
static size_t list_slot(const omplens_trace *t, const uint32_t *slots, size_t cap,
                        const omplens_region *g) {
  size_t j = (size_t)hash_arg_list(t, g) & (cap - 1);
  while (slots[j] && !same_arg_list(t, &t->regions[slots[j] - 1], g))
    j = (j + 1) & (cap - 1);
  return j;
}

/* SCAN: region index's arguments, the last ones appended, are dropped when
 * an earlier region has the same list, and the region points at that one.
 * A loop passes the same arguments on every iteration: without this, every
 * copy would take 56 bytes an argument until share_arg_lists(), which
 * still unites lists whose names agree only once resolved. Returns REC_OK
 * or REC_NOMEM. */
static int keep_arg_list(omplens_trace *t, size_t index) {
  omplens_region *g = &t->regions[index];
  if (!g->num_args || g->first_arg + (size_t)g->num_args != t->num_args)
    return REC_OK;
  if (2 * (t->num_lists + 1) > t->cap_list_slots) {
    size_t cap = t->cap_list_slots ? 2 * t->cap_list_slots : 256;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
      return REC_NOMEM;
    for (size_t j = 0; j < t->cap_list_slots; j++)
      if (t->list_slots[j])
        slots[list_slot(t, slots, cap, &t->regions[t->list_slots[j] - 1])] = t->list_slots[j];
    free(t->list_slots);
    t->list_slots = slots;
    t->cap_list_slots = cap;
  }
  size_t j = list_slot(t, t->list_slots, t->cap_list_slots, g);
  if (t->list_slots[j]) {
    t->num_args = g->first_arg;
    g->first_arg = t->regions[t->list_slots[j] - 1].first_arg;
    return REC_OK;
  }
  t->list_slots[j] = (uint32_t)index + 1;
  t->num_lists++;
  return REC_OK;
}

/* SCAN: appends a region, with the entry call waiting for it. */
static int add_region(omplens_trace *t, thread_ctx *tc, uint64_t ts, uint8_t kb, int16_t dev,
                      uint64_t codeptr) {
  if (omplens_bulk_grow((void **)&t->regions, &t->cap_regions, t->num_regions + 1, sizeof *t->regions) ||
      t->num_regions >= OMPLENS_NO_REGION)
    return REC_NOMEM;
  if (omplens_bulk_grow((void **)&t->region_loc_ptrs, &t->cap_region_ptrs, t->num_regions + 1,
           sizeof *t->region_loc_ptrs))
    return REC_NOMEM;
  omplens_region *g = &t->regions[t->num_regions];
  *g = (omplens_region){.begin_ns = ts, .end_ns = ts, .codeptr = codeptr,
                        .call_path = tc->call_path, .thread = (uint16_t)tc->thread,
                        .device = dev, .kind = (uint8_t)(kb & 0x0f),
                        .nowait = (uint8_t)((kb >> 4) & 1)};
  tc->call_path = 0;
  t->region_loc_ptrs[t->num_regions] = 0;
  if (tc->call_pending) {
    t->region_loc_ptrs[t->num_regions] = tc->call_loc;
    g->first_arg = (uint32_t)tc->call_first_arg;
    g->num_args = (uint16_t)(t->num_args - tc->call_first_arg); /* dec_arg's bound */
  }
  t->num_regions++;
  return keep_arg_list(t, t->num_regions - 1);
}

static int dec_region_begin(decoder *d, rec_ctx *r, thread_ctx *tc) {
  omplens_trace *t = d->t;
  uint64_t ts;
  int16_t dev;
  int64_t dcode;
  if (dec_time(r, &ts) || r->p >= r->end)
    return REC_BAD;
  uint8_t kb = *r->p++;
  if (dec_device(r, &dev) || omplens_tf__get_sv(&r->p, r->end, &dcode))
    return REC_BAD;
  r->st.code += (uint64_t)dcode;
  size_t index;
  if (d->pass == PASS_SCAN) {
    int rc = add_region(t, tc, ts, kb, dev, r->st.code);
    if (rc)
      return rc;
    index = t->num_regions - 1;
  } else {
    if (d->num_regions >= t->num_regions)
      return REC_CHANGED;
    index = d->num_regions++;
  }
  tc->call_pending = 0;
  if (tc->depth < MAX_STACK)
    tc->stack[tc->depth] = index;
  tc->depth++;
  note_device(d, dev);
  note_time(d, ts);
  return REC_OK;
}

static int dec_region_end(decoder *d, rec_ctx *r, thread_ctx *tc) {
  uint64_t ts;
  if (dec_time(r, &ts))
    return REC_BAD;
  if (tc->depth) {
    tc->depth--;
    if (tc->depth < MAX_STACK && d->pass == PASS_SCAN)
      d->t->regions[tc->stack[tc->depth]].end_ns = ts;
  }
  note_time(d, ts);
  return REC_OK;
}

/* The optional fields of a data op: hash, region, own codeptr. */
static int dec_op_extras(decoder *d, rec_ctx *r, thread_ctx *tc, uint8_t flags,
                         omplens_event *e) {
  if (flags & OMPLENS_TF_F_HASH) {
    if (r->end - r->p < 8)
      return REC_BAD;
    memcpy(&e->hash, r->p, 8);
    r->p += 8;
    e->flags |= OMPLENS_EVF_HASHED;
  }
  int rc = dec_region_ref(d, r, tc, flags, e);
  if (rc)
    return rc;
  if (flags & OMPLENS_TF_F_CODEPTR) {
    int64_t dc;
    if (omplens_tf__get_sv(&r->p, r->end, &dc))
      return REC_BAD;
    r->st.code += (uint64_t)dc;
    d->own_codeptr = r->st.code;
    e->flags |= OMPLENS_EVF_OWN_CODEPTR;
    if (d->pass == PASS_SCAN && tc->call_path) {
      if (omplens_cp__note_op(&d->t->paths, (uint32_t)d->num_events, tc->call_path))
        return REC_NOMEM;
      tc->call_path = 0;
    }
  }
  return REC_OK;
}

/* A record that fails after its fixed fields still yields its event, as
 * far as it was decoded. */
static int dec_op(decoder *d, rec_ctx *r, thread_ctx *tc, uint8_t flags) {
  uint64_t ts, dur, bytes;
  int64_t dh, dd;
  int16_t dev, peer;
  int rc;
  if (dec_time(r, &ts) || omplens_tf__get_uv(&r->p, r->end, &dur) || r->p >= r->end ||
      !event_times_fit(ts, dur))
    return REC_BAD;
  uint8_t ob = *r->p++;
  int kind = ob & 0x3f;
  if (kind < OMPLENS_EV_ALLOC || kind > OMPLENS_EV_D2D)
    return REC_BAD;
  if (dec_device(r, &dev) || dec_device(r, &peer) ||
      omplens_tf__get_sv(&r->p, r->end, &dh) || omplens_tf__get_sv(&r->p, r->end, &dd) ||
      omplens_tf__get_uv(&r->p, r->end, &bytes) || bytes > OMPLENS_EVENT_MAX_BYTES)
    return REC_BAD;
  omplens_event scratch, *e = next_event(d, &scratch, &rc);
  if (!e)
    return rc;
  r->st.host += (uint64_t)dh;
  r->st.dev += (uint64_t)dd;
  *e = (omplens_event){.begin_ns = ts, .end_ns = ts + dur, .host_addr = r->st.host,
                       .dev_addr = r->st.dev, .bytes = bytes, .region = OMPLENS_NO_REGION,
                       .thread = (uint16_t)tc->thread, .device = dev < 0 ? 0 : dev, .peer_device = peer,
                       .kind = (uint8_t)kind};
  if (ob & OMPLENS_TF_OP_ASYNC)
    e->flags |= OMPLENS_EVF_ASYNC;
  if (ob & OMPLENS_TF_OP_EARLY)
    e->flags |= OMPLENS_EVF_EARLY_HASH;
  rc = dec_op_extras(d, r, tc, flags, e);
  if (!rc) {
    note_device(d, dev);
    note_time(d, e->end_ns);
  }
  end_event(d, e);
  return rc;
}

static int dec_kernel(decoder *d, rec_ctx *r, thread_ctx *tc, uint8_t flags) {
  uint64_t ts, dur, teams;
  int16_t dev;
  if (dec_time(r, &ts) || omplens_tf__get_uv(&r->p, r->end, &dur) || dec_device(r, &dev) ||
      omplens_tf__get_uv(&r->p, r->end, &teams) || !event_times_fit(ts, dur) ||
      teams > OMPLENS_EVENT_MAX_BYTES)
    return REC_BAD;
  int rc;
  omplens_event scratch, *e = next_event(d, &scratch, &rc);
  if (!e)
    return rc;
  *e = (omplens_event){.begin_ns = ts, .end_ns = ts + dur, .bytes = teams,
                       .region = OMPLENS_NO_REGION, .thread = (uint16_t)tc->thread,
                       .device = dev < 0 ? 0 : dev, .peer_device = OMPLENS_HOST,
                       .kind = OMPLENS_EV_KERNEL};
  note_device(d, dev);
  note_time(d, e->end_ns);
  rc = dec_region_ref(d, r, tc, flags, e);
  end_event(d, e);
  return rc;
}

static int dec_device_rec(decoder *d, rec_ctx *r, uint8_t flags) {
  uint64_t ts, type = 0;
  int16_t dev;
  if (dec_time(r, &ts) || dec_device(r, &dev) ||
      ((flags & OMPLENS_TF_DEVICE_TYPED) && omplens_tf__get_uv(&r->p, r->end, &type)))
    return REC_BAD;
  note_device(d, dev);
  if (d->pass == PASS_SCAN && type && dev >= 0 && dev < OMPLENS_TRACE_TYPED_DEVICES)
    d->t->device_type_ptrs[dev] = type;
  return REC_OK;
}

static int strings_put(omplens_trace *t, uint64_t ptr, char *text) {
  if (2 * (t->num_strings + 1) > t->cap_strings) {
    size_t cap = t->cap_strings ? 2 * t->cap_strings : 64;
    string_entry *n = calloc(cap, sizeof *n);
    if (!n)
      return -1;
    for (size_t i = 0; i < t->cap_strings; i++) {
      string_entry *e = &t->strings[i];
      if (!e->text)
        continue;
      size_t j = mix64(e->ptr) & (cap - 1);
      while (n[j].text)
        j = (j + 1) & (cap - 1);
      n[j] = *e;
    }
    free(t->strings);
    t->strings = n;
    t->cap_strings = cap;
  }
  size_t j = mix64(ptr) & (t->cap_strings - 1);
  while (t->strings[j].text && t->strings[j].ptr != ptr)
    j = (j + 1) & (t->cap_strings - 1);
  if (t->strings[j].text) { /* seen again (another thread): keep the first */
    free(text);
    return 0;
  }
  t->strings[j] = (string_entry){ptr, text};
  t->num_strings++;
  return 0;
}

static const char *strings_get(const omplens_trace *t, uint64_t ptr) {
  if (!ptr || !t->cap_strings)
    return NULL;
  size_t j = mix64(ptr) & (t->cap_strings - 1);
  while (t->strings[j].text) {
    if (t->strings[j].ptr == ptr)
      return t->strings[j].text;
    j = (j + 1) & (t->cap_strings - 1);
  }
  return NULL;
}

static int dec_string(decoder *d, rec_ctx *r) {
  uint64_t ptr, len;
  if (omplens_tf__get_uv(&r->p, r->end, &ptr) || omplens_tf__get_uv(&r->p, r->end, &len) ||
      len > OMPLENS_TF_MAX_STRING || len > (uint64_t)(r->end - r->p))
    return REC_BAD;
  const uint8_t *s = r->p;
  r->p += len;
  if (d->pass == PASS_PLACE)
    return REC_OK;
  char *text = dup_n(s, (size_t)len);
  if (!text || strings_put(d->t, ptr, text)) {
    free(text);
    return REC_NOMEM;
  }
  return REC_OK;
}

static int dec_call(decoder *d, rec_ctx *r, thread_ctx *tc) {
  uint64_t loc, nargs;
  int64_t dc;
  if (omplens_tf__get_uv(&r->p, r->end, &loc) || omplens_tf__get_sv(&r->p, r->end, &dc) ||
      omplens_tf__get_uv(&r->p, r->end, &nargs))
    return REC_BAD;
  r->st.code += (uint64_t)dc;
  tc->call_pending = 1;
  tc->call_loc = loc;
  tc->call_caller = r->st.code;
  tc->call_first_arg = d->t->num_args;
  return REC_OK;
}

static int dec_arg(decoder *d, rec_ctx *r, thread_ctx *tc) {
  omplens_trace *t = d->t;
  int64_t dbase, dbegin;
  uint64_t size, type, name;
  if (omplens_tf__get_sv(&r->p, r->end, &dbase) || omplens_tf__get_sv(&r->p, r->end, &dbegin) ||
      omplens_tf__get_uv(&r->p, r->end, &size) || omplens_tf__get_uv(&r->p, r->end, &type) ||
      omplens_tf__get_uv(&r->p, r->end, &name))
    return REC_BAD;
  r->st.host += (uint64_t)dbase;
  if (!tc->call_pending || d->pass == PASS_PLACE ||
      t->num_args - tc->call_first_arg >= OMPLENS_MAX_CALL_ARGS)
    return REC_OK; /* an argument without its call, or past the bound, is ignored */
  if (t->num_args >= UINT32_MAX ||
      omplens_bulk_grow((void **)&t->args, &t->cap_args, t->num_args + 1, sizeof *t->args) ||
      omplens_bulk_grow((void **)&t->arg_name_ptrs, &t->cap_arg_ptrs, t->num_args + 1, sizeof(uint64_t)))
    return REC_NOMEM;
  bool value = type & OMPLENS_MAPBIT_LITERAL; /* a value, not a buffer: not kept */
  t->args[t->num_args] = (omplens_map_arg){value ? 0 : r->st.host,
                                           value ? 0 : r->st.host + (uint64_t)dbegin, size, type,
                                           NULL};
  t->arg_name_ptrs[t->num_args++] = name;
  return REC_OK;
}

/* A call path: defined (frames follow) the first time a thread uses it,
 * named by the thread's id afterwards; it belongs to what comes next. */
static int dec_call_path(decoder *d, rec_ctx *r, thread_ctx *tc, uint8_t flags) {
  uint64_t id, n = 0, frames[OMPLENS_TF_MAX_PATH];
  if (omplens_tf__get_uv(&r->p, r->end, &id))
    return REC_BAD;
  if ((flags & OMPLENS_TF_PATH_FRAMES) &&
      (omplens_tf__get_uv(&r->p, r->end, &n) || !n || n > OMPLENS_TF_MAX_PATH))
    return REC_BAD;
  for (uint64_t i = 0; i < n; i++) {
    int64_t dc;
    if (omplens_tf__get_sv(&r->p, r->end, &dc))
      return REC_BAD;
    r->st.code += (uint64_t)dc;
    frames[i] = r->st.code;
  }
  if (d->pass == PASS_PLACE)
    return REC_OK;
  omplens_cp_table *paths = &d->t->paths;
  uint32_t path;
  if (n && (omplens_cp__intern(paths, frames, (uint32_t)n, &path) ||
            omplens_cp__set_local(paths, id, path)))
    return REC_NOMEM;
  tc->call_path = omplens_cp__local(paths, id);
  return REC_OK;
}

/* The program paused, started or ended the tool (docs/trace-format.md):
 * made into pauses once every thread's commands are in. Unknown commands
 * are skipped, for later versions' sake. */
static int dec_tool(decoder *d, rec_ctx *r) {
  uint64_t ts, command;
  if (dec_time(r, &ts) || omplens_tf__get_uv(&r->p, r->end, &command))
    return REC_BAD;
  note_time(d, ts);
  omplens_trace *t = d->t;
  if (d->pass != PASS_SCAN || (command != OMPLENS_TOOL_START && command != OMPLENS_TOOL_PAUSE &&
                               command != OMPLENS_TOOL_END))
    return REC_OK;
  if (omplens_bulk_grow((void **)&t->commands, &t->cap_commands, t->num_commands + 1,
                        sizeof *t->commands))
    return REC_NOMEM;
  t->commands[t->num_commands++] = (tool_command){ts, (uint32_t)command};
  return REC_OK;
}

/* A host thread's wait for deferred target tasks (docs/trace-format.md):
 * tied to a region once every region is in (make_waits). Unknown kinds
 * are skipped, for later versions' sake. */
static int dec_wait(decoder *d, rec_ctx *r, thread_ctx *tc) {
  uint64_t ts, dur;
  int64_t dcode;
  if (dec_time(r, &ts) || omplens_tf__get_uv(&r->p, r->end, &dur) || r->p >= r->end)
    return REC_BAD;
  uint8_t kind = *r->p++;
  if (omplens_tf__get_sv(&r->p, r->end, &dcode))
    return REC_BAD;
  r->st.code += (uint64_t)dcode;
  uint64_t end = dur > UINT64_MAX - ts ? UINT64_MAX : ts + dur;
  note_time(d, end);
  omplens_trace *t = d->t;
  if (d->pass != PASS_SCAN || kind < OMPLENS_WAIT_TASKWAIT || kind > OMPLENS_WAIT_BARRIER)
    return REC_OK;
  if (omplens_bulk_grow((void **)&t->waits, &t->cap_waits, t->num_waits + 1, sizeof *t->waits))
    return REC_NOMEM;
  t->waits[t->num_waits++] = (omplens_trace_wait){.begin_ns = ts, .end_ns = end, .sync_end_ns = end,
                                                  .codeptr = r->st.code, .thread = tc->thread,
                                                  .region = OMPLENS_NO_REGION, .kind = kind};
  return REC_OK;
}

static int dec_record(decoder *d, rec_ctx *r, thread_ctx *tc) {
  uint8_t tag = *r->p++;
  uint8_t flags = tag & 0xf0;
  switch (tag & 0x0f) {
  case OMPLENS_TF_REC_REGION_BEGIN: return dec_region_begin(d, r, tc);
  case OMPLENS_TF_REC_REGION_END: return dec_region_end(d, r, tc);
  case OMPLENS_TF_REC_OP: return dec_op(d, r, tc, flags);
  case OMPLENS_TF_REC_KERNEL: return dec_kernel(d, r, tc, flags);
  case OMPLENS_TF_REC_DEVICE: return dec_device_rec(d, r, flags);
  case OMPLENS_TF_REC_STRING: return dec_string(d, r);
  case OMPLENS_TF_REC_CALL: return dec_call(d, r, tc);
  case OMPLENS_TF_REC_ARG: return dec_arg(d, r, tc);
  case OMPLENS_TF_REC_CALL_PATH: return dec_call_path(d, r, tc, flags);
  case OMPLENS_TF_REC_TOOL: return dec_tool(d, r);
  case OMPLENS_TF_REC_WAIT: return dec_wait(d, r, tc);
  default: return REC_BAD;
  }
}

static int rec_error(int rc) {
  switch (rc) {
  case REC_NOMEM: return OMPLENS_TRACE_ENOMEM;
  case REC_TOOBIG: return OMPLENS_TRACE_ETOOBIG;
  default: return OMPLENS_TRACE_EIO; /* REC_CHANGED */
  }
}

/* Decodes one chunk; returns 0 or an OMPLENS_TRACE_E* code. */
static int decode_chunk(decoder *d, const source *src, const chunk_ref *c, thread_ctx *tc,
                        uint8_t *buf) {
  omplens_trace *t = d->t;
  if (read_at(src, c->offset + sizeof(omplens_tf_chunk), buf, c->used)) {
    damage(t, "thread %u chunk %u: unreadable", c->thread, c->seq);
    return 0;
  }
  rec_ctx r = {buf, buf + c->used, {c->base_ns, 0, 0, 0}};
  while (r.p < r.end) {
    const uint8_t *start = r.p;
    int rc = dec_record(d, &r, tc);
    if (rc < REC_BAD)
      return rec_error(rc);
    if (rc) {
      damage(t, "thread %u chunk %u: undecodable record at byte %zu; rest of chunk skipped",
             c->thread, c->seq, (size_t)(start - buf));
      break;
    }
  }
  return 0;
}

/* Starts a thread's run of chunks. SCAN records where its regions and
 * events begin. */
static void start_thread(decoder *d, thread_ctx *tc, uint32_t thread) {
  memset(tc, 0, sizeof *tc);
  tc->thread = thread;
  tc->base = d->t->num_regions;
  if (d->pass == PASS_SCAN) {
    omplens_cp__thread_start(&d->t->paths);
    d->t->thread_region_base[thread] = d->t->num_regions;
    d->thread_first[d->num_thread_runs++] = d->num_events;
  }
}

/* One pass over the chunks, sorted by thread and number; from: the state
 * the first chunk continues (PLACE's second thread), or NULL. */
static int decode_all(decoder *d, const source *src, const chunk_ref *refs, size_t n,
                      uint8_t *buf, const thread_ctx *from) {
  omplens_trace *t = d->t;
  thread_ctx tc;
  memset(&tc, 0, sizeof tc);
  tc.thread = UINT32_MAX;
  if (from)
    tc = *from;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    if (refs[i].thread >= t->num_threads) {
      damage(t, "chunk at offset %llu names thread %u, %s: skipped",
             (unsigned long long)refs[i].offset, refs[i].thread,
             refs[i].thread >= OMPLENS_MAX_THREADS ? "past the threads a trace can hold"
                                                   : "far beyond the threads present");
      continue;
    }
    if (refs[i].thread != tc.thread) {
      start_thread(d, &tc, refs[i].thread);
    } else if (i == 0) {
      /* continued from `from`: SCAN checked the sequence */
    } else if (refs[i].seq == refs[i - 1].seq) {
      damage(t, "thread %u: chunk %u appears twice", tc.thread, refs[i].seq);
    } else if (refs[i].seq != refs[i - 1].seq + 1) {
      damage(t, "thread %u: chunks %u to %u are missing", tc.thread, refs[i - 1].seq + 1,
             refs[i].seq - 1);
    }
    if (d->pass == PASS_SCAN && i == d->split_chunk && i) {
      d->split_seen = 1;
      d->split_tc = tc;
      d->split_events = d->num_events;
      d->split_regions = t->num_regions;
    }
    rc = decode_chunk(d, src, &refs[i], &tc, buf);
    progress_add(t, refs[i].used);
    if (d->pass == PASS_SCAN)
      t->thread_region_count[tc.thread] = t->num_regions - tc.base;
  }
  return rc;
}

/* ---- event order ---------------------------------------------------------- */

/* A thread writes its events when they end, so their begin times ascend,
 * except for records written late (device-to-host copies hashed when their
 * construct ends). Each thread's events are thus one ascending run plus a
 * few late events. The late ones are sorted apart, then all the runs are
 * merged. Ties go by decode order, as a stable sort leaves them. */

static int is_late(const uint64_t *late, size_t i) {
  return (late[i / 64] >> (i % 64)) & 1;
}

/* Marks the events that break their thread's ascending run; returns how
 * many there are. */
static size_t mark_late(const decoder *d, size_t n, uint64_t *late) {
  size_t count = 0;
  for (size_t r = 0; r < d->num_thread_runs; r++) {
    size_t end = r + 1 < d->num_thread_runs ? d->thread_first[r + 1] : n;
    uint64_t last = 0;
    for (size_t i = d->thread_first[r]; i < end; i++) {
      if (d->begin[i] >= last) {
        last = d->begin[i];
      } else {
        late[i / 64] |= 1ull << (i % 64);
        count++;
      }
    }
  }
  return count;
}

/* End of the ascending run of a[] that starts at i. */
static size_t run_end(const uint32_t *a, size_t i, size_t m, const uint64_t *begin) {
  while (i + 1 < m && begin[a[i + 1]] >= begin[a[i]])
    i++;
  return i + 1;
}

/* Merges a[lo, mid) and a[mid, hi) into out[lo, hi); ties from the left. */
static void merge_runs(const uint32_t *a, size_t lo, size_t mid, size_t hi, uint32_t *out,
                       const uint64_t *begin) {
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi)
    out[k++] = begin[a[j]] < begin[a[i]] ? a[j++] : a[i++];
  memcpy(out + k, a + i, (mid - i) * sizeof *a);
  k += mid - i;
  memcpy(out + k, a + j, (hi - j) * sizeof *a);
}

/* Sorts event indices by begin time, stably: merges the ascending runs they
 * already form, pairwise, until one is left. Returns a or tmp, whichever
 * holds the result. */
static uint32_t *sort_stable(uint32_t *a, uint32_t *tmp, size_t m, const uint64_t *begin) {
  for (;;) {
    size_t runs = 0;
    for (size_t i = 0; i < m; runs++) {
      size_t mid = run_end(a, i, m, begin);
      size_t hi = mid < m ? run_end(a, mid, m, begin) : m;
      merge_runs(a, i, mid, hi, tmp, begin);
      i = hi;
    }
    uint32_t *t = a;
    a = tmp;
    tmp = t;
    if (runs <= 1)
      return a;
  }
}

/* Where the merge stands in one sorted sequence: a thread's ascending run
 * (late events skipped) or the sorted late events. */
typedef struct cursor {
  uint64_t begin;
  size_t event;    /* index in decode order */
  size_t at, end;  /* position in the sequence */
  const uint32_t *sorted; /* the late events; NULL for a thread's run */
} cursor;

static int cursor_less(const cursor *a, const cursor *b) {
  return a->begin != b->begin ? a->begin < b->begin : a->event < b->event;
}

/* Moves c to the first event at or after its position; returns 0 when the
 * sequence is exhausted. */
static int cursor_seek(cursor *c, const uint64_t *begin, const uint64_t *late) {
  if (c->sorted) {
    if (c->at >= c->end)
      return 0;
    c->event = c->sorted[c->at];
  } else {
    while (c->at < c->end && is_late(late, c->at))
      c->at++;
    if (c->at >= c->end)
      return 0;
    c->event = c->at;
  }
  c->begin = begin[c->event];
  return 1;
}

static void sift_down(cursor *h, size_t n, size_t i) {
  cursor c = h[i];
  for (;;) {
    size_t k = 2 * i + 1;
    if (k >= n)
      break;
    if (k + 1 < n && cursor_less(&h[k + 1], &h[k]))
      k++;
    if (!cursor_less(&h[k], &c))
      break;
    h[i] = h[k];
    i = k;
  }
  h[i] = c;
}

/* Fills slot[] (each event's sorted position, in decode order) by merging
 * the threads' runs and the sorted late events; returns 0 or -1 (memory). */
static int merge_all(const decoder *d, size_t n, const uint64_t *late, const uint32_t *sorted,
                     size_t num_late, uint32_t *slot) {
  cursor *h = malloc((d->num_thread_runs + 1) * sizeof *h);
  if (!h)
    return -1;
  size_t hn = 0;
  for (size_t r = 0; r < d->num_thread_runs; r++) {
    size_t end = r + 1 < d->num_thread_runs ? d->thread_first[r + 1] : n;
    cursor c = {0, 0, d->thread_first[r], end, NULL};
    if (cursor_seek(&c, d->begin, late))
      h[hn++] = c;
  }
  cursor lc = {0, 0, 0, num_late, sorted};
  if (cursor_seek(&lc, d->begin, late))
    h[hn++] = lc;
  for (size_t i = hn / 2; i-- > 0;)
    sift_down(h, hn, i);
  for (size_t pos = 0; hn; pos++) {
    slot[h[0].event] = (uint32_t)pos;
    h[0].at++;
    if (!cursor_seek(&h[0], d->begin, late))
      h[0] = h[--hn];
    sift_down(h, hn, 0);
  }
  free(h);
  return 0;
}

/* Computes each event's sorted position into *slot (caller frees) from the
 * begin times of the SCAN pass, and frees those. */
static int order_events(decoder *d, uint32_t **slot) {
  size_t n = d->num_events;
  int rc = OMPLENS_TRACE_ENOMEM;
  *slot = omplens_bulk_alloc(n + 1, sizeof **slot);
  uint64_t *late = calloc(n / 64 + 1, sizeof *late);
  uint32_t *list = NULL, *tmp = NULL;
  if (*slot && late) {
    size_t num_late = mark_late(d, n, late);
    list = malloc((num_late + 1) * sizeof *list);
    tmp = malloc((num_late + 1) * sizeof *tmp);
    if (list && tmp) {
      for (size_t i = 0, k = 0; i < n; i++)
        if (is_late(late, i))
          list[k++] = (uint32_t)i;
      const uint32_t *sorted = sort_stable(list, tmp, num_late, d->begin);
      if (!merge_all(d, n, late, sorted, num_late, *slot))
        rc = 0;
    }
  }
  free(list);
  free(tmp);
  free(late);
  omplens_bulk_free(d->begin);
  d->begin = NULL;
  return rc;
}

/* ---- finishing ---------------------------------------------------------- */

static uint64_t hash_text(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  while (*s)
    h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
  return h;
}

/* A directive the compiler duplicated (an unrolled loop, an inlined
 * function) has one call site per copy, each with its own return address,
 * but the same source location in its entry call. Such regions get the first
 * copy's codeptr, so that everything downstream sees one directive. */
static int merge_directive_copies(omplens_trace *t) {
  size_t cap = 64;
  while (cap < 2 * t->num_strings + 2) /* a source is one of the strings */
    cap *= 2;
  struct slot {
    const char *source;
    uint64_t codeptr;
  } *tab = calloc(2 * cap, sizeof *tab), *by_ptr = tab + cap;
  if (!tab)
    return OMPLENS_TRACE_ENOMEM;
  /* Regions mostly repeat a few interned strings: a table by pointer
   * answers them without hashing the text; a table by text unites the
   * copies. Both keep the first codeptr of their key. */
  for (size_t i = 0; i < t->num_regions; i++) {
    omplens_region *g = &t->regions[i];
    if (!g->source)
      continue;
    size_t k = (size_t)mix64((uint64_t)(uintptr_t)g->source) & (cap - 1);
    while (by_ptr[k].source && by_ptr[k].source != g->source)
      k = (k + 1) & (cap - 1);
    if (!by_ptr[k].source) {
      size_t j = (size_t)hash_text(g->source) & (cap - 1);
      while (tab[j].source && strcmp(tab[j].source, g->source))
        j = (j + 1) & (cap - 1);
      if (!tab[j].source)
        tab[j] = (struct slot){g->source, g->codeptr};
      by_ptr[k] = tab[j];
      by_ptr[k].source = g->source;
    }
    g->codeptr = by_ptr[k].codeptr;
  }
  free(tab);
  return 0;
}

/* A directive run again on the same buffers (a loop) passes the same map
 * arguments each time: regions with equal lists (names as interned
 * strings) share the first one, and only distinct lists are kept, in the
 * order first met. A region's list was appended after the earlier ones
 * (fresh), or points back at the start of an earlier fresh list
 * (keep_arg_list), so moving each kept one down never overwrites a list not
 * yet seen, and moved[] tells where a list that is pointed back at went.
 * Left as they are when that structure does not hold or memory cannot be
 * had. */
static void share_arg_lists(omplens_trace *t) {
  size_t cap = 64, kept = 0, next = 0;
  uint32_t *moved = t->num_args ? malloc(t->num_args * sizeof *moved) : NULL;
  if (!moved)
    return;
  for (size_t i = 0; i < t->num_args; i++)
    moved[i] = UINT32_MAX; /* not the start of a fresh list */
  for (size_t i = 0; i < t->num_regions; i++) {
    const omplens_region *g = &t->regions[i];
    if (!g->num_args)
      continue;
    if (g->num_args > t->num_args - g->first_arg ||
        (g->first_arg < next && moved[g->first_arg] == UINT32_MAX)) {
      free(moved);
      return;
    }
    if (g->first_arg >= next) {
      moved[g->first_arg] = 0;
      next = g->first_arg + g->num_args;
    }
  }
  while (cap < 2 * t->num_regions + 2)
    cap *= 2;
  uint32_t *tab = calloc(cap, sizeof *tab); /* region + 1 */
  if (!tab) {
    free(moved);
    return;
  }
  next = 0;
  for (size_t i = 0; i < t->num_regions; i++) {
    omplens_region *g = &t->regions[i];
    if (!g->num_args)
      continue;
    if (g->first_arg < next) { /* points back: its list is placed already */
      g->first_arg = moved[g->first_arg];
      continue;
    }
    size_t fresh = g->first_arg;
    next = fresh + g->num_args;
    size_t j = list_slot(t, tab, cap, g);
    if (tab[j]) {
      g->first_arg = t->regions[tab[j] - 1].first_arg;
    } else {
      memmove(&t->args[kept], &t->args[g->first_arg], g->num_args * sizeof *t->args);
      g->first_arg = (uint32_t)kept;
      kept += g->num_args;
      tab[j] = (uint32_t)i + 1;
    }
    moved[fresh] = g->first_arg;
  }
  free(tab);
  free(moved);
  for (size_t i = 0; i < t->num_regions; i++) /* lists of no argument point at the end */
    if (!t->regions[i].num_args && t->regions[i].first_arg > kept)
      t->regions[i].first_arg = (uint32_t)kept;
  t->num_args = kept;
  omplens_map_arg *fit = omplens_bulk_realloc(t->args, kept, sizeof *t->args);
  if (fit) {
    t->args = fit;
    t->cap_args = kept;
  }
}

/* After SCAN: regions and arguments get their strings, and copies of one
 * directive one codeptr (which PLACE then gives the events). */
static void resolve_regions(omplens_trace *t) {
  for (int i = 0; i < OMPLENS_TRACE_TYPED_DEVICES; i++)
    t->device_types[i] = strings_get(t, t->device_type_ptrs[i]);
  for (size_t i = 0; i < t->num_regions; i++)
    t->regions[i].source = strings_get(t, t->region_loc_ptrs[i]);
  if (merge_directive_copies(t))
    damage(t, "out of memory while merging copies of one directive");
  for (size_t i = 0; i < t->num_args; i++)
    t->args[i].name = strings_get(t, t->arg_name_ptrs[i]);
  omplens_bulk_free(t->region_loc_ptrs);
  omplens_bulk_free(t->arg_name_ptrs);
  t->region_loc_ptrs = NULL;
  t->arg_name_ptrs = NULL;
  free(t->list_slots);
  t->list_slots = NULL;
  t->cap_list_slots = t->num_lists = 0;
  share_arg_lists(t);
}

static int command_cmp(const void *a, const void *b) {
  const tool_command *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

/* The commands in time order become the paused stretches: a pause (or an
 * end) opens one unless one is open, a start closes it, except after an
 * end, which the collector honours for good. */
static int make_pauses(omplens_trace *t) {
  size_t n = t->num_commands;
  if (!n)
    return 0;
  qsort(t->commands, n, sizeof *t->commands, command_cmp);
  t->pauses = calloc(n, sizeof *t->pauses);
  if (!t->pauses)
    return OMPLENS_TRACE_ENOMEM;
  int paused = 0, ended = 0;
  for (size_t i = 0; i < n && !ended; i++) {
    const tool_command *c = &t->commands[i];
    if (c->command == OMPLENS_TOOL_START && paused) {
      t->pauses[t->num_pauses++].end_ns = c->t;
      paused = 0;
    } else if (c->command != OMPLENS_TOOL_START && !paused) {
      t->pauses[t->num_pauses].begin_ns = c->t;
      paused = 1;
    }
    ended = c->command == OMPLENS_TOOL_END;
  }
  if (paused) {
    uint64_t end = t->info.duration_ns;
    t->pauses[t->num_pauses].end_ns = end > t->pauses[t->num_pauses].begin_ns
                                          ? end : t->pauses[t->num_pauses].begin_ns;
    t->num_pauses++;
  }
  omplens_bulk_free(t->commands);
  t->commands = NULL;
  t->num_commands = t->cap_commands = 0;
  return 0;
}

/* A nowait region's end, sorted by time (ties: by index). */
typedef struct region_end {
  uint64_t end_ns;
  uint32_t region;
} region_end;

static int end_cmp(const void *a, const void *b) {
  const region_end *x = a, *y = b;
  if (x->end_ns != y->end_ns)
    return x->end_ns < y->end_ns ? -1 : 1;
  return x->region < y->region ? -1 : x->region > y->region;
}

static int wait_cmp(const void *a, const void *b) {
  const omplens_trace_wait *x = a, *y = b;
  if (x->begin_ns != y->begin_ns)
    return x->begin_ns < y->begin_ns ? -1 : 1;
  return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* Ties each recorded wait to the nowait region that ended last within it,
 * [begin_ns, sync_end_ns], the deferred target work that released the
 * thread; a wait in which none ended waited for something else and is
 * dropped. Then sorts the waits by begin. */
static int make_waits(omplens_trace *t) {
  if (!t->num_waits)
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < t->num_regions; i++)
    n += t->regions[i].nowait && t->regions[i].end_ns > t->regions[i].begin_ns;
  region_end *ends = malloc((n + 1) * sizeof *ends);
  if (!ends)
    return OMPLENS_TRACE_ENOMEM;
  n = 0;
  for (size_t i = 0; i < t->num_regions; i++)
    if (t->regions[i].nowait && t->regions[i].end_ns > t->regions[i].begin_ns)
      ends[n++] = (region_end){t->regions[i].end_ns, (uint32_t)i};
  qsort(ends, n, sizeof *ends, end_cmp);
  size_t kept = 0;
  for (size_t w = 0; w < t->num_waits; w++) {
    omplens_trace_wait x = t->waits[w];
    size_t lo = 0, hi = n; /* the first region ending after sync_end_ns */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (ends[mid].end_ns <= x.sync_end_ns)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (!lo || ends[lo - 1].end_ns < x.begin_ns)
      continue;
    x.region = ends[lo - 1].region;
    x.end_ns = ends[lo - 1].end_ns;
    t->waits[kept++] = x;
  }
  free(ends);
  t->num_waits = kept;
  qsort(t->waits, kept, sizeof *t->waits, wait_cmp);
  return 0;
}

static void finish_info(omplens_trace *t) {
  t->info.exe = t->strings_exe ? t->strings_exe : "";
  t->info.cmdline = t->strings_cmd ? t->strings_cmd : "";
  /* An empty job id is none, and a job belongs to a rank. */
  t->info.job = t->strings_job && *t->strings_job && t->info.rank >= 0 ? t->strings_job : NULL;
  t->info.modules = t->modules;
  if (!t->info.complete) {
    t->info.duration_ns = t->last_ns;
    t->info.exit_status = -1;
    damage_final(t, "no end record: the program did not finish normally (trace incomplete)");
  } else if (t->info.duration_ns < t->last_ns) {
    t->info.duration_ns = t->last_ns;
  }
  if (t->damage_more)
    damage_final(t, "... and %u more problems", t->damage_more);
}

/* SCAN pass; sizes and fills the thread tables and the begin times. */
static int scan_records(decoder *d, const source *src, const chunk_ref *refs, size_t n,
                        uint8_t *buf) {
  omplens_trace *t = d->t;
  /* An event record takes at least 5 bytes, so the payload bounds the events. */
  uint64_t payload = 0;
  for (size_t i = 0; i < n; i++)
    payload += refs[i].used;
  uint64_t most = payload / 5 + 1;
  d->max_events = most < UINT32_MAX ? (size_t)most : UINT32_MAX;
  uint64_t before = 0;
  for (d->split_chunk = 0; d->split_chunk < n && 2 * before < payload; d->split_chunk++)
    before += refs[d->split_chunk].used;
  d->begin = omplens_bulk_alloc(d->max_events, sizeof *d->begin); /* only what is used gets touched */
  d->thread_first = malloc((n + 1) * sizeof *d->thread_first);
  if (!d->begin || !d->thread_first)
    return OMPLENS_TRACE_ENOMEM;
  int rc = decode_all(d, src, refs, n, buf, NULL);
  if (!rc && d->oom)
    rc = OMPLENS_TRACE_ENOMEM;
  t->num_events = d->num_events;
  return rc;
}

/* Each region's site (caller frees with omplens_bulk_free), the sites
 * taking the regions' codeptrs in region order; NULL when out of memory. */
static uint32_t *region_sites(omplens_trace *t) {
  uint32_t *site = omplens_bulk_alloc(t->num_regions, sizeof *site);
  int oom = 0;
  for (size_t i = 0; site && i < t->num_regions && !oom; i++)
    site[i] = site_of(t, t->regions[i].codeptr, &oom);
  if (oom) {
    omplens_bulk_free(site);
    return NULL;
  }
  return site;
}

/* Bytes of the largest of n chunks, at least 1: the decoding buffer. */
static uint32_t largest_chunk(const chunk_ref *refs, size_t n) {
  uint32_t largest = 1;
  for (size_t i = 0; i < n; i++)
    if (refs[i].used > largest)
      largest = refs[i].used;
  return largest;
}

/* PLACE on one thread: a range of chunks, decoded from where SCAN stood
 * when it reached them, to where SCAN stood after them. */
typedef struct place_job {
  decoder d;
  const source *src;
  const chunk_ref *refs;
  size_t n;
  uint8_t *buf;
  const thread_ctx *from; /* the state its first chunk continues, or NULL */
  size_t end_events, end_regions;
  int rc;
} place_job;

static void *place_run(void *arg) {
  place_job *j = arg;
  j->rc = decode_all(&j->d, j->src, j->refs, j->n, j->buf, j->from);
  stores_done();
  if (!j->rc && (j->d.num_events != j->end_events || j->d.num_regions != j->end_regions))
    j->rc = OMPLENS_TRACE_EIO;
  return NULL;
}

/* Below this many events a second thread is not worth starting. */
#define PLACE_SPLIT_MIN_EVENTS (1u << 16)

/* Starts a second thread on the chunks from SCAN's split on (the middle
 * of the payload, wherever it falls: most programs have one host thread),
 * from the state SCAN was in there, leaving first the chunks before it;
 * returns 1 when it runs. Threads write disjoint slots and only read the
 * trace. */
static int start_place_thread(place_job *second, pthread_t *thread, place_job *first,
                              const decoder *scan) {
  omplens_trace *t = first->d.t;
  size_t split = scan->split_chunk;
  if (!scan->split_seen || t->num_events < PLACE_SPLIT_MIN_EVENTS ||
      sysconf(_SC_NPROCESSORS_ONLN) < 2)
    return 0;
  *second = *first;
  second->refs = first->refs + split;
  second->n = first->n - split;
  second->from = &scan->split_tc;
  second->d.num_events = scan->split_events;
  second->d.num_regions = scan->split_regions;
  second->buf = malloc(largest_chunk(second->refs, second->n));
  if (!second->buf)
    return 0;
  /* Set before the thread starts: from then on it moves its own counts. */
  place_job rest = *first;
  first->n = split;
  first->end_events = second->d.num_events;
  first->end_regions = second->d.num_regions;
  if (pthread_create(thread, NULL, place_run, second)) {
    free(second->buf);
    *first = rest;
    return 0;
  }
  return 1;
}

/* PLACE pass: decodes the events again, each into its sorted slot; on two
 * threads, split at the middle of the payload, when there are many events. */
static int place_events(omplens_trace *t, const source *src, const chunk_ref *refs, size_t n,
                        uint8_t *buf, const uint32_t *slot, const decoder *scan) {
  if (!t->num_events)
    return 0;
  t->events = omplens_bulk_alloc(t->num_events, sizeof *t->events);
  uint32_t *region_site = region_sites(t);
  if (!t->events || !region_site) {
    omplens_bulk_free(region_site);
    return OMPLENS_TRACE_ENOMEM;
  }
  place_job first = {.d = {.t = t, .pass = PASS_PLACE, .slot = slot, .region_site = region_site},
                     .src = src, .refs = refs, .n = n, .buf = buf,
                     .end_events = t->num_events, .end_regions = t->num_regions};
  place_job second;
  pthread_t thread;
  t->quiet = 1; /* SCAN reported the damage */
  int threaded = start_place_thread(&second, &thread, &first, scan);
  place_run(&first);
  int rc = first.rc;
  if (threaded) {
    pthread_join(thread, NULL);
    free(second.buf);
    if (!rc)
      rc = second.rc;
  }
  t->quiet = 0;
  omplens_bulk_free(region_site);
  if (rc == OMPLENS_TRACE_EIO)
    errno = EAGAIN; /* the file changed between the passes: reading again may work */
  return rc;
}

static int read_records(omplens_trace *t, const source *src, chunk_ref *refs, size_t n) {
  if (n)
    qsort(refs, n, sizeof *refs, cmp_chunk);
  /* Thread ids come from the file: far beyond the chunks present they are
   * damage, not a reason to allocate. */
  uint64_t wanted = n ? (uint64_t)refs[n - 1].thread + 1 : 0;
  if (wanted > n * 64)
    wanted = n * 64;
  uint32_t nthreads = (uint32_t)(wanted > OMPLENS_MAX_THREADS ? OMPLENS_MAX_THREADS : wanted);
  uint32_t largest = largest_chunk(refs, n);
  t->thread_region_base = calloc((size_t)nthreads + 1, sizeof(size_t));
  t->thread_region_count = calloc((size_t)nthreads + 1, sizeof(size_t));
  t->num_threads = nthreads;
  uint8_t *buf = malloc(largest); /* the largest chunk, not the format's limit */
  decoder d = {.t = t, .pass = PASS_SCAN};
  uint64_t payload = 0;
  for (size_t i = 0; i < n; i++)
    payload += refs[i].used;
  t->progress_total = 2 * payload + sort_work(payload);
  uint32_t *slot = NULL;
  int rc = (!t->thread_region_base || !t->thread_region_count || !buf) ? OMPLENS_TRACE_ENOMEM : 0;
  if (!rc)
    rc = scan_records(&d, src, refs, n, buf);
  /* Ordering comes before resolve_regions(): once that frees its large table,
   * glibc serves slot from the heap, which keeps it resident after free. */
  if (!rc)
    rc = order_events(&d, &slot);
  if (!rc)
    progress_add(t, sort_work(payload));
  if (!rc)
    omplens_cp__place_ops(&t->paths, slot);
  if (!rc)
    resolve_regions(t);
  omplens_bulk_free(d.begin);
  d.begin = NULL;
  if (!rc)
    rc = place_events(t, src, refs, n, buf, slot, &d);
  free(d.thread_first);
  omplens_bulk_free(slot);
  free(buf);
  return rc;
}

static int read_trace(omplens_trace *t, const source *src) {
  uint32_t hdr_bytes = 0;
  int rc = read_header(t, src, &hdr_bytes);
  if (rc)
    return rc;
  if (src->header_only) {
    finish_info(t);
    return 0;
  }
  chunk_ref *refs = NULL;
  size_t n = 0, cap = 0;
  int oom = 0;
  for (uint64_t off = hdr_bytes; off < src->size && !oom;)
    off += scan_one(t, src, off, &refs, &n, &cap, &oom);
  rc = oom ? OMPLENS_TRACE_ENOMEM : read_records(t, src, refs, n);
  omplens_bulk_free(refs);
  if (!rc)
    finish_info(t);
  if (!rc)
    rc = make_pauses(t);
  if (!rc)
    rc = make_waits(t);
  /* Skipped chunks count as done: the last call says all of it. */
  uint64_t done = atomic_load_explicit(&t->progress_done, memory_order_relaxed);
  if (!rc && done < t->progress_total)
    progress_add(t, t->progress_total - done);
  return rc;
}

static int open_source(const source *src, const char *path,
                       const omplens_trace_open_options *opts, omplens_trace **out) {
  *out = NULL;
  omplens_trace *t = calloc(1, sizeof *t);
  if (!t)
    return OMPLENS_TRACE_ENOMEM;
  atomic_init(&t->progress_done, 0);
  t->info.rank = -1; /* until a RANK item says otherwise */
  if (opts) {
    t->progress = opts->progress;
    t->progress_ctx = opts->progress_ctx;
  }
  t->path = strdup(path);
  t->sites = omplens_bulk_zalloc(1, sizeof *t->sites); /* site 0: unknown */
  t->num_sites = t->cap_sites = 1;
  int rc = t->path && t->sites ? read_trace(t, src) : OMPLENS_TRACE_ENOMEM;
  t->progress = NULL; /* the options are the caller's, for this call only */
  if (rc) {
    omplens_trace_close(t);
    return rc;
  }
  *out = t;
  return 0;
}

int omplens_trace_open(const char *path, omplens_trace **out) {
  return omplens_trace_open_with(path, NULL, out);
}

static int open_file(const char *path, const omplens_trace_open_options *opts, int header_only,
                     omplens_trace **out);

int omplens_trace_open_with(const char *path, const omplens_trace_open_options *opts,
                            omplens_trace **out) {
  return open_file(path, opts, 0, out);
}

int omplens_trace_open_header(const char *path, omplens_trace **out) {
  return open_file(path, NULL, 1, out);
}

static int open_file(const char *path, const omplens_trace_open_options *opts, int header_only,
                     omplens_trace **out) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return OMPLENS_TRACE_EIO;
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    close(fd);
    errno = EISDIR;
    return OMPLENS_TRACE_EIO;
  }
  source src = {fd, NULL, (uint64_t)st.st_size, header_only};
  int rc = open_source(&src, path, opts, out);
  int saved = errno;
  close(fd);
  errno = saved;
  return rc;
}

int omplens_trace_open_memory(const void *data, size_t size, omplens_trace **out) {
  source src = {-1, data, size, 0};
  return open_source(&src, "(memory)", NULL, out);
}

void omplens_trace_close(omplens_trace *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->info.num_modules; i++)
    free((char *)t->modules[i].path);
  free(t->modules);
  free(t->strings_exe);
  free(t->strings_cmd);
  free(t->strings_job);
  omplens_bulk_free(t->events);
  omplens_bulk_free(t->regions);
  omplens_bulk_free(t->sites);
  free(t->site_slots);
  free(t->thread_region_base);
  free(t->thread_region_count);
  free(t->damage);
  free(t->path);
  for (size_t i = 0; i < t->cap_strings; i++)
    free(t->strings[i].text);
  free(t->strings);
  omplens_bulk_free(t->args);
  omplens_bulk_free(t->arg_name_ptrs);
  omplens_bulk_free(t->region_loc_ptrs);
  free(t->list_slots);
  omplens_cp__free(&t->paths);
  omplens_bulk_free(t->commands);
  free(t->pauses);
  omplens_bulk_free(t->waits);
  free(t);
}

const omplens_trace_wait *omplens_trace_waits(const omplens_trace *t, size_t *count) {
  if (count)
    *count = t ? t->num_waits : 0;
  return t && t->num_waits ? t->waits : NULL;
}

const char *omplens_wait_kind_name(int kind) {
  switch (kind) {
  case OMPLENS_WAIT_TASKWAIT: return "taskwait";
  case OMPLENS_WAIT_TASKGROUP: return "taskgroup";
  case OMPLENS_WAIT_BARRIER: return "barrier";
  default: return "unknown";
  }
}

const omplens_trace_pause *omplens_trace_pauses(const omplens_trace *t, size_t *count) {
  if (count)
    *count = t ? t->num_pauses : 0;
  return t && t->num_pauses ? t->pauses : NULL;
}

uint64_t omplens_trace_paused_ns(const omplens_trace *t, uint64_t begin_ns, uint64_t end_ns) {
  uint64_t sum = 0;
  for (size_t i = 0; t && i < t->num_pauses; i++) {
    uint64_t b = t->pauses[i].begin_ns > begin_ns ? t->pauses[i].begin_ns : begin_ns;
    uint64_t e = t->pauses[i].end_ns < end_ns ? t->pauses[i].end_ns : end_ns;
    sum += e > b ? e - b : 0;
  }
  return sum;
}

const uint64_t *omplens_trace_call_path(const omplens_trace *t, uint32_t path, size_t *count) {
  return omplens_cp__frames(t ? &t->paths : NULL, path, count);
}

uint32_t omplens_trace_event_call_path(const omplens_trace *t, size_t event) {
  if (t && t->windowed)
    event = event < t->window_count ? event + t->window_first : t->num_events;
  if (!t || event >= t->num_events)
    return 0;
  const omplens_event *e = &t->events[event];
  if (e->region != OMPLENS_NO_REGION)
    return e->region < t->num_regions ? t->regions[e->region].call_path : 0;
  if (!(e->flags & OMPLENS_EVF_OWN_CODEPTR))
    return 0;
  return omplens_cp__op_path(&t->paths, (uint32_t)event);
}

const omplens_map_arg *omplens_trace_args(const omplens_trace *t, size_t *count) {
  if (count)
    *count = t ? t->num_args : 0;
  return t ? t->args : NULL;
}

const omplens_map_arg *omplens_trace_region_args(const omplens_trace *t, const omplens_region *r,
                                                 uint32_t *n) {
  size_t nargs = t ? t->num_args : 0;
  *n = !r || r->first_arg >= nargs                   ? 0
       : r->num_args > nargs - r->first_arg ? (uint32_t)(nargs - r->first_arg)
                                            : r->num_args;
  return *n ? t->args + r->first_arg : NULL;
}

const uint64_t *omplens_trace_sites(const omplens_trace *t, size_t *count) {
  if (count)
    *count = t ? t->num_sites : 0;
  return t ? t->sites : NULL;
}

uint32_t omplens_trace_site_index(const omplens_trace *t, uint64_t codeptr) {
  return t ? site_find(t, codeptr) : 0;
}

uint64_t omplens_trace_codeptr(const omplens_trace *t, const omplens_event *e) {
  return t && e && e->site < t->num_sites ? t->sites[e->site] : 0;
}

const omplens_trace_info *omplens_trace_get_info(const omplens_trace *t) {
  return t ? &t->info : NULL;
}

const omplens_event *omplens_trace_events(const omplens_trace *t, size_t *count) {
  if (t && t->windowed) {
    if (count)
      *count = t->window_count;
    return t->events + t->window_first;
  }
  if (count)
    *count = t ? t->num_events : 0;
  return t ? t->events : NULL;
}

/* The first event, at or after `from`, whose begin is at least ns. */
static size_t first_event_from(const omplens_trace *t, size_t from, uint64_t ns) {
  size_t lo = from, hi = t->num_events;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->events[mid].begin_ns < ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int omplens_trace_set_window(omplens_trace *t, uint64_t begin_ns, uint64_t end_ns) {
  if (!t || begin_ns >= end_ns)
    return OMPLENS_TRACE_EINVAL;
  t->window_first = first_event_from(t, 0, begin_ns);
  t->window_count = first_event_from(t, t->window_first, end_ns) - t->window_first;
  t->window_begin = begin_ns;
  t->window_end = end_ns;
  t->windowed = 1;
  return 0;
}

int omplens_trace_window(const omplens_trace *t, uint64_t *begin_ns, uint64_t *end_ns) {
  if (!t || !t->windowed)
    return 0;
  *begin_ns = t->window_begin;
  *end_ns = t->window_end;
  return 1;
}

const omplens_region *omplens_trace_regions(const omplens_trace *t, size_t *count) {
  if (count)
    *count = t ? t->num_regions : 0;
  return t ? t->regions : NULL;
}

const char *omplens_trace_damage(const omplens_trace *t) {
  return t ? t->damage : NULL;
}

const char *omplens_trace_device_type(const omplens_trace *t, int device) {
  return t && device >= 0 && device < OMPLENS_TRACE_TYPED_DEVICES ? t->device_types[device]
                                                                   : NULL;
}

const char *omplens_trace_path(const omplens_trace *t) {
  return t ? t->path : NULL;
}
