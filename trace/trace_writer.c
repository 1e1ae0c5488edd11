/* Trace writer: see trace_writer.h and docs/trace-format.md. */
#include "trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- header ---------------------------------------------------------- */

/* The header is built in a fixed buffer so that no allocation is needed. */
typedef struct hdr_buf {
  uint8_t *p;
  size_t len, cap;
  int overflow;
} hdr_buf;

static void hdr_put(hdr_buf *b, const void *data, size_t n) {
  if (b->overflow || n > b->cap - b->len) {
    b->overflow = 1;
    return;
  }
  if (n) /* data may be NULL for an empty item */
    memcpy(b->p + b->len, data, n);
  b->len += n;
}

static void hdr_tlv(hdr_buf *b, uint16_t type, const void *a, uint32_t alen,
                    const void *c, uint32_t clen) {
  uint16_t zero = 0;
  uint32_t len = alen + clen;
  hdr_put(b, &type, 2);
  hdr_put(b, &zero, 2);
  hdr_put(b, &len, 4);
  hdr_put(b, a, alen);
  if (clen)
    hdr_put(b, c, clen);
}

static void hdr_module(void *ctx, uint64_t base, uint64_t low, uint64_t high,
                       const uint8_t *id, uint8_t idlen, const char *path) {
  uint8_t fixed[3 * 8 + 1 + 20] = {0};
  if (idlen > 20)
    idlen = 20;
  memcpy(fixed, &base, 8);
  memcpy(fixed + 8, &low, 8);
  memcpy(fixed + 16, &high, 8);
  fixed[24] = idlen;
  if (idlen)
    memcpy(fixed + 25, id, idlen);
  size_t plen = path ? strnlen(path, 4096) : 0;
  hdr_tlv(ctx, OMPLENS_TF_TLV_MODULE, fixed, sizeof fixed, path, (uint32_t)plen);
}

