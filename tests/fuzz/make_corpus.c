/* Builds the fuzzers' seed corpus (tests/fuzz/corpus/trace/, see
 * tests/fuzz/make_corpus.sh): small real traces and damaged variants.
 *
 *   make_corpus compact IN OUT     IN with every events chunk shrunk to the
 *                                  pages its records use (real traces keep
 *                                  64 KiB chunks, mostly holes)
 *   make_corpus damage IN PREFIX   PREFIX.<kind> for each kind of damage
 *   make_corpus synth OUT          a trace of every record type and flag
 *
 * Inputs must be well-formed (a compacted trace is). Exit status 0 or 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_format.h"
#include "trace_writer.h"

#define PAGE OMPLENS_TF_ALIGN

typedef struct bytes {
  uint8_t *p;
  size_t n;
} bytes;

static int load(const char *path, bytes *b) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  b->p = n > 0 ? calloc(1, (size_t)n) : NULL;
  b->n = b->p && fread(b->p, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
  fclose(f);
  return b->n ? 0 : -1;
}

static int save(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  int rc = fwrite(p, 1, n, f) == n ? 0 : -1;
  return fclose(f) || rc ? -1 : 0;
}

static uint64_t round_page(uint64_t n) { return (n + PAGE - 1) / PAGE * PAGE; }

static uint32_t header_bytes(const bytes *b) {
  uint32_t h;
  memcpy(&h, b->p + 12, 4);
  return h;
}

/* The chunk header at off, or NULL past the end. */
static const omplens_tf_chunk *chunk_at(const bytes *b, uint64_t off) {
  if (off + sizeof(omplens_tf_chunk) > b->n)
    return NULL;
  return (const omplens_tf_chunk *)(const void *)(b->p + off);
}

static uint64_t chunk_span(const omplens_tf_chunk *c) {
  return c->kind == OMPLENS_TF_CHUNK_END ? PAGE : round_page(sizeof *c + (uint64_t)c->capacity);
}

/* ---- compact ------------------------------------------------------------- */

static int compact(const char *in, const char *out) {
  bytes b;
  if (load(in, &b) || b.n < 16 || memcmp(b.p, OMPLENS_TF_MAGIC, 8))
    return fprintf(stderr, "make_corpus: %s is not a trace\n", in), -1;
  uint8_t *o = calloc(1, b.n);
  uint64_t hdr = header_bytes(&b), w = hdr, end = 0;
  memcpy(o, b.p, hdr);
  const omplens_tf_chunk *c;
  for (uint64_t off = hdr; (c = chunk_at(&b, off)); off += chunk_span(c)) {
    if (c->magic != OMPLENS_TF_CHUNK_MAGIC) {
      fprintf(stderr, "make_corpus: %s: bad chunk at %llu\n", in, (unsigned long long)off);
      return -1;
    }
    uint64_t keep = c->kind == OMPLENS_TF_CHUNK_END ? sizeof(omplens_tf_end) : c->used;
    omplens_tf_chunk nc = *c;
    if (c->kind == OMPLENS_TF_CHUNK_EVENTS)
      nc.capacity = (uint32_t)(round_page(sizeof nc + keep) - sizeof nc);
    memcpy(o + w, &nc, sizeof nc);
    memcpy(o + w + sizeof nc, b.p + off + sizeof nc, keep);
    end = w + sizeof nc + keep;
    w += chunk_span(&nc);
  }
  int rc = save(out, o, end);
  free(o);
  free(b.p);
  return rc;
}

/* ---- damage -------------------------------------------------------------- */

/* Offset of the first chunk of kind `kind`, or 0. */
static uint64_t first_chunk(const bytes *b, int kind) {
  const omplens_tf_chunk *c;
  for (uint64_t off = header_bytes(b); (c = chunk_at(b, off)); off += chunk_span(c))
    if (c->kind == kind)
      return off;
  return 0;
}

static int save_variant(const char *prefix, const char *kind, const bytes *b, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s.%s", prefix, kind);
  return save(path, b->p, n);
}

