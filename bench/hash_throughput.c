/* hash_throughput: XXH3-64 throughput next to memcpy on the same machine,
 * and whether splitting a large buffer between two threads would pay off.
 *
 *   hash_throughput [-t MILLISECONDS] [-r ROUNDS]
 *
 * For every size from 4 KiB to 64 MiB (powers of two), ROUNDS rounds (default
 * 5) each repeat the operation for about MILLISECONDS / ROUNDS (default 250
 * ms in all); the median round is printed, in GB/s (10^9 bytes of buffer per
 * second; memcpy counts the bytes copied, not read + written). Buffers are
 * reused between calls, so small sizes run from cache, as they do in the
 * collector, which hashes a host buffer the runtime has just copied.
 * XXH3 1T is XXH3_64bits in libxxhash (SSE2 on x86-64), what the collector
 * called before; omplens is omplens_content_hash(), what it calls now: the
 * same values, with the long-input loop compiled for AVX2 when the CPU has
 * it (trace/content_hash.c). Both are timed in the same run, one after the
 * other at each size, so that their ratio holds better than figures from
 * separate runs on a loaded machine.
 *
 * Two-thread columns: the buffer is split in two halves; the calling thread
 * hashes the first, a worker thread started once beforehand hashes the
 * second (both with the dispatched XXH3 below), and the result is XXH3-64 of
 * the two part hashes. The handoff is timed with each call:
 *   2T wake   the worker sleeps on a condition variable between calls: what a
 *             collector could afford (no core spent while the program runs);
 *   2T spin   the worker spins on an atomic (yielding after a while, in
 *             case both threads share a core): a bound on what any handoff
 *             could reach, at the price of a whole core. It is started for
 *             its own measurement only, so that it never competes with the
 *             other columns for the machine's cores.
 * XXH3 disp is XXH3_64bits_dispatch (xxh_x86dispatch.h) followed by
 * vzeroupper: the same hash values, with the vector width chosen at run time
 * (AVX2, AVX-512) instead of the build's default (SSE2 on x86-64), which is
 * what XXH3_64bits uses. The last line checks what happens to XXH3_64bits
 * after a dispatch call that is not followed by vzeroupper, and after a call
 * of omplens_content_hash() (whose AVX2 code ends with vzeroupper). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "omplens_trace.h"
#if defined(__x86_64__) && __has_include(<xxh_x86dispatch.h>)
#define XXH_DISPATCH_DISABLE_REPLACE 1 /* keep XXH3_64bits the default one */
#include <xxh_x86dispatch.h>
#define HAVE_DISPATCH 1
#endif

enum exit_code { EXIT_OK = 0, EXIT_USAGE = 64, EXIT_SOFTWARE = 70 };

#define MIN_SIZE (4u << 10)
#define MAX_SIZE (64u << 20)
#define MAX_ROUNDS 64

/* Options. */
typedef struct options {
  double total_ms; /* -t: time spent per size and operation */
  int rounds;      /* -r: rounds per measurement; the median is printed */
} options;

static volatile uint64_t sink; /* keeps results alive */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the hash functions ------------------------------------------------- */

/* Clears the upper halves of the vector registers after AVX code. Without
 * it, later SSE code (non-VEX, as in XXH3_64bits) can run several times
 * slower: see the check at the end of the output. */
static void clean_upper(void) {
#ifdef HAVE_DISPATCH
  if (__builtin_cpu_supports("avx"))
    __asm__ volatile("vzeroupper");
#endif
}

static uint64_t hash_dispatch_dirty(const void *p, size_t n) {
#ifdef HAVE_DISPATCH
  return XXH3_64bits_dispatch(p, n);
#else
  return XXH3_64bits(p, n);
#endif
}

static uint64_t hash_dispatch(const void *p, size_t n) {
  uint64_t h = hash_dispatch_dirty(p, n);
  clean_upper();
  return h;
}

/* ---- the two-thread hash ------------------------------------------------ */

typedef struct worker {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake, done_cv;
  int spin;                     /* spin on `posted` instead of sleeping */
  _Atomic uint64_t posted;      /* generation of the last request */
  _Atomic uint64_t done;        /* generation of the last finished request */
  const uint8_t *part;
  size_t part_bytes;
  uint64_t result;
  int quit;
} worker;

