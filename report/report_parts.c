/* Parts: one process of a report reduced to the bytes its outputs take
 * from it, and the outputs put together from parts (omplens_parts.h).
 *
 * A part (docs/report.md, "Parts"; all integers little-endian):
 *
 *   magic "OMPLPRT\1", u32 index, u32 0,
 *   sections: u32 type, u32 0, u64 length, payload; the last is END (0).
 *
 * Strings in payloads are a u32 length and the bytes, no NUL among them;
 * length 0xffffffff is a missing string. The reader checks every length
 * against the bytes left and never trusts a count: a part comes from a
 * file or from another process. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "json_stream.h"
#include "omplens_bytes.h"
#include "omplens_parts.h"

#define MAGIC "OMPLPRT\1"
#define MAGIC_LEN 8
#define NO_STRING 0xffffffffu
/* Pieces read into memory are smaller than this; the large ones (JSON,
 * HTML, TIMELINE) stay in the source. */
#define MAX_SMALL (1ull << 30)

enum section {
  S_END = 0,
  S_INFO = 1,     /* str trace, str exe, str cmdline, i32 pid, u32 complete, u64 start ns, nstr warning */
  S_ERROR = 2,    /* i32 exit code, str trace, nstr message */
  S_RANKS = 3,    /* the merged view's record (put_record) */
  S_JSON = 4,     /* findings.json's process object, at depth 2 */
  S_SUMMARY = 5,  /* the summary's process text */
  S_DOC = 6,      /* the pages' process object, compact JSON */
  S_HTML = 7,     /* report.html's process sections */
  S_TIMELINE = 8, /* timeline.json's events of the trace */
  S_COUNTS = 9,   /* u64 overflows, u64 unmatched, u32 events written */
  S_PATCH = 10,   /* u32 has fixer, i32 base rc, u32 under, nstr base; per relative 0, 1:
                     i32 rc, nstr patch, nstr skipped */
  S_COUNT
};

/* ---- Writing ------------------------------------------------------------ */

static void put_i32(omplens_bytes *b, int32_t v) { omplens_bytes_u32(b, (uint32_t)v); }

/* A string (NULL: missing); one longer than 2^32 - 2 bytes is cut. */
static void put_str(omplens_bytes *b, const char *s) {
  if (!s) {
    omplens_bytes_u32(b, NO_STRING);
    return;
  }
  size_t n = strlen(s);
  if (n >= NO_STRING)
    n = NO_STRING - 1;
  omplens_bytes_u32(b, (uint32_t)n);
  omplens_bytes_put(b, s, n);
}

static void put_record(omplens_bytes *b, const omplens_rank_record *r) {
  put_i32(b, r->rank);
  put_i32(b, r->pid);
  put_i32(b, r->job_size);
  put_str(b, r->job);
  omplens_bytes_u64(b, r->device_ns);
  omplens_bytes_u64(b, r->transfer_bytes);
  omplens_bytes_u64(b, r->findings);
  omplens_bytes_u32(b, (uint32_t)r->num_devices_used);
  for (size_t i = 0; i < r->num_devices_used; i++)
    put_i32(b, r->devices_used[i]);
  omplens_bytes_u32(b, (uint32_t)r->num_directives);
  for (size_t i = 0; i < r->num_directives; i++) {
    const omplens_rank_directive *d = &r->directives[i];
    put_str(b, d->location);
    omplens_bytes_u64(b, d->total_ns);
    omplens_bytes_u64(b, d->bytes);
    omplens_bytes_u64(b, d->executions);
  }
  omplens_bytes_u32(b, (uint32_t)r->num_findings);
  for (size_t i = 0; i < r->num_findings; i++) {
    const omplens_rank_finding *f = &r->finding_list[i];
    put_str(b, f->category);
    put_str(b, f->location);
    put_str(b, f->item);
    omplens_bytes_u64(b, f->bytes);
    omplens_bytes_u64(b, f->count);
    omplens_bytes_u64(b, f->total_bytes);
    omplens_bytes_u64(b, f->savings_ns);
  }
}