/* One kind of damage, applied to a fresh copy at chunk offset off. */
typedef void (*edit_fn)(uint8_t *p, uint64_t off);

static void edit_magic(uint8_t *p, uint64_t off) { p[off + 3] ^= 0x20; }
static void edit_used(uint8_t *p, uint64_t off) {
  omplens_tf_chunk *c = (omplens_tf_chunk *)(void *)(p + off);
  c->used = c->capacity + 1;
}
static void edit_version(uint8_t *p, uint64_t off) { p[8] = OMPLENS_TF_VERSION + 1; }
static void edit_records(uint8_t *p, uint64_t off) {
  omplens_tf_chunk *c = (omplens_tf_chunk *)(void *)(p + off);
  for (uint64_t i = 0; i < c->used; i += 7) /* every 7th record byte */
    p[off + sizeof *c + i] ^= 0x55;
}
static void edit_thread(uint8_t *p, uint64_t off) {
  ((omplens_tf_chunk *)(void *)(p + off))->thread = 0xffffffffu;
}

static int variant(const char *prefix, const char *kind, const bytes *b, size_t n, edit_fn edit,
                   uint64_t off) {
  bytes v = {malloc(b->n), n};
  if (!v.p)
    return -1;
  memcpy(v.p, b->p, b->n);
  if (edit)
    edit(v.p, off);
  int rc = save_variant(prefix, kind, &v, n);
  free(v.p);
  return rc;
}

static int damage(const char *in, const char *prefix) {
  bytes b;
  if (load(in, &b))
    return fprintf(stderr, "make_corpus: cannot read %s\n", in), -1;
  uint64_t ev = first_chunk(&b, OMPLENS_TF_CHUNK_EVENTS);
  uint64_t end = first_chunk(&b, OMPLENS_TF_CHUNK_END);
  if (!ev || !end)
    return fprintf(stderr, "make_corpus: %s needs an events chunk and an end chunk\n", in), -1;
  const omplens_tf_chunk *c = chunk_at(&b, ev);
  int rc = variant(prefix, "truncated", &b, ev + sizeof *c + c->used / 2, NULL, 0) |
           variant(prefix, "header-only", &b, header_bytes(&b), NULL, 0) |
           variant(prefix, "no-end", &b, end, NULL, 0) |
           variant(prefix, "bad-magic", &b, b.n, edit_magic, ev) |
           variant(prefix, "used-beyond-capacity", &b, b.n, edit_used, ev) |
           variant(prefix, "newer-version", &b, b.n, edit_version, 0) |
           variant(prefix, "flipped-records", &b, b.n, edit_records, ev) |
           variant(prefix, "absurd-thread", &b, b.n, edit_thread, ev);
  free(b.p);
  return rc;
}

/* ---- synth --------------------------------------------------------------- */

static int no_modules(void *ctx,
                      void (*emit)(void *emit_ctx, uint64_t base, uint64_t low, uint64_t high,
                                   const uint8_t *id, uint8_t idlen, const char *path),
                      void *emit_ctx) {
  static const uint8_t id[20] = {1, 2, 3};
  emit(emit_ctx, 0x400000, 0x400000, 0x500000, id, 20, "/synthetic/prog");
  return 0;
}