/* One step of a spin-wait: a pause hint for a hyper-thread sibling, and a
 * yield now and then in case the thread we wait for shares our core. */
static inline void cpu_relax(unsigned *spins) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
  if (++*spins % 4096 == 0)
    sched_yield();
}

static int worker_next(worker *w, uint64_t seen) {
  if (w->spin) {
    unsigned spins = 0;
    while (atomic_load_explicit(&w->posted, memory_order_acquire) == seen)
      cpu_relax(&spins);
    return !w->quit;
  }
  pthread_mutex_lock(&w->lock);
  while (atomic_load(&w->posted) == seen)
    pthread_cond_wait(&w->wake, &w->lock);
  pthread_mutex_unlock(&w->lock);
  return !w->quit;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  uint64_t seen = 0;
  while (worker_next(w, seen)) {
    seen = atomic_load(&w->posted);
    w->result = hash_dispatch(w->part, w->part_bytes);
    if (w->spin) {
      atomic_store_explicit(&w->done, seen, memory_order_release);
    } else {
      pthread_mutex_lock(&w->lock);
      atomic_store(&w->done, seen);
      pthread_cond_signal(&w->done_cv);
      pthread_mutex_unlock(&w->lock);
    }
  }
  return NULL;
}

static void worker_post(worker *w) {
  if (w->spin) {
    atomic_fetch_add_explicit(&w->posted, 1, memory_order_release);
    return;
  }
  pthread_mutex_lock(&w->lock);
  atomic_fetch_add(&w->posted, 1);
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
}

static void worker_wait(worker *w) {
  uint64_t want = atomic_load(&w->posted);
  if (w->spin) {
    unsigned spins = 0;
    while (atomic_load_explicit(&w->done, memory_order_acquire) != want)
      cpu_relax(&spins);
    return;
  }
  pthread_mutex_lock(&w->lock);
  while (atomic_load(&w->done) != want)
    pthread_cond_wait(&w->done_cv, &w->lock);
  pthread_mutex_unlock(&w->lock);
}

static int worker_start(worker *w, int spin) {
  memset(w, 0, sizeof *w);
  w->spin = spin;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->wake, NULL);
  pthread_cond_init(&w->done_cv, NULL);
  return pthread_create(&w->thread, NULL, worker_main, w);
}

static void worker_stop(worker *w) {
  w->quit = 1;
  worker_post(w);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_cond_destroy(&w->done_cv);
  pthread_mutex_destroy(&w->lock);
}

/* XXH3-64 of the two halves' hashes, the halves hashed in parallel with the
 * dispatched XXH3 (the fastest one-thread hash, which they must beat). */
static uint64_t hash_split(worker *w, const uint8_t *p, size_t n) {
  size_t half = n / 2;
  w->part = p + half;
  w->part_bytes = n - half;
  worker_post(w);
  uint64_t parts[2];
  parts[0] = hash_dispatch(p, half);
  worker_wait(w);
  parts[1] = w->result;
  return XXH3_64bits(parts, sizeof parts);
}

/* ---- measurement -------------------------------------------------------- */

enum op {
  OP_MEMCPY,
  OP_HASH,
  OP_HASH_DISPATCH,
  OP_HASH_OMPLENS,
  OP_HASH_2T_WAKE,
  OP_HASH_2T_SPIN,
  NUM_OPS
};

static const char *const op_names[NUM_OPS] = {"memcpy",  "XXH3 1T",      "XXH3 disp",
                                              "omplens", "XXH3 2T wake", "XXH3 2T spin"};


typedef struct bench {
  uint8_t *src, *dst;
  worker *w; /* for the two-thread ops */
} bench;

