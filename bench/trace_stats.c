/* trace_stats: how many bytes a trace spends per event.
 *
 *   trace_stats TRACE...
 *
 * Prints one tab-separated line per trace (after a '#' header line):
 *   events      events decoded by the reader (omplens_trace_events)
 *   regions     construct instances decoded by the reader
 *   chunks      chunks with a valid header (event chunks and the end chunk)
 *   header      header bytes in use: magic, version and TLVs up to the end item
 *   used        sum of the chunks' `used` payload bytes
 *   payload     header + used + 64 per chunk header
 *   bytes/ev    payload / events (the trace-size figure of docs/performance.md)
 *   records/ev  (used + 64 per chunk) / events: the same without the header,
 *               which is a fixed cost (module list, command line)
 *   file        file size (sparse chunk tails included)
 *   disk        bytes allocated on disk (st_blocks * 512)
 * The chunk walk follows docs/trace-format.md: header_bytes, then a chunk at
 * every 4096-aligned offset that holds a chunk magic. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omplens_trace.h"
#include "trace_format.h"

enum exit_code { EXIT_OK = 0, EXIT_USAGE = 64, EXIT_DATAERR = 65 };

typedef struct trace_bytes {
  uint64_t header;     /* header bytes in use */
  uint64_t chunks;
  uint64_t used;       /* payload bytes of all chunks */
  uint64_t file, disk;
} trace_bytes;

static int read_at(int fd, uint64_t off, void *buf, size_t n) {
  return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* Length of the header's meaningful part: up to and including the TLV end
 * item. Returns 0 when the header is unreadable. */
static uint64_t header_in_use(int fd, uint32_t header_bytes) {
  uint8_t *h = malloc(header_bytes);
  uint64_t in_use = 0;
  if (!h || read_at(fd, 0, h, header_bytes)) {
    free(h);
    return 0;
  }
  for (uint64_t off = 16; off + 8 <= header_bytes;) {
    uint16_t type;
    uint32_t len;
    memcpy(&type, h + off, 2);
    memcpy(&len, h + off + 4, 4);
    off += 8;
    if (type == OMPLENS_TF_TLV_END) {
      in_use = off;
      break;
    }
    off += len;
  }
  free(h);
  return in_use;
}

static uint64_t chunk_span(uint32_t capacity) {
  uint64_t total = sizeof(omplens_tf_chunk) + (uint64_t)capacity;
  return (total + OMPLENS_TF_ALIGN - 1) / OMPLENS_TF_ALIGN * OMPLENS_TF_ALIGN;
}

/* Walks the chunk headers. Returns 0, or -1 when the file is not a trace. */
static int measure(const char *path, trace_bytes *b) {
  memset(b, 0, sizeof *b);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  uint8_t fixed[16];
  if (fd < 0 || fstat(fd, &st) || read_at(fd, 0, fixed, sizeof fixed) ||
      memcmp(fixed, OMPLENS_TF_MAGIC, 8)) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  uint32_t header_bytes;
  memcpy(&header_bytes, fixed + 12, 4);
  b->header = header_in_use(fd, header_bytes);
  b->file = (uint64_t)st.st_size;
  b->disk = (uint64_t)st.st_blocks * 512u;
  for (uint64_t off = header_bytes; off + sizeof(omplens_tf_chunk) <= b->file;) {
    omplens_tf_chunk c;
    if (read_at(fd, off, &c, sizeof c))
      break;
    if (c.magic != OMPLENS_TF_CHUNK_MAGIC || c.capacity > OMPLENS_TF_MAX_CHUNK_BYTES) {
      off += OMPLENS_TF_ALIGN;
      continue;
    }
    b->chunks++;
    b->used += c.used <= c.capacity ? c.used : c.capacity;
    off += c.kind == OMPLENS_TF_CHUNK_END ? OMPLENS_TF_ALIGN : chunk_span(c.capacity);
  }
  close(fd);
  return 0;
}

static double per_event(uint64_t bytes, size_t events) {
  return events ? (double)bytes / (double)events : 0.0;
}

static int print_trace(const char *path) {
  trace_bytes b;
  if (measure(path, &b)) {
    fprintf(stderr, "trace_stats: %s: not a readable omplens trace\n", path);
    return EXIT_DATAERR;
  }
  omplens_trace *t;
  int rc = omplens_trace_open(path, &t);
  if (rc) {
    fprintf(stderr, "trace_stats: %s: %s\n", path, omplens_trace_strerror(rc));
    return EXIT_DATAERR;
  }
  size_t events, regions;
  omplens_trace_events(t, &events);
  omplens_trace_regions(t, &regions);
  uint64_t records = b.used + b.chunks * sizeof(omplens_tf_chunk);
  uint64_t payload = b.header + records;
  printf("%zu\t%zu\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.1f\t%.1f\t%" PRIu64
         "\t%" PRIu64 "\t%s\n",
         events, regions, b.chunks, b.header, b.used, payload, per_event(payload, events),
         per_event(records, events), b.file, b.disk, path);
  omplens_trace_close(t);
  return EXIT_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: trace_stats TRACE...\n");
    return EXIT_USAGE;
  }
  printf("#events\tregions\tchunks\theader\tused\tpayload\tbytes/ev\trecords/ev\tfile\tdisk\t"
         "trace\n");
  int rc = EXIT_OK;
  for (int i = 1; i < argc; i++) {
    int r = print_trace(argv[i]);
    if (r)
      rc = r;
  }
  return rc;
}
