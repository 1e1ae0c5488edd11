/* gen_trace: writes a synthetic omplens trace through the real writer
 * (trace/trace_writer.h), for the analysis benchmark.
 *
 *   gen_trace [-n EVENTS] [-s SEED] [-t THREADS] [-d DEVICES] [-u PERCENT] [-c] [-r]
 *             [-R RANK/SIZE] OUTPUT
 *
 * The same options give the same file, byte for byte: a seeded PRNG drives a
 * small model of an offload program, and the header holds fixed values.
 * THREADS host threads (1-4, default 4) each own 48 host buffers of 4 KiB to
 * 64 MiB and issue, on their own device (THREADS > DEVICES share) or now and
 * then on another one of DEVICES (1-4, default 4):
 *   55%  target regions mapping 1-4 buffers (to, tofrom, from, alloc):
 *        allocation and copy in when not yet present, a kernel, copy out and
 *        delete for what the region itself mapped;
 *   10%  target enter data (allocation + copy in), kept until
 *    8%  target exit data (copy out half of the time, delete);
 *   25%  target update to / from on an entered buffer;
 *    2%  omp_target_memcpy-like copies outside any construct.
 * Before a host-to-device copy the host changes the buffer, except in
 * PERCENT of the copies (-u, default 30): those send unchanged content, so
 * they are duplicates or complete round trips. One new content in 20 is all
 * zeros, the same for every buffer of that size, which makes duplicates from
 * other buffers. A kernel leaves
 * a tofrom buffer unchanged one time in five (device round trips).
 * As in a program's source, each directive maps fixed variables: target
 * site k always maps the same 1-4 of the thread's buffers with the same map
 * types, and an enter data, exit data or update directive serves a fixed
 * subset of the buffers (update to and update from are different
 * directives). With -r (random), any directive maps any buffer with any
 * type: a stress mix with one finding per directive, buffer and device,
 * ~66,000 findings per million events instead of a few thousand.
 * With -c, every construct is preceded by its entry call and map arguments,
 * and each thread writes a directive's location string and a buffer's map
 * name the first time it uses them: the records the collector adds when it
 * is preloaded (omplens run's default).
 * With -R, the header says the process was rank RANK of an MPI job of SIZE
 * ranks (the collector's RANK item), and its pid is 4242 + RANK, as for a
 * job's traces (bench/ranks.sh).
 * Events are data operations and kernels, as the reader counts them; the run
 * stops at the first construct boundary at or after EVENTS. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "omplens_trace.h"
#include "trace_writer.h"

enum exit_code { EXIT_OK = 0, EXIT_USAGE = 64, EXIT_SOFTWARE = 70, EXIT_CANTCREAT = 73 };

#define MAX_THREADS 4
#define MAX_DEVICES 4
#define BUFFERS 48
#define SITES 64            /* distinct directives (code addresses) */
#define API_SITES 4         /* call sites of the device memory API */
#define ZERO_CONTENT 0x5a17e0c0ffee0000u
#define CODE_BASE 0x555555554000u
#define LOC_BASE 0x555555580000u  /* directive location strings (ident_t psource) */
#define NAME_BASE 0x5555555a0000u /* map-name strings */

/* Map-type bits of LLVM's offload ABI, as entry calls pass them. */
enum llvm_map_bits { LLVM_MAP_TO = 0x01, LLVM_MAP_FROM = 0x02, LLVM_MAP_DELETE = 0x08,
                     LLVM_MAP_TARGET_PARAM = 0x20 };

/* Options. */
typedef struct options {
  uint64_t events;      /* -n: data ops + kernels to write */
  uint64_t seed;        /* -s: PRNG seed */
  int threads;          /* -t: host threads (streams) */
  int devices;          /* -d: target devices */
  unsigned unchanged;   /* -u: percent of copies in with unchanged content */
  int calls;            /* -c: entry calls, map arguments and their strings */
  int random_maps;      /* -r: directives map random buffers (stress mix) */
  int rank, job_size;   /* -R RANK/SIZE; rank -1: not in a job */
  const char *output;
} options;

enum present { ABSENT = 0, BY_REGION = 1, ENTERED = 2 };
enum map_type { MAP_TO, MAP_TOFROM, MAP_FROM, MAP_ALLOC };

