/* Unit tests of the trace library (trace/): traces written with the writer
 * and read back field by field, then the reader on damaged input. Format:
 * docs/trace-format.md; what each test area covers: docs/testing.md. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress_heard.h"
#include "omplens_trace.h"
#include "trace_format.h"
#include "trace_writer.h"

/* Monotonic time of the trace start; every time written is after it. */
#define START_NS 1000000000ull
#define REALTIME_NS 1700000000123456789ull
#define PID 4242
#define EXPECT_THREADS 8
#define EXPECT_REGIONS 4096
#define EXPECT_ARGS 128
#define SMALL_CHUNK 4096u /* payload bytes: makes streams rotate often */
/* The damage tests' trace: SMALL_ITERS regions of one op and one kernel,
 * one in 16 on thread 1, in chunks of one page. */
#define TINY_CHUNK 1024u
#define SMALL_ITERS 320u
#define SMALL_EVENTS (2 * SMALL_ITERS)
#define SMALL_EVENTS_THREAD1 (2 * SMALL_ITERS / 16)

/* ---- temporary files --------------------------------------------------- */

static char tmp_dir[4096];

static int make_tmp_dir(void **state) {
  const char *base = getenv("TMPDIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/omplens-test-trace-XXXXXX", base && *base ? base : "/tmp");
  return mkdtemp(tmp_dir) ? 0 : -1;
}

static int remove_tmp_dir(void **state) {
  DIR *d = opendir(tmp_dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char path[8192];
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
    if (unlink(path))
      rmdir(path);
  }
  if (d)
    closedir(d);
  return rmdir(tmp_dir);
}

/* A fresh path in the temporary directory (the file does not exist). */
static const char *tmp_path(const char *name) {
  static char path[8192];
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  unlink(path);
  return path;
}

static uint8_t *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  assert_true(n >= 0);
  rewind(f);
  uint8_t *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static void spit(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, size, f), size);
  assert_int_equal(fclose(f), 0);
}

/* ---- the writer's header ------------------------------------------------ */

static const uint8_t BUILD_ID[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
                                     7,    8,    9,    10,   11, 12, 13, 14, 15, 16};
static char *const ARGV[] = {"prog", "-n", "10", "a b", "it's", "", NULL};
/* How the reader quotes ARGV for a shell. */
#define CMDLINE "prog -n 10 'a b' 'it'\\''s' ''"

static int two_modules(void *ctx,
                       void (*emit)(void *emit_ctx, uint64_t base, uint64_t low, uint64_t high,
                                    const uint8_t *id, uint8_t idlen, const char *path),
                       void *emit_ctx) {
  emit(emit_ctx, 0x400000, 0x400000, 0x401fff, BUILD_ID, 20, "/opt/app/bin/prog");
  emit(emit_ctx, 0x7f0000000000, 0x7f0000001000, 0x7f00000fffff, NULL, 0, "/usr/lib/libomp.so");
  return 0;
}

static void open_writer(omplens_tw *w, const char *path, uint32_t chunk_bytes) {
  omplens_tw_header h = {.pid = PID,
                         .exe = "/opt/app/bin/prog",
                         .argv = ARGV,
                         .start_realtime_ns = REALTIME_NS,
                         .start_monotonic_ns = START_NS,
                         .each_module = two_modules};
  assert_int_equal(omplens_tw_open(w, path, &h, chunk_bytes), 0);
}

/* ---- what a trace must read back as ------------------------------------- */

/* Expected content of one writer stream. Events keep the region id the
 * writer was given; expected_events() turns ids into reader indices. */
typedef struct expect_thread {
  omplens_event *ev;
  uint64_t *ev_region_id;
  uint64_t *ev_codeptr; /* each event's codeptr, when its own */
  size_t nev, cap;
  omplens_region rg[EXPECT_REGIONS];
  uint8_t rg_call[EXPECT_REGIONS]; /* the region has an entry call */
  size_t nrg;
  size_t open[EXPECT_REGIONS];
  size_t depth;
  omplens_map_arg args[EXPECT_ARGS]; /* first_arg below is local to the thread */
  size_t nargs;
  int call_pending;                  /* a CALL awaits the next region */
  const char *call_source;
  size_t call_first_arg;
  int max_device;
  uint64_t last_ns;
} expect_thread;

typedef struct expect {
  expect_thread th[EXPECT_THREADS];
} expect;

static expect *expect_new(void) {
  expect *x = calloc(1, sizeof *x);
  assert_non_null(x);
  for (int i = 0; i < EXPECT_THREADS; i++)
    x->th[i].max_device = -1;
  return x;
}

static void expect_free(expect *x) {
  for (int i = 0; i < EXPECT_THREADS; i++) {
    free(x->th[i].ev);
    free(x->th[i].ev_region_id);
    free(x->th[i].ev_codeptr);
  }
  free(x);
}

static expect_thread *expect_of(expect *x, const omplens_tw_stream *s) {
  assert_true(s->thread < EXPECT_THREADS);
  return &x->th[s->thread];
}

static void note(expect_thread *e, int device, uint64_t t_rel) {
  if (device > e->max_device)
    e->max_device = device;
  if (t_rel > e->last_ns)
    e->last_ns = t_rel;
}

static omplens_event *push_event(expect_thread *e, uint64_t region_id) {
  if (e->nev == e->cap) {
    e->cap = e->cap ? 2 * e->cap : 256;
    e->ev = realloc(e->ev, e->cap * sizeof *e->ev);
    e->ev_region_id = realloc(e->ev_region_id, e->cap * sizeof *e->ev_region_id);
    e->ev_codeptr = realloc(e->ev_codeptr, e->cap * sizeof *e->ev_codeptr);
    assert_non_null(e->ev);
    assert_non_null(e->ev_region_id);
    assert_non_null(e->ev_codeptr);
  }
  e->ev_region_id[e->nev] = region_id;
  e->ev_codeptr[e->nev] = 0;
  omplens_event *ev = &e->ev[e->nev++];
  memset(ev, 0, sizeof *ev);
  return ev;
}

static uint64_t x_region_begin(expect *x, omplens_tw_stream *s, uint64_t t, int kind, int nowait,
                               int device, uint64_t codeptr) {
  expect_thread *e = expect_of(x, s);
  uint64_t id = omplens_tw_region_begin(s, t, kind, nowait, device, codeptr);
  assert_int_equal(id, ((uint64_t)s->thread << 32) | (e->nrg + 1));
  assert_true(e->nrg < EXPECT_REGIONS);
  e->rg[e->nrg] = (omplens_region){.begin_ns = t - START_NS, .end_ns = t - START_NS,
                                   .codeptr = codeptr, .thread = s->thread,
                                   .device = (int16_t)device, .kind = (uint8_t)kind,
                                   .nowait = (uint8_t)nowait};
  e->rg_call[e->nrg] = (uint8_t)e->call_pending;
  if (e->call_pending) {
    e->rg[e->nrg].source = e->call_source;
    e->rg[e->nrg].first_arg = (uint32_t)e->call_first_arg;
    e->rg[e->nrg].num_args = (uint32_t)(e->nargs - e->call_first_arg);
    e->call_pending = 0;
  }
  e->open[e->depth++] = e->nrg++;
  note(e, device, t - START_NS);
  return id;
}

/* The entry call of the next region; `source` is the text that loc_ptr
 * must resolve to (NULL: none). */
static void x_call(expect *x, omplens_tw_stream *s, uint64_t loc_ptr, const char *source,
                   uint64_t caller, uint32_t nargs) {
  expect_thread *e = expect_of(x, s);
  omplens_tw_call(s, loc_ptr, caller, nargs);
  e->call_pending = 1;
  e->call_source = source;
  e->call_first_arg = e->nargs;
}

static void x_arg(expect *x, omplens_tw_stream *s, uint64_t base, uint64_t begin, uint64_t size,
                  uint64_t type, uint64_t name_ptr, const char *name) {
  expect_thread *e = expect_of(x, s);
  omplens_tw_arg(s, base, begin, size, type, name_ptr);
  if (!e->call_pending)
    return; /* an argument without its call is dropped */
  assert_true(e->nargs < EXPECT_ARGS);
  bool value = type & OMPLENS_MAPBIT_LITERAL; /* the reader keeps no value */
  e->args[e->nargs++] = (omplens_map_arg){value ? 0 : base, value ? 0 : begin, size, type, name};
}

static void x_region_end(expect *x, omplens_tw_stream *s, uint64_t t) {
  expect_thread *e = expect_of(x, s);
  omplens_tw_region_end(s, t);
  assert_true(e->depth > 0);
  e->rg[e->open[--e->depth]].end_ns = t - START_NS;
  note(e, -1, t - START_NS);
}

static void x_op(expect *x, omplens_tw_stream *s, const omplens_tw_op *op) {
  expect_thread *e = expect_of(x, s);
  omplens_tw_op_write(s, op);
  omplens_event *ev = push_event(e, op->region);
  ev->begin_ns = op->begin_ns - START_NS;
  ev->end_ns = ev->begin_ns + (op->end_ns > op->begin_ns ? op->end_ns - op->begin_ns : 0);
  ev->host_addr = op->host_addr;
  ev->dev_addr = op->dev_addr;
  ev->bytes = op->bytes;
  ev->hash = op->hashed ? op->hash : 0;
  ev->thread = s->thread;
  ev->device = (int16_t)op->device;
  ev->peer_device = (int16_t)op->peer;
  ev->kind = op->kind;
  ev->flags = (uint8_t)((op->hashed ? OMPLENS_EVF_HASHED : 0) |
                        (op->async ? OMPLENS_EVF_ASYNC : 0) |
                        (op->early ? OMPLENS_EVF_EARLY_HASH : 0));
  if (!op->region && op->own_codeptr) {
    e->ev_codeptr[e->nev - 1] = op->own_codeptr;
    ev->flags |= OMPLENS_EVF_OWN_CODEPTR;
  }
  note(e, op->device, ev->end_ns);
}

static void x_kernel(expect *x, omplens_tw_stream *s, uint64_t begin, uint64_t end, int device,
                     uint64_t teams, uint64_t region) {
  expect_thread *e = expect_of(x, s);
  omplens_tw_kernel(s, begin, end, device, teams, region);
  omplens_event *ev = push_event(e, region);
  ev->begin_ns = begin - START_NS;
  ev->end_ns = ev->begin_ns + (end > begin ? end - begin : 0);
  ev->bytes = teams;
  ev->thread = s->thread;
  ev->device = (int16_t)device;
  ev->peer_device = OMPLENS_HOST;
  ev->kind = OMPLENS_EV_KERNEL;
  note(e, device, ev->end_ns);
}

/* type: the runtime's device type string, or NULL. */
static void x_device(expect *x, omplens_tw_stream *s, uint64_t t, int device, const char *type) {
  if (type)
    omplens_tw_string(s, (uint64_t)(uintptr_t)type, type);
  omplens_tw_device(s, t, device, (uint64_t)(uintptr_t)type);
  note(expect_of(x, s), device, 0);
}

typedef struct ordered {
  omplens_event ev;
  uint64_t codeptr;
  uint64_t order; /* decode order: thread, then record */
} ordered;