static int write_all(int fd, const void *buf, size_t n, off_t off) {
  const uint8_t *p = buf;
  while (n) {
    ssize_t k = pwrite(fd, p, n, off);
    if (k < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    p += k;
    n -= (size_t)k;
    off += k;
  }
  return 0;
}

static void hdr_argv(hdr_buf *b, char *const *argv) {
  uint32_t total = 0;
  for (size_t i = 0; argv && argv[i]; i++)
    total += (uint32_t)strnlen(argv[i], 65536) + 1;
  uint16_t type = OMPLENS_TF_TLV_ARGV, zero = 0;
  hdr_put(b, &type, 2);
  hdr_put(b, &zero, 2);
  hdr_put(b, &total, 4);
  for (size_t i = 0; argv && argv[i]; i++)
    hdr_put(b, argv[i], strnlen(argv[i], 65536) + 1);
}

int omplens_tw_open(omplens_tw *w, const char *path, const omplens_tw_header *h,
                    uint32_t chunk_bytes) {
  static uint8_t buf[1u << 20]; /* header limit: 1 MiB (modules, argv) */
  hdr_buf b = {buf, 0, sizeof buf, 0};
  uint32_t version = OMPLENS_TF_VERSION, hdr_bytes = 0;
  memset(w, 0, sizeof *w);
  w->fd = -1;
  hdr_put(&b, OMPLENS_TF_MAGIC, 8);
  hdr_put(&b, &version, 4);
  hdr_put(&b, &hdr_bytes, 4); /* patched below */
  hdr_tlv(&b, OMPLENS_TF_TLV_PID, &h->pid, 4, NULL, 0);
  if (h->in_job && h->rank >= 0) {
    int32_t rank[2] = {h->rank, h->job_size};
    hdr_tlv(&b, OMPLENS_TF_TLV_RANK, rank, sizeof rank, NULL, 0);
    if (h->job && *h->job)
      hdr_tlv(&b, OMPLENS_TF_TLV_JOB, h->job, (uint32_t)strnlen(h->job, 256), NULL, 0);
  }
  if (h->exe)
    hdr_tlv(&b, OMPLENS_TF_TLV_EXE, h->exe, (uint32_t)strnlen(h->exe, 4096), NULL, 0);
  hdr_argv(&b, h->argv);
  uint64_t start[2] = {h->start_realtime_ns, h->start_monotonic_ns};
  hdr_tlv(&b, OMPLENS_TF_TLV_START, start, sizeof start, NULL, 0);
  if (h->each_module)
    h->each_module(h->each_module_ctx, hdr_module, &b);
  hdr_tlv(&b, OMPLENS_TF_TLV_END, NULL, 0, NULL, 0);
  if (b.overflow)
    return -E2BIG;
  hdr_bytes = (uint32_t)((b.len + OMPLENS_TF_ALIGN - 1) / OMPLENS_TF_ALIGN * OMPLENS_TF_ALIGN);
  memcpy(buf + 12, &hdr_bytes, 4);

  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  int rc = write_all(fd, buf, b.len, 0);
  if (rc) {
    close(fd);
    return rc;
  }
  w->fd = fd;
  w->start_ns = h->start_monotonic_ns;
  w->chunk_bytes = chunk_bytes ? chunk_bytes : OMPLENS_TF_CHUNK_BYTES;
  atomic_store(&w->next_offset, hdr_bytes);
  return 0;
}

int omplens_tw_close(omplens_tw *w, uint64_t end_monotonic_ns, int exit_status) {
  if (w->fd < 0)
    return -EBADF;
  struct {
    omplens_tf_chunk c;
    omplens_tf_end e;
  } end;
  memset(&end, 0, sizeof end);
  end.c.magic = OMPLENS_TF_CHUNK_MAGIC;
  end.c.kind = OMPLENS_TF_CHUNK_END;
  end.c.capacity = end.c.used = sizeof end.e;
  end.e.end_ns = end_monotonic_ns - w->start_ns;
  end.e.dropped = atomic_load(&w->dropped);
  end.e.exit_status = exit_status;
  end.e.num_threads = atomic_load(&w->num_threads);
  uint64_t off = atomic_fetch_add(&w->next_offset, OMPLENS_TF_ALIGN);
  int rc = write_all(w->fd, &end, sizeof end, (off_t)off);
  close(w->fd);
  w->fd = -1;
  return rc;
}

/* ---- streams --------------------------------------------------------- */

void omplens_tw_stream_init(omplens_tw_stream *s, omplens_tw *w, uint64_t os_tid) {
  memset(s, 0, sizeof *s);
  s->w = w;
  s->os_tid = os_tid;
  s->thread = atomic_fetch_add(&w->num_threads, 1);
}

void omplens_tw_stream_finish(omplens_tw_stream *s) {
  if (s->chunk) {
    size_t total = sizeof(omplens_tf_chunk) + s->capacity;
    munmap(s->chunk, total);
    s->chunk = NULL;
  }
}

/* Claims the next chunk of the file and maps it. */
static int stream_rotate(omplens_tw_stream *s, uint64_t t_ns) {
  omplens_tw *w = s->w;
  omplens_tw_stream_finish(s);
  size_t total = sizeof(omplens_tf_chunk) + w->chunk_bytes;
  total = (total + OMPLENS_TF_ALIGN - 1) / OMPLENS_TF_ALIGN * OMPLENS_TF_ALIGN;
  uint64_t off = atomic_fetch_add(&w->next_offset, total);
  /* Extend the file by writing its last byte: unlike ftruncate this never
   * shrinks it under another thread's mapping. */
  uint8_t zero = 0;
  if (write_all(w->fd, &zero, 1, (off_t)(off + total - 1)))
    return -1;
  void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, (off_t)off);
  if (m == MAP_FAILED)
    return -1;
  s->chunk = m;
  s->payload = (uint8_t *)m + sizeof(omplens_tf_chunk);
  s->capacity = (uint32_t)(total - sizeof(omplens_tf_chunk));
  s->used = 0;
  memset(&s->st, 0, sizeof s->st);
  s->st.t = t_ns;
  s->chunk->kind = OMPLENS_TF_CHUNK_EVENTS;
  s->chunk->thread = s->thread;
  s->chunk->capacity = s->capacity;
  s->chunk->seq = s->seq++;
  s->chunk->base_ns = t_ns;
  s->chunk->os_tid = s->os_tid;
  atomic_store_explicit((_Atomic uint32_t *)&s->chunk->magic, OMPLENS_TF_CHUNK_MAGIC,
                        memory_order_release);
  return 0;
}

/* Returns where the next record goes, rotating chunks as needed, or NULL
 * (the record is dropped and counted). */
static uint8_t *stream_reserve(omplens_tw_stream *s, uint64_t t_rel) {
  if (s->dead)
    goto drop;
  if (!s->chunk || s->capacity - s->used < OMPLENS_TF_MAX_RECORD) {
    if (stream_rotate(s, t_rel)) {
      s->dead = 1;
      goto drop;
    }
  }
  return s->payload + s->used;
drop:
  atomic_fetch_add_explicit(&s->w->dropped, 1, memory_order_relaxed);
  return NULL;
}

static void stream_commit(omplens_tw_stream *s, size_t n) {
  s->used += (uint32_t)n;
  atomic_store_explicit((_Atomic uint32_t *)&s->chunk->used, s->used,
                        memory_order_release);
}

static uint64_t rel(const omplens_tw_stream *s, uint64_t t_ns) {
  return t_ns >= s->w->start_ns ? t_ns - s->w->start_ns : 0;
}

static size_t put_time(omplens_tw_stream *s, uint8_t *p, uint64_t t) {
  size_t n = omplens_tf__put_sv(p, (int64_t)(t - s->st.t));
  s->st.t = t;
  return n;
}