static void section_head(omplens_bytes *b, uint32_t type, uint64_t length) {
  omplens_bytes_u32(b, type);
  omplens_bytes_u32(b, 0);
  omplens_bytes_u64(b, length);
}

/* A section whose payload is in memory. */
static int write_section(FILE *out, uint32_t type, const omplens_bytes *payload) {
  if (payload->failed)
    return OMPLENS_REPORT_ENOMEM;
  omplens_bytes h = {0};
  section_head(&h, type, payload->len);
  int rc = h.failed ? OMPLENS_REPORT_ENOMEM
           : fwrite(h.d, 1, h.len, out) != h.len ||
                   (payload->len && fwrite(payload->d, 1, payload->len, out) != payload->len)
               ? OMPLENS_REPORT_EIO
               : 0;
  free(h.d);
  return rc;
}

/* A section written straight into out: its head now, its length once the
 * payload is written (section_end). */
static int section_begin(FILE *out, uint32_t type, off_t *at) {
  omplens_bytes h = {0};
  section_head(&h, type, 0);
  *at = ftello(out);
  int rc = h.failed ? OMPLENS_REPORT_ENOMEM
           : *at < 0 || fwrite(h.d, 1, h.len, out) != h.len ? OMPLENS_REPORT_EIO
                                                             : 0;
  free(h.d);
  return rc;
}

static int section_end(FILE *out, off_t at, int rc) {
  off_t end = ftello(out);
  if (rc)
    return rc;
  if (end < at + 16)
    return OMPLENS_REPORT_EIO;
  omplens_bytes len = {0};
  omplens_bytes_u64(&len, (uint64_t)(end - at - 16));
  if (len.failed)
    return OMPLENS_REPORT_ENOMEM;
  rc = fseeko(out, at + 8, SEEK_SET) || fwrite(len.d, 1, 8, out) != 8 || fseeko(out, end, SEEK_SET)
           ? OMPLENS_REPORT_EIO
           : 0;
  free(len.d);
  return rc;
}

static int write_head(FILE *out, size_t index) {
  omplens_bytes b = {0};
  omplens_bytes_put(&b, MAGIC, MAGIC_LEN);
  omplens_bytes_u32(&b, (uint32_t)index);
  omplens_bytes_u32(&b, 0);
  int rc = b.failed ? OMPLENS_REPORT_ENOMEM : fwrite(b.d, 1, b.len, out) != b.len ? OMPLENS_REPORT_EIO : 0;
  free(b.d);
  return rc;
}

static int write_end(FILE *out) {
  omplens_bytes none = {0};
  int rc = write_section(out, S_END, &none);
  return rc ? rc : fflush(out) ? OMPLENS_REPORT_EIO : 0;
}

static int write_json_piece(const omplens_report_input *in, size_t proc, const json_t *doc,
                            FILE *out) {
  off_t at;
  int rc = section_begin(out, S_JSON, &at);
  if (rc)
    return rc;
  omplens_jout *j = malloc(sizeof *j);
  if (!j)
    return OMPLENS_REPORT_ENOMEM;
  omplens_jout_init(j, out);
  rc = omplens_report__stream_process(in, proc, doc, j, 2);
  if (omplens_jout_finish(j) && !rc)
    rc = OMPLENS_REPORT_EIO;
  free(j);
  return section_end(out, at, rc);
}

static int write_patch_piece(omplens_fixer *fx, FILE *out) {
  omplens_bytes b = {0};
  omplens_bytes_u32(&b, fx != NULL);
  const char *dir = NULL;
  int under = 0, rc = fx ? omplens_fix_base_dir(fx, &dir, &under) : -1;
  put_i32(&b, rc);
  omplens_bytes_u32(&b, (uint32_t)under);
  put_str(&b, rc ? NULL : dir);
  for (int relative = 0; relative < 2; relative++) {
    const char *patch = NULL, *skipped = NULL;
    int prc = fx ? omplens_fix_patch(fx, relative, &patch, &skipped) : -1;
    put_i32(&b, prc);
    put_str(&b, prc ? NULL : patch);
    put_str(&b, prc ? NULL : skipped);
  }
  rc = write_section(out, S_PATCH, &b);
  free(b.d);
  return rc;
}