static int cmp_ordered(const void *a, const void *b) {
  const ordered *x = a, *y = b;
  if (x->ev.begin_ns != y->ev.begin_ns)
    return x->ev.begin_ns < y->ev.begin_ns ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The events the reader must return: regions resolved, sorted by begin
 * time, ties in decode order, and each one's codeptr in *codeptrs. Caller
 * frees both. */
static omplens_event *expected_events(const expect *x, size_t *count, uint64_t **codeptrs) {
  size_t base[EXPECT_THREADS + 1] = {0}, n = 0;
  for (int t = 0; t < EXPECT_THREADS; t++) {
    base[t + 1] = base[t] + x->th[t].nrg;
    n += x->th[t].nev;
  }
  ordered *o = calloc(n ? n : 1, sizeof *o);
  assert_non_null(o);
  size_t k = 0;
  for (int t = 0; t < EXPECT_THREADS; t++) {
    for (size_t i = 0; i < x->th[t].nev; i++, k++) {
      o[k].ev = x->th[t].ev[i];
      o[k].codeptr = x->th[t].ev_codeptr[i];
      o[k].order = k;
      uint64_t id = x->th[t].ev_region_id[i];
      o[k].ev.region = OMPLENS_NO_REGION;
      if (!id)
        continue;
      size_t th = (size_t)(id >> 32), local = (size_t)(id & 0xffffffffu) - 1;
      assert_true(th < EXPECT_THREADS && local < x->th[th].nrg);
      o[k].ev.region = (uint32_t)(base[th] + local);
      if (!(o[k].ev.flags & OMPLENS_EVF_OWN_CODEPTR))
        o[k].codeptr = x->th[th].rg[local].codeptr;
    }
  }
  qsort(o, n, sizeof *o, cmp_ordered);
  omplens_event *ev = calloc(n ? n : 1, sizeof *ev);
  *codeptrs = calloc(n ? n : 1, sizeof **codeptrs);
  assert_non_null(ev);
  assert_non_null(*codeptrs);
  for (size_t i = 0; i < n; i++) {
    ev[i] = o[i].ev;
    (*codeptrs)[i] = o[i].codeptr;
  }
  free(o);
  *count = n;
  return ev;
}

/* ---- comparing ---------------------------------------------------------- */

/* Names the element before cmocka prints both values of a mismatch. */
#define ASSERT_FIELD(what, i, got, want, field)                                  \
  do {                                                                         \
    if ((got).field != (want).field)                                           \
      print_error("%s %zu: field " #field "\n", what, (size_t)(i));            \
    assert_int_equal((got).field, (want).field);                               \
  } while (0)

/* The event's codeptr comes through its site in the trace's table. */
static void assert_event_equal(size_t i, const omplens_event *g, const omplens_event *w,
                               const uint64_t *sites, size_t num_sites, uint64_t codeptr) {
  ASSERT_FIELD("event", i, *g, *w, begin_ns);
  ASSERT_FIELD("event", i, *g, *w, end_ns);
  ASSERT_FIELD("event", i, *g, *w, kind);
  ASSERT_FIELD("event", i, *g, *w, host_addr);
  ASSERT_FIELD("event", i, *g, *w, dev_addr);
  ASSERT_FIELD("event", i, *g, *w, bytes);
  ASSERT_FIELD("event", i, *g, *w, hash);
  assert_in_range(g->site, 0, num_sites - 1);
  if (sites[g->site] != codeptr)
    print_error("event %zu: codeptr\n", i);
  assert_int_equal(sites[g->site], codeptr);
  ASSERT_FIELD("event", i, *g, *w, region);
  ASSERT_FIELD("event", i, *g, *w, thread);
  ASSERT_FIELD("event", i, *g, *w, device);
  ASSERT_FIELD("event", i, *g, *w, peer_device);
  ASSERT_FIELD("event", i, *g, *w, flags);
}

static void assert_string_or_null(const char *got, const char *want) {
  if (!want)
    assert_null(got);
  else
    assert_string_equal(got ? got : "(null)", want);
}

/* Region g of trace t against w, whose map arguments are wargs[first_arg,
 * + num_args): the reader may keep one copy of equal lists, so the list is
 * compared, not where it starts. */
static void assert_region_equal(const omplens_trace *t, size_t i, const omplens_region *g,
                                const omplens_region *w, const omplens_map_arg *wargs) {
  size_t nargs;
  const omplens_map_arg *got = omplens_trace_args(t, &nargs);
  assert_true(g->first_arg <= nargs && g->num_args <= nargs - g->first_arg);
  for (uint32_t k = 0; k < w->num_args && k < g->num_args; k++) {
    const omplens_map_arg *ga = &got[g->first_arg + k], *wa = &wargs[w->first_arg + k];
    ASSERT_FIELD("region arg", i, *ga, *wa, base);
    ASSERT_FIELD("region arg", i, *ga, *wa, begin);
    ASSERT_FIELD("region arg", i, *ga, *wa, size);
    ASSERT_FIELD("region arg", i, *ga, *wa, type);
    assert_string_or_null(ga->name, wa->name);
  }
  ASSERT_FIELD("region", i, *g, *w, begin_ns);
  ASSERT_FIELD("region", i, *g, *w, end_ns);
  ASSERT_FIELD("region", i, *g, *w, codeptr);
  ASSERT_FIELD("region", i, *g, *w, thread);
  ASSERT_FIELD("region", i, *g, *w, device);
  ASSERT_FIELD("region", i, *g, *w, kind);
  ASSERT_FIELD("region", i, *g, *w, nowait);
  ASSERT_FIELD("region", i, *g, *w, num_args);
  assert_string_or_null(g->source, w->source);
}

/* No more map arguments than were written (equal lists may be kept once). */
static void assert_args_match(const omplens_trace *t, const expect *x) {
  size_t n, written = 0;
  omplens_trace_args(t, &n);
  for (int th = 0; th < EXPECT_THREADS; th++)
    written += x->th[th].nargs;
  assert_true(n <= written);
}

/* Checks events and regions of t against x. */
static void assert_trace_matches(const omplens_trace *t, const expect *x) {
  size_t nwant, ngot, nrg;
  uint64_t *codeptrs;
  size_t nsites;
  omplens_event *want = expected_events(x, &nwant, &codeptrs);
  const omplens_event *got = omplens_trace_events(t, &ngot);
  const uint64_t *sites = omplens_trace_sites(t, &nsites);
  assert_non_null(sites);
  assert_true(nsites >= 1);
  assert_int_equal(sites[0], 0);
  assert_int_equal(ngot, nwant);
  for (size_t i = 0; i < nwant; i++)
    assert_event_equal(i, &got[i], &want[i], sites, nsites, codeptrs[i]);
  free(want);
  free(codeptrs);
  const omplens_region *rg = omplens_trace_regions(t, &nrg);
  size_t k = 0;
  for (int th = 0; th < EXPECT_THREADS; th++) {
    for (size_t i = 0; i < x->th[th].nrg; i++, k++) {
      assert_true(k < nrg);
      assert_region_equal(t, k, &rg[k], &x->th[th].rg[i], x->th[th].args);
    }
  }
  assert_int_equal(nrg, k);
  assert_args_match(t, x);
}

/* The trace at path reads back whole, undamaged, as x expects. */
static void assert_reads_back(const char *path, const expect *x) {
  omplens_trace *tr;
  assert_int_equal(omplens_trace_open(path, &tr), 0);
  assert_null(omplens_trace_damage(tr));
  assert_trace_matches(tr, x);
  omplens_trace_close(tr);
}

/* Closes w at end_ns (the program exited with 0) and reads path back; the
 * caller closes the trace. */
static omplens_trace *close_and_open(omplens_tw *w, uint64_t end_ns, const char *path) {
  assert_int_equal(omplens_tw_close(w, end_ns, 0), 0);
  omplens_trace *tr;
  assert_int_equal(omplens_trace_open(path, &tr), 0);
  return tr;
}

/* Finishes stream s, closes w at end_ns and reads path back, which must
 * hold what x expects; the caller closes the trace. */
static omplens_trace *finish_and_read(omplens_tw *w, omplens_tw_stream *s, uint64_t end_ns,
                                      const char *path, const expect *x) {
  omplens_tw_stream_finish(s);
  omplens_trace *tr = close_and_open(w, end_ns, path);
  assert_trace_matches(tr, x);
  return tr;
}

static int expected_devices(const expect *x) {
  int max = -1;
  for (int th = 0; th < EXPECT_THREADS; th++)
    if (x->th[th].max_device > max)
      max = x->th[th].max_device;
  return max + 1;
}

static void assert_header(const omplens_trace_info *info) {
  assert_int_equal(info->version, OMPLENS_TF_VERSION);
  assert_int_equal(info->pid, PID);
  assert_string_equal(info->exe, "/opt/app/bin/prog");
  assert_string_equal(info->cmdline, CMDLINE);
  assert_int_equal(info->start_realtime_ns, REALTIME_NS);
  assert_int_equal(info->num_modules, 2);
  const omplens_module *m = info->modules;
  assert_string_equal(m[0].path, "/opt/app/bin/prog");
  assert_int_equal(m[0].base, 0x400000);
  assert_int_equal(m[0].low, 0x400000);
  assert_int_equal(m[0].high, 0x401fff);
  assert_int_equal(m[0].build_id_len, 20);
  assert_memory_equal(m[0].build_id, BUILD_ID, 20);
  assert_string_equal(m[1].path, "/usr/lib/libomp.so");
  assert_int_equal(m[1].base, 0x7f0000000000);
  assert_int_equal(m[1].low, 0x7f0000001000);
  assert_int_equal(m[1].high, 0x7f00000fffff);
  assert_int_equal(m[1].build_id_len, 0);
}

/* ---- round trips ---------------------------------------------------------- */

static omplens_tw_op make_op(uint8_t kind, uint64_t begin, uint64_t dur, int device,
                             uint64_t host, uint64_t dev, uint64_t bytes, uint64_t region) {
  return (omplens_tw_op){.begin_ns = begin, .end_ns = begin + dur, .host_addr = host,
                         .dev_addr = dev, .bytes = bytes, .region = region,
                         .device = device, .peer = OMPLENS_HOST, .kind = kind};
}

/* Thread 0: every record type and flag, nested regions, ops outside
 * regions, negative time and address deltas, extreme values. Returns the
 * id of its target region (thread 1 refers to it). */
static uint64_t write_thread0(expect *x, omplens_tw_stream *s, uint64_t *t) {
  x_device(x, s, *t += 10, 0, NULL);
  x_device(x, s, *t += 10, 3, "generic-64bit");
  uint64_t enter = x_region_begin(x, s, *t += 100, OMPLENS_CONSTRUCT_ENTER_DATA, 0, 0, 0x401000);
  omplens_tw_op op =
      make_op(OMPLENS_EV_ALLOC, *t += 10, 40, 0, 0x7ffd00001000, 0x10000, 8192, enter);
  x_op(x, s, &op);
  op = make_op(OMPLENS_EV_H2D, *t += 100, 900, 0, 0x7ffd00001000, 0x10000, 8192, enter);
  op.hashed = 1, op.hash = 0x0123456789abcdefull;
  x_op(x, s, &op);
  x_region_end(x, s, *t += 1000);

  /* The target's entry call, with its texts in STRING records. One name is
   * defined by thread 1 only: strings belong to the whole trace. */
  omplens_tw_string(s, 0x500100, ";prog.c;main;42;3;;");
  omplens_tw_string(s, 0x500200, ";b[0:n];prog.c;42;30;;");
  x_arg(x, s, 0x1, 0x2, 3, 4, 0x500200, NULL); /* before any call: dropped */
  x_call(x, s, 0x500100, ";prog.c;main;42;3;;", 0x402000, 3);
  x_arg(x, s, 0x7ffd00000000, 0x7ffd00000010, 16, OMPLENS_MAPBIT_TO | OMPLENS_MAPBIT_TARGET_PARAM,
        0x500200, ";b[0:n];prog.c;42;30;;");
  x_arg(x, s, 0x7ffd00002000, 0x7ffd00002000, 64, OMPLENS_MAPBIT_FROM | (1ull << 48), 0, NULL);
  x_arg(x, s, 0x7ffd00001000, 0x7ffd00000ff0, 8, OMPLENS_MAPBIT_TO, 0x500300, ";c;prog.c;43;1;;");
  uint64_t target = x_region_begin(x, s, *t += 100, OMPLENS_CONSTRUCT_TARGET, 1, 3, 0x402000);
  uint64_t update = x_region_begin(x, s, *t += 10, OMPLENS_CONSTRUCT_UPDATE, 0, 3, 0x401500);
  op = make_op(OMPLENS_EV_H2D, *t += 10, 50, 3, 0x7ffd00000010, 0x20000, 16, update);
  op.hashed = 1, op.hash = 0, op.async = 1; /* a valid hash of 0 */
  x_op(x, s, &op);
  op = make_op(OMPLENS_EV_H2D, *t += 100, 50, 3, 0x7ffd00002000, 0x20100, 64, target);
  x_op(x, s, &op); /* explicit reference to the outer region */
  op = make_op(OMPLENS_EV_DELETE, *t += 100, 5, 3, 0, 0x20000, 0, 0);
  op.own_codeptr = 0x409999;
  x_op(x, s, &op); /* outside any construct, with its own codeptr */
  op = make_op(OMPLENS_EV_ALLOC, *t += 100, 0, 3, 0x1000, 0x3000, 1, 0);
  x_op(x, s, &op); /* outside any construct, no codeptr at all */
  x_region_end(x, s, *t += 100);
  uint64_t k = *t += 100;
  x_kernel(x, s, k, k + 5000, 3, 4, target);
  uint64_t late = *t - 150; /* a deferred D2H: written after later records */
  op = make_op(OMPLENS_EV_D2H, late, 20, 3, 0x7ffd00000010, 0x20000, 16, target);
  op.hashed = 1, op.hash = UINT64_MAX, op.early = 1, op.async = 1;
  op.own_codeptr = 0x1234; /* ignored: the op has a region */
  x_op(x, s, &op);
  op = make_op(OMPLENS_EV_D2D, *t += 5000, 70, 2, 0, 0xffff800000000000ull, OMPLENS_EVENT_MAX_BYTES,
               target);
  op.peer = 3;
  x_op(x, s, &op);
  x_region_end(x, s, *t += 100);

  k = *t += 100;
  x_kernel(x, s, k, k - 50, 1, 0, 0); /* ends before it begins: duration 0 */
  op = make_op(OMPLENS_EV_ASSOCIATE, *t += 10, 1, 1, 0x5000, 0x6000, 32, 0);
  x_op(x, s, &op);
  op = make_op(OMPLENS_EV_DISASSOCIATE, *t += 10, 1, 1, 0x5000, 0x6000, 32, 0);
  x_op(x, s, &op);
  x_region_begin(x, s, *t += 10, OMPLENS_CONSTRUCT_EXIT_DATA, 0, 0, 0x403000); /* never ends */
  return target;
}

/* Thread 1: enough records in one open region to rotate chunks several
 * times, and references to a region of thread 0. */
static void write_thread1(expect *x, omplens_tw_stream *s, uint64_t *t, uint64_t other) {
  static char long_text[OMPLENS_TF_MAX_STRING + 100], cut[OMPLENS_TF_MAX_STRING + 1];
  memset(long_text, 'x', sizeof long_text - 1);
  memset(cut, 'x', sizeof cut - 1); /* a STRING record keeps at most this much */
  omplens_tw_string(s, 0x500400, long_text);
  omplens_tw_string(s, 0x500300, ";c;prog.c;43;1;;");
  omplens_tw_string(s, 0x500100, "defined again: the first text stays");
  x_call(x, s, 0x500400, cut, 0x404000, 1);
  x_arg(x, s, 0x600000, 0x600000, 8, OMPLENS_MAPBIT_TO, 0x500100, ";prog.c;main;42;3;;");
  uint64_t region = x_region_begin(x, s, *t += 10, OMPLENS_CONSTRUCT_TARGET, 0, 1, 0x404000);
  for (uint64_t i = 0; i < 1500; i++) {
    uint64_t host = i % 2 ? 0x600000 + i * 0x1000 : 0x900000 - i * 0x40;
    omplens_tw_op op = make_op(i % 3 ? OMPLENS_EV_H2D : OMPLENS_EV_D2H, *t += 7, i % 50, 1, host,
                               0x7000000 + (i % 5) * 0x100, i * 8, i % 97 ? region : other);
    op.hashed = i % 2, op.hash = i * 0x9e3779b97f4a7c15ull;
    x_op(x, s, &op);
    if (i % 100 == 99) {
      uint64_t k = *t += 3;
      x_kernel(x, s, k, k + 200, 1, i, region);
    }
  }
  x_region_end(x, s, *t += 10);
  x_call(x, s, 0x999, NULL, 0x404100, 0); /* location never written */
  x_region_begin(x, s, *t += 10, OMPLENS_CONSTRUCT_UPDATE, 0, 1, 0x404100);
  x_region_end(x, s, *t += 10);
}

/* Thread 2: kernels on a high device number, inside and outside regions. */
static void write_thread2(expect *x, omplens_tw_stream *s, uint64_t *t) {
  uint64_t region = x_region_begin(x, s, *t += 1, OMPLENS_CONSTRUCT_TARGET, 1, 5, 0x405000);
  uint64_t k = *t += 1;
  x_kernel(x, s, k, k + 10, 5, OMPLENS_EVENT_MAX_BYTES, region);
  x_region_end(x, s, *t += 20);
  k = *t += 1;
  x_kernel(x, s, k, k + 10, 5, 7, 0);
}

static void test_round_trip_all_fields(void **state) {
  const char *path = tmp_path("round_trip.trace");
  omplens_tw w;
  omplens_tw_stream *s = calloc(3, sizeof *s); /* zeroed caller storage */
  assert_non_null(s);
  expect *x = expect_new();
  open_writer(&w, path, SMALL_CHUNK);
  for (int i = 0; i < 3; i++)
    omplens_tw_stream_init(&s[i], &w, 100 + (uint64_t)i);
  uint64_t t = START_NS;
  uint64_t target = write_thread0(x, &s[0], &t);
  write_thread1(x, &s[1], &t, target);
  write_thread2(x, &s[2], &t);
  for (int i = 0; i < 3; i++)
    omplens_tw_stream_finish(&s[i]);
  assert_true(s[1].seq >= 3); /* thread 1 rotated chunks */
  atomic_fetch_add(&w.dropped, 5);
  uint64_t end = t + 12345;
  assert_int_equal(omplens_tw_close(&w, end, 7), 0);

  omplens_trace *tr;
  assert_int_equal(omplens_trace_open(path, &tr), 0);
  const omplens_trace_info *info = omplens_trace_get_info(tr);
  assert_header(info);
  assert_int_equal(info->complete, 1);
  assert_int_equal(info->exit_status, 7);
  assert_int_equal(info->dropped, 5);
  assert_int_equal(info->duration_ns, end - START_NS);
  assert_int_equal(info->num_devices, expected_devices(x));
  assert_int_equal(info->num_devices, 6);
  assert_string_equal(omplens_trace_device_type(tr, 3), "generic-64bit");
  assert_null(omplens_trace_device_type(tr, 0)); /* an untyped record */
  assert_null(omplens_trace_device_type(tr, -1));
  assert_null(omplens_trace_device_type(tr, OMPLENS_TRACE_TYPED_DEVICES));
  assert_null(omplens_trace_damage(tr));
  assert_string_equal(omplens_trace_path(tr), path);
  assert_trace_matches(tr, x);
  omplens_trace_close(tr);
  expect_free(x);
  free(s);
}

/* The same bytes decode the same from memory as from the file. */
static void test_open_memory_matches_file(void **state) {
  const char *path = tmp_path("memory.trace");
  omplens_tw w;
  omplens_tw_stream s = {0};
  expect *x = expect_new();
  open_writer(&w, path, 0); /* default chunk size */
  omplens_tw_stream_init(&s, &w, 1);
  uint64_t t = START_NS;
  write_thread0(x, &s, &t);
  omplens_tw_string(&s, 0x500300, ";c;prog.c;43;1;;"); /* thread 1 has it elsewhere */
  omplens_tw_stream_finish(&s);
  assert_int_equal(omplens_tw_close(&w, t + 1, 0), 0);
  size_t size;
  uint8_t *buf = slurp(path, &size);
  omplens_trace *tr;
  assert_int_equal(omplens_trace_open_memory(buf, size, &tr), 0);
  free(buf); /* the trace keeps no pointer into the caller's bytes */
  assert_header(omplens_trace_get_info(tr));
  assert_string_equal(omplens_trace_path(tr), "(memory)");
  assert_trace_matches(tr, x);
  omplens_trace_close(tr);
  expect_free(x);
}

/* A trace with streams but no record: complete, empty. */
static void test_no_events(void **state) {
  const char *path = tmp_path("empty_run.trace");
  omplens_tw w;
  open_writer(&w, path, 0);
  omplens_trace *tr = close_and_open(&w, START_NS + 500, path);
  size_t n, nr;
  assert_non_null(omplens_trace_get_info(tr));
  omplens_trace_events(tr, &n);
  omplens_trace_regions(tr, &nr);
  assert_int_equal(n, 0);
  assert_int_equal(nr, 0);
  assert_int_equal(omplens_trace_get_info(tr)->complete, 1);
  assert_int_equal(omplens_trace_get_info(tr)->duration_ns, 500);
  assert_int_equal(omplens_trace_get_info(tr)->num_devices, 0);
  assert_null(omplens_trace_damage(tr));
  omplens_trace_close(tr);
}

/* TOOL records from two threads become paused stretches in time order: a
 * repeated pause changes nothing, a start closes, an end opens one that
 * lasts to the end of the trace, and a start after it is ignored. */
static void test_pauses(void **state) {
  (void)state;
  const char *path = tmp_path("pauses.trace");
  omplens_tw w;
  open_writer(&w, path, 0);
  omplens_tw_stream a = {0}, b = {0};
  omplens_tw_stream_init(&a, &w, 1);
  omplens_tw_stream_init(&b, &w, 2);
  omplens_tw_tool(&a, START_NS + 100, OMPLENS_TOOL_PAUSE);
  omplens_tw_tool(&b, START_NS + 150, OMPLENS_TOOL_PAUSE);
  omplens_tw_tool(&b, START_NS + 200, OMPLENS_TOOL_START);
  omplens_tw_tool(&a, START_NS + 300, 3); /* unknown here (flush): skipped */
  omplens_tw_tool(&a, START_NS + 400, OMPLENS_TOOL_END);
  omplens_tw_tool(&b, START_NS + 450, OMPLENS_TOOL_START);
  omplens_tw_stream_finish(&a);
  omplens_tw_stream_finish(&b);
  omplens_trace *tr = close_and_open(&w, START_NS + 1000, path);
  size_t n;
  const omplens_trace_pause *p = omplens_trace_pauses(tr, &n);
  assert_int_equal(n, 2);
  assert_int_equal(p[0].begin_ns, 100);
  assert_int_equal(p[0].end_ns, 200);
  assert_int_equal(p[1].begin_ns, 400);
  assert_int_equal(p[1].end_ns, 1000);
  assert_int_equal(omplens_trace_paused_ns(tr, 0, UINT64_MAX), 700);
  assert_int_equal(omplens_trace_paused_ns(tr, 150, 500), 150);
  assert_null(omplens_trace_damage(tr));
  omplens_trace_close(tr);
  assert_null(omplens_trace_pauses(NULL, &n));
  assert_int_equal(n, 0);
}

/* WAIT records are tied to the nowait region that ended last within them:
 * a wait in which none ended (or only a synchronous one) is dropped, an
 * unknown kind is skipped, and the kept ones come back by begin time with
 * their region's end as the end of what counts. */
static void test_waits(void **state) {
  (void)state;
  const char *path = tmp_path("waits.trace");
  omplens_tw w;
  open_writer(&w, path, 0);
  omplens_tw_stream host = {0}, helper = {0};
  omplens_tw_stream_init(&host, &w, 1);
  omplens_tw_stream_init(&helper, &w, 2);
  omplens_tw_region_begin(&helper, START_NS + 100, OMPLENS_CONSTRUCT_TARGET, 1, 0, 0x5000);
  omplens_tw_region_end(&helper, START_NS + 300);               /* region 0, nowait */
  omplens_tw_region_begin(&helper, START_NS + 320, OMPLENS_CONSTRUCT_UPDATE, 1, 0, 0x6000);
  omplens_tw_region_end(&helper, START_NS + 400);               /* region 1, nowait */
  omplens_tw_region_begin(&host, START_NS + 500, OMPLENS_CONSTRUCT_TARGET, 0, 0, 0x7000);
  omplens_tw_region_end(&host, START_NS + 600);                 /* region 2, synchronous */
  omplens_tw_region_begin(&helper, START_NS + 700, OMPLENS_CONSTRUCT_TARGET, 1, 0, 0x5000);
  omplens_tw_region_end(&helper, START_NS + 900);               /* region 3, nowait */
  omplens_tw_wait(&host, START_NS + 650, START_NS + 950, OMPLENS_WAIT_BARRIER, 0x8100);
  omplens_tw_wait(&host, START_NS + 200, START_NS + 450, OMPLENS_WAIT_TASKWAIT, 0x8000);
  omplens_tw_wait(&host, START_NS + 550, START_NS + 640, OMPLENS_WAIT_TASKGROUP, 0x8200); /* none ended */
  omplens_tw_wait(&host, START_NS + 960, START_NS + 990, 9, 0x8300); /* unknown kind */
  omplens_tw_stream_finish(&host);
  omplens_tw_stream_finish(&helper);
  omplens_trace *tr = close_and_open(&w, START_NS + 1000, path);
  size_t n, nr;
  const omplens_region *r = omplens_trace_regions(tr, &nr);
  const omplens_trace_wait *x = omplens_trace_waits(tr, &n);
  assert_int_equal(n, 2);
  assert_int_equal(x[0].begin_ns, 200);
  assert_int_equal(x[0].sync_end_ns, 450);
  assert_int_equal(x[0].end_ns, 400); /* region 1 ended last in it */
  assert_int_equal(x[0].kind, OMPLENS_WAIT_TASKWAIT);
  assert_int_equal(x[0].codeptr, 0x8000);
  assert_true(x[0].region < nr);
  assert_int_equal(r[x[0].region].codeptr, 0x6000);
  assert_int_equal(x[1].begin_ns, 650);
  assert_int_equal(x[1].end_ns, 900);
  assert_int_equal(x[1].sync_end_ns, 950);
  assert_int_equal(x[1].kind, OMPLENS_WAIT_BARRIER);
  assert_int_equal(r[x[1].region].begin_ns, 700);
  assert_int_equal(x[0].thread, x[1].thread);
  assert_int_not_equal(x[0].thread, r[x[0].region].thread);
  assert_string_equal(omplens_wait_kind_name(x[1].kind), "barrier");
  assert_string_equal(omplens_wait_kind_name(0), "unknown");
  assert_null(omplens_trace_damage(tr));
  omplens_trace_close(tr);
  assert_null(omplens_trace_waits(NULL, &n));
  assert_int_equal(n, 0);
}

/* Several threads write at once, as in the collector: each stream claims
 * chunks with an atomic add, so chunks of different threads interleave.
 * Each thread fills only its own expect_thread. (An assertion failing in a
 * worker cannot unwind cmocka's test cleanly: the runner then dies, which
 * still fails the test.) */
typedef struct writer_thread {
  omplens_tw *w;
  expect *x;
  pthread_barrier_t *go;
  omplens_tw_stream s;
  uint64_t iterations; /* constructs to write, with 5 ops each */
} writer_thread;

static void *write_concurrently(void *arg) {
  writer_thread *wt = arg;
  omplens_tw_stream_init(&wt->s, wt->w, 1000);
  pthread_barrier_wait(wt->go);
  uint64_t th = wt->s.thread;
  for (uint64_t i = 0; i < wt->iterations; i++) {
    /* Distinct times across threads: no ties to order. */
    uint64_t t = START_NS + (i * EXPECT_THREADS + th) * 1000;
    uint64_t host = (th << 40) | (i * 64);
    uint64_t r =
        x_region_begin(wt->x, &wt->s, t, OMPLENS_CONSTRUCT_TARGET, 0, (int)th % 4, 0x500000 + i);
    omplens_tw_op op = make_op(OMPLENS_EV_ALLOC, t + 1, 1, (int)th % 4, host, host + 8, 64, r);
    x_op(wt->x, &wt->s, &op);
    op = make_op(OMPLENS_EV_H2D, t + 2, 1, (int)th % 4, host, host + 8, 64, r);
    op.hashed = 1, op.hash = host ^ i;
    x_op(wt->x, &wt->s, &op);
    x_kernel(wt->x, &wt->s, t + 3, t + 4, (int)th % 4, 1, r);
    op = make_op(OMPLENS_EV_D2H, t + 5, 1, (int)th % 4, host, host + 8, 64, r);
    x_op(wt->x, &wt->s, &op);
    op = make_op(OMPLENS_EV_DELETE, t + 6, 1, (int)th % 4, 0, host + 8, 0, r);
    x_op(wt->x, &wt->s, &op);
    x_region_end(wt->x, &wt->s, t + 7);
    if (i % 97 == 0) { /* now and then an op outside any construct, with its own codeptr */
      op = make_op(OMPLENS_EV_H2D, t + 8, 1, (int)th % 4, host, host + 8, 64, 0);
      op.own_codeptr = 0x900000 + th;
      x_op(wt->x, &wt->s, &op);
    }
  }
  omplens_tw_stream_finish(&wt->s);
  return NULL;
}


/* Read with a progress hook: the same trace, a call per chunk and pass,
 * never past the total, and the last figure is the whole. */
static void assert_read_with_progress(const char *path, const expect *x) {
  heard h = {.lock = PTHREAD_MUTEX_INITIALIZER};
  omplens_trace_open_options opts = {hear, &h};
  omplens_trace *tr;
  assert_int_equal(omplens_trace_open_with(path, &opts, &tr), 0);
  assert_trace_matches(tr, x);
  omplens_trace_close(tr);
  assert_false(h.bad);
  assert_true(h.calls >= 4); /* two chunks or more, decoded twice */
  assert_true(h.total > 0);
  assert_int_equal(h.most, h.total);
}

/* THREADS streams of iterations constructs each, written at once, read
 * back exactly. */
static void concurrent_streams(const char *name, uint64_t iterations) {
  enum { THREADS = 4 };
  const char *path = tmp_path(name);
  omplens_tw w;
  expect *x = expect_new();
  pthread_barrier_t go;
  pthread_t tid[THREADS];
  writer_thread *wt = calloc(THREADS, sizeof *wt);
  assert_non_null(wt);
  open_writer(&w, path, SMALL_CHUNK);
  pthread_barrier_init(&go, NULL, THREADS);
  for (int i = 0; i < THREADS; i++) {
    wt[i] = (writer_thread){&w, x, &go, {0}, iterations};
    assert_int_equal(pthread_create(&tid[i], NULL, write_concurrently, &wt[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(tid[i], NULL);
  pthread_barrier_destroy(&go);
  for (int i = 0; i < THREADS; i++)
    assert_true(wt[i].s.seq >= 2);
  assert_int_equal(omplens_tw_close(&w, START_NS + 10000000, 0), 0);

  omplens_trace *tr;
  assert_int_equal(omplens_trace_open(path, &tr), 0);
  assert_null(omplens_trace_damage(tr));
  assert_int_equal(omplens_trace_get_info(tr)->num_devices, 4);
  assert_trace_matches(tr, x);
  omplens_trace_close(tr);
  assert_read_with_progress(path, x);
  expect_free(x);
  free(wt);
}

static void test_concurrent_streams(void **state) { concurrent_streams("concurrent.trace", 300); }

/* Enough events (over 80,000) that the reader's second pass splits the
 * threads' chunks between two threads: the result is the same. */
static void test_concurrent_streams_split_place(void **state) {
  concurrent_streams("split.trace", 4000);
}

/* One host thread, as most programs have, with enough events (68,000)
 * that the reader's second pass splits its run of chunks in the middle:
 * the state there (the open constructs, to which the ops that name no
 * region belong) carries over, and the result is the same. */
static void test_one_thread_split_place(void **state) {
  (void)state;
  const char *path = tmp_path("one_thread_split.trace");
  omplens_tw w;
  omplens_tw_stream s = {0};
  expect *x = expect_new();
  uint64_t t = START_NS;
  open_writer(&w, path, SMALL_CHUNK);
  omplens_tw_stream_init(&s, &w, 1);
  uint64_t outer = x_region_begin(x, &s, t += 10, OMPLENS_CONSTRUCT_ENTER_DATA, 0, 0, 0x500000);
  for (uint64_t i = 0; i < 4000; i++) {
    uint64_t r = x_region_begin(x, &s, t += 10, OMPLENS_CONSTRUCT_TARGET, 0, 0, 0x500100 + i % 7);
    for (uint64_t k = 0; k < 8; k++) {
      omplens_tw_op op = make_op(OMPLENS_EV_H2D, t += 10, 2, 0, 0x10000 + 64 * k, 0x90000 + 64 * k, 64, r);
      op.hashed = 1, op.hash = i * 8 + k;
      x_op(x, &s, &op);
    }
    x_kernel(x, &s, t + 1, t + 5, 0, 1, r);
    x_region_end(x, &s, t += 10);
    for (uint64_t k = 0; k < 8; k++) { /* in the outer construct, the one open */
      omplens_tw_op op = make_op(OMPLENS_EV_D2H, t += 10, 2, 0, 0x20000 + 64 * k, 0xa0000 + 64 * k, 64, outer);
      x_op(x, &s, &op);
    }
  }
  x_region_end(x, &s, t += 10);
  omplens_tw_stream_finish(&s);
  assert_true(s.seq >= 8);
  assert_int_equal(omplens_tw_close(&w, t + 1000, 0), 0);
  assert_reads_back(path, x);
  expect_free(x);
}

/* A loop runs one directive on the same buffers 40 times, with another
 * list of arguments in between: the reader keeps each distinct list once,
 * and every region still finds its own. */
static void test_repeated_arg_lists(void **state) {
  const char *path = tmp_path("repeated_args.trace");
  omplens_tw w;
  omplens_tw_stream s = {0};
  expect *x = expect_new();
  uint64_t t = START_NS;
  open_writer(&w, path, 0);
  omplens_tw_stream_init(&s, &w, 1);
  omplens_tw_string(&s, 0x500100, ";loop.c;main;10;1;;");
  omplens_tw_string(&s, 0x500200, ";a[0:n];loop.c;10;30;;");
  omplens_tw_string(&s, 0x500300, ";b[0:n];loop.c;10;40;;");
  for (int i = 0; i < 40; i++) {
    int other = i == 20; /* b on its own, once */
    x_call(x, &s, 0x500100, ";loop.c;main;10;1;;", 0x402000, other ? 1 : 2);
    if (!other)
      x_arg(x, &s, 0x7f0000000000, 0x7f0000000000, 4096, OMPLENS_MAPBIT_TO, 0x500200,
            ";a[0:n];loop.c;10;30;;");
    x_arg(x, &s, 0x7f0000100000, 0x7f0000100000, 4096, OMPLENS_MAPBIT_FROM, 0x500300,
          ";b[0:n];loop.c;10;40;;");
    uint64_t r = x_region_begin(x, &s, t += 100, OMPLENS_CONSTRUCT_TARGET, 0, 0, 0x402000);
    x_kernel(x, &s, t + 10, t + 20, 0, 1, r);
    x_region_end(x, &s, t += 50);
  }
  omplens_trace *tr = finish_and_read(&w, &s, t + 1, path, x);
  size_t nargs, nrg;
  omplens_trace_args(tr, &nargs);
  assert_int_equal(nargs, 3); /* (a, b) and (b): 80 written */
  const omplens_region *rg = omplens_trace_regions(tr, &nrg);
  assert_int_equal(nrg, 40);
  assert_int_equal(rg[0].first_arg, rg[39].first_arg);
  assert_int_not_equal(rg[0].first_arg, rg[20].first_arg);
  omplens_trace_close(tr);
  expect_free(x);
}

/* A call with more map arguments than a region keeps (a struct of tens of
 * thousands of mapped members): its region keeps the first
 * OMPLENS_MAX_CALL_ARGS, and the next call's arguments are its own. */
static void test_call_args_bounded(void **state) {
  (void)state;
  const char *path = tmp_path("many_args.trace");
  enum { MANY = OMPLENS_MAX_CALL_ARGS + 1000 };
  omplens_tw w;
  omplens_tw_stream s = {0};
  uint64_t t = START_NS;
  open_writer(&w, path, 0);
  omplens_tw_stream_init(&s, &w, 1);
  omplens_tw_call(&s, 0x500100, 0x402000, MANY);
  for (uint64_t i = 0; i < MANY; i++)
    omplens_tw_arg(&s, 0x7f0000000000 + 64 * i, 0x7f0000000000 + 64 * i, 8, OMPLENS_MAPBIT_TO, 0);
  omplens_tw_region_begin(&s, t += 100, OMPLENS_CONSTRUCT_TARGET, 0, 0, 0x402000);
  omplens_tw_region_end(&s, t += 100);
  omplens_tw_call(&s, 0x500100, 0x402100, 2);
  omplens_tw_arg(&s, 0x600000, 0x600000, 16, OMPLENS_MAPBIT_FROM, 0);
  omplens_tw_arg(&s, 0x610000, 0x610000, 32, OMPLENS_MAPBIT_TO, 0);
  omplens_tw_region_begin(&s, t += 100, OMPLENS_CONSTRUCT_UPDATE, 0, 0, 0x402100);
  omplens_tw_region_end(&s, t += 100);
  omplens_tw_stream_finish(&s);
  omplens_trace *tr = close_and_open(&w, t + 1, path);
  size_t nargs, nrg;
  const omplens_map_arg *args = omplens_trace_args(tr, &nargs);
  const omplens_region *rg = omplens_trace_regions(tr, &nrg);
  assert_int_equal(nrg, 2);
  assert_int_equal(rg[0].num_args, OMPLENS_MAX_CALL_ARGS);
  assert_int_equal(nargs, OMPLENS_MAX_CALL_ARGS + 2);
  for (uint64_t i = 0; i < OMPLENS_MAX_CALL_ARGS; i++)
    if (args[rg[0].first_arg + i].base != 0x7f0000000000 + 64 * i)
      fail_msg("argument %" PRIu64 " has base 0x%" PRIx64, i, args[rg[0].first_arg + i].base);
  assert_int_equal(rg[1].num_args, 2);
  assert_int_equal(args[rg[1].first_arg].base, 0x600000);
  assert_int_equal(args[rg[1].first_arg + 1].size, 32);
  omplens_trace_close(tr);
}

/* An event's times and sizes are 48-bit fields: a record past them is
 * damage (as an undecodable one, it ends its chunk's records), and the
 * events at the bounds are read exactly. Each bad record is alone in the
 * chunk of a thread of its own. */
static void test_event_fields_bounded(void **state) {
  (void)state;
  const char *path = tmp_path("event_bounds.trace");
  const uint64_t last = START_NS + OMPLENS_EVENT_MAX_NS; /* the last time an event can hold */
  omplens_tw w;
  omplens_tw_stream *s = calloc(5, sizeof *s);
  assert_non_null(s);
  open_writer(&w, path, 0);
  for (int i = 0; i < 5; i++)
    omplens_tw_stream_init(&s[i], &w, 100 + (uint64_t)i);
  omplens_tw_op op = make_op(OMPLENS_EV_H2D, START_NS + 10, 5, 0, 0x600000, 0x7000, 64, 0);
  omplens_tw_op_write(&s[0], &op);
  op = make_op(OMPLENS_EV_D2H, START_NS + 30, 5, 0, 0x600000, 0x7000, OMPLENS_EVENT_MAX_BYTES, 0);
  omplens_tw_op_write(&s[0], &op); /* at the bound */
  op = make_op(OMPLENS_EV_ALLOC, last - 10, 10, 0, 0x600000, 0x8000, 32, 0);
  omplens_tw_op_write(&s[0], &op); /* ends at the bound */
  op = make_op(OMPLENS_EV_H2D, START_NS + 20, 5, 0, 0x600000, 0x7000, OMPLENS_EVENT_MAX_BYTES + 1, 0);
  omplens_tw_op_write(&s[1], &op);                                          /* too large */
  omplens_tw_kernel(&s[2], START_NS + 40, START_NS + 50, 0, OMPLENS_EVENT_MAX_BYTES + 1, 0); /* teams */
  op = make_op(OMPLENS_EV_DELETE, last - 10, 11, 0, 0, 0x8000, 0, 0);
  omplens_tw_op_write(&s[3], &op);                  /* ends past the bound */
  omplens_tw_kernel(&s[4], last + 1, last + 2, 0, 1, 0); /* begins past it */
  for (int i = 0; i < 5; i++)
    omplens_tw_stream_finish(&s[i]);
  omplens_trace *tr = close_and_open(&w, last + 3, path);
  assert_non_null(omplens_trace_damage(tr));
  size_t n;
  const omplens_event *ev = omplens_trace_events(tr, &n);
  assert_int_equal(n, 3);
  assert_int_equal(ev[0].bytes, 64);
  assert_int_equal(ev[1].kind, OMPLENS_EV_D2H);
  assert_int_equal(ev[1].bytes, OMPLENS_EVENT_MAX_BYTES);
  assert_int_equal(ev[2].kind, OMPLENS_EV_ALLOC);
  assert_int_equal(ev[2].begin_ns, OMPLENS_EVENT_MAX_NS - 10);
  assert_int_equal(ev[2].end_ns, OMPLENS_EVENT_MAX_NS);
  assert_int_equal(ev[2].end_ns - ev[2].begin_ns, 10);
  omplens_trace_close(tr);
  free(s);
}

/* An event's thread index is 12 bits: the chunks of a thread past
 * OMPLENS_MAX_THREADS are damage, said in one line, and the others read. */
static void test_threads_bounded(void **state) {
  (void)state;
  const char *path = tmp_path("many_threads.trace");
  enum { WRITING = 64 }; /* enough chunks that thread OMPLENS_MAX_THREADS is not "far beyond" */
  omplens_tw w;
  omplens_tw_stream *s = calloc(OMPLENS_MAX_THREADS + 1, sizeof *s);
  assert_non_null(s);
  open_writer(&w, path, SMALL_CHUNK);
  for (int i = 0; i <= OMPLENS_MAX_THREADS; i++)
    omplens_tw_stream_init(&s[i], &w, 100 + (uint64_t)i);
  for (int i = 0; i <= OMPLENS_MAX_THREADS; i++) {
    if (i >= WRITING && i < OMPLENS_MAX_THREADS)
      continue;
    omplens_tw_op op = make_op(OMPLENS_EV_ALLOC, START_NS + 10 * (uint64_t)i, 5, 0, 0x600000,
                               0x7000 + 0x100 * (uint64_t)i, 64, 0);
    omplens_tw_op_write(&s[i], &op);
  }
  for (int i = 0; i <= OMPLENS_MAX_THREADS; i++)
    omplens_tw_stream_finish(&s[i]);
  omplens_trace *tr = close_and_open(&w, START_NS + 100000, path);
  size_t n;
  const omplens_event *ev = omplens_trace_events(tr, &n);
  assert_int_equal(n, WRITING);
  for (size_t i = 0; i < n; i++)
    assert_true(ev[i].thread < WRITING);
  const char *damage = omplens_trace_damage(tr);
  assert_non_null(damage);
  assert_non_null(strstr(damage, "names thread 4096, past the threads a trace can hold: skipped"));
  omplens_trace_close(tr);
  free(s);
}

/* The first pass already points a repeated list back at its first copy;
 * the lists still end up shared as before: one after the arguments of a
 * call no construct took moves down, and two whose names are unknown (other
 * program addresses, no string) are one list once the names are resolved. */
static void test_arg_lists_pointed_back(void **state) {
  const char *path = tmp_path("arg_lists_back.trace");
  omplens_tw w;
  omplens_tw_stream s = {0};
  expect *x = expect_new();
  uint64_t t = START_NS;
  const char *loc = ";back.c;main;5;1;;", *upd = ";back.c;main;9;1;;";
  const char *a = ";a[0:n];back.c;5;20;;";
  open_writer(&w, path, 0);
  omplens_tw_stream_init(&s, &w, 1);
  omplens_tw_string(&s, 0x500100, loc);
  omplens_tw_string(&s, 0x500110, upd);
  omplens_tw_string(&s, 0x500200, a);
  for (int i = 0; i < 6; i++) {
    x_call(x, &s, 0x500100, loc, 0x402000, 1);
    x_arg(x, &s, 0x7f0000000000, 0x7f0000000000, 4096, OMPLENS_MAPBIT_TO, 0x500200, a);
    x_region_begin(x, &s, t += 100, OMPLENS_CONSTRUCT_TARGET, 0, 0, 0x402000);
    x_region_end(x, &s, t += 50);
    if (i == 0) { /* a call whose construct never comes */
      x_call(x, &s, 0x500100, loc, 0x402000, 2);
      x_arg(x, &s, 0x7f0000300000, 0x7f0000300000, 64, OMPLENS_MAPBIT_FROM, 0, NULL);
      x_arg(x, &s, 0x7f0000400000, 0x7f0000400000, 64, OMPLENS_MAPBIT_FROM, 0, NULL);
    }
    x_call(x, &s, 0x500110, upd, 0x402100, 1);
    x_arg(x, &s, 0x7f0000100000, 0x7f0000100000, 64, OMPLENS_MAPBIT_FROM, 0x600000 + (i & 1), NULL);
    x_region_begin(x, &s, t += 100, OMPLENS_CONSTRUCT_UPDATE, 0, 0, 0x402100);
    x_region_end(x, &s, t += 50);
  }
  omplens_trace *tr = finish_and_read(&w, &s, t + 1, path, x);
  size_t nargs, nrg;
  const omplens_map_arg *args = omplens_trace_args(tr, &nargs);
  assert_int_equal(nargs, 2); /* (a) and (the unnamed one): 12 lists written */
  const omplens_region *rg = omplens_trace_regions(tr, &nrg);
  assert_int_equal(nrg, 12);
  uint32_t first_a = rg[0].first_arg, first_u = rg[1].first_arg;
  for (size_t i = 0; i < nrg; i += 2) {
    assert_int_equal(rg[i].first_arg, first_a);
    assert_int_equal(rg[i + 1].first_arg, first_u);
  }
  assert_int_equal(first_a, 0);
  assert_int_equal(first_u, 1); /* moved down over the dropped call's two */
  assert_string_equal(args[first_a].name, a);
  assert_null(args[first_u].name);
  omplens_trace_close(tr);
  expect_free(x);
}

/* A construct run in a loop passes its counter by value (a literal
 * argument, its value in base and begin) beside the same buffer each time:
 * the lists differ only in the value, which the reader does not keep, so
 * they are one list; and no operation is ever the literal's, not even one
 * at the address its value names. */
static void test_arg_lists_literal_values(void **state) {
  (void)state;
  const char *path = tmp_path("arg_lists_literal.trace");
  omplens_tw w;
  omplens_tw_stream s = {0};
  expect *x = expect_new();
  uint64_t t = START_NS, buf = 0x7f0000000000;
  const char *loc = ";lit.c;main;5;1;;", *a = ";a[0:n];lit.c;5;20;;", *k = ";k;lit.c;4;12;;";
  open_writer(&w, path, 0);
  omplens_tw_stream_init(&s, &w, 1);
  omplens_tw_string(&s, 0x500100, loc);
  omplens_tw_string(&s, 0x500200, a);
  omplens_tw_string(&s, 0x500300, k);
  uint64_t lit = OMPLENS_MAPBIT_LITERAL | OMPLENS_MAPBIT_TARGET_PARAM;
  for (uint64_t i = 0; i < 50; i++) {
    x_call(x, &s, 0x500100, loc, 0x402000, 2);
    x_arg(x, &s, buf, buf, 4096, OMPLENS_MAPBIT_TO, 0x500200, a);
    x_arg(x, &s, i ? buf + 64 * i : 0, i ? buf + 64 * i : 0, 8, lit, 0x500300, k);
    x_region_begin(x, &s, t += 100, OMPLENS_CONSTRUCT_TARGET, 0, 0, 0x402000);
    x_region_end(x, &s, t += 50);
  }
  omplens_trace *tr = finish_and_read(&w, &s, t + 1, path, x);
  size_t nargs, nrg;
  const omplens_map_arg *args = omplens_trace_args(tr, &nargs);
  const omplens_region *rg = omplens_trace_regions(tr, &nrg);
  assert_int_equal(nrg, 50);
  assert_int_equal(nargs, 2); /* one list, not 50 */
  for (size_t i = 0; i < nrg; i++)
    assert_int_equal(rg[i].first_arg, 0);
  assert_int_equal(args[1].begin, 0);
  assert_int_equal(args[1].base, 0);
  uint32_t order[2];
  omplens_map_args_sort(args, 2, order);
  assert_int_equal(omplens_map_args_find(args, order, 2, buf, 4096), 0);
  assert_int_equal(omplens_map_args_find(args, order, 2, 0, 8), UINT32_MAX);
  assert_false(omplens_map_arg_holds(&args[1], 0));
  omplens_map_arg shadowed[2] = {args[1], {0, 0, 8, OMPLENS_MAPBIT_TO, NULL}};
  omplens_map_args_sort(shadowed, 2, order); /* a buffer where the literal sorts */
  assert_int_equal(omplens_map_args_find(shadowed, order, 2, 0, 8), 1);
  omplens_trace_close(tr);
  expect_free(x);
}

/* A directive the compiler duplicated calls the runtime from two places,
 * each copy with its own location string of the same text: its regions
 * take the first copy's codeptr. Another text, or no entry call, keeps its
 * own. */
static void test_directive_copies_merge(void **state) {
  (void)state;
  static const struct {
    uint64_t loc;   /* 0: no entry call */
    uint64_t codeptr, merged;
  } rg[] = {
      {0x500100, 0x401000, 0x401000}, {0x500200, 0x401100, 0x401000}, /* a copy */
      {0x500100, 0x401200, 0x401000}, {0x500300, 0x401300, 0x401300}, /* other line */
      {0, 0x401100, 0x401100},        {0x500200, 0x401400, 0x401000},
  };
  const char *path = tmp_path("copies.trace");
  omplens_tw w;
  omplens_tw_stream s = {0};
  uint64_t t = START_NS;
  open_writer(&w, path, 0);
  omplens_tw_stream_init(&s, &w, 1);
  omplens_tw_string(&s, 0x500100, ";copy.c;main;7;1;;");
  omplens_tw_string(&s, 0x500200, ";copy.c;main;7;1;;");
  omplens_tw_string(&s, 0x500300, ";copy.c;main;9;1;;");
  for (size_t i = 0; i < sizeof rg / sizeof *rg; i++) {
    if (rg[i].loc)
      omplens_tw_call(&s, rg[i].loc, rg[i].codeptr, 0);
    omplens_tw_region_begin(&s, t += 100, OMPLENS_CONSTRUCT_TARGET, 0, 0, rg[i].codeptr);
    omplens_tw_region_end(&s, t += 50);
  }
  omplens_tw_stream_finish(&s);
  omplens_trace *tr = close_and_open(&w, t + 1, path);
  size_t n;
  const omplens_region *got = omplens_trace_regions(tr, &n);
  assert_int_equal(n, sizeof rg / sizeof *rg);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(got[i].codeptr, rg[i].merged);
  omplens_trace_close(tr);
}

/* Call paths: defined once per thread, named by id afterwards (also in
 * later chunks), interned across threads; a region takes the path written
 * before it, an op of the device memory API (own codeptr) too. */
static void test_call_paths(void **state) {
  (void)state;
  static const uint64_t outer[] = {0x402000, 0x403000}, inner[] = {0x404000};
  const char *path = tmp_path("paths.trace");
  omplens_tw w;
  omplens_tw_stream s[2] = {{0}};
  uint64_t t = START_NS;
  open_writer(&w, path, 4096); /* small chunks: ids used chunks after their definition */
  for (int th = 0; th < 2; th++)
    omplens_tw_stream_init(&s[th], &w, (uint64_t)th + 1);
  for (int i = 0; i < 200; i++) {
    omplens_tw_stream *st = &s[i % 2];
    int first = i < 2;
    omplens_tw_call_path(st, 1, first ? outer : NULL, first ? 2 : 0);
    omplens_tw_region_begin(st, t += 100, OMPLENS_CONSTRUCT_TARGET, 0, 0, 0x401000);
    omplens_tw_region_end(st, t += 50);
    if (i % 2) /* thread 1 numbers the same frames 1 and another path 2 */
      continue;
    omplens_tw_call_path(st, 2, i == 0 ? inner : NULL, i == 0 ? 1 : 0);
    omplens_tw_op op = make_op(OMPLENS_EV_H2D, t += 10, 5, 0, 0x8000, 0x9000, 8, 0);
    op.own_codeptr = 0x405000;
    omplens_tw_op_write(st, &op);
  }
  for (int th = 0; th < 2; th++)
    omplens_tw_stream_finish(&s[th]);
  omplens_trace *tr = close_and_open(&w, t + 1, path);
  size_t nr, ne, nf;
  const omplens_region *rg = omplens_trace_regions(tr, &nr);
  assert_int_equal(nr, 200);
  uint32_t p = rg[0].call_path;
  const uint64_t *f = omplens_trace_call_path(tr, p, &nf);
  assert_non_null(f);
  assert_int_equal(nf, 2);
  assert_int_equal(f[0], outer[0]);
  assert_int_equal(f[1], outer[1]);
  for (size_t i = 0; i < nr; i++)
    assert_int_equal(rg[i].call_path, p); /* both threads, one interned path */
  omplens_trace_events(tr, &ne);
  assert_int_equal(ne, 100);
  for (size_t i = 0; i < ne; i++) {
    f = omplens_trace_call_path(tr, omplens_trace_event_call_path(tr, i), &nf);
    assert_int_equal(nf, 1);
    assert_int_equal(f[0], inner[0]);
  }
  assert_null(omplens_trace_call_path(tr, 0, &nf));
  assert_int_equal(nf, 0);
  assert_null(omplens_trace_call_path(tr, 99, &nf));
  assert_int_equal(omplens_trace_event_call_path(tr, ne), 0);
  /* A window: a contiguous part of the events, numbered from its first. */
  const omplens_event *all = omplens_trace_events(tr, &ne);
  uint64_t wb = 0, we = 0;
  size_t nw;
  assert_int_equal(omplens_trace_window(tr, &wb, &we), 0);
  assert_int_equal(omplens_trace_set_window(tr, all[10].begin_ns, all[10].begin_ns),
                   OMPLENS_TRACE_EINVAL);
  assert_int_equal(omplens_trace_set_window(tr, all[10].begin_ns, all[20].begin_ns), 0);
  assert_ptr_equal(omplens_trace_events(tr, &nw), all + 10);
  assert_int_equal(nw, 10);
  assert_int_equal(omplens_trace_window(tr, &wb, &we), 1);
  assert_int_equal(wb, all[10].begin_ns);
  assert_int_equal(we, all[20].begin_ns);
  assert_int_equal(omplens_trace_call_path(tr, omplens_trace_event_call_path(tr, 9), &nf)[0],
                   inner[0]);
  assert_int_equal(omplens_trace_event_call_path(tr, 10), 0);
  assert_int_equal(omplens_trace_set_window(tr, all[ne - 1].begin_ns + 1, UINT64_MAX), 0);
  omplens_trace_events(tr, &nw);
  assert_int_equal(nw, 0);
  omplens_trace_close(tr);
}

/* Regions nested deeper than the writer's own stack (8): ops still land in
 * the region they name, and the writer never reads past its stack of open
 * regions (only sanitizers see that read). */
static void test_deep_nesting(void **state) {
  enum { DEPTH = OMPLENS_TW_MAX_NESTING + 3 };
  const char *path = tmp_path("nesting.trace");
  omplens_tw w;
  omplens_tw_stream s = {0};
  expect *x = expect_new();
  uint64_t id[DEPTH], t = START_NS;
  open_writer(&w, path, 0);
  omplens_tw_stream_init(&s, &w, 1);
  for (int d = 0; d < DEPTH; d++) {
    id[d] = x_region_begin(x, &s, t += 10, OMPLENS_CONSTRUCT_TARGET, 0, 0, 0x1000 + (uint64_t)d);
    omplens_tw_op op =
        make_op(OMPLENS_EV_H2D, t += 1, 1, 0, 0x8000 + (uint64_t)d, 0x9000, 8, id[d]);
    x_op(x, &s, &op);
    uint64_t k = t += 1;
    x_kernel(x, &s, k, k + 1, 0, 1, id[d]);
    op = make_op(OMPLENS_EV_H2D, t += 1, 1, 0, 0x8000 + (uint64_t)d, 0x9000, 8, id[d / 2]);
    x_op(x, &s, &op);
  }
  for (int d = 0; d < DEPTH; d++)
    x_region_end(x, &s, t += 10);
  omplens_trace *tr = finish_and_read(&w, &s, t + 1, path, x);
  omplens_trace_close(tr);
  expect_free(x);
}

/* One op outside any construct, at begin (relative to the trace start). */
static void x_op_at(expect *x, omplens_tw_stream *s, uint64_t begin, uint64_t tag) {
  omplens_tw_op op = make_op(tag % 2 ? OMPLENS_EV_H2D : OMPLENS_EV_D2H, START_NS + begin, tag % 7,
                             (int)(tag % 3), 0x10000 + tag * 64, 0x20000 + tag, tag, 0);
  x_op(x, s, &op);
}

/* The reader orders events without sorting them: each thread's ascending
 * run is merged with its late events (written after later ones), sorted
 * apart. Here are late events in every arrangement, and ties within and
 * across threads, which must stay in decode order (thread, then record). */
static void test_order_late_events_and_ties(void **state) {
  enum { THREADS = 6 };
  const char *path = tmp_path("order.trace");
  omplens_tw w;
  omplens_tw_stream *s = calloc(THREADS, sizeof *s);
  assert_non_null(s);
  expect *x = expect_new();
  open_writer(&w, path, SMALL_CHUNK);
  for (int i = 0; i < THREADS; i++)
    omplens_tw_stream_init(&s[i], &w, 100 + (uint64_t)i);
  uint64_t tag = 0;
  /* Thread 0: ascending, with a late event every 5th, some tied with
   * earlier ones of the run and of thread 2. */
  for (uint64_t i = 0; i < 1000; i++)
    x_op_at(x, &s[0], i % 5 == 4 ? (i - 3) * 10 : i * 10, tag++);
  /* Thread 1: descending: every event but the first is late. */
  for (uint64_t i = 0; i < 1000; i++)
    x_op_at(x, &s[1], 10000 - i * 10, tag++);
  /* Thread 2: one time for all, which thread 0 has too. */
  for (uint64_t i = 0; i < 300; i++)
    x_op_at(x, &s[2], 1000, tag++);
  /* Thread 3: no event; thread 4: one, at time 0. */
  x_device(x, &s[3], START_NS + 5, 1, NULL);
  x_op_at(x, &s[4], 0, tag++);
  /* Thread 5: times from a small range, in random order, and kernels. */
  uint64_t rnd = 0x9e3779b97f4a7c15ull;
  for (uint64_t i = 0; i < 2000; i++) {
    rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t t = (rnd >> 33) % 700;
    if (i % 9 == 0)
      x_kernel(x, &s[5], START_NS + t, START_NS + t + 3, 1, i, 0);
    else
      x_op_at(x, &s[5], t, tag++);
  }
  for (int i = 0; i < THREADS; i++)
    omplens_tw_stream_finish(&s[i]);
  assert_true(s[0].seq >= 2 && s[1].seq >= 2 && s[5].seq >= 2);
  assert_int_equal(omplens_tw_close(&w, START_NS + 100000, 0), 0);

  assert_reads_back(path, x);
  expect_free(x);
  free(s);
}

/* ---- damaged input: helpers ------------------------------------------------ */

/* What every successfully opened trace must satisfy, damaged or not. */
static void assert_sane(const omplens_trace *t) {
  const omplens_trace_info *info = omplens_trace_get_info(t);
  assert_non_null(info);
  assert_non_null(info->exe);
  assert_non_null(info->cmdline);
  for (size_t i = 0; i < info->num_modules; i++)
    assert_non_null(info->modules[i].path);
  size_t n, nr;
  const omplens_event *ev = omplens_trace_events(t, &n);
  omplens_trace_regions(t, &nr);
  for (size_t i = 0; i < n; i++) { /* plain ifs: this runs for every event of every case */
    if (ev[i].kind < OMPLENS_EV_ALLOC || ev[i].kind > OMPLENS_EV_KERNEL)
      fail_msg("event %zu: kind %u", i, ev[i].kind);
    if (ev[i].region != OMPLENS_NO_REGION && ev[i].region >= nr)
      fail_msg("event %zu: region %u of %zu", i, ev[i].region, nr);
    if (ev[i].device < 0)
      fail_msg("event %zu: device %d", i, ev[i].device);
    if (i && ev[i - 1].begin_ns > ev[i].begin_ns)
      fail_msg("event %zu: begins before event %zu", i, i - 1);
  }
  const char *damage = omplens_trace_damage(t);
  if (damage) {
    size_t len = strlen(damage);
    assert_true(len > 0 && damage[len - 1] == '\n');
  }
  if (!info->complete)
    assert_non_null(damage);
}

static size_t count_lines(const char *s) {
  size_t n = 0;
  for (; s && *s; s++)
    n += *s == '\n';
  return n;
}

/* A small trace of 2 threads: thread 0 has 3 or more chunks, thread 1 has 1. */
static uint8_t *small_trace(const char *name, int complete, size_t *size) {
  const char *path = tmp_path(name);
  omplens_tw w;
  omplens_tw_stream s[2] = {{0}};
  open_writer(&w, path, TINY_CHUNK);
  omplens_tw_stream_init(&s[0], &w, 1);
  omplens_tw_stream_init(&s[1], &w, 2);
  uint64_t t = START_NS;
  for (uint64_t i = 0; i < SMALL_ITERS; i++) {
    omplens_tw_stream *st = &s[i % 16 == 0];
    uint64_t r = omplens_tw_region_begin(st, t += 10, OMPLENS_CONSTRUCT_TARGET, 0, 1, 0x4000 + i);
    omplens_tw_op op = make_op(OMPLENS_EV_H2D, t += 10, 5, 1, 0x10000 + i * 8, 0x20000, 8, r);
    op.hashed = 1, op.hash = i;
    omplens_tw_op_write(st, &op);
    uint64_t k = t += 10;
    omplens_tw_kernel(st, k, k + 5, 1, 1, r);
    omplens_tw_region_end(st, t += 10);
  }
  assert_true(s[0].seq >= 3);
  assert_int_equal(s[1].seq, 1);
  omplens_tw_stream_finish(&s[0]);
  omplens_tw_stream_finish(&s[1]);
  if (complete) {
    assert_int_equal(omplens_tw_close(&w, t + 10, 0), 0);
  } else {
    close(w.fd); /* as after a crash: no end chunk */
  }
  return slurp(path, size);
}

static uint32_t header_bytes(const uint8_t *buf) {
  uint32_t h;
  memcpy(&h, buf + 12, 4);
  return h;
}

/* Offsets of the chunks of a well-formed trace, in file order. */
static size_t find_chunks(const uint8_t *buf, size_t size, uint64_t *off, size_t max) {
  size_t n = 0;
  for (uint64_t o = header_bytes(buf); o + sizeof(omplens_tf_chunk) <= size && n < max;) {
    omplens_tf_chunk c;
    memcpy(&c, buf + o, sizeof c);
    assert_int_equal(c.magic, OMPLENS_TF_CHUNK_MAGIC);
    off[n++] = o;
    uint64_t span = (sizeof c + (uint64_t)c.capacity + OMPLENS_TF_ALIGN - 1) / OMPLENS_TF_ALIGN *
                    OMPLENS_TF_ALIGN;
    o += c.kind == OMPLENS_TF_CHUNK_END ? OMPLENS_TF_ALIGN : span;
  }
  return n;
}

/* The events chunk number `seq` of `thread`; its offset in *at. */
static omplens_tf_chunk *chunk_of(uint8_t *buf, size_t size, uint32_t thread, uint32_t seq,
                                  uint64_t *at) {
  uint64_t off[64];
  size_t n = find_chunks(buf, size, off, 64);
  for (size_t i = 0; i < n; i++) {
    omplens_tf_chunk *c = (omplens_tf_chunk *)(void *)(buf + off[i]);
    if (c->kind == OMPLENS_TF_CHUNK_EVENTS && c->thread == thread && c->seq == seq) {
      if (at)
        *at = off[i];
      return c;
    }
  }
  fail_msg("no chunk %u of thread %u", seq, thread);
  return NULL;
}

static size_t event_count(const omplens_trace *t) {
  size_t n;
  omplens_trace_events(t, &n);
  return n;
}

/* Opens buf, expects success with damage; returns the number of events. */
static size_t open_damaged(const uint8_t *buf, size_t size, const char *damage_part) {
  omplens_trace *t;
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), 0);
  assert_sane(t);
  const char *damage = omplens_trace_damage(t);
  assert_non_null(damage);
  if (damage_part && !strstr(damage, damage_part)) {
    print_error("damage list lacks \"%s\":\n%s", damage_part, damage);
    fail();
  }
  size_t n = event_count(t);
  omplens_trace_close(t);
  return n;
}

/* ---- damaged input ------------------------------------------------------------ */

/* Every prefix of a trace either fails cleanly or reads with damage noted,
 * and a longer prefix never yields fewer events. */
static void test_every_prefix(void **state) {
  size_t size;
  uint8_t *buf = small_trace("prefix.trace", 1, &size);
  omplens_trace *t;
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), 0);
  size_t full = event_count(t);
  assert_int_equal(full, SMALL_EVENTS);
  assert_int_equal(omplens_trace_get_info(t)->complete, 1);
  omplens_trace_close(t);

  size_t prev_events = 0;
  int opened_before = 0;
  for (size_t n = 0; n < size; n++) {
    int rc = omplens_trace_open_memory(buf, n, &t);
    if (rc) {
      assert_null(t);
      assert_false(opened_before); /* once readable, longer prefixes stay so */
      assert_int_equal(rc, n < 8 ? OMPLENS_TRACE_ENOTTRACE : OMPLENS_TRACE_ECORRUPT);
      continue;
    }
    opened_before = 1;
    assert_sane(t);
    assert_int_equal(omplens_trace_get_info(t)->complete, 0);
    assert_non_null(omplens_trace_damage(t));
    size_t events = event_count(t);
    assert_true(events >= prev_events && events <= full);
    prev_events = events;
    omplens_trace_close(t);
  }
  assert_true(opened_before);
  assert_int_equal(prev_events, full); /* only the end chunk was missing */
  free(buf);
}

static void test_bad_chunk_magic(void **state) {
  size_t size;
  uint8_t *buf = small_trace("magic.trace", 1, &size);
  uint64_t at;
  chunk_of(buf, size, 0, 1, &at)->magic ^= 0x01000000;
  char want[64];
  snprintf(want, sizeof want, "bad chunk at offset %llu", (unsigned long long)at);
  size_t n = open_damaged(buf, size, want);
  assert_true(n > 0 && n < SMALL_EVENTS);
  free(buf);
}

static void test_used_beyond_capacity(void **state) {
  size_t size;
  uint8_t *buf = small_trace("used.trace", 1, &size);
  omplens_tf_chunk *c = chunk_of(buf, size, 0, 0, NULL);
  c->used = c->capacity + 1;
  size_t n = open_damaged(buf, size, "invalid size or kind");
  assert_true(n > 0 && n < SMALL_EVENTS);
  c->used = UINT32_MAX;
  open_damaged(buf, size, "invalid size or kind");
  free(buf);
}

static void test_capacity_and_kind(void **state) {
  size_t size;
  uint8_t *buf = small_trace("capacity.trace", 1, &size);
  omplens_tf_chunk *c = chunk_of(buf, size, 0, 2, NULL);
  uint32_t capacity = c->capacity;
  c->capacity = OMPLENS_TF_MAX_CHUNK_BYTES + 1;
  open_damaged(buf, size, "invalid size or kind");
  c->capacity = capacity;
  c->kind = 7;
  open_damaged(buf, size, "invalid size or kind");
  c->kind = OMPLENS_TF_CHUNK_EVENTS;
  /* A capacity that runs past the end of the file. */
  c->capacity = UINT32_MAX - 64;
  c->used = UINT32_MAX - 64;
  open_damaged(buf, size, NULL);
  free(buf);
}

/* A lost chunk in the middle of a thread's sequence is named. */
static void test_missing_chunk(void **state) {
  size_t size;
  uint8_t *buf = small_trace("missing.trace", 1, &size);
  omplens_tf_chunk *c = chunk_of(buf, size, 0, 1, NULL);
  memset(c, 0, sizeof *c); /* a hole where the chunk was */
  size_t n = open_damaged(buf, size, "thread 0: chunks 1 to 1 are missing");
  assert_true(n > 0 && n < SMALL_EVENTS);
  free(buf);
}

static int flip_and_open(uint8_t *buf, size_t size, size_t at, uint8_t mask) {
  buf[at] ^= mask;
  omplens_trace *t;
  int rc = omplens_trace_open_memory(buf, size, &t);
  if (rc == 0) {
    assert_sane(t);
    omplens_trace_close(t);
  } else {
    assert_null(t);
    assert_true(rc == OMPLENS_TRACE_ENOTTRACE || rc == OMPLENS_TRACE_EVERSION ||
                rc == OMPLENS_TRACE_ECORRUPT);
  }
  buf[at] ^= mask;
  return rc;
}

/* Any single damaged byte: a clean error or a sane trace, never a crash. */
static void test_flipped_bytes(void **state) {
  size_t size;
  uint8_t *buf = small_trace("flip.trace", 1, &size);
  uint64_t off[64];
  size_t nchunks = find_chunks(buf, size, off, 64);
  for (size_t at = 0; at < size; at++)
    flip_and_open(buf, size, at, 0xff);
  /* Single-bit changes in every header: the fields the reader trusts least. */
  for (size_t at = 0; at < 256; at++)
    for (int bit = 0; bit < 8; bit++)
      flip_and_open(buf, size, at, (uint8_t)(1u << bit));
  for (size_t k = 0; k < nchunks; k++)
    for (size_t at = off[k]; at < off[k] + 128 && at < size; at++)
      for (int bit = 0; bit < 8; bit++)
        flip_and_open(buf, size, at, (uint8_t)(1u << bit));
  free(buf);
}

static void test_newer_version(void **state) {
  size_t size;
  uint8_t *buf = small_trace("version.trace", 1, &size);
  omplens_trace *t = (omplens_trace *)buf; /* must be reset to NULL */
  uint32_t v = OMPLENS_TF_VERSION + 1;
  memcpy(buf + 8, &v, 4);
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), OMPLENS_TRACE_EVERSION);
  assert_null(t);
  v = UINT32_MAX;
  memcpy(buf + 8, &v, 4);
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), OMPLENS_TRACE_EVERSION);
  v = 0;
  memcpy(buf + 8, &v, 4);
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), OMPLENS_TRACE_ECORRUPT);
  v = OMPLENS_TF_VERSION + 1; /* through a file too, as the CLI reads it */
  memcpy(buf + 8, &v, 4);
  const char *path = tmp_path("newer.trace");
  spit(path, buf, size);
  assert_int_equal(omplens_trace_open(path, &t), OMPLENS_TRACE_EVERSION);
  assert_null(t);
  free(buf);
}