/* The innermost open region, or 0 when none is open or it is nested deeper
 * than the stream tracks (ops then carry an explicit region id). */
static uint64_t current_region(const omplens_tw_stream *s) {
  return s->depth && s->depth <= OMPLENS_TW_MAX_NESTING ? s->open[s->depth - 1] : 0;
}

uint64_t omplens_tw_region_begin(omplens_tw_stream *s, uint64_t t_ns, int kind,
                                 int nowait, int device, uint64_t codeptr) {
  uint64_t t = rel(s, t_ns);
  uint64_t id = ((uint64_t)s->thread << 32) | (uint64_t)(s->regions_begun + 1);
  uint8_t *p = stream_reserve(s, t);
  if (!p)
    return 0;
  size_t n = 1;
  p[0] = OMPLENS_TF_REC_REGION_BEGIN;
  n += put_time(s, p + n, t);
  p[n++] = (uint8_t)((kind & 0x0f) | (nowait ? 0x10 : 0));
  n += omplens_tf__put_sv(p + n, device);
  n += omplens_tf__put_sv(p + n, (int64_t)(codeptr - s->st.code));
  s->st.code = codeptr;
  stream_commit(s, n);
  s->regions_begun++;
  if (s->depth < OMPLENS_TW_MAX_NESTING)
    s->open[s->depth] = id;
  s->depth++;
  return id;
}

void omplens_tw_region_end(omplens_tw_stream *s, uint64_t t_ns) {
  uint64_t t = rel(s, t_ns);
  if (s->depth)
    s->depth--;
  uint8_t *p = stream_reserve(s, t);
  if (!p)
    return;
  size_t n = 1;
  p[0] = OMPLENS_TF_REC_REGION_END;
  n += put_time(s, p + n, t);
  stream_commit(s, n);
}

/* Region reference: nothing when it is the open region, else explicit. */
static uint8_t region_flags(const omplens_tw_stream *s, uint64_t region) {
  if (region == 0)
    return OMPLENS_TF_F_NOREGION;
  return region == current_region(s) ? 0 : OMPLENS_TF_F_REGION;
}

void omplens_tw_op_write(omplens_tw_stream *s, const omplens_tw_op *op) {
  uint64_t t = rel(s, op->begin_ns);
  uint8_t *p = stream_reserve(s, t);
  if (!p)
    return;
  uint8_t flags = region_flags(s, op->region);
  if (op->hashed)
    flags |= OMPLENS_TF_F_HASH;
  if (op->region == 0 && op->own_codeptr)
    flags |= OMPLENS_TF_F_CODEPTR;
  size_t n = 1;
  p[0] = (uint8_t)(OMPLENS_TF_REC_OP | flags);
  n += put_time(s, p + n, t);
  n += omplens_tf__put_uv(p + n, op->end_ns > op->begin_ns ? op->end_ns - op->begin_ns : 0);
  p[n++] = (uint8_t)(op->kind | (op->async ? OMPLENS_TF_OP_ASYNC : 0) |
                     (op->early ? OMPLENS_TF_OP_EARLY : 0));
  n += omplens_tf__put_sv(p + n, op->device);
  n += omplens_tf__put_sv(p + n, op->peer);
  n += omplens_tf__put_sv(p + n, (int64_t)(op->host_addr - s->st.host));
  s->st.host = op->host_addr;
  n += omplens_tf__put_sv(p + n, (int64_t)(op->dev_addr - s->st.dev));
  s->st.dev = op->dev_addr;
  n += omplens_tf__put_uv(p + n, op->bytes);
  if (flags & OMPLENS_TF_F_HASH) {
    memcpy(p + n, &op->hash, 8);
    n += 8;
  }
  if (flags & OMPLENS_TF_F_REGION)
    n += omplens_tf__put_uv(p + n, op->region);
  if (flags & OMPLENS_TF_F_CODEPTR) {
    n += omplens_tf__put_sv(p + n, (int64_t)(op->own_codeptr - s->st.code));
    s->st.code = op->own_codeptr;
  }
  stream_commit(s, n);
}

void omplens_tw_kernel(omplens_tw_stream *s, uint64_t begin_ns, uint64_t end_ns,
                       int device, uint64_t teams, uint64_t region) {
  uint64_t t = rel(s, begin_ns);
  uint8_t *p = stream_reserve(s, t);
  if (!p)
    return;
  uint8_t flags = region_flags(s, region);
  size_t n = 1;
  p[0] = (uint8_t)(OMPLENS_TF_REC_KERNEL | flags);
  n += put_time(s, p + n, t);
  n += omplens_tf__put_uv(p + n, end_ns > begin_ns ? end_ns - begin_ns : 0);
  n += omplens_tf__put_sv(p + n, device);
  n += omplens_tf__put_uv(p + n, teams);
  if (flags & OMPLENS_TF_F_REGION)
    n += omplens_tf__put_uv(p + n, region);
  stream_commit(s, n);
}

