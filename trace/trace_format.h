/* Internal: the byte layout of an omplens trace (docs/trace-format.md) and the
 * varint codec shared by the writer and the reader. */
#ifndef OMPLENS_TRACE_FORMAT_H
#define OMPLENS_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OMPLENS_TF_MAGIC "OMPLTRC\0"
/* 2: a DEVICE record may carry the runtime's device type (a flag that a
 * version 1 reader would not skip). 3: CALL_PATH records. 4: TOOL records
 * (omp_control_tool). 5: WAIT records (host waits for deferred target
 * tasks). */
#define OMPLENS_TF_VERSION 5u
#define OMPLENS_TF_ALIGN 4096u          /* header and chunks start here */
#define OMPLENS_TF_CHUNK_MAGIC 0x4b434c4fu /* "OLCK" little-endian */
#define OMPLENS_TF_CHUNK_BYTES (64u * 1024u)
#define OMPLENS_TF_MAX_CHUNK_BYTES (64u * 1024u * 1024u)

/* Header: magic[8], u32 version, u32 header_bytes, then TLV items
 * (u16 type, u16 zero, u32 length, payload) up to OMPLENS_TF_TLV_END. */
enum omplens_tf_tlv {
  OMPLENS_TF_TLV_END = 0,
  OMPLENS_TF_TLV_PID = 1,      /* i32 */
  OMPLENS_TF_TLV_EXE = 2,      /* string, no NUL */
  OMPLENS_TF_TLV_ARGV = 3,     /* arguments, each NUL-terminated */
  OMPLENS_TF_TLV_START = 4,    /* u64 realtime ns, u64 monotonic ns */
  OMPLENS_TF_TLV_MODULE = 5,   /* u64 base, low, high; u8 idlen; u8 id[20]; path */
  OMPLENS_TF_TLV_RANK = 6,     /* i32 rank, i32 job size (0: unknown): the
                                  launcher's MPI rank; absent outside a job */
  OMPLENS_TF_TLV_JOB = 7,      /* string, no NUL: the launcher's job id (with
                                  RANK, when the launcher names the job) */
};

/* Chunk kinds. */
enum omplens_tf_chunk_kind {
  OMPLENS_TF_CHUNK_EVENTS = 1, /* records of one host thread */
  OMPLENS_TF_CHUNK_END = 2,    /* written once at a clean finish */
};

/* Every chunk starts with this header; the payload follows. `used` is the
 * number of payload bytes holding whole records: the writer stores it after
 * each record, so a trace cut short by a crash is readable up to there. */
typedef struct omplens_tf_chunk {
  uint32_t magic;
  uint16_t kind;
  uint16_t flags;
  uint32_t thread;      /* trace-local thread index */
  uint32_t capacity;    /* payload bytes */
  uint32_t used;        /* payload bytes written (atomic for the writer) */
  uint32_t seq;         /* chunk number within the thread */
  uint64_t base_ns;     /* time deltas of the first record start here */
  uint64_t os_tid;
  uint64_t reserved[3];
} omplens_tf_chunk;     /* 64 bytes */

/* END chunk payload. */
typedef struct omplens_tf_end {
  uint64_t end_ns;      /* monotonic, relative to the trace start */
  uint64_t dropped;     /* records lost (no buffer, too many threads) */
  int32_t exit_status;  /* -1 when unknown */
  uint32_t num_threads;
} omplens_tf_end;