static void test_damaged_header(void **state) {
  size_t size;
  uint8_t *buf = small_trace("header.trace", 1, &size);
  omplens_trace *t;
  uint32_t good = header_bytes(buf), bad[] = {0, 15, 4095, good + 1, 32u << 20, UINT32_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    memcpy(buf + 12, &bad[i], 4);
    assert_int_equal(omplens_trace_open_memory(buf, size, &t), OMPLENS_TRACE_ECORRUPT);
    assert_null(t);
  }
  memcpy(buf + 12, &good, 4);
  /* The first item claims more bytes than the header holds. */
  uint32_t len = good;
  memcpy(buf + 16 + 4, &len, 4);
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), OMPLENS_TRACE_ECORRUPT);
  /* No end item: the header is all items up to its last byte. */
  memset(buf + 16, 0xee, good - 16);
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), OMPLENS_TRACE_ECORRUPT);
  free(buf);
}

static void test_not_a_trace(void **state) {
  static const char text[] = "this is a text file, not a trace\n";
  omplens_trace *t;
  assert_int_equal(omplens_trace_open_memory(text, sizeof text - 1, &t), OMPLENS_TRACE_ENOTTRACE);
  assert_null(t);
  const char *path = tmp_path("text.trace");
  spit(path, text, sizeof text - 1);
  assert_int_equal(omplens_trace_open(path, &t), OMPLENS_TRACE_ENOTTRACE);
  assert_null(t);
  /* The magic without its final NUL byte. */
  assert_int_equal(omplens_trace_open_memory("OMPLTRCX" "\1\0\0\0\0\x10\0\0", 16, &t),
                   OMPLENS_TRACE_ENOTTRACE);
}