void omplens_tw_device(omplens_tw_stream *s, uint64_t t_ns, int device, uint64_t type_ptr) {
  uint64_t t = rel(s, t_ns);
  uint8_t *p = stream_reserve(s, t);
  if (!p)
    return;
  size_t n = 1;
  p[0] = OMPLENS_TF_REC_DEVICE | (type_ptr ? OMPLENS_TF_DEVICE_TYPED : 0);
  n += put_time(s, p + n, t);
  n += omplens_tf__put_sv(p + n, device);
  if (type_ptr)
    n += omplens_tf__put_uv(p + n, type_ptr);
  stream_commit(s, n);
}

void omplens_tw_tool(omplens_tw_stream *s, uint64_t t_ns, int command) {
  uint64_t t = rel(s, t_ns);
  uint8_t *p = stream_reserve(s, t);
  if (!p)
    return;
  size_t n = 1;
  p[0] = OMPLENS_TF_REC_TOOL;
  n += put_time(s, p + n, t);
  n += omplens_tf__put_uv(p + n, (uint64_t)command);
  stream_commit(s, n);
}

void omplens_tw_wait(omplens_tw_stream *s, uint64_t begin_ns, uint64_t end_ns, int kind,
                     uint64_t codeptr) {
  uint64_t t = rel(s, begin_ns), e = rel(s, end_ns);
  uint8_t *p = stream_reserve(s, t);
  if (!p)
    return;
  size_t n = 1;
  p[0] = OMPLENS_TF_REC_WAIT;
  n += put_time(s, p + n, t);
  n += omplens_tf__put_uv(p + n, e > t ? e - t : 0);
  p[n++] = (uint8_t)kind;
  n += omplens_tf__put_sv(p + n, (int64_t)(codeptr - s->st.code));
  s->st.code = codeptr;
  stream_commit(s, n);
}

void omplens_tw_string(omplens_tw_stream *s, uint64_t ptr, const char *text) {
  uint8_t *p = stream_reserve(s, s->st.t);
  if (!p)
    return;
  size_t len = strnlen(text, OMPLENS_TF_MAX_STRING);
  size_t n = 1;
  p[0] = OMPLENS_TF_REC_STRING;
  n += omplens_tf__put_uv(p + n, ptr);
  n += omplens_tf__put_uv(p + n, len);
  memcpy(p + n, text, len);
  stream_commit(s, n + len);
}

void omplens_tw_call(omplens_tw_stream *s, uint64_t loc_ptr, uint64_t caller, uint32_t nargs) {
  uint8_t *p = stream_reserve(s, s->st.t);
  if (!p)
    return;
  size_t n = 1;
  p[0] = OMPLENS_TF_REC_CALL;
  n += omplens_tf__put_uv(p + n, loc_ptr);
  n += omplens_tf__put_sv(p + n, (int64_t)(caller - s->st.code));
  s->st.code = caller;
  n += omplens_tf__put_uv(p + n, nargs);
  stream_commit(s, n);
}

void omplens_tw_arg(omplens_tw_stream *s, uint64_t base, uint64_t begin, uint64_t size,
                    uint64_t map_type, uint64_t name_ptr) {
  uint8_t *p = stream_reserve(s, s->st.t);
  if (!p)
    return;
  size_t n = 1;
  p[0] = OMPLENS_TF_REC_ARG;
  n += omplens_tf__put_sv(p + n, (int64_t)(base - s->st.host));
  n += omplens_tf__put_sv(p + n, (int64_t)(begin - base));
  s->st.host = base;
  n += omplens_tf__put_uv(p + n, size);
  n += omplens_tf__put_uv(p + n, map_type);
  n += omplens_tf__put_uv(p + n, name_ptr);
  stream_commit(s, n);
}

void omplens_tw_call_path(omplens_tw_stream *s, uint32_t id, const uint64_t *frames, uint32_t n) {
  uint8_t *p = stream_reserve(s, s->st.t);
  if (!p)
    return;
  if (n > OMPLENS_TF_MAX_PATH)
    n = OMPLENS_TF_MAX_PATH;
  size_t k = 1;
  p[0] = (uint8_t)(OMPLENS_TF_REC_CALL_PATH | (frames ? OMPLENS_TF_PATH_FRAMES : 0));
  k += omplens_tf__put_uv(p + k, id);
  if (frames) {
    k += omplens_tf__put_uv(p + k, n);
    for (uint32_t i = 0; i < n; i++) {
      k += omplens_tf__put_sv(p + k, (int64_t)(frames[i] - s->st.code));
      s->st.code = frames[i];
    }
  }
  stream_commit(s, k);
}