static void run_once(const bench *b, enum op op, size_t n) {
  switch (op) {
  case OP_MEMCPY:
    memcpy(b->dst, b->src, n);
    sink += b->dst[n - 1];
    break;
  case OP_HASH:
    sink += XXH3_64bits(b->src, n);
    break;
  case OP_HASH_DISPATCH:
    sink += hash_dispatch(b->src, n);
    break;
  case OP_HASH_OMPLENS:
    sink += omplens_content_hash(b->src, n);
    break;
  default:
    sink += hash_split(b->w, b->src, n);
    break;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median throughput over the rounds, GB/s. */
static double measure(const bench *b, enum op op, size_t n, const options *o) {
  double round_ns = o->total_ms * 1e6 / o->rounds;
  double gbps[MAX_ROUNDS];
  run_once(b, op, n); /* warm up: page faults, cache */
  for (int r = 0; r < o->rounds; r++) {
    uint64_t calls = 0, start = now_ns(), elapsed;
    do {
      run_once(b, op, n);
      calls++;
      elapsed = now_ns() - start;
    } while ((double)elapsed < round_ns);
    gbps[r] = (double)n * (double)calls / (double)elapsed;
  }
  qsort(gbps, (size_t)o->rounds, sizeof *gbps, cmp_double);
  return gbps[o->rounds / 2];
}

static void print_size(size_t n) {
  if (n >= (1u << 20))
    printf("%6zu MiB", n >> 20);
  else
    printf("%6zu KiB", n >> 10);
}

#ifdef HAVE_DISPATCH
/* What runs before the timed XXH3_64bits calls in print_dispatch_check. */
enum prelude { DISPATCH_DIRTY, DISPATCH_CLEAN, OMPLENS_HASH, NUM_PRELUDES };

static void run_prelude(const bench *b, enum prelude what, size_t n) {
  if (what == OMPLENS_HASH) {
    sink += omplens_content_hash(b->src, n);
    return;
  }
  sink += hash_dispatch_dirty(b->src, n);
  if (what == DISPATCH_CLEAN)
    clean_upper();
}
#endif

/* XXH3_64bits right after XXH3_64bits_dispatch, without and with vzeroupper,
 * and right after omplens_content_hash (alternating, median of the rounds):
 * a hash that leaves the upper register halves dirty slows the SSE code that
 * runs after it, which in the collector would be the program's. */
static void print_dispatch_check(const bench *b, const options *o) {
#ifdef HAVE_DISPATCH
  size_t n = 1u << 20;
  double round_ns = o->total_ms * 1e6 / o->rounds / NUM_PRELUDES;
  double gbps[NUM_PRELUDES][MAX_ROUNDS];
  for (int r = 0; r < o->rounds; r++) {
    for (int what = 0; what < NUM_PRELUDES; what++) { /* alternate, so drift hits all */
      run_prelude(b, (enum prelude)what, n);
      uint64_t calls = 0, start = now_ns(), elapsed;
      do {
        sink += XXH3_64bits(b->src, n);
        calls++;
        elapsed = now_ns() - start;
      } while ((double)elapsed < round_ns);
      gbps[what][r] = (double)n * (double)calls / (double)elapsed;
    }
  }
  clean_upper();
  for (int what = 0; what < NUM_PRELUDES; what++)
    qsort(gbps[what], (size_t)o->rounds, sizeof(double), cmp_double);
  printf("XXH3 1T at 1 MiB after one XXH3_64bits_dispatch call: %.2f GB/s without vzeroupper,"
         " %.2f GB/s with it\n", gbps[DISPATCH_DIRTY][o->rounds / 2],
         gbps[DISPATCH_CLEAN][o->rounds / 2]);
  printf("XXH3 1T at 1 MiB after one omplens_content_hash call: %.2f GB/s\n",
         gbps[OMPLENS_HASH][o->rounds / 2]);
#else
  (void)b, (void)o;
#endif
}

/* ---- command line and machine ------------------------------------------ */

static void print_machine(int argc, char **argv) {
  char model[256] = "unknown", line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!strncmp(line, "model name", 10) && colon) {
      snprintf(model, sizeof model, "%s", colon + 2);
      model[strcspn(model, "\n")] = 0;
      break;
    }
  }
  if (f)
    fclose(f);
  printf("# command:");
  for (int i = 0; i < argc; i++)
    printf(" %s", argv[i]);
  long nproc = sysconf(_SC_NPROCESSORS_ONLN);
  double load = 0;
  f = fopen("/proc/loadavg", "r");
  if (f && fscanf(f, "%lf", &load) != 1)
    load = 0;
  if (f)
    fclose(f);
  char date[32] = "";
  time_t now = time(NULL);
  struct tm tm;
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
  printf("\n# date: %s; machine: nproc %ld, %s; xxhash %u; load average %.2f\n", date, nproc,
         model, XXH_versionNumber(), load);
  if (load > (double)nproc / 4)
    printf("# WARNING: load average %.2f on %ld CPUs before the run: other work competes,"
           " figures are unreliable\n", load, nproc);
}