static void test_missing_end(void **state) {
  size_t size;
  uint8_t *buf = small_trace("crashed.trace", 0, &size);
  omplens_trace *t;
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), 0);
  assert_sane(t);
  const omplens_trace_info *info = omplens_trace_get_info(t);
  assert_int_equal(info->complete, 0);
  assert_int_equal(info->exit_status, -1);
  assert_int_equal(event_count(t), SMALL_EVENTS);
  /* Without an end record, the run lasts until the last thing recorded. */
  size_t n, nr;
  const omplens_event *ev = omplens_trace_events(t, &n);
  const omplens_region *rg = omplens_trace_regions(t, &nr);
  uint64_t last = 0;
  for (size_t i = 0; i < n; i++)
    last = ev[i].end_ns > last ? ev[i].end_ns : last;
  for (size_t i = 0; i < nr; i++)
    last = rg[i].end_ns > last ? rg[i].end_ns : last;
  assert_int_equal(info->duration_ns, last);
  assert_string_equal(omplens_trace_damage(t),
                      "no end record: the program did not finish normally (trace incomplete)\n");
  omplens_trace_close(t);
  free(buf);
}

/* The end chunk cut inside its payload. */
static void test_truncated_end(void **state) {
  size_t size;
  uint8_t *buf = small_trace("end.trace", 1, &size);
  size_t n = open_damaged(buf, size - 1, "end record at offset");
  assert_int_equal(n, SMALL_EVENTS);
  free(buf);
}