/* One thread: every record type and flag, nesting, ops outside regions. */
static void synth_thread(omplens_tw_stream *s, uint64_t t) {
  omplens_tw_string(s, 0x500300, "generic-64bit");
  omplens_tw_device(s, t, 0, 0x500300);
  omplens_tw_string(s, 0x500100, ";synth.c;main;10;1;;");
  omplens_tw_string(s, 0x500200, ";a[0:n];synth.c;10;30;;");
  omplens_tw_call(s, 0x500100, 0x401000, 1);
  omplens_tw_arg(s, 0x7000, 0x7000, 64, 0x23, 0x500200);
  static const uint64_t path[] = {0x401000, 0x402000, 0x403000};
  omplens_tw_call_path(s, 1, path, 3); /* defined, then named by id */
  uint64_t outer = omplens_tw_region_begin(s, t + 10, 1, 1, 0, 0x401000);
  omplens_tw_call_path(s, 1, NULL, 0);
  uint64_t inner = omplens_tw_region_begin(s, t + 20, 4, 0, 0, 0x401100);
  omplens_tw_op op = {.begin_ns = t + 30, .end_ns = t + 40, .host_addr = 0x7000,
                      .dev_addr = 0x9000, .bytes = 64, .hash = 0xabcdef, .region = inner,
                      .device = 0, .peer = -1, .kind = 2 /* h2d */, .hashed = 1, .async = 1};
  omplens_tw_op_write(s, &op);
  op.region = outer, op.kind = 1, op.hashed = 0; /* alloc, explicit region */
  omplens_tw_op_write(s, &op);
  omplens_tw_region_end(s, t + 50);
  omplens_tw_kernel(s, t + 60, t + 70, 0, 8, outer);
  op.begin_ns = t + 35, op.end_ns = t + 45; /* a d2h hashed late, written late */
  op.kind = 3, op.hashed = 1, op.async = 0, op.early = 1;
  omplens_tw_op_write(s, &op);
  op = (omplens_tw_op){.begin_ns = t + 80, .end_ns = t + 90, .dev_addr = 0x9000, .bytes = 64,
                       .own_codeptr = 0x401234, .device = 1, .peer = 0, .kind = 7 /* d2d */};
  omplens_tw_call_path(s, 2, path + 1, 2); /* an API call's path */
  omplens_tw_op_write(s, &op); /* outside regions, own codeptr */
  omplens_tw_region_end(s, t + 100);
  op = (omplens_tw_op){.begin_ns = t + 110, .end_ns = t + 111, .dev_addr = 0x9000,
                       .own_codeptr = 0x401300, .peer = -1, .kind = 4 /* delete */};
  omplens_tw_op_write(s, &op);
  omplens_tw_kernel(s, t + 120, t + 130, 1, 1, 0);
  omplens_tw_wait(s, t + 5, t + 105, 1, 0x401400); /* a taskwait the nowait region ends in */
  omplens_tw_tool(s, t + 140, 2);  /* omp_control_tool pause, */
  omplens_tw_tool(s, t + 150, 1);  /* start */
  omplens_tw_tool(s, t + 160, 4);  /* and end */
}

static int synth(const char *out) {
  static char *const argv[] = {"synth", "--flag", "a b", NULL};
  omplens_tw w;
  omplens_tw_stream s[2];
  omplens_tw_header h = {.pid = 42, .exe = "/synthetic/prog", .argv = argv,
                         .in_job = 1, .rank = 2, .job_size = 4, /* the RANK item */
                         .start_realtime_ns = 1700000000000000000ull, .start_monotonic_ns = 1000,
                         .each_module = no_modules};
  unlink(out);
  if (omplens_tw_open(&w, out, &h, 1024))
    return fprintf(stderr, "make_corpus: cannot create %s\n", out), -1;
  memset(s, 0, sizeof s);
  omplens_tw_stream_init(&s[0], &w, 1);
  omplens_tw_stream_init(&s[1], &w, 2);
  synth_thread(&s[0], 2000);
  synth_thread(&s[1], 2005);
  omplens_tw_stream_finish(&s[0]);
  omplens_tw_stream_finish(&s[1]);
  return omplens_tw_close(&w, 10000, 0) ? -1 : 0;
}

int main(int argc, char **argv) {
  int rc = -1;
  if (argc == 4 && !strcmp(argv[1], "compact"))
    rc = compact(argv[2], argv[3]);
  else if (argc == 4 && !strcmp(argv[1], "damage"))
    rc = damage(argv[2], argv[3]);
  else if (argc == 3 && !strcmp(argv[1], "synth"))
    rc = synth(argv[2]);
  else
    fprintf(stderr, "usage: make_corpus compact IN OUT | damage IN PREFIX | synth OUT\n");
  return rc ? 1 : 0;
}