/* Record tags: low 4 bits are the record type, high 4 bits its flags. */
enum omplens_tf_rec {
  OMPLENS_TF_REC_REGION_BEGIN = 1, /* t, kind|nowait<<4, dev, codeptr */
  OMPLENS_TF_REC_REGION_END = 2,   /* t */
  OMPLENS_TF_REC_OP = 3,           /* t, dur, optype, dev, peer, host, dev_addr, bytes [hash] [region] [codeptr] */
  OMPLENS_TF_REC_KERNEL = 4,       /* t, dur, teams [region] */
  OMPLENS_TF_REC_DEVICE = 5,       /* t, device number [type ptr]: see
                                      OMPLENS_TF_DEVICE_TYPED           */
  OMPLENS_TF_REC_STRING = 6,       /* ptr, len, bytes: text at a program address */
  OMPLENS_TF_REC_CALL = 7,         /* loc ptr, caller delta, nargs: next region's entry call */
  OMPLENS_TF_REC_ARG = 8,          /* base, begin, size, map type, name ptr */
  OMPLENS_TF_REC_CALL_PATH = 9,    /* id [n, n code deltas]: the next region's
                                      (or own-codeptr op's) call path     */
  OMPLENS_TF_REC_TOOL = 10,        /* t, command: the program's
                                      omp_control_tool start (1), pause (2)
                                      or end (4)                          */
  OMPLENS_TF_REC_WAIT = 11,        /* t, dur, kind, codeptr: the thread
                                      waited at a taskwait, taskgroup or
                                      barrier while target tasks it had
                                      created (nowait) were outstanding  */
};
/* Flag of CALL_PATH records: the path's frames follow (its definition). */
#define OMPLENS_TF_PATH_FRAMES 0x10
/* Most frames a call path holds: the directive's own call site (before
 * copies of one directive share a codeptr), then up to 8 callers. */
#define OMPLENS_TF_MAX_PATH 9u

/* A nonzero hash of a call path's frames: the writer's per-thread cache
 * of defined paths and the reader's table of distinct ones. */
static inline uint64_t omplens_tf__path_key(const uint64_t *frames, uint32_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (uint32_t i = 0; i < n; i++) {
    h ^= frames[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h ? h : 1;
}
/* Longest string a STRING record carries; longer ones are cut. */
#define OMPLENS_TF_MAX_STRING 400u
/* Flag of DEVICE records: the address of the runtime's device type string
 * follows (its text is in a STRING record). */
#define OMPLENS_TF_DEVICE_TYPED 0x10
/* Flags of OP and KERNEL records. */
#define OMPLENS_TF_F_HASH 0x10       /* an 8-byte hash follows */
#define OMPLENS_TF_F_REGION 0x20     /* explicit region id (else current region / none) */
#define OMPLENS_TF_F_CODEPTR 0x40    /* op's own codeptr follows (delta) */
#define OMPLENS_TF_F_NOREGION 0x80   /* outside any construct */
/* Op flags carried in the optype byte's high bits. */
#define OMPLENS_TF_OP_ASYNC 0x80
#define OMPLENS_TF_OP_EARLY 0x40

/* Delta state; reset at the start of every chunk so chunks decode alone. */
typedef struct omplens_tf_state {
  uint64_t t;
  uint64_t host;
  uint64_t dev;
  uint64_t code;
} omplens_tf_state;

static inline uint64_t omplens_tf__zig(int64_t v) {
  return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t omplens_tf__unzig(uint64_t v) {
  return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Writes v as a LEB128 varint at p (at most 10 bytes); returns bytes used. */
static inline size_t omplens_tf__put_uv(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}
static inline size_t omplens_tf__put_sv(uint8_t *p, int64_t v) {
  return omplens_tf__put_uv(p, omplens_tf__zig(v));
}

/* Reads a varint from [*p, end); returns 0, or -1 when truncated/overlong. */
static inline int omplens_tf__get_uv(const uint8_t **p, const uint8_t *end,
                                     uint64_t *out) {
  uint64_t v = 0;
  const uint8_t *q = *p;
  for (unsigned shift = 0; shift < 70; shift += 7) {
    if (q >= end)
      return -1;
    uint8_t b = *q++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *p = q;
      *out = v;
      return 0;
    }
  }
  return -1;
}
static inline int omplens_tf__get_sv(const uint8_t **p, const uint8_t *end,
                                     int64_t *out) {
  uint64_t u;
  if (omplens_tf__get_uv(p, end, &u))
    return -1;
  *out = omplens_tf__unzig(u);
  return 0;
}

/* Largest record the writer emits; a chunk rotates when less is left. */
#define OMPLENS_TF_MAX_RECORD 512u

#endif