static void test_empty_file(void **state) {
  const char *path = tmp_path("empty.trace");
  spit(path, "", 0);
  omplens_trace *t;
  assert_int_equal(omplens_trace_open(path, &t), OMPLENS_TRACE_ENOTTRACE);
  assert_null(t);
  assert_int_equal(omplens_trace_open_memory(NULL, 0, &t), OMPLENS_TRACE_ENOTTRACE);
  assert_null(t);
}

static void test_directory_and_missing_path(void **state) {
  const char *path = tmp_path("a_directory.trace");
  assert_int_equal(mkdir(path, 0755), 0);
  omplens_trace *t;
  errno = 0;
  assert_int_equal(omplens_trace_open(path, &t), OMPLENS_TRACE_EIO);
  assert_int_equal(errno, EISDIR);
  assert_null(t);
  errno = 0;
  assert_int_equal(omplens_trace_open(tmp_path("no_such.trace"), &t), OMPLENS_TRACE_EIO);
  assert_int_equal(errno, ENOENT);
  assert_null(t);
}

/* ---- damage lists --------------------------------------------------------- */


/* Many damaged chunks: the list stays short but says that more was cut,
 * and still says that the trace is incomplete. */
static void test_damage_list_is_bounded(void **state) {
  size_t size;
  uint8_t *buf = small_trace("many.trace", 0, &size);
  /* Twelve more pages of garbage: more bad chunks than the list keeps. */
  uint8_t *more = realloc(buf, size + 12 * OMPLENS_TF_ALIGN);
  assert_non_null(more);
  buf = more;
  memset(buf + size, 'X', 12 * OMPLENS_TF_ALIGN);
  size += 12 * OMPLENS_TF_ALIGN;
  for (uint64_t o = header_bytes(buf); o + 4 <= size; o += OMPLENS_TF_ALIGN)
    memcpy(buf + o, "XXXX", 4); /* every page: a bad chunk */
  omplens_trace *t;
  assert_int_equal(omplens_trace_open_memory(buf, size, &t), 0);
  const char *damage = omplens_trace_damage(t);
  assert_true(count_lines(damage) <= 10);
  assert_non_null(strstr(damage, "more problems"));
  assert_non_null(strstr(damage, "trace incomplete"));
  omplens_trace_close(t);
  free(buf);
}