int omplens_part_write(const omplens_report_input *in, size_t proc, const omplens_part_options *o,
                       FILE *out) {
  if (!in || proc >= in->num_procs || !o || !out)
    return OMPLENS_REPORT_EINVAL;
  const omplens_report_process *p = &in->procs[proc];
  const omplens_trace_info *info = omplens_trace_get_info(p->trace);
  if (!info || !omplens_analysis_total(p->analysis))
    return OMPLENS_REPORT_EINVAL;
  int rc = write_head(out, o->index);
  omplens_bytes b = {0};
  put_str(&b, omplens_trace_path(p->trace));
  put_str(&b, info->exe);
  put_str(&b, info->cmdline);
  put_i32(&b, info->pid);
  omplens_bytes_u32(&b, (uint32_t)!!info->complete);
  omplens_bytes_u64(&b, info->start_realtime_ns);
  put_str(&b, o->warning);
  rc = rc ? rc : write_section(out, S_INFO, &b);
  free(b.d);
  /* What asks the annotator and fixer comes first, in the order the whole
   * report asks them (a note is told on the first location asked). */
  omplens_report_figures scratch;
  omplens_report__figures(in, proc, &scratch);
  json_t *doc = NULL;
  if (!rc && (o->pieces & (OMPLENS_PART_DOC | OMPLENS_PART_HTML | OMPLENS_PART_TIMELINE)) &&
      !(doc = omplens_report__page_process(in, proc, OMPLENS_RENDER_MAX_FINDINGS,
                                           OMPLENS_RENDER_MAX_INSTANCES)))
    rc = OMPLENS_REPORT_ENOMEM;
  if (!rc && (o->pieces & OMPLENS_PART_JSON))
    rc = write_json_piece(in, proc, doc, out);
  off_t at;
  if (!rc && (o->pieces & OMPLENS_PART_SUMMARY) && !(rc = section_begin(out, S_SUMMARY, &at)))
    rc = section_end(out, at, omplens_report__print_process_text(in, proc, out, o->top));
  if (!rc) {
    omplens_rank_record r;
    rc = omplens_report__rank_record(in, proc, &r);
    r.process = o->index;
    b = (omplens_bytes){0};
    if (!rc && r.rank >= 0) {
      put_record(&b, &r);
      rc = write_section(out, S_RANKS, &b);
    }
    free(b.d);
    omplens_report__rank_record_free(&r);
  }
  if (!rc && (o->pieces & OMPLENS_PART_PATCH))
    rc = write_patch_piece(p->fixer, out);
  /* Paths as the whole report shows them: from the sources' root, which
   * the processes share when they are one program's. A copy: the fixer
   * may go once attributed. */
  const char *root = NULL;
  if (p->fixer && omplens_fix_base_dir(p->fixer, &root, NULL))
    root = NULL;
  char *base = root ? strdup(root) : NULL;
  omplens_render_options ro = {.base_dir = base};
  if (o->attributed)
    o->attributed(o->ctx);
  if (!rc && (o->pieces & OMPLENS_PART_HTML) && !(rc = section_begin(out, S_HTML, &at)))
    rc = section_end(out, at,
                     omplens_render__html_process(doc, o->index, o->num_procs, p->trace,
                                                  p->analysis, &ro, out));
  if (!rc && (o->pieces & OMPLENS_PART_TIMELINE) && !(rc = section_begin(out, S_TIMELINE, &at))) {
    omplens_render__timeline_counts c = {0};
    rc = section_end(out, at,
                     omplens_render__timeline_trace(doc, p->trace, o->index, o->origin_ns, out, &c));
    b = (omplens_bytes){0};
    omplens_bytes_u64(&b, c.overflows);
    omplens_bytes_u64(&b, c.unmatched);
    omplens_bytes_u32(&b, (uint32_t)c.events);
    rc = rc ? rc : write_section(out, S_COUNTS, &b);
    free(b.d);
  }
  if (!rc && (o->pieces & OMPLENS_PART_DOC) && !(rc = section_begin(out, S_DOC, &at))) {
    /* Made again from the rest when read back. */
    json_object_del(doc, OMPLENS_REPORT__PAGE_DIRECTIVES);
    rc = section_end(out, at,
                     json_dumpf(doc, out, JSON_COMPACT | JSON_ENSURE_ASCII) ? OMPLENS_REPORT_EIO : 0);
  }
  json_decref(doc);
  free(base);
  return rc ? rc : write_end(out);
}