static int parse_options(int argc, char **argv, options *o) {
  int c;
  while ((c = getopt(argc, argv, "t:r:")) != -1) {
    char *end;
    if (c == 't') {
      o->total_ms = strtod(optarg, &end);
      if (*end || o->total_ms <= 0)
        return -1;
    } else if (c == 'r') {
      o->rounds = (int)strtol(optarg, &end, 10);
      if (*end || o->rounds < 1 || o->rounds > MAX_ROUNDS)
        return -1;
    } else {
      return -1;
    }
  }
  return optind == argc ? 0 : -1;
}

/* Measures every op at size n into g; the spinning worker lives only for
 * its own column. Returns 0, or -1 when the thread cannot start. */
static int measure_size(const bench *b, worker *wake, size_t n, const options *o,
                        double g[NUM_OPS]) {
  bench with = *b;
  with.w = wake;
  for (int op = OP_MEMCPY; op < OP_HASH_2T_SPIN; op++)
    g[op] = measure(&with, (enum op)op, n, o);
  worker spin;
  if (worker_start(&spin, 1))
    return -1;
  with.w = &spin;
  g[OP_HASH_2T_SPIN] = measure(&with, OP_HASH_2T_SPIN, n, o);
  worker_stop(&spin);
  return 0;
}

static int print_table(const bench *b, worker *wake, const options *o) {
  printf("%10s", "size");
  for (int op = 0; op < NUM_OPS; op++)
    printf(" %13s", op_names[op]);
  printf(" %10s %10s %10s %10s %10s\n", "1T/memcpy", "disp/1T", "omplens/1T", "wake/disp",
         "spin/disp");
  for (size_t n = MIN_SIZE; n <= MAX_SIZE; n *= 2) {
    double g[NUM_OPS];
    if (measure_size(b, wake, n, o, g))
      return -1;
    print_size(n);
    for (int op = 0; op < NUM_OPS; op++)
      printf(" %13.2f", g[op]);
    printf(" %10.2f %10.2f %10.2f %10.2f %10.2f\n", g[OP_HASH] / g[OP_MEMCPY],
           g[OP_HASH_DISPATCH] / g[OP_HASH], g[OP_HASH_OMPLENS] / g[OP_HASH],
           g[OP_HASH_2T_WAKE] / g[OP_HASH_DISPATCH], g[OP_HASH_2T_SPIN] / g[OP_HASH_DISPATCH]);
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char **argv) {
  options o = {250.0, 5};
  if (parse_options(argc, argv, &o)) {
    fprintf(stderr, "usage: hash_throughput [-t MILLISECONDS] [-r ROUNDS]\n");
    return EXIT_USAGE;
  }
  print_machine(argc, argv);
  bench b = {malloc(MAX_SIZE), malloc(MAX_SIZE), NULL};
  worker wake;
  if (!b.src || !b.dst || worker_start(&wake, 0)) {
    fprintf(stderr, "hash_throughput: out of memory or threads\n");
    return EXIT_SOFTWARE;
  }
  uint64_t x = 0x9e3779b97f4a7c15u; /* xorshift64: content the hash cannot shortcut */
  for (size_t i = 0; i < MAX_SIZE; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    memcpy(b.src + i, &x, 8);
  }
  memset(b.dst, 1, MAX_SIZE);
  int rc = print_table(&b, &wake, &o);
  if (!rc)
    print_dispatch_check(&b, &o);
  worker_stop(&wake);
  free(b.src);
  free(b.dst);
  if (rc)
    fprintf(stderr, "hash_throughput: cannot start a thread\n");
  return rc ? EXIT_SOFTWARE : EXIT_OK;
}