/* One chunk header with an absurd thread index must not hide the others. */
static void test_absurd_thread_index(void **state) {
  size_t size;
  uint8_t *buf = small_trace("thread.trace", 1, &size);
  omplens_tf_chunk *c = chunk_of(buf, size, 1, 0, NULL);
  c->thread = UINT32_MAX;
  size_t n = open_damaged(buf, size, "thread");
  assert_int_equal(n, SMALL_EVENTS - SMALL_EVENTS_THREAD1); /* only thread 1's events are lost */
  free(buf);
}

/* ---- names and NULL handles ---------------------------------------------------------- */

static void test_strerror_and_names(void **state) {
  const int codes[] = {OMPLENS_TRACE_OK,      OMPLENS_TRACE_EIO,     OMPLENS_TRACE_ENOTTRACE,
                       OMPLENS_TRACE_EVERSION, OMPLENS_TRACE_ECORRUPT, OMPLENS_TRACE_ENOMEM,
                       OMPLENS_TRACE_ETOOBIG, OMPLENS_TRACE_EINVAL};
  const int n = sizeof codes / sizeof *codes;
  for (int i = 0; i < n; i++) {
    assert_true(strlen(omplens_trace_strerror(codes[i])) > 0);
    for (int j = 0; j < i; j++)
      assert_string_not_equal(omplens_trace_strerror(codes[i]), omplens_trace_strerror(codes[j]));
  }
  assert_string_equal(omplens_trace_strerror(-99), "unknown error");
  assert_string_equal(omplens_event_kind_name(OMPLENS_EV_H2D), "h2d");
  assert_string_equal(omplens_event_kind_name(OMPLENS_EV_KERNEL), "kernel");
  assert_string_equal(omplens_event_kind_name(0), "unknown");
  assert_string_equal(omplens_event_kind_name(255), "unknown");
  assert_string_equal(omplens_event_kind_name(-1), "unknown");
  assert_string_equal(omplens_construct_kind_name(OMPLENS_CONSTRUCT_UPDATE), "target update");
  assert_string_equal(omplens_construct_kind_name(9), "unknown");
}