typedef struct buffer {
  uint64_t host, bytes;
  uint64_t content;                     /* hash of the host copy */
  uint64_t device_content[MAX_DEVICES]; /* hash of each device copy */
  uint8_t present[MAX_DEVICES];         /* enum present */
} buffer;

typedef struct sim_thread {
  omplens_tw_stream stream;
  uint64_t now;          /* the thread's clock, monotonic ns */
  int index;
  buffer buf[BUFFERS];
  uint8_t loc_written[SITES];   /* location strings this thread has written */
  uint8_t name_written[BUFFERS];
} sim_thread;

typedef struct counts {
  uint64_t events, regions, ops[OMPLENS_EV_KERNEL + 1], unchanged_h2d;
} counts;

typedef struct gen {
  omplens_tw w;
  sim_thread *threads;
  const options *o;
  uint64_t rng;
  uint64_t next_content;
  counts c;
} gen;

/* ---- randomness --------------------------------------------------------- */

static uint64_t rng_next(gen *g) { /* splitmix64 */
  uint64_t z = (g->rng += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static uint64_t rng_below(gen *g, uint64_t n) {
  return rng_next(g) % n;
}

static int chance(gen *g, unsigned percent) {
  return rng_below(g, 100) < percent;
}

/* Hash of new content for buffer b: zeros (one hash per size) or unique. */
static uint64_t new_content(gen *g, const buffer *b) {
  if (chance(g, 5))
    return ZERO_CONTENT ^ b->bytes;
  uint64_t z = ++g->next_content * 0xd6e8feb86659fd93u;
  return z ^ (z >> 32) ^ 0x0123456789abcdefu;
}

/* ---- model ---------------------------------------------------------------- */

static uint64_t buffer_size(gen *g) {
  static const uint64_t sizes[] = {4u << 10, 64u << 10, 1u << 20, 16u << 20, 64u << 20};
  static const unsigned cumulative[] = {30, 60, 85, 97, 100};
  unsigned r = (unsigned)rng_below(g, 100);
  size_t i = 0;
  while (r >= cumulative[i])
    i++;
  return sizes[i];
}

static void init_thread(gen *g, sim_thread *th, int index) {
  th->index = index;
  th->now = 1000000000u + 1000u * (uint64_t)index;
  for (int i = 0; i < BUFFERS; i++) {
    buffer *b = &th->buf[i];
    b->host = 0x7f0000000000u + ((uint64_t)index << 36) + (uint64_t)i * (65u << 20);
    b->bytes = buffer_size(g);
    b->content = new_content(g, b);
  }
}

static uint64_t dev_addr(int device, const buffer *b) {
  return 0x100000000000u * (uint64_t)(device + 1) + (b->host - 0x7f0000000000u);
}

static int pick_device(gen *g, const sim_thread *th) {
  if (chance(g, 80))
    return th->index % g->o->devices;
  return (int)rng_below(g, (uint64_t)g->o->devices);
}

static unsigned pick_site(gen *g, unsigned first, unsigned count) {
  return first + (unsigned)rng_below(g, count);
}

static uint64_t codeptr_of(unsigned site) {
  return CODE_BASE + 0x1000u + 0x40u * site;
}

/* Advances the thread's clock by a host-side gap of 1-5 us. */
static void host_gap(gen *g, sim_thread *th) {
  th->now += 1000u + rng_below(g, 4000);
}

/* ---- records ---------------------------------------------------------------- */

static void write_op(gen *g, sim_thread *th, uint8_t kind, int device, const buffer *b,
                     uint64_t dur, uint64_t region) {
  omplens_tw_op op = {.begin_ns = th->now, .end_ns = th->now + dur,
                      .host_addr = kind == OMPLENS_EV_DELETE ? 0 : b->host,
                      .dev_addr = dev_addr(device, b),
                      .bytes = kind == OMPLENS_EV_DELETE ? 0 : b->bytes,
                      .region = region, .device = device, .peer = -1, .kind = kind};
  if (kind == OMPLENS_EV_H2D || kind == OMPLENS_EV_D2H) {
    op.hashed = 1;
    op.hash = kind == OMPLENS_EV_H2D ? b->content : b->device_content[device];
  }
  if (!region)
    op.own_codeptr = codeptr_of(pick_site(g, SITES, API_SITES));
  omplens_tw_op_write(&th->stream, &op);
  th->now += dur;
  host_gap(g, th);
  g->c.events++;
  g->c.ops[kind]++;
}

static uint64_t copy_ns(gen *g, const buffer *b) {
  return 1000u + b->bytes / 8u + rng_below(g, 500); /* about 8 GB/s */
}

static void alloc_buf(gen *g, sim_thread *th, int d, buffer *b, uint64_t region) {
  write_op(g, th, OMPLENS_EV_ALLOC, d, b, 2000u + rng_below(g, 18000), region);
  b->device_content[d] = new_content(g, b); /* whatever the memory held */
}

static void delete_buf(gen *g, sim_thread *th, int d, buffer *b, uint64_t region) {
  write_op(g, th, OMPLENS_EV_DELETE, d, b, 1000u + rng_below(g, 9000), region);
  b->present[d] = ABSENT;
}

static void copy_in(gen *g, sim_thread *th, int d, buffer *b, uint64_t region) {
  if (chance(g, g->o->unchanged))
    g->c.unchanged_h2d++;
  else
    b->content = new_content(g, b); /* the host wrote the buffer */
  write_op(g, th, OMPLENS_EV_H2D, d, b, copy_ns(g, b), region);
  b->device_content[d] = b->content;
}

static void copy_out(gen *g, sim_thread *th, int d, buffer *b, uint64_t region) {
  write_op(g, th, OMPLENS_EV_D2H, d, b, copy_ns(g, b), region);
  b->content = b->device_content[d];
}

static void kernel(gen *g, sim_thread *th, int d, uint64_t region) {
  uint64_t dur = 5000u + rng_below(g, 495000);
  omplens_tw_kernel(&th->stream, th->now, th->now + dur, d, 1 + rng_below(g, 256), region);
  th->now += dur;
  host_gap(g, th);
  g->c.events++;
  g->c.ops[OMPLENS_EV_KERNEL]++;
}

/* ---- entry calls (-c) ---------------------------------------------------------- */

/* A map argument of an entry call. */
typedef struct map_arg {
  const buffer *b;
  int index;          /* of the buffer in its thread */
  uint64_t type;      /* map-type bits */
} map_arg;

static uint64_t map_bits(enum map_type t) {
  return t == MAP_TO ? LLVM_MAP_TO : t == MAP_FROM ? LLVM_MAP_FROM
         : t == MAP_TOFROM ? LLVM_MAP_TO | LLVM_MAP_FROM : 0u;
}

static void write_call(sim_thread *th, unsigned site, const map_arg *args, unsigned n) {
  char text[128];
  uint64_t loc = LOC_BASE + 0x40u * site;
  if (!th->loc_written[site]) {
    snprintf(text, sizeof text, ";synthetic.c;construct_%u;%u;9;;", site, 100 + site);
    omplens_tw_string(&th->stream, loc, text);
    th->loc_written[site] = 1;
  }
  omplens_tw_call(&th->stream, loc, codeptr_of(site), n);
  for (unsigned i = 0; i < n; i++) {
    uint64_t name = NAME_BASE + 0x40u * (uint64_t)(th->index * BUFFERS + args[i].index);
    if (!th->name_written[args[i].index]) {
      snprintf(text, sizeof text, ";buf%d[0:%" PRIu64 "];synthetic.c;%d;20;;", args[i].index,
               args[i].b->bytes / 8u, 10 + args[i].index);
      omplens_tw_string(&th->stream, name, text);
      th->name_written[args[i].index] = 1;
    }
    omplens_tw_arg(&th->stream, args[i].b->host, args[i].b->host, args[i].b->bytes,
                   args[i].type, name);
  }
}

/* ---- constructs ---------------------------------------------------------------- */

/* Begins a construct at a site, with its entry call first under -c. */
static uint64_t region_begin(gen *g, sim_thread *th, int kind, int d, unsigned site,
                             const map_arg *args, unsigned nargs) {
  int nowait = kind == OMPLENS_CONSTRUCT_TARGET && chance(g, 5);
  if (g->o->calls)
    write_call(th, site, args, nargs);
  uint64_t id = omplens_tw_region_begin(&th->stream, th->now, kind, nowait, d, codeptr_of(site));
  th->now += 500u + rng_below(g, 1500);
  g->c.regions++;
  return id;
}

static void region_end(gen *g, sim_thread *th) {
  omplens_tw_region_end(&th->stream, th->now);
  host_gap(g, th);
}

static enum map_type map_of(unsigned r) {
  return r < 50 ? MAP_TO : r < 80 ? MAP_TOFROM : r < 90 ? MAP_FROM : MAP_ALLOC;
}

static enum map_type pick_map(gen *g) { return map_of((unsigned)rng_below(g, 100)); }

/* A fixed scramble of small numbers, for the directives' fixed choices. */
static unsigned mix(unsigned a, unsigned b) {
  uint64_t x = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15u;
  return (unsigned)(x >> 40);
}

/* The map clause of target site `site` (item i of nmap): its variable and
 * map type, the same at every execution. */
static void site_map(unsigned site, unsigned i, int *index, enum map_type *type) {
  *index = (int)((site * 5 + i * 17 + mix(site, i) % 3) % BUFFERS);
  *type = map_of(mix(site, i + 100) % 100);
}

/* A target region: map in, one kernel, map out what the region mapped. */
static void target_region(gen *g, sim_thread *th) {
  int d = pick_device(g, th);
  unsigned site = 0, nmap;
  buffer *maps[4];
  enum map_type types[4];
  map_arg args[4];
  if (!g->o->random_maps) {
    site = pick_site(g, 0, SITES / 2);
    nmap = 1 + mix(site, 7) % 4;
  } else {
    nmap = 1 + (unsigned)rng_below(g, 4);
  }
  for (unsigned i = 0; i < nmap; i++) {
    int index;
    if (g->o->random_maps) {
      index = (int)rng_below(g, BUFFERS);
      types[i] = pick_map(g);
    } else {
      site_map(site, i, &index, &types[i]);
    }
    maps[i] = &th->buf[index];
    args[i] = (map_arg){maps[i], index, map_bits(types[i]) | LLVM_MAP_TARGET_PARAM};
  }
  if (g->o->random_maps)
    site = pick_site(g, 0, SITES / 2);
  uint64_t id = region_begin(g, th, OMPLENS_CONSTRUCT_TARGET, d, site, args, nmap);
  for (unsigned i = 0; i < nmap; i++) {
    if (maps[i]->present[d] != ABSENT) {
      if (types[i] != MAP_TO && chance(g, 80)) /* the kernel writes the resident copy */
        maps[i]->device_content[d] = new_content(g, maps[i]);
      maps[i] = NULL; /* already mapped: reference count only */
      continue;
    }
    alloc_buf(g, th, d, maps[i], id);
    maps[i]->present[d] = BY_REGION;
    if (types[i] == MAP_TO || types[i] == MAP_TOFROM)
      copy_in(g, th, d, maps[i], id);
  }
  kernel(g, th, d, id);
  for (unsigned i = 0; i < nmap; i++) {
    if (!maps[i])
      continue;
    if (types[i] == MAP_FROM || (types[i] == MAP_TOFROM && chance(g, 80)))
      maps[i]->device_content[d] = new_content(g, maps[i]); /* the kernel wrote it */
    if (types[i] == MAP_FROM || types[i] == MAP_TOFROM)
      copy_out(g, th, d, maps[i], id);
    delete_buf(g, th, d, maps[i], id);
  }
  region_end(g, th);
}

/* Index of an entered buffer on device d, or -1. */
static int entered(gen *g, sim_thread *th, int d) {
  unsigned start = (unsigned)rng_below(g, BUFFERS);
  for (unsigned i = 0; i < BUFFERS; i++) {
    unsigned index = (start + i) % BUFFERS;
    if (th->buf[index].present[d] == ENTERED)
      return (int)index;
  }
  return -1;
}

static void enter_data(gen *g, sim_thread *th) {
  int d = pick_device(g, th);
  int index = (int)rng_below(g, BUFFERS);
  buffer *b = &th->buf[index];
  if (b->present[d] != ABSENT)
    return;
  map_arg arg = {b, index, map_bits(MAP_TO)};
  unsigned site = g->o->random_maps ? pick_site(g, SITES / 2, 8) : SITES / 2 + (unsigned)index % 8;
  uint64_t id = region_begin(g, th, OMPLENS_CONSTRUCT_ENTER_DATA, d, site, &arg, 1);
  alloc_buf(g, th, d, b, id);
  copy_in(g, th, d, b, id);
  b->present[d] = ENTERED;
  region_end(g, th);
}

static void exit_data(gen *g, sim_thread *th) {
  int d = pick_device(g, th);
  int index = entered(g, th, d);
  if (index < 0)
    return;
  buffer *b = &th->buf[index];
  int out = chance(g, 50);
  map_arg arg = {b, index, map_bits(out ? MAP_FROM : MAP_ALLOC) | LLVM_MAP_DELETE};
  unsigned site = g->o->random_maps ? pick_site(g, SITES / 2 + 8, 8)
                                    : SITES / 2 + 8 + (unsigned)index % 4 * 2 + (unsigned)out;
  uint64_t id = region_begin(g, th, OMPLENS_CONSTRUCT_EXIT_DATA, d, site, &arg, 1);
  if (out)
    copy_out(g, th, d, b, id);
  delete_buf(g, th, d, b, id);
  region_end(g, th);
}

static void update(gen *g, sim_thread *th) {
  int d = pick_device(g, th);
  int index = entered(g, th, d);
  if (index < 0)
    return;
  buffer *b = &th->buf[index];
  int to = chance(g, 50);
  map_arg arg = {b, index, map_bits(to ? MAP_TO : MAP_FROM)};
  unsigned site = g->o->random_maps ? pick_site(g, SITES / 2 + 16, 16)
                                    : SITES / 2 + 16 + (unsigned)index % 8 * 2 + (unsigned)to;
  uint64_t id = region_begin(g, th, OMPLENS_CONSTRUCT_UPDATE, d, site, &arg, 1);
  if (to)
    copy_in(g, th, d, b, id);
  else
    copy_out(g, th, d, b, id);
  region_end(g, th);
}

/* A copy by the device memory API, outside any construct. */
static void api_copy(gen *g, sim_thread *th) {
  int d = pick_device(g, th);
  int index = entered(g, th, d);
  if (index >= 0)
    copy_in(g, th, d, &th->buf[index], 0);
}

static void step(gen *g) {
  sim_thread *th = &g->threads[rng_below(g, (uint64_t)g->o->threads)];
  unsigned r = (unsigned)rng_below(g, 100);
  if (r < 55)
    target_region(g, th);
  else if (r < 65)
    enter_data(g, th);
  else if (r < 73)
    exit_data(g, th);
  else if (r < 98)
    update(g, th);
  else
    api_copy(g, th);
}

/* ---- driver ------------------------------------------------------------------ */

static int generate(gen *g) {
  const options *o = g->o;
  char n[32], s[32], t[16], d[16], u[16];
  snprintf(n, sizeof n, "%" PRIu64, o->events);
  snprintf(s, sizeof s, "%" PRIu64, o->seed);
  snprintf(t, sizeof t, "%d", o->threads);
  snprintf(d, sizeof d, "%d", o->devices);
  snprintf(u, sizeof u, "%u", o->unchanged);
  char *opts[3] = {NULL, NULL, NULL}, **opt = opts;
  if (o->calls)
    *opt++ = "-c";
  if (o->random_maps)
    *opt++ = "-r";
  char *const argv[] = {"gen_trace", "-n", n, "-s", s, "-t", t, "-d", d, "-u", u,
                        opts[0], opts[1], NULL};
  omplens_tw_header h = {.pid = 4242 + (o->rank > 0 ? o->rank : 0), .exe = "/synthetic/gen_trace",
                         .argv = argv, .in_job = o->rank >= 0, .rank = o->rank,
                         .job_size = o->job_size,
                         .start_realtime_ns = 1700000000000000000u,
                         .start_monotonic_ns = 1000000000u};
  int rc = omplens_tw_open(&g->w, o->output, &h, 0);
  if (rc)
    return rc;
  for (int i = 0; i < o->threads; i++) {
    omplens_tw_stream_init(&g->threads[i].stream, &g->w, 100000u + (uint64_t)i);
    init_thread(g, &g->threads[i], i);
  }
  for (int i = 0; i < o->devices; i++)
    omplens_tw_device(&g->threads[0].stream, g->threads[0].now, i, 0);
  while (g->c.events < o->events)
    step(g);
  uint64_t end = 0;
  for (int i = 0; i < o->threads; i++) {
    omplens_tw_stream_finish(&g->threads[i].stream);
    if (g->threads[i].now > end)
      end = g->threads[i].now;
  }
  return omplens_tw_close(&g->w, end + 1000u, 0);
}

static void print_counts(const counts *c, double seconds) {
  printf("events %" PRIu64 " (alloc %" PRIu64 ", h2d %" PRIu64 ", d2h %" PRIu64
         ", delete %" PRIu64 ", kernel %" PRIu64 "), regions %" PRIu64 "\n",
         c->events, c->ops[OMPLENS_EV_ALLOC], c->ops[OMPLENS_EV_H2D], c->ops[OMPLENS_EV_D2H],
         c->ops[OMPLENS_EV_DELETE], c->ops[OMPLENS_EV_KERNEL], c->regions);
  printf("h2d with unchanged content: %.1f%%\n",
         c->ops[OMPLENS_EV_H2D] ? 100.0 * (double)c->unchanged_h2d / (double)c->ops[OMPLENS_EV_H2D]
                                : 0.0);
  printf("written in %.3f s (%.2f M events/s)\n", seconds,
         seconds > 0 ? (double)c->events / seconds / 1e6 : 0.0);
}

static int parse_options(int argc, char **argv, options *o) {
  int c;
  while ((c = getopt(argc, argv, "n:s:t:d:u:crR:")) != -1) {
    if (c == 'R') {
      char *slash;
      long rank = strtol(optarg, &slash, 10), size = *slash == '/' ? strtol(slash + 1, &slash, 10) : -1;
      if (*slash || rank < 0 || size <= rank || size > 1000000)
        return -1;
      o->rank = (int)rank;
      o->job_size = (int)size;
      continue;
    }
    if (c == 'c' || c == 'r') {
      *(c == 'c' ? &o->calls : &o->random_maps) = 1;
      continue;
    }
    char *end;
    unsigned long long v = strtoull(optarg, &end, 10);
    if (*end || !*optarg)
      return -1;
    switch (c) {
    case 'n': o->events = v; break;
    case 's': o->seed = v; break;
    case 't': o->threads = (int)v; break;
    case 'd': o->devices = (int)v; break;
    case 'u': o->unchanged = (unsigned)v; break;
    default: return -1;
    }
  }
  if (optind != argc - 1 || o->threads < 1 || o->threads > MAX_THREADS || o->devices < 1 ||
      o->devices > MAX_DEVICES || o->unchanged > 100 || o->events < 1)
    return -1;
  o->output = argv[optind];
  return 0;
}

int main(int argc, char **argv) {
  options o = {1000000u, 1, 4, 4, 30, 0, 0, -1, 0, NULL};
  if (parse_options(argc, argv, &o)) {
    fprintf(stderr, "usage: gen_trace [-n EVENTS] [-s SEED] [-t THREADS 1-4] [-d DEVICES 1-4]"
                    " [-u UNCHANGED_PERCENT] [-c] [-r] [-R RANK/SIZE] OUTPUT\n");
    return EXIT_USAGE;
  }
  gen g = {.o = &o, .rng = o.seed};
  g.threads = calloc((size_t)o.threads, sizeof *g.threads); /* streams start zeroed */
  if (!g.threads) {
    fprintf(stderr, "gen_trace: out of memory\n");
    return EXIT_SOFTWARE;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = generate(&g);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  free(g.threads);
  if (rc) {
    fprintf(stderr, "gen_trace: cannot write %s: %s\n", o.output, strerror(-rc));
    return EXIT_CANTCREAT;
  }
  print_counts(&g.c, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
  return EXIT_OK;
}