int omplens_part_write_error(size_t index, const char *trace, int exit_code, const char *message,
                             FILE *out) {
  int rc = write_head(out, index);
  omplens_bytes b = {0};
  put_i32(&b, exit_code ? exit_code : 1);
  put_str(&b, trace ? trace : "");
  put_str(&b, message);
  rc = rc ? rc : write_section(out, S_ERROR, &b);
  free(b.d);
  return rc ? rc : write_end(out);
}

/* ---- Reading ------------------------------------------------------------ */

static int read_at(const omplens_part_source *src, uint64_t off, void *buf, uint64_t n) {
  if (off > src->size || n > src->size - off)
    return -1;
  if (src->mem) {
    memcpy(buf, src->mem + off, n);
    return 0;
  }
  for (uint64_t done = 0; done < n;) {
    ssize_t r = pread(src->fd, (uint8_t *)buf + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    done += (uint64_t)r;
  }
  return 0;
}

/* A cursor over a payload in memory; failed sticks. */
typedef struct cursor {
  const uint8_t *p, *end;
  int failed;
} cursor;

static uint32_t get_u32(cursor *c) {
  if (c->failed || c->end - c->p < 4) {
    c->failed = 1;
    return 0;
  }
  uint32_t v = (uint32_t)omplens_le_get(c->p, 4);
  c->p += 4;
  return v;
}

static uint64_t get_u64(cursor *c) {
  uint64_t lo = get_u32(c);
  return lo | (uint64_t)get_u32(c) << 32;
}

static int32_t get_i32(cursor *c) { return (int32_t)get_u32(c); }

/* A new string, or NULL: missing (*missing set) or failed. */
static char *get_str(cursor *c, int *missing) {
  uint32_t n = get_u32(c);
  *missing = 0;
  if (c->failed)
    return NULL;
  if (n == NO_STRING) {
    *missing = 1;
    return NULL;
  }
  if ((uint64_t)(c->end - c->p) < n || memchr(c->p, 0, n)) {
    c->failed = 1;
    return NULL;
  }
  char *s = malloc((size_t)n + 1);
  if (!s) {
    c->failed = 1;
    return NULL;
  }
  memcpy(s, c->p, n);
  s[n] = 0;
  c->p += n;
  return s;
}

/* A string that must be there. */
static char *get_text(cursor *c) {
  int missing;
  char *s = get_str(c, &missing);
  if (missing)
    c->failed = 1;
  return s;
}

/* A count of items of at least `size` bytes each that the bytes left can
 * hold; else failed. */
static size_t get_count(cursor *c, size_t size) {
  uint32_t n = get_u32(c);
  if (!c->failed && (uint64_t)n * size > (uint64_t)(c->end - c->p))
    c->failed = 1;
  return c->failed ? 0 : n;
}

static void get_record(cursor *c, omplens_rank_record *r, size_t index) {
  int missing;
  r->process = index;
  r->rank = get_i32(c);
  r->pid = get_i32(c);
  r->job_size = get_i32(c);
  r->job = get_str(c, &missing);
  r->device_ns = get_u64(c);
  r->transfer_bytes = get_u64(c);
  r->findings = get_u64(c);
  if (r->rank < 0 || r->job_size < 0)
    c->failed = 1;
  size_t n = get_count(c, 4);
  r->devices_used = calloc(n ? n : 1, sizeof *r->devices_used);
  if (!r->devices_used)
    c->failed = 1;
  for (size_t i = 0; i < n && !c->failed; i++)
    r->devices_used[r->num_devices_used++] = get_i32(c);
  n = get_count(c, 4 + 24);
  r->directives = calloc(n ? n : 1, sizeof *r->directives);
  if (!r->directives)
    c->failed = 1;
  for (size_t i = 0; i < n && !c->failed; i++) {
    omplens_rank_directive *d = &r->directives[r->num_directives++];
    d->location = get_text(c);
    d->total_ns = get_u64(c);
    d->bytes = get_u64(c);
    d->executions = get_u64(c);
  }
  n = get_count(c, 3 * 4 + 32);
  r->finding_list = calloc(n ? n : 1, sizeof *r->finding_list);
  if (!r->finding_list)
    c->failed = 1;
  for (size_t i = 0; i < n && !c->failed; i++) {
    omplens_rank_finding *f = &r->finding_list[r->num_findings++];
    f->category = get_text(c);
    f->location = get_text(c);
    f->item = get_str(c, &missing);
    f->bytes = get_u64(c);
    f->count = get_u64(c);
    f->total_bytes = get_u64(c);
    f->savings_ns = get_u64(c);
  }
}

static void get_patch(cursor *c, omplens_part *p) {
  int missing;
  p->has_fixer = get_u32(c) != 0;
  p->base_rc = get_i32(c);
  p->base_under = get_u32(c) != 0;
  p->base_dir = get_str(c, &missing);
  if (!p->base_rc && missing)
    c->failed = 1;
  for (int r = 0; r < 2; r++) {
    p->patch_rc[r] = get_i32(c);
    p->patch[r] = get_str(c, &missing);
    p->skipped[r] = get_str(c, &missing);
  }
}

static int parse_small(omplens_part *p, uint32_t type, const uint8_t *d, uint64_t n) {
  cursor c = {d, d + n, 0};
  int missing;
  if ((type == S_INFO || type == S_ERROR) && p->trace)
    return -1; /* both: not a part */
  switch (type) {
  case S_INFO:
    p->trace = get_text(&c);
    p->exe = get_text(&c);
    p->cmdline = get_text(&c);
    p->pid = get_i32(&c);
    p->complete = get_u32(&c) != 0;
    p->start_ns = get_u64(&c);
    p->warning = get_str(&c, &missing);
    break;
  case S_ERROR:
    p->error = get_i32(&c);
    p->trace = get_text(&c);
    p->message = get_str(&c, &missing);
    if (p->error <= 0)
      c.failed = 1;
    break;
  case S_RANKS:
    get_record(&c, &p->record, p->index);
    break;
  case S_SUMMARY:
    p->summary = malloc(n + 1);
    if (!p->summary)
      return -1;
    memcpy(p->summary, d, n);
    p->summary[n] = 0;
    p->summary_len = n;
    return 0;
  case S_DOC:
    p->doc = json_loadb((const char *)d, n, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(p->doc))
      return -1;
    return 0;
  case S_COUNTS:
    p->counts.overflows = get_u64(&c);
    p->counts.unmatched = get_u64(&c);
    p->counts.events = get_u32(&c) != 0;
    break;
  case S_PATCH:
    get_patch(&c, p);
    break;
  }
  return c.failed || c.p != c.end ? -1 : 0;
}

/* The piece bit of a section, 0 for the others. */
static unsigned piece_of(uint32_t type) {
  switch (type) {
  case S_JSON: return OMPLENS_PART_JSON;
  case S_SUMMARY: return OMPLENS_PART_SUMMARY;
  case S_DOC: return OMPLENS_PART_DOC;
  case S_HTML: return OMPLENS_PART_HTML;
  case S_TIMELINE: return OMPLENS_PART_TIMELINE;
  case S_PATCH: return OMPLENS_PART_PATCH;
  default: return 0;
  }
}

static int read_sections(const omplens_part_source *src, uint64_t offset, omplens_part *p,
                         uint64_t *length) {
  uint64_t at = offset + 16, left = src->size - offset - 16;
  unsigned seen = 0; /* bit per section type */
  for (;;) {
    uint8_t h[16];
    if (left < 16 || read_at(src, at, h, 16))
      return -1;
    cursor c = {h, h + 16, 0};
    uint32_t type = get_u32(&c), zero = get_u32(&c);
    uint64_t n = get_u64(&c);
    at += 16;
    left -= 16;
    if (zero || n > left)
      return -1;
    if (type == S_END) {
      if (n)
        return -1;
      *length = at - offset;
      break;
    }
    if (type < S_COUNT && (seen & (1u << type)))
      return -1; /* twice */
    if (type < S_COUNT)
      seen |= 1u << type;
    p->pieces |= piece_of(type);
    if (type == S_JSON || type == S_HTML || type == S_TIMELINE) {
      omplens_part_span *s = type == S_JSON ? &p->json : type == S_HTML ? &p->html : &p->timeline;
      *s = (omplens_part_span){at, n};
    } else if (type < S_COUNT) {
      if (n > MAX_SMALL)
        return -1;
      uint8_t *d = malloc(n ? n : 1);
      int rc = !d || read_at(src, at, d, n) || parse_small(p, type, d, n);
      free(d);
      if (rc)
        return -1;
    } /* unknown sections are skipped: a later version's additions */
    at += n;
    left -= n;
  }
  /* A part is a process's (INFO) or an error's (ERROR), not both; the
   * timeline's counts come with its events. */
  int info = !!(seen & 1u << S_INFO), error = !!(seen & 1u << S_ERROR);
  if (info == error || !!(seen & 1u << S_TIMELINE) != !!(seen & 1u << S_COUNTS))
    return -1;
  return 0;
}

int omplens_part_read(const omplens_part_source *src, uint64_t offset, omplens_part *p,
                      uint64_t *length) {
  memset(p, 0, sizeof *p);
  p->record.rank = -1;
  p->src = src;
  uint8_t h[16];
  if (!src || offset > src->size || src->size - offset < 16 || read_at(src, offset, h, 16) ||
      memcmp(h, MAGIC, MAGIC_LEN))
    return OMPLENS_REPORT_EINVAL;
  cursor c = {h + MAGIC_LEN, h + 16, 0};
  p->index = get_u32(&c);
  if (get_u32(&c) || read_sections(src, offset, p, length)) {
    omplens_part_free(p);
    return OMPLENS_REPORT_EINVAL;
  }
  return 0;
}

void omplens_part_free(omplens_part *p) {
  if (!p)
    return;
  free(p->message);
  free(p->trace);
  free(p->exe);
  free(p->cmdline);
  free(p->warning);
  omplens_report__rank_record_free(&p->record);
  free(p->summary);
  json_decref(p->doc);
  free(p->base_dir);
  for (int r = 0; r < 2; r++) {
    free(p->patch[r]);
    free(p->skipped[r]);
  }
  memset(p, 0, sizeof *p);
  p->record.rank = -1;
}

/* ---- The outputs from parts -------------------------------------------- */

#define COPY_BLOCK (1u << 20)

/* Copies a span of a part's source into out: in the kernel from file to
 * file (copy_file_range), else through a buffer. */
static int copy_span(const omplens_part *p, const omplens_part_span *s, FILE *out) {
  int fd = p->src->mem ? -1 : fileno(out);
  if (fd >= 0 && s->length && fflush(out))
    return OMPLENS_REPORT_EIO;
  uint64_t copied = 0;
  while (fd >= 0 && copied < s->length) {
    loff_t from = (loff_t)(s->offset + copied);
    size_t want = s->length - copied < (1u << 30) ? (size_t)(s->length - copied) : (1u << 30);
    ssize_t n = copy_file_range(p->src->fd, &from, fd, NULL, want, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
        return OMPLENS_REPORT_EIO;
      break; /* the rest through a buffer */
    }
    copied += (uint64_t)n;
  }
  if (copied == s->length)
    return 0;
  omplens_part_span rest = {s->offset + copied, s->length - copied};
  s = &rest;
  uint8_t *buf = malloc(COPY_BLOCK);
  if (!buf)
    return OMPLENS_REPORT_ENOMEM;
  int rc = 0;
  for (uint64_t done = 0; done < s->length && !rc;) {
    uint64_t n = s->length - done < COPY_BLOCK ? s->length - done : COPY_BLOCK;
    if (read_at(p->src, s->offset + done, buf, n))
      rc = OMPLENS_REPORT_EIO;
    else if (fwrite(buf, 1, n, out) != n)
      rc = OMPLENS_REPORT_EIO;
    done += n;
  }
  free(buf);
  return rc;
}

static int all_have(const omplens_parts *ps, unsigned piece) {
  for (size_t i = 0; i < ps->n; i++)
    if (ps->parts[i].error || !(ps->parts[i].pieces & piece) || ps->parts[i].index != i)
      return 0;
  return 1;
}

int omplens_parts_fold(omplens_parts *ps, size_t i) {
  if (i >= ps->n || ps->parts[i].folded)
    return OMPLENS_REPORT_EINVAL;
  if (!ps->merge && !(ps->merge = omplens_report__merge_new(ps->n)))
    return OMPLENS_REPORT_ENOMEM;
  omplens_rank_record *r = &ps->parts[i].record;
  if (omplens_report__merge_add(ps->merge, r, i))
    return OMPLENS_REPORT_ENOMEM;
  ps->parts[i].folded = 1;
  for (size_t k = 0; k < r->num_directives; k++)
    free(r->directives[k].location);
  for (size_t k = 0; k < r->num_findings; k++) {
    free(r->finding_list[k].category);
    free(r->finding_list[k].location);
    free(r->finding_list[k].item);
  }
  free(r->directives);
  free(r->finding_list);
  r->directives = NULL;
  r->finding_list = NULL;
  r->num_directives = r->num_findings = 0;
  return 0;
}

void omplens_parts_release(omplens_parts *ps) {
  omplens_report__merge_free(ps->merge);
  json_decref(ps->ranks);
  json_decref(ps->doc);
  ps->merge = NULL;
  ps->ranks = ps->doc = NULL;
}

int omplens_parts_prepare(omplens_parts *ps) {
  for (size_t i = 0; i < ps->n; i++)
    if (!ps->parts[i].folded && omplens_parts_fold(ps, i))
      return OMPLENS_REPORT_ENOMEM;
  if (ps->merge) { /* else every part was in the view made before */
    json_decref(ps->ranks);
    ps->ranks = omplens_report__merge_finish(ps->merge);
    ps->merge = NULL;
  }
  json_decref(ps->doc);
  ps->doc = NULL;
  if (!all_have(ps, OMPLENS_PART_DOC))
    return 0;
  json_t *root = omplens_report__root(ps->program_exit_status), *procs = json_array();
  if (!root || !procs) {
    json_decref(root);
    json_decref(procs);
    return OMPLENS_REPORT_ENOMEM;
  }
  for (size_t i = 0; i < ps->n; i++) {
    json_t *proc = ps->parts[i].doc;
    json_object_set_new(proc, OMPLENS_REPORT__PAGE_DIRECTIVES,
                        omplens_report__page_directives(proc));
    json_array_append(procs, proc);
  }
  json_object_set_new(root, "processes", procs);
  if (ps->ranks)
    json_object_set(root, "ranks", ps->ranks);
  ps->doc = root;
  return 0;
}

size_t omplens_parts_jobs(const omplens_parts *ps) {
  omplens_rank_record *rec = calloc(ps->n ? ps->n : 1, sizeof *rec);
  if (!rec)
    return 0;
  for (size_t i = 0; i < ps->n; i++)
    rec[i] = ps->parts[i].record;
  size_t n = omplens_report__ranks_jobs(rec, ps->n);
  free(rec);
  return n;
}

static int copy_json(void *ctx, omplens_jout *j, size_t proc, int depth) {
  const omplens_parts *ps = ctx;
  const omplens_part *p = &ps->parts[proc];
  if (omplens_jout_finish(j)) /* what it holds first, then the copy */
    return OMPLENS_REPORT_EIO;
  return copy_span(p, &p->json, j->f);
}

static json_t *parts_ranks(void *ctx) {
  const omplens_parts *ps = ctx;
  return ps->ranks ? json_incref(ps->ranks) : NULL;
}

int omplens_parts_write_json(const omplens_parts *ps, FILE *out) {
  if (!all_have(ps, OMPLENS_PART_JSON))
    return OMPLENS_REPORT_EINVAL;
  return omplens_report__stream_json_frame(ps->program_exit_status, ps->n, copy_json, parts_ranks,
                                           (void *)ps, out);
}

int omplens_parts_write_summary(const omplens_parts *ps, size_t top, FILE *out) {
  if (!all_have(ps, OMPLENS_PART_SUMMARY))
    return OMPLENS_REPORT_EINVAL;
  for (size_t i = 0; i < ps->n; i++) {
    if (i)
      fputc('\n', out);
    fwrite(ps->parts[i].summary, 1, ps->parts[i].summary_len, out);
  }
  omplens_report__print_ranks_text(out, ps->ranks, top);
  return ferror(out) ? OMPLENS_REPORT_EIO : 0;
}

int omplens_parts_write_html(const omplens_parts *ps, FILE *out) {
  if (!ps->doc || !all_have(ps, OMPLENS_PART_HTML))
    return OMPLENS_REPORT_EINVAL;
  int rc = omplens_render__html_head(ps->doc, NULL, out);
  for (size_t i = 0; i < ps->n && !rc; i++)
    rc = copy_span(&ps->parts[i], &ps->parts[i].html, out);
  rc = rc ? rc : omplens_render__html_tail(ps->doc, NULL, out);
  return rc ? rc : fflush(out) ? OMPLENS_REPORT_EIO : 0;
}

int omplens_parts_write_timeline(const omplens_parts *ps, FILE *out) {
  if (!ps->doc || !all_have(ps, OMPLENS_PART_TIMELINE))
    return OMPLENS_REPORT_EINVAL;
  omplens_trace_info *infos = calloc(ps->n ? ps->n : 1, sizeof *infos);
  const omplens_trace_info **refs = calloc(ps->n ? ps->n : 1, sizeof *refs);
  if (!infos || !refs) {
    free(infos);
    free(refs);
    return OMPLENS_REPORT_ENOMEM;
  }
  omplens_render__timeline_counts sum = {0};
  int rc = omplens_render__timeline_head(out), wrote = 0;
  for (size_t i = 0; i < ps->n && !rc; i++) {
    const omplens_part *p = &ps->parts[i];
    infos[i] = (omplens_trace_info){.pid = p->pid, .cmdline = p->cmdline, .exe = p->exe,
                                    .complete = p->complete, .start_realtime_ns = p->start_ns,
                                    .rank = p->record.rank};
    refs[i] = &infos[i];
    sum.overflows += p->counts.overflows;
    sum.unmatched += p->counts.unmatched;
    if (!p->counts.events)
      continue;
    if (wrote)
      rc = omplens_render__timeline_separator(out);
    rc = rc ? rc : copy_span(p, &p->timeline, out);
    wrote = 1;
  }
  rc = rc ? rc : omplens_render__timeline_tail(ps->doc, refs, ps->n, ps->origin_ns, &sum, out);
  free(infos);
  free(refs);
  return rc;
}