static void test_null_trace(void **state) {
  size_t n = 99;
  assert_null(omplens_trace_get_info(NULL));
  assert_null(omplens_trace_events(NULL, &n));
  assert_int_equal(n, 0);
  n = 99;
  assert_null(omplens_trace_regions(NULL, &n));
  assert_int_equal(n, 0);
  assert_null(omplens_trace_damage(NULL));
  assert_null(omplens_trace_path(NULL));
  n = 99;
  assert_null(omplens_trace_sites(NULL, &n));
  assert_int_equal(n, 0);
  omplens_event e = {.site = 1};
  assert_int_equal(omplens_trace_codeptr(NULL, &e), 0);
  omplens_trace_close(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_all_fields),
      cmocka_unit_test(test_open_memory_matches_file),
      cmocka_unit_test(test_no_events),
      cmocka_unit_test(test_pauses),
      cmocka_unit_test(test_waits),
      cmocka_unit_test(test_concurrent_streams),
      cmocka_unit_test(test_concurrent_streams_split_place),
      cmocka_unit_test(test_one_thread_split_place),
      cmocka_unit_test(test_arg_lists_pointed_back),
      cmocka_unit_test(test_arg_lists_literal_values),
      cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_call_paths),
      cmocka_unit_test(test_repeated_arg_lists),
      cmocka_unit_test(test_call_args_bounded),
      cmocka_unit_test(test_event_fields_bounded),
      cmocka_unit_test(test_threads_bounded),
      cmocka_unit_test(test_directive_copies_merge),
      cmocka_unit_test(test_order_late_events_and_ties),
      cmocka_unit_test(test_every_prefix),
      cmocka_unit_test(test_bad_chunk_magic),
      cmocka_unit_test(test_used_beyond_capacity),
      cmocka_unit_test(test_capacity_and_kind),
      cmocka_unit_test(test_missing_chunk),
      cmocka_unit_test(test_flipped_bytes),
      cmocka_unit_test(test_newer_version),
      cmocka_unit_test(test_damaged_header),
      cmocka_unit_test(test_not_a_trace),
      cmocka_unit_test(test_missing_end),
      cmocka_unit_test(test_truncated_end),
      cmocka_unit_test(test_empty_file),
      cmocka_unit_test(test_directory_and_missing_path),
      cmocka_unit_test(test_damage_list_is_bounded),
      cmocka_unit_test(test_absurd_thread_index),
      cmocka_unit_test(test_strerror_and_names),
      cmocka_unit_test(test_null_trace),
  };
  return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
