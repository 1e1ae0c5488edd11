/* timeline.json renderer: Chrome trace-event JSON that Perfetto and
 * chrome://tracing load. Streamed, one event per line, so a trace of
 * millions of events never becomes a JSON tree in memory.
 * Layout (docs/sarif-and-timeline.md): per traced process, one Perfetto
 * process for the host threads (target regions) and one per device (kernels,
 * transfers, allocations, findings); findings from the document mark the
 * operations they name.
 * Speed: the text goes through one buffer of our own, numbers are formatted
 * by hand, and whatever repeats (a directive's label, a finding's texts) is
 * escaped once into a cache and copied from there. */
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_config.h"
#include "omplens_render.h"
#include "render_md_internal.h"
#include "report_internal.h"

#define TL_SUBLANES 16       /* lanes per track before overlaps are tolerated */
#define TL_NEST 8            /* nesting depth followed per lane */
#define TL_PID_STRIDE 100000 /* pid = (process + 1) * stride + slot */
#define TL_LABEL 512
#define TL_OUT_BUF (1u << 18) /* output buffer, written out when full */
#define TL_LABEL_SLOTS 1024   /* label cache, at least; beyond 3/4 full, labels are made each time */
#define TL_MAX_CATS 8         /* categories named on one operation */
#define TL_HEAD_SLOTS 64      /* device slots whose slice heads are cached */
#define TL_HEAD_KINDS 16      /* event kinds, by value (enum omplens_event_kind) */
#define TL_HEAD_THREADS 64    /* host threads whose construct heads are cached */
#define TL_REGION_KINDS 8     /* construct kinds, by value */
/* The waits of host thread n: tid TL_WAIT_TIDS + n * TL_SUBLANES + lane,
 * past every construct lane (n * TL_SUBLANES + lane + 1). */
#define TL_WAIT_TIDS (((uint64_t)1 << 20) + 1)
_Static_assert(TL_WAIT_TIDS > (uint64_t)OMPLENS_MAX_THREADS * TL_SUBLANES,
               "the waits' lanes come after every construct lane");

/* Tracks of a device process; tid = group * TL_SUBLANES + lane + 1. */
enum tl_group { TL_KERNELS, TL_TRANSFERS, TL_ALLOCS, TL_FINDINGS, TL_GROUPS };
static const char *const group_names[TL_GROUPS] = {"kernels", "transfers", "allocations",
                                                   "findings"};

/* Open slices of one lane, innermost last: a slice goes on the first lane
 * where it starts after the open ones end or nests inside the innermost. */
typedef struct tl_lane {
  uint64_t end[TL_NEST];
  uint8_t depth;
} tl_lane;

typedef struct tl_track {
  tl_lane lane[TL_SUBLANES];
  uint8_t used; /* lanes used so far */
} tl_track;

/* A finding instance on an event; finding indexes the document's array. */
typedef struct tl_mark {
  uint32_t event, finding;
  int64_t related; /* related event, or -1 */
} tl_mark;

typedef struct tl_label_entry {
  uint64_t codeptr;
  char *label;
} tl_label_entry;

/* Text on its way out: to the stream (f set) through a buffer of TL_OUT_BUF
 * bytes, or kept in memory (f NULL), growing, for text written many times. */
typedef struct tl_out {
  FILE *f;
  char *buf;
  size_t len, cap;
  int failed; /* a write to the stream failed, or the memory text could not grow */
} tl_out;

/* A label already escaped into the process's text cache. */
typedef struct tl_cached_label {
  uint64_t codeptr;
  const char *source; /* the region's source string (interned by the reader) */
  uint32_t off, len;  /* in tl_proc.text; len 0: free slot */
} tl_cached_label;

/* A piece of tl_proc.text; len 0: not made yet. */
typedef struct tl_text_ref {
  uint32_t off, len;
} tl_text_ref;

/* A construct's map list as it is written (",\"maps\":\"to a[0:n]\"", or
 * nothing), by what the text shows of its arguments: their names (which
 * the trace keeps once each) and directions. A loop that maps new buffers
 * each step has a list of arguments per step, all of one text. */
typedef struct tl_cached_maps {
  uint64_t hash;       /* of the names and directions; 0: an empty slot */
  uint32_t first, num; /* a list with them: omplens_region first_arg, num_args */
  tl_text_ref text;    /* len 0: not made for them (yet) */
} tl_cached_maps;

/* What the document says of one finding, prepared once. */
typedef struct tl_finding {
  const char *category; /* NULL when the document has none */
  size_t category_len;
  int category_plain;   /* nothing to escape, no space: copied as it is */
  uint32_t off, len;    /* the instant's constant args in tl_proc.text; len 0: not yet */
} tl_finding;

typedef struct tl_writer {
  tl_out out;
  int first;          /* no event written yet */
  uint64_t overflows; /* slices that had to overlap on a full track */
  uint64_t unmatched; /* finding instances naming no event of their trace */
  omplens_render_progress progress; /* told every TL_PROGRESS_EVERY events, or NULL */
  void *progress_ctx;
  uint64_t done, total; /* events written, of all traces */
} tl_writer;

#define TL_PROGRESS_EVERY 65536

/* One traced process being rendered. */
typedef struct tl_proc {
  const omplens_trace_info *info;
  const omplens_event *ev;
  size_t nev;
  const omplens_trace *trace; /* for the events' code addresses */
  const omplens_region *rg;
  size_t nrg;
  const omplens_map_arg *args;
  size_t nargs;
  const omplens_trace_wait *waits; /* host waits for nowait regions */
  size_t nwaits;
  tl_track **wait_tracks;  /* [thread]: its waits (wait_slices) */
  uint8_t *rg_wait_lane, *wait_lane; /* by region (synchronous ones), by wait */
  const json_t *findings;  /* the document's findings of this process, or NULL */
  size_t index;            /* position among rendered processes: the pid */
  uint64_t offset_ns;      /* trace start minus the timeline's origin */
  uint8_t *ev_lane, *rg_lane;
  uint32_t *rg_order;      /* regions by begin time, longest first on ties
                              (fewer than OMPLENS_NO_REGION) */
  tl_mark *marks;          /* by event, then finding */
  size_t nmarks;
  tl_finding *finding_info; /* by the document's index */
  size_t nfindings;
  int nslots;              /* device slots: host device, then devices 0.. */
  tl_track **dev_tracks;   /* [slot * TL_GROUPS + group], NULL when unused */
  uint32_t nthreads;
  tl_track **thr_tracks;   /* [thread] */
  tl_label_entry *labels;  /* from the document, by codeptr */
  size_t nlabels;
  tl_cached_label *label_cache; /* label_slots, open addressing */
  tl_text_ref *heads;      /* an operation's slice up to its cat, by slot,
                              group, lane and kind (out_plain_head); NULL: none */
  tl_text_ref *region_heads; /* a construct's, by thread, lane and kind */
  tl_cached_maps *maps;    /* a hash table of the lists' texts; NULL: made each time */
  size_t num_maps, cap_maps;
  size_t label_cache_used;
  size_t label_slots;      /* a power of two: twice the trace's directives, or more */
  tl_out text;             /* escaped labels and finding texts */
} tl_proc;

/* ---- Output ------------------------------------------------------------ */

/* Makes room for n more bytes: writes the buffer out, or grows it. */
static int out_grow(tl_out *o, size_t n) {
  if (o->f) {
    if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
      o->failed = 1; /* the stream keeps its error flag: reported on flush */
    o->len = 0;
    if (n <= o->cap)
      return 0;
  }
  if (o->failed && !o->f)
    return -1;
  size_t cap = o->cap ? o->cap : 4096;
  while (cap - o->len < n)
    cap *= 2;
  char *b = realloc(o->buf, cap);
  if (!b) {
    o->failed = 1;
    return -1;
  }
  o->buf = b;
  o->cap = cap;
  return 0;
}

/* Room for n more bytes at the end of the text, or NULL. The fast paths
 * below are inline: most writes are a few bytes of a literal or a number. */
static inline char *out_room(tl_out *o, size_t n) {
  if (n < o->cap - o->len)
    return o->buf + o->len;
  return out_grow(o, n + 1) ? NULL : o->buf + o->len;
}

static void out_mem_slow(tl_out *o, const void *p, size_t n) {
  if (o->f && n > o->cap / 2) { /* large: straight to the stream */
    out_grow(o, 0);
    if (fwrite(p, 1, n, o->f) != n)
      o->failed = 1;
    return;
  }
  char *d = out_room(o, n);
  if (d) {
    memcpy(d, p, n);
    o->len += n;
  }
}

static inline void out_mem(tl_out *o, const void *p, size_t n) {
  if (n < o->cap - o->len) {
    memcpy(o->buf + o->len, p, n);
    o->len += n;
  } else {
    out_mem_slow(o, p, n);
  }
}

#define out_lit(o, s) out_mem((o), (s), sizeof(s) - 1)

static inline void out_byte(tl_out *o, char c) {
  char *d = out_room(o, 1);
  if (d) {
    *d = c;
    o->len++;
  }
}

static void out_flush(tl_out *o) {
  if (o->f)
    out_grow(o, 0);
}

static inline void out_decimal(tl_out *o, uint64_t v) {
  char *d = out_room(o, 20);
  if (d)
    o->len += (size_t)(omplens_report__format_u64(d, v) - d);
}

/* JSON parsers stop at 2^63; larger values (damaged traces) go as strings. */
static inline void out_u64(tl_out *o, uint64_t v) {
  if (v <= (uint64_t)INT64_MAX) {
    out_decimal(o, v);
    return;
  }
  out_byte(o, '"');
  out_decimal(o, v);
  out_byte(o, '"');
}

/* Microseconds with three decimals, from nanoseconds, without rounding. */
static inline void out_us(tl_out *o, uint64_t ns) {
  char *d = out_room(o, 24);
  if (!d)
    return;
  char *e = omplens_report__format_u64(d, ns / 1000);
  unsigned frac = (unsigned)(ns % 1000);
  e[0] = '.';
  e[1] = (char)('0' + frac / 100);
  e[2] = (char)('0' + frac / 10 % 10);
  e[3] = (char)('0' + frac % 10);
  o->len += (size_t)(e + 4 - d);
}

/* "0x1f": lowercase, no leading zeros, in quotes. */
static inline void out_hex(tl_out *o, uint64_t v) {
  char *d = out_room(o, 20);
  if (d)
    o->len += (size_t)(omplens_report__format_hex(d, v) - d);
}

/* ---- Escaping ---------------------------------------------------------- */

/* Bytes that a JSON string cannot hold as they are: 1 control and HTML
 * characters (\u00XX), 2 '"' and '\\', 3 non-ASCII (checked as UTF-8). */
static unsigned char escape_class(unsigned char c) {
  if (c == '"' || c == '\\')
    return 2;
  if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&')
    return 1;
  return c >= 0x80 ? 3 : 0;
}

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 when invalid. */
static size_t utf8_length(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  int cont = n > 1 && (p[1] & 0xc0) == 0x80;
  if (c >= 0xc2 && c <= 0xdf)
    return cont ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef && n > 2) {
    unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4 && n > 3) {
    unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
  }
  return 0;
}

static void out_escape_u(tl_out *o, unsigned code) {
  char u[6] = {'\\', 'u', '0', '0', 0, 0};
  u[2] = "0123456789abcdef"[(code >> 12) & 15];
  u[3] = "0123456789abcdef"[(code >> 8) & 15];
  u[4] = "0123456789abcdef"[(code >> 4) & 15];
  u[5] = "0123456789abcdef"[code & 15];
  out_mem(o, u, sizeof u);
}

/* The inside of a JSON string, n bytes of s. Invalid UTF-8 becomes U+FFFD;
 * '<', '>' and '&' are escaped so that the file can sit inside a <script>
 * element, and U+2028/2029 so that it stays valid JavaScript. */
static void out_escaped(tl_out *o, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  while (p < end) {
    const unsigned char *run = p;
    while (p < end && !escape_class(*p))
      p++;
    if (p > run)
      out_mem(o, run, (size_t)(p - run));
    if (p == end)
      break;
    switch (escape_class(*p)) {
    case 2: {
      char e[2] = {'\\', (char)*p++};
      out_mem(o, e, 2);
      break;
    }
    case 1: out_escape_u(o, *p++); break;
    default: {
      size_t len = utf8_length(p, (size_t)(end - p));
      if (!len)
        out_lit(o, "\\ufffd"), p++;
      else if (len == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
        out_escape_u(o, 0x2000u + (p[2] & 0x3fu)), p += 3;
      else
        out_mem(o, p, len), p += len;
    }
    }
  }
}

static void out_str(tl_out *o, const char *s) {
  s = s ? s : "";
  out_byte(o, '"');
  out_escaped(o, s, strlen(s));
  out_byte(o, '"');
}

/* ---- Event framing ----------------------------------------------------- */

/* The separator before every event but the first. */
static void event_separator(tl_writer *w) {
  if (!w->first)
    out_lit(&w->out, ",\n");
  w->first = 0;
}

/* {"ph":"X","pid":1,"tid":2 */
static void event_open(tl_out *o, char ph, uint64_t pid, uint64_t tid) {
  char head[] = "{\"ph\":\"X\",\"pid\":";
  head[7] = ph;
  out_lit(o, head);
  out_decimal(o, pid);
  out_lit(o, ",\"tid\":");
  out_decimal(o, tid);
}

static void event_start(tl_writer *w, char ph, uint64_t pid, uint64_t tid) {
  event_separator(w);
  event_open(&w->out, ph, pid, tid);
}

/* ,"key": with key a literal */
#define out_key(o, key) out_lit((o), ",\"" key "\":")

/* ---- Reading the document ---------------------------------------------- */

/* "prog.c:37" for a document location: the directive's line when
 * attribution found it, else the line table's, else module+offset. */
static int doc_label(const json_t *loc, char *buf, size_t size) {
  const json_t *dir = json_object_get(loc, "directive");
  if (omplens_report__str_at(dir, "file") && omplens_report__int_at(dir, "line") > 0)
    snprintf(buf, size, "%s:%" JSON_INTEGER_FORMAT, omplens_report__base_name(omplens_report__str_at(dir, "file")),
             omplens_report__int_at(dir, "line"));
  else if (omplens_report__str_at(loc, "file") && omplens_report__int_at(loc, "line") > 0)
    snprintf(buf, size, "%s:%" JSON_INTEGER_FORMAT, omplens_report__base_name(omplens_report__str_at(loc, "file")),
             omplens_report__int_at(loc, "line"));
  else if (omplens_report__str_at(loc, "module") && omplens_report__str_at(loc, "offset"))
    snprintf(buf, size, "%s+%s", omplens_report__base_name(omplens_report__str_at(loc, "module")), omplens_report__str_at(loc, "offset"));
  else
    return -1;
  return 0;
}

static int label_cmp(const void *a, const void *b) {
  uint64_t x = ((const tl_label_entry *)a)->codeptr, y = ((const tl_label_entry *)b)->codeptr;
  return x < y ? -1 : x > y;
}

static int add_label(tl_proc *p, const json_t *loc, size_t *cap) {
  const char *cp = omplens_report__str_at(loc, "codeptr");
  char buf[TL_LABEL];
  if (!cp || doc_label(loc, buf, sizeof buf))
    return 0;
  if (p->nlabels == *cap) {
    size_t ncap = *cap ? 2 * *cap : 16;
    tl_label_entry *n = realloc(p->labels, ncap * sizeof *n);
    if (!n)
      return -1;
    p->labels = n;
    *cap = ncap;
  }
  char *label = strdup(buf);
  if (!label)
    return -1;
  p->labels[p->nlabels++] = (tl_label_entry){strtoull(cp, NULL, 16), label};
  return 0;
}

/* Labels of every code address the document locates. */
static int load_labels(tl_proc *p, const json_t *proc) {
  static const char *const lists[] = {"directives", "findings", "mappings_at_exit"};
  size_t cap = 0, i;
  const json_t *item;
  for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
    json_array_foreach(json_object_get(proc, lists[l]), i, item)
      if (add_label(p, json_object_get(item, "location"), &cap))
        return OMPLENS_REPORT_ENOMEM;
  if (p->nlabels)
    qsort(p->labels, p->nlabels, sizeof *p->labels, label_cmp);
  return 0;
}

/* ---- Code locations ---------------------------------------------------- */

/* "file:line" from a region's ";file;function;line;column;;" source. */
static int source_label(const char *source, char *buf, size_t size) {
  if (!source || source[0] != ';')
    return -1;
  const char *file = source + 1, *fn = strchr(file, ';');
  const char *line = fn ? strchr(fn + 1, ';') : NULL;
  if (!line || fn == file || atoi(line + 1) <= 0)
    return -1;
  const char *slash = memrchr(file, '/', (size_t)(fn - file));
  const char *name = slash ? slash + 1 : file;
  snprintf(buf, size, "%.*s:%d", (int)(fn - name), name, atoi(line + 1));
  return 0;
}

static void module_label(const tl_proc *p, uint64_t codeptr, char *buf, size_t size) {
  for (size_t i = 0; i < p->info->num_modules; i++) {
    const omplens_module *m = &p->info->modules[i];
    if (codeptr >= m->low && codeptr < m->high) {
      snprintf(buf, size, "%s+0x%" PRIx64, omplens_report__base_name(m->path ? m->path : "?"), codeptr - m->base);
      return;
    }
  }
  snprintf(buf, size, "0x%" PRIx64, codeptr);
}

/* Where a directive is: the document's attribution, else the runtime's
 * source string of the region, else the module offset. */
static void make_label(const tl_proc *p, uint64_t codeptr, const char *source, char *buf,
                       size_t size) {
  tl_label_entry key = {codeptr, NULL};
  const tl_label_entry *e =
      p->nlabels ? bsearch(&key, p->labels, p->nlabels, sizeof key, label_cmp) : NULL;
  if (e)
    snprintf(buf, size, "%s", e->label);
  else if (source_label(source, buf, size))
    module_label(p, codeptr, buf, size);
}

/* Appends s, escaped and quoted, to the text cache; 0 with its place. */
static int cache_text(tl_out *text, const char *s, uint32_t *off, uint32_t *len) {
  size_t start = text->len;
  out_str(text, s);
  if (text->failed || text->len > UINT32_MAX) {
    text->len = start;
    return -1;
  }
  *off = (uint32_t)start;
  *len = (uint32_t)(text->len - start);
  return 0;
}

/* Keeps what was made in p->text since start as *ref; returns -1 (and
 * drops it) when the text could not hold it. */
static int keep_piece(tl_proc *p, size_t start, tl_text_ref *ref) {
  if (p->text.failed || p->text.len > UINT32_MAX) {
    p->text.len = start;
    return -1;
  }
  *ref = (tl_text_ref){(uint32_t)start, (uint32_t)(p->text.len - start)};
  return 0;
}

static void out_piece(tl_out *o, const tl_proc *p, const tl_text_ref *ref) {
  out_mem(o, p->text.buf + ref->off, ref->len);
}

/* Text that make() writes for (what, lane), copied from *ref: made into
 * p->text the first time (ref->len 0). A NULL ref, or text the cache
 * cannot hold, is made straight into o. */
typedef void tl_maker(tl_out *o, const tl_proc *p, const void *what, int lane);

static void out_cached(tl_out *o, tl_proc *p, tl_text_ref *ref, tl_maker *make,
                       const void *what, int lane) {
  if (ref && !ref->len) {
    size_t start = p->text.len;
    make(&p->text, p, what, lane);
    if (keep_piece(p, start, ref))
      ref = NULL;
  }
  if (ref)
    out_piece(o, p, ref);
  else
    make(o, p, what, lane);
}

/* The label of a directive as a JSON string; made once per code address
 * and source string, then copied from the cache. */
static void out_label(tl_out *o, tl_proc *p, uint64_t codeptr, uint32_t region) {
  const char *source = region < p->nrg ? p->rg[region].source : NULL;
  uint64_t h = (codeptr ^ (uint64_t)(uintptr_t)source * 0x9e3779b97f4a7c15u) *
               0xff51afd7ed558ccdu;
  size_t slot = (size_t)(h >> 32) & (p->label_slots - 1);
  tl_cached_label *c = p->label_cache;
  while (c && c[slot].len && (c[slot].codeptr != codeptr || c[slot].source != source))
    slot = (slot + 1) & (p->label_slots - 1);
  if (c && c[slot].len) {
    out_mem(o, p->text.buf + c[slot].off, c[slot].len);
    return;
  }
  char buf[TL_LABEL];
  make_label(p, codeptr, source, buf, sizeof buf);
  if (c && p->label_cache_used < p->label_slots * 3 / 4 &&
      !cache_text(&p->text, buf, &c[slot].off, &c[slot].len)) {
    c[slot].codeptr = codeptr;
    c[slot].source = source;
    p->label_cache_used++;
    out_mem(o, p->text.buf + c[slot].off, c[slot].len);
    return;
  }
  out_str(o, buf);
}

/* ---- Lanes ------------------------------------------------------------- */

static int place(tl_track *t, uint64_t begin, uint64_t end, tl_writer *w) {
  for (int i = 0; i < TL_SUBLANES; i++) {
    tl_lane *l = &t->lane[i];
    while (l->depth && l->end[l->depth - 1] <= begin)
      l->depth--;
    if (l->depth == 0 || (end <= l->end[l->depth - 1] && l->depth < TL_NEST)) {
      l->end[l->depth++] = end;
      if (i >= t->used)
        t->used = (uint8_t)(i + 1);
      return i;
    }
  }
  w->overflows++;
  return TL_SUBLANES - 1;
}

static tl_track *track(tl_track **tracks, size_t i) {
  if (!tracks[i])
    tracks[i] = calloc(1, sizeof **tracks);
  return tracks[i];
}

static uint64_t end_of(uint64_t begin, uint64_t end) { return end > begin ? end : begin; }

static int device_slot(int device) { return device < 0 ? 0 : device + 1; }

static int event_group(int kind) {
  switch (kind) {
  case OMPLENS_EV_KERNEL: return TL_KERNELS;
  case OMPLENS_EV_H2D: case OMPLENS_EV_D2H: case OMPLENS_EV_D2D: return TL_TRANSFERS;
  default: return TL_ALLOCS;
  }
}

static int region_cmp(const void *a, const void *b, void *ctx) {
  const omplens_region *rg = ctx;
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  const omplens_region *x = &rg[i], *y = &rg[j];
  if (x->begin_ns != y->begin_ns)
    return x->begin_ns < y->begin_ns ? -1 : 1;
  if (x->end_ns != y->end_ns)
    return x->end_ns > y->end_ns ? -1 : 1;
  return i < j ? -1 : 1;
}

/* Runs merged at once at most; more (regions far from time order) go to
 * qsort. */
#define TL_MAX_RUNS 16

static int region_less(const omplens_region *rg, uint32_t i, uint32_t j) {
  return region_cmp(&i, &j, (void *)rg) < 0;
}

/* Regions come thread by thread, each thread's in time order: a few
 * ascending runs, merged here into order[] without the copy that qsort
 * makes. Returns 0 when there are too many runs to merge this way. */
static int merge_region_runs(const omplens_region *rg, size_t n, uint32_t *order) {
  uint32_t at[TL_MAX_RUNS], end[TL_MAX_RUNS];
  size_t runs = 0;
  for (size_t i = 0; i < n; runs++) {
    if (runs == TL_MAX_RUNS)
      return 0;
    at[runs] = (uint32_t)i;
    while (++i < n && region_less(rg, (uint32_t)i - 1, (uint32_t)i))
      ;
    end[runs] = (uint32_t)i;
  }
  for (size_t k = 0; k < n; k++) {
    size_t best = runs;
    for (size_t r = 0; r < runs; r++)
      if (at[r] < end[r] && (best == runs || region_less(rg, at[r], at[best])))
        best = r;
    order[k] = at[best]++;
  }
  return 1;
}

/* Sizes the track tables from the events and regions. */
static int alloc_layout(tl_proc *p) {
  int max_dev = -1;
  uint32_t max_thr = 0;
  for (size_t i = 0; i < p->nev; i++)
    max_dev = p->ev[i].device > max_dev ? p->ev[i].device : max_dev;
  for (size_t i = 0; i < p->nrg; i++)
    max_thr = (uint32_t)p->rg[i].thread + 1 > max_thr ? (uint32_t)p->rg[i].thread + 1 : max_thr;
  for (size_t i = 0; i < p->nwaits; i++)
    max_thr = p->waits[i].thread + 1 > max_thr ? p->waits[i].thread + 1 : max_thr;
  p->nslots = max_dev + 2;
  p->nthreads = max_thr;
  p->dev_tracks = calloc((size_t)p->nslots * TL_GROUPS, sizeof *p->dev_tracks);
  p->thr_tracks = calloc(max_thr + 1, sizeof *p->thr_tracks);
  p->wait_tracks = calloc(max_thr + 1, sizeof *p->wait_tracks);
  p->rg_wait_lane = malloc(p->nrg + 1);
  p->wait_lane = malloc(p->nwaits + 1);
  p->ev_lane = malloc(p->nev + 1);
  p->rg_lane = malloc(p->nrg + 1);
  p->rg_order = malloc((p->nrg + 1) * sizeof *p->rg_order);
  int head_slots = p->nslots < TL_HEAD_SLOTS ? p->nslots : TL_HEAD_SLOTS;
  p->heads = calloc((size_t)head_slots * TL_GROUPS * TL_SUBLANES * TL_HEAD_KINDS,
                    sizeof *p->heads); /* NULL: heads made each time */
  p->region_heads = calloc((size_t)TL_HEAD_THREADS * TL_SUBLANES * TL_REGION_KINDS,
                           sizeof *p->region_heads);
  if (!p->dev_tracks || !p->thr_tracks || !p->ev_lane || !p->rg_lane || !p->rg_order ||
      !p->wait_tracks || !p->rg_wait_lane || !p->wait_lane)
    return OMPLENS_REPORT_ENOMEM;
  if (merge_region_runs(p->rg, p->nrg, p->rg_order))
    return 0;
  for (size_t i = 0; i < p->nrg; i++)
    p->rg_order[i] = (uint32_t)i;
  qsort_r(p->rg_order, p->nrg, sizeof *p->rg_order, region_cmp, (void *)p->rg);
  return 0;
}

/* ---- Host waits -------------------------------------------------------- */

/* The next host wait in begin order, from the synchronous regions (by
 * rg_order: each blocks its thread for its whole slice) and the waits for
 * nowait regions: 1 and *region (or *wait, the other OMPLENS_NO_REGION),
 * or 0 at the end. */
static int next_wait(const tl_proc *p, size_t *r, size_t *k, uint32_t *region, uint32_t *wait) {
  while (*r < p->nrg && p->rg[p->rg_order[*r]].nowait)
    (*r)++;
  while (*k < p->nwaits && (p->waits[*k].region >= p->nrg || p->waits[*k].thread >= p->nthreads))
    (*k)++;
  int has_r = *r < p->nrg, has_k = *k < p->nwaits;
  if (!has_r && !has_k)
    return 0;
  if (has_k && (!has_r || p->waits[*k].begin_ns <= p->rg[p->rg_order[*r]].begin_ns)) {
    *wait = (uint32_t)(*k)++;
    *region = OMPLENS_NO_REGION;
  } else {
    *region = p->rg_order[(*r)++];
    *wait = OMPLENS_NO_REGION;
  }
  return 1;
}

/* Every wait gets its lane on its thread's waits track. */
static int layout_waits(tl_proc *p, tl_writer *w) {
  size_t r = 0, k = 0;
  uint32_t region, wait;
  while (next_wait(p, &r, &k, &region, &wait)) {
    const omplens_trace_wait *x = wait != OMPLENS_NO_REGION ? &p->waits[wait] : NULL;
    uint32_t thread = x ? x->thread : p->rg[region].thread;
    uint64_t begin = x ? x->begin_ns : p->rg[region].begin_ns;
    uint64_t end = end_of(begin, x ? x->end_ns : p->rg[region].end_ns);
    tl_track *t = track(p->wait_tracks, thread);
    if (!t)
      return OMPLENS_REPORT_ENOMEM;
    uint8_t lane = (uint8_t)place(t, begin, end, w);
    if (x)
      p->wait_lane[wait] = lane;
    else
      p->rg_wait_lane[region] = lane;
  }
  return 0;
}

/* First pass: every slice gets its lane, so that thread names can be
 * written before the slices. */
static int layout(tl_proc *p, tl_writer *w) {
  int rc = alloc_layout(p);
  if (rc)
    return rc;
  for (size_t i = 0; i < p->nev; i++) {
    const omplens_event *e = &p->ev[i];
    tl_track *t = track(p->dev_tracks, (size_t)device_slot(e->device) * TL_GROUPS +
                                           (size_t)event_group(e->kind));
    if (!t)
      return OMPLENS_REPORT_ENOMEM;
    p->ev_lane[i] = (uint8_t)place(t, e->begin_ns, end_of(e->begin_ns, e->end_ns), w);
  }
  for (size_t k = 0; k < p->nrg; k++) {
    const omplens_region *r = &p->rg[p->rg_order[k]];
    tl_track *t = track(p->thr_tracks, r->thread);
    if (!t)
      return OMPLENS_REPORT_ENOMEM;
    p->rg_lane[p->rg_order[k]] = (uint8_t)place(t, r->begin_ns, end_of(r->begin_ns, r->end_ns), w);
  }
  for (size_t m = 0; m < p->nmarks; m++) {
    const omplens_event *e = &p->ev[p->marks[m].event];
    if (!track(p->dev_tracks, (size_t)device_slot(e->device) * TL_GROUPS + TL_FINDINGS))
      return OMPLENS_REPORT_ENOMEM;
  }
  return layout_waits(p, w);
}

/* ---- Findings ---------------------------------------------------------- */

static int mark_cmp(const void *a, const void *b) {
  const tl_mark *x = a, *y = b;
  if (x->event != y->event)
    return x->event < y->event ? -1 : 1;
  return x->finding < y->finding ? -1 : x->finding > y->finding;
}

/* An instance names its event by index; the time must agree, or the
 * document was made from another trace. */
static int instance_event(const tl_proc *p, const json_t *inst, uint32_t *event) {
  json_t *ev = json_object_get(inst, "event"), *t = json_object_get(inst, "time_ns");
  if (!json_is_integer(ev) || json_integer_value(ev) < 0 ||
      (uint64_t)json_integer_value(ev) >= p->nev)
    return -1;
  *event = (uint32_t)json_integer_value(ev);
  if (json_is_integer(t) && (uint64_t)json_integer_value(t) != p->ev[*event].begin_ns)
    return -1;
  return 0;
}

static int add_mark(tl_proc *p, size_t *cap, tl_mark mark) {
  if (p->nmarks == *cap) {
    size_t ncap = *cap ? 2 * *cap : 64;
    tl_mark *n = realloc(p->marks, ncap * sizeof *n);
    if (!n)
      return -1;
    p->marks = n;
    *cap = ncap;
  }
  p->marks[p->nmarks++] = mark;
  return 0;
}

/* fi's category, from document finding f. */
static void set_category(tl_finding *fi, const json_t *f) {
  fi->category = omplens_report__str_at(f, "category");
  fi->category_len = fi->category ? strlen(fi->category) : 0;
  fi->category_plain = 1;
  for (size_t k = 0; k < fi->category_len; k++)
    fi->category_plain &= !escape_class((unsigned char)fi->category[k]) && fi->category[k] != ' ';
}

static int load_marks(tl_proc *p, tl_writer *w) {
  size_t i, j, cap = 0;
  const json_t *f, *inst;
  p->nfindings = json_array_size(p->findings);
  p->finding_info = calloc(p->nfindings + 1, sizeof *p->finding_info);
  if (!p->finding_info)
    return OMPLENS_REPORT_ENOMEM;
  json_array_foreach(p->findings, i, f) {
    set_category(&p->finding_info[i], f);
    json_array_foreach(json_object_get(f, "instances"), j, inst) {
      uint32_t event;
      if (instance_event(p, inst, &event)) {
        w->unmatched++;
        continue;
      }
      json_t *rel = json_object_get(inst, "related_event");
      if (add_mark(p, &cap, (tl_mark){event, (uint32_t)i,
                                      json_is_integer(rel) ? json_integer_value(rel) : -1}))
        return OMPLENS_REPORT_ENOMEM;
    }
  }
  if (p->nmarks)
    qsort(p->marks, p->nmarks, sizeof *p->marks, mark_cmp);
  return 0;
}

/* What a finding says, for the instant event. */
static const char *finding_message(const json_t *f) {
  static const struct { const char *category, *text; } texts[] = {
    {"duplicate-transfer", "the receiver received this content from the same buffer before"},
    {"duplicate-content", "the receiver received this content before, for another buffer"},
    {"round-trip", "this copy brings back data that did not change"},
    {"round-trip-other-buffer", "this copy brings back, through another host buffer, data the "
                                "receiver sent out unchanged"},
    {"reinitialization", "this copy sets back data that changed on the receiver (not a duplicate)"},
    {"repeated-alloc", "the same buffer was allocated again with the same size"},
    {"unused-alloc", "no kernel ran on the device while this allocation lived"},
    {"unused-transfer", "no kernel read this copy before it was overwritten or the run ended, "
                        "or, copied back, nothing on the device wrote it"},
  };
  const char *explanation = omplens_report__str_at(f, "explanation"), *category = omplens_report__str_at(f, "category");
  if (explanation && *explanation)
    return explanation;
  for (size_t i = 0; category && i < sizeof texts / sizeof texts[0]; i++)
    if (!strcmp(texts[i].category, category))
      return texts[i].text;
  return "wasted data movement";
}

/* The args of a finding's instants that are the same for all of them. */
static void finding_args(tl_out *o, const json_t *f) {
  out_key(o, "message");
  out_str(o, finding_message(f));
  const json_t *var = json_object_get(f, "variable");
  const char *item = omplens_report__str_at(var, "item");
  char pointer[256]; /* the runtime's own operation: the pointer it is for */
  if (!item && omplens_report__str_at(var, "pointer"))
    item = omplens_render__finding_subject(f, pointer, sizeof pointer);
  if (item) {
    out_key(o, "variable");
    out_str(o, item);
  }
  const char *fix = omplens_report__str_at(json_object_get(f, "fix"), "summary");
  if (fix) {
    out_key(o, "fix");
    out_str(o, fix);
  }
  out_key(o, "finding_count");
  out_u64(o, (uint64_t)omplens_report__int_at(f, "count"));
  out_key(o, "finding_savings_ns");
  out_u64(o, (uint64_t)omplens_report__int_at(f, "savings_ns"));
}

/* finding_args() of finding i, escaped once into the text cache. */
static void out_finding_args(tl_out *o, tl_proc *p, uint32_t i) {
  tl_finding *fi = &p->finding_info[i];
  const json_t *f = json_array_get(p->findings, i);
  if (!fi->len) {
    size_t start = p->text.len;
    finding_args(&p->text, f);
    if (!p->text.failed && p->text.len <= UINT32_MAX) {
      fi->off = (uint32_t)start;
      fi->len = (uint32_t)(p->text.len - start);
    } else {
      p->text.len = start;
    }
  }
  if (fi->len)
    out_mem(o, p->text.buf + fi->off, fi->len);
  else
    finding_args(o, f);
}

/* ---- Slices ------------------------------------------------------------ */

/* The host threads' process, then the device processes by slot. */
static uint64_t host_pid(const tl_proc *p) { return (uint64_t)(p->index + 1) * TL_PID_STRIDE; }

static uint64_t device_pid(const tl_proc *p, int slot) { return host_pid(p) + 1 + (uint64_t)slot; }

static uint64_t tid_of(int group, int lane) { return (uint64_t)group * TL_SUBLANES + (uint64_t)lane + 1; }

static uint64_t at(const tl_proc *p, uint64_t ns) {
  return ns > UINT64_MAX - p->offset_ns ? UINT64_MAX : ns + p->offset_ns;
}

static void slice_times(tl_out *o, const tl_proc *p, uint64_t begin, uint64_t end) {
  out_key(o, "ts");
  out_us(o, at(p, begin));
  out_key(o, "dur");
  out_us(o, end > begin ? end - begin : 0);
}

/* The name of a region's map argument (";a[0:n];file;...", "a[0:n]"). */
static int map_name(const omplens_map_arg *a, const char **name, size_t *len) {
  if (!a->name || a->name[0] != ';')
    return -1;
  const char *end = strchr(a->name + 1, ';');
  *name = a->name + 1;
  *len = end ? (size_t)(end - *name) : strlen(*name);
  return 0;
}

/* "to a[0:n], from b[0:n]": the named map items of a region, when any. */
static void out_maps(tl_out *o, const tl_proc *p, const omplens_region *r) {
  static const char *const dirs[] = {"alloc ", "to ", "from ", "tofrom "};
  int any = 0;
  for (uint32_t i = 0; i < r->num_args && (size_t)r->first_arg + i < p->nargs; i++) {
    const omplens_map_arg *a = &p->args[r->first_arg + i];
    const char *name;
    size_t len;
    if (map_name(a, &name, &len))
      continue;
    if (any)
      out_lit(o, ", ");
    else
      out_lit(o, ",\"maps\":\"");
    any = 1;
    const char *dir = dirs[a->type & (OMPLENS_MAPBIT_TO | OMPLENS_MAPBIT_FROM)];
    out_mem(o, dir, strlen(dir));
    out_escaped(o, name, len);
  }
  if (any)
    out_byte(o, '"');
}

/* A construct's slice up to its cat:
 * {"ph":"X","pid":100000,"tid":1,"name":"target","cat":"region" */
static void region_head(tl_out *o, const tl_proc *p, const void *what, int lane) {
  const omplens_region *r = what;
  const char *kind = omplens_construct_kind_name(r->kind);
  event_open(o, 'X', host_pid(p), (uint64_t)r->thread * TL_SUBLANES + (uint64_t)lane + 1);
  out_key(o, "name");
  out_str(o, kind ? kind : "construct");
  out_lit(o, ",\"cat\":\"region\"");
}

/* The same, made once per thread, lane and kind (p->region_heads). */
static void out_region_head(tl_out *o, tl_proc *p, const omplens_region *r, int lane) {
  tl_text_ref *h = NULL;
  if (p->region_heads && r->thread < TL_HEAD_THREADS && r->kind < TL_REGION_KINDS)
    h = &p->region_heads[((size_t)r->thread * TL_SUBLANES + (size_t)lane) * TL_REGION_KINDS +
                         r->kind];
  out_cached(o, p, h, region_head, r, lane);
}

/* out_maps() as a tl_maker. */
static void maps_text(tl_out *o, const tl_proc *p, const void *what, int lane) {
  (void)lane;
  out_maps(o, p, what);
}

/* What out_maps() shows of argument i: its name and direction. */
static uint64_t map_shown(const tl_proc *p, size_t i) {
  return (uint64_t)(uintptr_t)p->args[i].name ^
         (p->args[i].type & (OMPLENS_MAPBIT_TO | OMPLENS_MAPBIT_FROM));
}

static uint64_t maps_hash(const tl_proc *p, const omplens_region *r) {
  uint64_t h = r->num_args;
  for (uint32_t i = 0; i < r->num_args; i++)
    h = (h ^ map_shown(p, (size_t)r->first_arg + i)) * 0x9e3779b97f4a7c15u;
  return (h ^ (h >> 29)) | 1;
}

static bool same_maps(const tl_proc *p, const tl_cached_maps *m, const omplens_region *r) {
  if (m->num != r->num_args)
    return false;
  for (uint32_t i = 0; i < m->num; i++)
    if (map_shown(p, (size_t)m->first + i) != map_shown(p, (size_t)r->first_arg + i))
      return false;
  return true;
}

static size_t maps_slot(const tl_cached_maps *t, size_t cap, uint64_t h, const tl_proc *p,
                        const omplens_region *r) {
  size_t j = (size_t)(h >> 7) & (cap - 1);
  while (t[j].hash && (!r || t[j].hash != h || !same_maps(p, &t[j], r))) /* r NULL: a free slot */
    j = (j + 1) & (cap - 1);
  return j;
}

/* The text slot of r's list of arguments, added when new; NULL without
 * memory. */
static tl_text_ref *maps_ref(tl_proc *p, const omplens_region *r) {
  if (2 * (p->num_maps + 1) > p->cap_maps) {
    size_t cap = p->cap_maps ? 2 * p->cap_maps : 256;
    tl_cached_maps *t = calloc(cap, sizeof *t);
    if (!t)
      return NULL;
    for (size_t j = 0; j < p->cap_maps; j++)
      if (p->maps[j].hash)
        t[maps_slot(t, cap, p->maps[j].hash, p, NULL)] = p->maps[j];
    free(p->maps);
    p->maps = t;
    p->cap_maps = cap;
  }
  uint64_t h = maps_hash(p, r);
  tl_cached_maps *m = &p->maps[maps_slot(p->maps, p->cap_maps, h, p, r)];
  if (!m->hash) {
    *m = (tl_cached_maps){h, r->first_arg, r->num_args, {0, 0}};
    p->num_maps++;
  }
  return &m->text;
}

/* out_maps(), made once per text (p->maps). */
static void out_maps_cached(tl_out *o, tl_proc *p, const omplens_region *r) {
  bool listed = r->num_args && (size_t)r->first_arg + r->num_args <= p->nargs;
  out_cached(o, p, listed ? maps_ref(p, r) : NULL, maps_text, r, 0);
}

static void region_slice(tl_writer *w, tl_proc *p, size_t i) {
  tl_out *o = &w->out;
  const omplens_region *r = &p->rg[i];
  event_separator(w);
  out_region_head(o, p, r, p->rg_lane[i]);
  slice_times(o, p, r->begin_ns, r->end_ns);
  out_lit(o, ",\"args\":{\"region\":");
  out_u64(o, i);
  out_key(o, "directive");
  out_label(o, p, r->codeptr, (uint32_t)i);
  if (r->device >= 0) {
    out_key(o, "device");
    out_u64(o, (uint64_t)r->device);
  } else {
    out_lit(o, ",\"device\":\"host\"");
  }
  out_maps_cached(o, p, r);
  if (r->nowait) {
    out_lit(o, ",\"nowait\":true");
  } else { /* the host thread of this lane is blocked for the whole slice */
    out_lit(o, ",\"host_wait_ns\":");
    out_u64(o, end_of(r->begin_ns, r->end_ns) - r->begin_ns);
  }
  if (r->end_ns <= r->begin_ns)
    out_lit(o, ",\"end_recorded\":false");
  out_lit(o, "}}");
}

static const char *event_name(int kind) {
  switch (kind) {
  case OMPLENS_EV_H2D: return "H2D";
  case OMPLENS_EV_D2H: return "D2H";
  case OMPLENS_EV_D2D: return "D2D";
  default: return omplens_event_kind_name(kind) ? omplens_event_kind_name(kind) : "event";
  }
}

/* The distinct categories of the findings marks[m, end) on one event, in
 * document order; returns how many (at most TL_MAX_CATS). */
static size_t mark_categories(const tl_proc *p, size_t m, size_t end,
                              const tl_finding **cats) {
  size_t n = 0;
  for (size_t k = m; k < end && n < TL_MAX_CATS; k++) {
    const tl_finding *c = &p->finding_info[p->marks[k].finding];
    size_t j = 0;
    while (c->category && j < n && strcmp(cats[j]->category, c->category))
      j++;
    if (c->category && j == n)
      cats[n++] = c;
  }
  return n;
}

/* "a, b" (name and args) or "a,b" (cat: no spaces at all). */
static void out_categories(tl_out *o, const tl_finding *const *cats, size_t n, int in_cat) {
  for (size_t k = 0; k < n; k++) {
    if (k)
      out_mem(o, ", ", in_cat ? 1 : 2);
    const char *c = cats[k]->category;
    if (cats[k]->category_plain) {
      out_mem(o, c, cats[k]->category_len);
      continue;
    }
    while (*c) {
      size_t run = in_cat ? strcspn(c, " ") : strlen(c);
      out_escaped(o, c, run);
      c += run;
      while (*c == ' ')
        c++;
    }
  }
}

static void event_args(tl_out *o, tl_proc *p, size_t i) {
  const omplens_event *e = &p->ev[i];
  out_lit(o, ",\"args\":{\"event\":");
  out_u64(o, i);
  if (e->kind == OMPLENS_EV_KERNEL) {
    if (e->bytes) {
      out_key(o, "teams");
      out_u64(o, e->bytes);
    }
  } else {
    if (e->bytes || e->kind != OMPLENS_EV_DELETE) { /* a delete's size is mostly unknown */
      out_key(o, "bytes");
      out_u64(o, e->bytes);
    }
    if (e->host_addr) {
      out_key(o, "host_addr");
      out_hex(o, e->host_addr);
    }
    if (e->kind != OMPLENS_EV_H2D && e->kind != OMPLENS_EV_D2H) { /* its allocation has it */
      out_key(o, "device_addr");
      out_hex(o, e->dev_addr);
    }
  }
  if (e->flags & OMPLENS_EVF_HASHED) {
    out_key(o, "hash");
    out_hex(o, e->hash);
  }
  if (e->kind == OMPLENS_EV_D2D) {
    out_key(o, "source_device");
    out_u64(o, (uint64_t)(int64_t)e->peer_device);
  }
  if (e->flags & OMPLENS_EVF_ASYNC)
    out_lit(o, ",\"async\":true");
  out_key(o, "directive");
  out_label(o, p, omplens_trace_codeptr(p->trace, e), e->region);
}

static const char *const group_cats[] = {"kernel", "transfer", "alloc"};

/* An operation's slice up to its cat; the categories of the findings
 * that mark it (cats[0, ncats)) go into its name and cat:
 * {"ph":"X","pid":1,"tid":2,"name":"H2D (round-trip)","cat":"transfer,finding,round-trip" */
static void slice_head(tl_out *o, const tl_proc *p, const omplens_event *e, int lane,
                       const tl_finding *const *cats, size_t ncats) {
  int group = event_group(e->kind);
  event_open(o, 'X', device_pid(p, device_slot(e->device)), tid_of(group, lane));
  out_lit(o, ",\"name\":\"");
  const char *name = event_name(e->kind);
  out_escaped(o, name, strlen(name));
  if (ncats) {
    out_lit(o, " (");
    out_categories(o, cats, ncats, 0);
    out_byte(o, ')');
  }
  out_lit(o, "\",\"cat\":\"");
  out_mem(o, group_cats[group], strlen(group_cats[group]));
  if (ncats) {
    out_lit(o, ",finding,");
    out_categories(o, cats, ncats, 1);
  }
  out_byte(o, '"');
}

/* The same when no finding marks the operation (a tl_maker). */
static void plain_head(tl_out *o, const tl_proc *p, const void *what, int lane) {
  slice_head(o, p, what, lane, NULL, 0);
}

/* The same, copied from p->heads: made once per slot, group, lane and
 * kind (a few dozen in all), where a million operations repeat them. */
static void out_plain_head(tl_out *o, tl_proc *p, const omplens_event *e, int lane) {
  int slot = device_slot(e->device);
  tl_text_ref *h = NULL;
  _Static_assert(TL_HEAD_KINDS == 16, "an event's kind is 4 bits");
  if (p->heads && slot < TL_HEAD_SLOTS)
    h = &p->heads[(((size_t)slot * TL_GROUPS + (size_t)event_group(e->kind)) * TL_SUBLANES +
                   (size_t)lane) * TL_HEAD_KINDS + e->kind];
  out_cached(o, p, h, plain_head, e, lane);
}

/* A kernel, transfer or allocation; marks[m, end) are its findings. */
static void event_slice(tl_writer *w, tl_proc *p, size_t i, size_t m, size_t end) {
  tl_out *o = &w->out;
  const omplens_event *e = &p->ev[i];
  const tl_finding *cats[TL_MAX_CATS];
  size_t ncats = mark_categories(p, m, end, cats);
  event_separator(w);
  if (ncats)
    slice_head(o, p, e, p->ev_lane[i], cats, ncats);
  else
    out_plain_head(o, p, e, p->ev_lane[i]);
  slice_times(o, p, e->begin_ns, e->end_ns);
  event_args(o, p, i);
  if (ncats) {
    out_lit(o, ",\"finding\":\"");
    out_categories(o, cats, ncats, 0);
    out_byte(o, '"');
    if (p->marks[m].related >= 0) {
      out_key(o, "related_event");
      out_u64(o, (uint64_t)p->marks[m].related);
    }
  }
  out_lit(o, "}}");
}

/* The instant on the device's findings track. */
static void finding_instant(tl_writer *w, tl_proc *p, const tl_mark *mk) {
  tl_out *o = &w->out;
  const omplens_event *e = &p->ev[mk->event];
  const tl_finding *fi = &p->finding_info[mk->finding];
  const char *category = fi->category ? fi->category : "finding";
  size_t len = fi->category ? fi->category_len : strlen(category);
  event_start(w, 'i', device_pid(p, device_slot(e->device)), tid_of(TL_FINDINGS, 0));
  out_lit(o, ",\"name\":\"");
  out_escaped(o, category, len);
  out_lit(o, "\",\"cat\":\"finding,");
  out_escaped(o, category, len);
  out_lit(o, "\",\"s\":\"t\",\"ts\":");
  out_us(o, at(p, e->begin_ns));
  out_lit(o, ",\"args\":{\"event\":");
  out_u64(o, mk->event);
  out_finding_args(o, p, mk->finding);
  if (mk->related >= 0 && (uint64_t)mk->related < p->nev) {
    out_key(o, "related_event");
    out_u64(o, (uint64_t)mk->related);
    out_key(o, "related_ts");
    out_us(o, at(p, p->ev[mk->related].begin_ns));
  }
  out_lit(o, "}}");
}

/* Second pass: regions and events merged in time order. The instants of
 * the findings come after them (trace_instants): an operation's slice
 * needs only which findings mark it, their texts may come later. */
static void slices(tl_writer *w, tl_proc *p) {
  size_t r = 0, m = 0;
  for (size_t i = 0; i <= p->nev; i++) {
    uint64_t t = i < p->nev ? p->ev[i].begin_ns : UINT64_MAX;
    for (; r < p->nrg && (p->rg[p->rg_order[r]].begin_ns <= t || i == p->nev); r++)
      region_slice(w, p, p->rg_order[r]);
    if (i == p->nev)
      break;
    while (m < p->nmarks && p->marks[m].event < i)
      m++;
    size_t end = m;
    while (end < p->nmarks && p->marks[end].event == i)
      end++;
    event_slice(w, p, i, m, end);
    m = end;
    if (w->progress && ++w->done % TL_PROGRESS_EVERY == 0)
      w->progress(w->progress_ctx, w->done, w->total);
  }
}

/* The host waits, on each thread's waits lanes: a synchronous construct's
 * whole slice, or a wait at a taskwait, taskgroup or barrier up to the end
 * of the nowait region that released it (docs/sarif-and-timeline.md). */
static void wait_slices(tl_writer *w, tl_proc *p) {
  tl_out *o = &w->out;
  size_t r = 0, k = 0;
  uint32_t region, wait;
  while (next_wait(p, &r, &k, &region, &wait)) {
    const omplens_trace_wait *x = wait != OMPLENS_NO_REGION ? &p->waits[wait] : NULL;
    uint32_t ri = x ? x->region : region;
    const omplens_region *rg = &p->rg[ri];
    uint32_t thread = x ? x->thread : rg->thread;
    uint64_t begin = x ? x->begin_ns : rg->begin_ns, end = end_of(begin, x ? x->end_ns : rg->end_ns);
    event_separator(w);
    event_open(o, 'X', host_pid(p),
               TL_WAIT_TIDS + (uint64_t)thread * TL_SUBLANES + (x ? p->wait_lane[wait] : p->rg_wait_lane[region]));
    if (x)
      out_lit(o, ",\"name\":\"host wait\",\"cat\":\"wait,nowait\"");
    else
      out_lit(o, ",\"name\":\"host wait\",\"cat\":\"wait\"");
    slice_times(o, p, begin, end);
    out_lit(o, ",\"args\":{\"region\":");
    out_u64(o, ri);
    out_key(o, "directive");
    out_label(o, p, rg->codeptr, ri);
    out_key(o, "construct");
    out_str(o, omplens_construct_kind_name(rg->kind));
    if (x) {
      out_key(o, "at");
      out_str(o, omplens_wait_kind_name(x->kind));
      out_key(o, "sync_end_ts"); /* where the thread went on */
      out_us(o, at(p, x->sync_end_ns));
    }
    out_key(o, "host_wait_ns");
    out_u64(o, end - begin);
    out_lit(o, "}}");
  }
}

/* ---- Metadata ---------------------------------------------------------- */

static void meta(tl_writer *w, const char *what, uint64_t pid, uint64_t tid, const char *name,
                 uint64_t sort) {
  tl_out *o = &w->out;
  event_start(w, 'M', pid, tid);
  out_lit(o, ",\"name\":\"");
  out_mem(o, what, strlen(what));
  out_lit(o, "_name\",\"args\":{\"name\":");
  out_str(o, name);
  out_lit(o, "}}");
  event_start(w, 'M', pid, tid);
  out_lit(o, ",\"name\":\"");
  out_mem(o, what, strlen(what));
  out_lit(o, "_sort_index\",\"args\":{\"sort_index\":");
  out_u64(o, sort);
  out_lit(o, "}}");
}

static void process_meta(tl_writer *w, const tl_proc *p, uint64_t pid, const char *what) {
  char name[TL_LABEL];
  snprintf(name, sizeof name, "%s (pid %d) %s", omplens_report__base_name(p->info->exe ? p->info->exe : "?"),
           (int)p->info->pid, what);
  meta(w, "process", pid, 0, name, pid);
}

static void lane_names(tl_writer *w, uint64_t pid, uint64_t first_tid, const tl_track *t,
                       const char *what) {
  char name[96];
  for (int lane = 0; lane < t->used; lane++) {
    if (lane)
      snprintf(name, sizeof name, "%s #%d", what, lane + 1);
    else
      snprintf(name, sizeof name, "%s", what);
    meta(w, "thread", pid, first_tid + (uint64_t)lane, name, first_tid + (uint64_t)lane);
  }
}

static void host_meta(tl_writer *w, const tl_proc *p) {
  process_meta(w, p, host_pid(p), "host");
  char what[48];
  for (uint32_t t = 0; t < p->nthreads; t++) {
    if (!p->thr_tracks[t])
      continue;
    snprintf(what, sizeof what, "thread %" PRIu32, t);
    lane_names(w, host_pid(p), (uint64_t)t * TL_SUBLANES + 1, p->thr_tracks[t], what);
  }
  char name[64];
  for (uint32_t t = 0; t < p->nthreads; t++) /* right under the thread's constructs */
    for (int lane = 0; p->wait_tracks[t] && lane < p->wait_tracks[t]->used; lane++) {
      snprintf(name, sizeof name, lane ? "thread %" PRIu32 " waits #%d" : "thread %" PRIu32 " waits", t,
               lane + 1);
      meta(w, "thread", host_pid(p), TL_WAIT_TIDS + (uint64_t)t * TL_SUBLANES + (uint64_t)lane, name,
           ((uint64_t)t + 1) * TL_SUBLANES);
    }
}

static void device_meta(tl_writer *w, const tl_proc *p) {
  char what[48];
  for (int slot = 0; slot < p->nslots; slot++) {
    tl_track *const *tracks = &p->dev_tracks[(size_t)slot * TL_GROUPS];
    if (!tracks[0] && !tracks[1] && !tracks[2] && !tracks[3])
      continue;
    if (slot)
      snprintf(what, sizeof what, "device %d", slot - 1);
    process_meta(w, p, device_pid(p, slot), slot ? what : "host device");
    for (int g = 0; g < TL_GROUPS; g++)
      if (tracks[g])
        lane_names(w, device_pid(p, slot), tid_of(g, 0),
                   g == TL_FINDINGS ? &(tl_track){.used = 1} : tracks[g], group_names[g]);
  }
}

/* ---- Processes --------------------------------------------------------- */

/* What only the constructs and operations needed. */
static void proc_free_events(tl_proc *p) {
  for (int i = 0; p->dev_tracks && i < p->nslots * TL_GROUPS; i++)
    free(p->dev_tracks[i]);
  for (uint32_t i = 0; p->thr_tracks && i < p->nthreads; i++)
    free(p->thr_tracks[i]);
  for (size_t i = 0; i < p->nlabels; i++)
    free(p->labels[i].label);
  free(p->dev_tracks);
  free(p->thr_tracks);
  for (uint32_t i = 0; p->wait_tracks && i < p->nthreads; i++)
    free(p->wait_tracks[i]);
  free(p->wait_tracks);
  free(p->rg_wait_lane);
  free(p->wait_lane);
  free(p->labels);
  free(p->label_cache);
  free(p->heads);
  free(p->region_heads);
  free(p->maps);
  free(p->ev_lane);
  free(p->rg_lane);
  free(p->rg_order);
  p->dev_tracks = NULL;
  p->thr_tracks = NULL;
  p->wait_tracks = NULL;
  p->rg_wait_lane = p->wait_lane = p->ev_lane = p->rg_lane = NULL;
  p->labels = NULL;
  p->nlabels = 0;
  p->label_cache = NULL;
  p->heads = p->region_heads = NULL;
  p->maps = NULL;
  p->rg_order = NULL;
}

static void proc_free(tl_proc *p) {
  proc_free_events(p);
  free(p->marks);
  free(p->finding_info);
  free(p->text.buf);
  p->marks = NULL;
  p->finding_info = NULL;
  p->text.buf = NULL;
}

/* A trace's constructs and operations, marked from marks_proc's
 * findings; p keeps what their instants need (trace_instants). */
static int trace_events(tl_writer *w, tl_proc *out, const omplens_trace *t,
                        const json_t *marks_proc, size_t index, uint64_t origin) {
  tl_proc p = {.info = omplens_trace_get_info(t), .index = index,
               .findings = json_object_get(marks_proc, "findings")};
  p.ev = omplens_trace_events(t, &p.nev);
  p.trace = t;
  p.rg = omplens_trace_regions(t, &p.nrg);
  p.args = omplens_trace_args(t, &p.nargs);
  p.waits = omplens_trace_waits(t, &p.nwaits);
  *out = (tl_proc){0};
  if (!p.info)
    return OMPLENS_REPORT_EINVAL;
  p.offset_ns = p.info->start_realtime_ns > origin ? p.info->start_realtime_ns - origin : 0;
  /* Sized by the trace's directives: a label per directive (and source)
   * is made once, however many there are. */
  size_t sites;
  omplens_trace_sites(t, &sites);
  for (p.label_slots = TL_LABEL_SLOTS; p.label_slots < 2 * sites; p.label_slots *= 2)
    ;
  p.label_cache = calloc(p.label_slots, sizeof *p.label_cache); /* NULL: labels uncached */
  int rc = load_labels(&p, marks_proc);
  rc = rc ? rc : load_marks(&p, w);
  rc = rc ? rc : layout(&p, w);
  if (!rc) {
    host_meta(w, &p);
    device_meta(w, &p);
    slices(w, &p);
    wait_slices(w, &p);
  }
  proc_free_events(&p);
  p.findings = NULL; /* marks_proc's: the texts are doc_proc's (trace_instants) */
  *out = p;
  return rc;
}

/* The instants of the findings trace_events() marked, in event order, with
 * the texts of doc_proc's findings: the same list as marks_proc's (the
 * document itself, or omplens_report_timeline_marks()'s list of it). */
static void trace_instants(tl_writer *w, tl_proc *p, const json_t *doc_proc) {
  p->findings = json_object_get(doc_proc, "findings");
  for (size_t i = 0; i < p->nfindings; i++) /* the same, from the document: marks_proc may be gone */
    set_category(&p->finding_info[i], json_array_get(p->findings, i));
  for (size_t m = 0; m < p->nmarks; m++)
    finding_instant(w, p, &p->marks[m]);
}

static int render_trace(tl_writer *w, const omplens_trace *t, const json_t *doc_proc,
                        size_t index, uint64_t origin) {
  tl_proc p;
  int rc = trace_events(w, &p, t, doc_proc, index, origin);
  if (!rc)
    trace_instants(w, &p, doc_proc);
  proc_free(&p);
  return rc;
}

/* The instances of one finding of a process without trace, on the
 * findings track of its device (tid: device + 2, the host 1). */
static void doc_only_finding(tl_writer *w, const json_t *f, uint64_t pid, uint64_t offset) {
  tl_out *o = &w->out;
  const json_t *dev = json_object_get(f, "device"), *loc = json_object_get(f, "location");
  const char *category = omplens_report__str_at(f, "category") ? omplens_report__str_at(f, "category") : "finding";
  uint64_t tid = json_is_integer(dev) ? (uint64_t)json_integer_value(dev) + 2 : 1;
  char where[TL_LABEL];
  if (json_is_integer(dev))
    snprintf(where, sizeof where, "findings on device %" JSON_INTEGER_FORMAT,
             json_integer_value(dev));
  else
    snprintf(where, sizeof where, "findings on the host");
  meta(w, "thread", pid, tid, where, tid); /* repeated per finding: the same name */
  if (doc_label(loc, where, sizeof where))
    snprintf(where, sizeof where, "%s", omplens_report__str_at(loc, "codeptr") ? omplens_report__str_at(loc, "codeptr") : "?");
  size_t j;
  const json_t *inst;
  json_array_foreach(json_object_get(f, "instances"), j, inst) {
    event_start(w, 'i', pid, tid);
    out_key(o, "name");
    out_str(o, category);
    out_lit(o, ",\"cat\":\"finding,");
    out_escaped(o, category, strlen(category));
    out_lit(o, "\",\"s\":\"t\",\"ts\":");
    out_us(o, (uint64_t)omplens_report__int_at(inst, "time_ns") + offset);
    out_lit(o, ",\"args\":{\"message\":");
    out_str(o, finding_message(f));
    out_key(o, "directive");
    out_str(o, where);
    out_key(o, "bytes");
    out_u64(o, (uint64_t)omplens_report__int_at(inst, "bytes"));
    out_key(o, "duration_ns");
    out_u64(o, (uint64_t)omplens_report__int_at(inst, "duration_ns"));
    out_lit(o, "}}");
  }
}

/* A process of the document whose trace was not given: its findings'
 * instances, from the document alone, as instants. */
static void render_doc_only(tl_writer *w, const json_t *proc, size_t index, uint64_t origin) {
  uint64_t start = (uint64_t)omplens_report__int_at(proc, "start_unix_ns");
  uint64_t offset = start > origin ? start - origin : 0, pid = (index + 1) * TL_PID_STRIDE;
  char name[TL_LABEL];
  const char *exe = omplens_report__str_at(proc, "executable");
  snprintf(name, sizeof name, "%s (pid %" JSON_INTEGER_FORMAT ") findings, no trace",
           omplens_report__base_name(exe ? exe : "?"), omplens_report__int_at(proc, "pid"));
  meta(w, "process", pid, 0, name, pid);
  size_t i;
  const json_t *f;
  json_array_foreach(json_object_get(proc, "findings"), i, f)
    doc_only_finding(w, f, pid, offset);
}

/* ---- The file ---------------------------------------------------------- */

/* The document's process for a trace: same trace path, else same pid. */
static const json_t *match_process(const json_t *procs, const omplens_trace *t, char *used) {
  const omplens_trace_info *info = omplens_trace_get_info(t);
  const char *path = omplens_trace_path(t);
  size_t i;
  const json_t *proc;
  for (int pass = 0; pass < 2; pass++)
    json_array_foreach(procs, i, proc) {
      const char *tp = omplens_report__str_at(proc, "trace");
      int same = pass == 0 ? (path && tp && !strcmp(path, tp))
                           : (info && omplens_report__int_at(proc, "pid") == info->pid);
      if (!used[i] && same) {
        used[i] = 1;
        return proc;
      }
    }
  return NULL;
}

/* Time zero of the file: the earliest start among the processes. */
static uint64_t origin_of(const json_t *procs, const omplens_trace *const *traces, size_t n) {
  uint64_t origin = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    const omplens_trace_info *info = omplens_trace_get_info(traces[i]);
    if (info && info->start_realtime_ns && info->start_realtime_ns < origin)
      origin = info->start_realtime_ns;
  }
  size_t i;
  const json_t *proc;
  json_array_foreach(procs, i, proc) {
    json_int_t s = omplens_report__int_at(proc, "start_unix_ns");
    if (s > 0 && (uint64_t)s < origin)
      origin = (uint64_t)s;
  }
  return origin == UINT64_MAX ? 0 : origin;
}

/* ,"key":"n" when n is not 0. */
static void out_count(tl_out *o, const char *key, uint64_t n) {
  if (!n)
    return;
  out_lit(o, ",\"");
  out_mem(o, key, strlen(key));
  out_lit(o, "\":\"");
  out_decimal(o, n);
  out_byte(o, '"');
}

/* What a limited document (omplens_report_document_limited) left out:
 * findings, and instances of the findings it lists. Those are not marked. */
static void omitted(const json_t *doc, uint64_t *findings, uint64_t *instances) {
  size_t i, j;
  const json_t *proc, *f;
  *findings = *instances = 0;
  json_array_foreach(json_object_get(doc, "processes"), i, proc) {
    *findings += (uint64_t)omplens_report__int_at(proc, "findings_omitted");
    json_array_foreach(json_object_get(proc, "findings"), j, f)
      *instances += (uint64_t)omplens_report__int_at(f, "instances_omitted");
  }
}

static void other_data(tl_writer *w, const json_t *doc, const omplens_trace_info *const *infos,
                       size_t n, uint64_t origin) {
  tl_out *o = &w->out;
  const char *version = omplens_report__str_at(doc, "omplens_version");
  out_lit(o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tool\":\"omplens\"");
  out_key(o, "omplens_version");
  out_str(o, version ? version : OMPLENS_VERSION);
  out_lit(o, ",\"time_origin_unix_ns\":\"");
  out_decimal(o, origin);
  out_byte(o, '"');
  for (size_t i = 0; i < n; i++) {
    const omplens_trace_info *info = infos[i];
    char value[TL_LABEL];
    snprintf(value, sizeof value, "%s (pid %d)%s", info && info->cmdline ? info->cmdline : "?",
             info ? (int)info->pid : 0, info && !info->complete ? ", trace incomplete" : "");
    out_lit(o, ",\"process_");
    out_decimal(o, i + 1);
    out_lit(o, "\":");
    out_str(o, value);
  }
  uint64_t findings, instances;
  omitted(doc, &findings, &instances);
  out_count(o, "overlapping_slices", w->overflows);
  out_count(o, "unmatched_finding_instances", w->unmatched);
  out_count(o, "findings_omitted", findings);
  out_count(o, "instances_omitted", instances);
  out_lit(o, "}}\n");
}

int omplens_render_timeline(const json_t *doc, const omplens_trace *const *traces,
                            size_t num_traces, FILE *out) {
  return omplens_render_timeline_with(doc, traces, num_traces, NULL, NULL, out);
}

/* timeline.json being written: in one step (omplens_render_timeline_with)
 * or between omplens_render_timeline_begin() and _end(). */
struct omplens_timeline {
  tl_writer w;
  FILE *out;
  const omplens_trace *const *traces;
  size_t num_traces;
  tl_proc *procs; /* by trace, between the steps: what its instants need */
  uint64_t origin;
  int rc;
};

static bool valid_document(const json_t *doc) {
  return (!doc || json_is_object(doc)) &&
         omplens_report__int_at(doc, "schema_version") <= OMPLENS_FINDINGS_SCHEMA_VERSION;
}

/* The file's start, its origin from doc's processes (or the marks'); NULL
 * without memory. */
static omplens_timeline *timeline_open(const json_t *doc, const omplens_trace *const *traces,
                                       size_t num_traces, omplens_render_progress progress,
                                       void *progress_ctx, FILE *out) {
  omplens_timeline *tl = calloc(1, sizeof *tl);
  char *buf = malloc(TL_OUT_BUF);
  tl_proc *procs = calloc(num_traces + 1, sizeof *procs);
  if (!tl || !buf || !procs) {
    free(tl);
    free(buf);
    free(procs);
    return NULL;
  }
  *tl = (omplens_timeline){{{out, buf, 0, TL_OUT_BUF, 0}, 1, 0, 0, progress, progress_ctx, 0, 0},
                           out, traces, num_traces, procs, 0, 0};
  for (size_t i = 0; i < num_traces; i++) {
    size_t n = 0;
    if (traces[i])
      omplens_trace_events(traces[i], &n);
    tl->w.total += n;
  }
  tl->origin = origin_of(json_object_get(doc, "processes"), traces, num_traces);
  out_lit(&tl->w.out, "{\"traceEvents\":[\n");
  return tl;
}

/* The processes of doc without a trace (used: those with one), the file's
 * end; frees tl and returns how it went. */
static int timeline_close(omplens_timeline *tl, const json_t *doc, const char *used) {
  tl_writer *w = &tl->w;
  int rc = tl->rc;
  size_t i;
  const json_t *proc;
  json_array_foreach(json_object_get(doc, "processes"), i, proc)
    if (!rc && !used[i])
      render_doc_only(w, proc, tl->num_traces + i, tl->origin);
  const omplens_trace_info **infos = calloc(tl->num_traces + 1, sizeof *infos);
  for (size_t k = 0; infos && k < tl->num_traces; k++)
    infos[k] = omplens_trace_get_info(tl->traces[k]);
  if (!infos && !rc)
    rc = OMPLENS_REPORT_ENOMEM;
  if (infos)
    other_data(w, doc, infos, tl->num_traces, tl->origin);
  free(infos);
  out_flush(&w->out);
  if (w->progress)
    w->progress(w->progress_ctx, w->total, w->total);
  free(w->out.buf);
  if (!rc && (w->out.failed || fflush(tl->out) || ferror(tl->out)))
    rc = OMPLENS_REPORT_EIO;
  for (size_t k = 0; k < tl->num_traces; k++)
    proc_free(&tl->procs[k]);
  free(tl->procs);
  free(tl);
  return rc;
}

int omplens_render_timeline_with(const json_t *doc, const omplens_trace *const *traces,
                                 size_t num_traces, omplens_render_progress progress,
                                 void *progress_ctx, FILE *out) {
  if (!out || !valid_document(doc) || (num_traces && !traces))
    return OMPLENS_REPORT_EINVAL;
  const json_t *procs = json_object_get(doc, "processes");
  char *used = calloc(json_array_size(procs) + 1, 1);
  omplens_timeline *tl = used ? timeline_open(doc, traces, num_traces, progress, progress_ctx, out)
                              : NULL;
  if (!tl) {
    free(used);
    return OMPLENS_REPORT_ENOMEM;
  }
  /* Each trace's instants right after its operations, as a report made in
   * parts writes them. */
  for (size_t i = 0; !tl->rc && i < num_traces; i++)
    if (traces[i])
      tl->rc = render_trace(&tl->w, traces[i], match_process(procs, traces[i], used), i,
                            tl->origin);
  int rc = timeline_close(tl, doc, used);
  free(used);
  return rc;
}

int omplens_render_timeline_begin(const json_t *marks, const omplens_trace *const *traces,
                                  size_t num_traces, omplens_render_progress progress,
                                  void *progress_ctx, FILE *out, omplens_timeline **timeline) {
  *timeline = NULL;
  if (!out || !valid_document(marks) || (num_traces && !traces))
    return OMPLENS_REPORT_EINVAL;
  const json_t *procs = json_object_get(marks, "processes");
  char *used = calloc(json_array_size(procs) + 1, 1);
  omplens_timeline *tl =
      used ? timeline_open(marks, traces, num_traces, progress, progress_ctx, out) : NULL;
  if (!tl) {
    free(used);
    return OMPLENS_REPORT_ENOMEM;
  }
  for (size_t i = 0; !tl->rc && i < num_traces; i++)
    if (traces[i])
      tl->rc = trace_events(&tl->w, &tl->procs[i], traces[i], match_process(procs, traces[i], used),
                            i, tl->origin);
  free(used);
  *timeline = tl;
  return 0;
}

int omplens_render_timeline_end(omplens_timeline *tl, const json_t *doc) {
  if (!tl)
    return OMPLENS_REPORT_EINVAL;
  const json_t *procs = json_object_get(doc, "processes");
  char *used = calloc(json_array_size(procs) + 1, 1);
  if (!tl->rc && !valid_document(doc))
    tl->rc = OMPLENS_REPORT_EINVAL;
  if (!tl->rc && !used)
    tl->rc = OMPLENS_REPORT_ENOMEM;
  /* The document's process of a trace is the one its marks came from: the
   * same processes, matched the same way. */
  for (size_t i = 0; !tl->rc && i < tl->num_traces; i++)
    if (tl->traces[i])
      trace_instants(&tl->w, &tl->procs[i], match_process(procs, tl->traces[i], used));
  int rc = timeline_close(tl, doc, used ? used : "");
  free(used);
  return rc;
}

/* ---- timeline.json in parts, one trace at a time (report_parts.c) ------- */

static int part_result(tl_writer *w, FILE *out, int rc) {
  out_flush(&w->out);
  free(w->out.buf);
  if (!rc && (w->out.failed || fflush(out) || ferror(out)))
    rc = OMPLENS_REPORT_EIO;
  return rc;
}

int omplens_render__timeline_head(FILE *out) {
  tl_writer w = {{out, malloc(TL_OUT_BUF), 0, TL_OUT_BUF, 0}, 1, 0, 0, NULL, NULL, 0, 0};
  if (!w.out.buf)
    return OMPLENS_REPORT_ENOMEM;
  out_lit(&w.out, "{\"traceEvents\":[\n");
  return part_result(&w, out, 0);
}

int omplens_render__timeline_trace(const json_t *doc_proc, const omplens_trace *t, size_t index,
                                   uint64_t origin, FILE *out, omplens_render__timeline_counts *c) {
  tl_writer w = {{out, malloc(TL_OUT_BUF), 0, TL_OUT_BUF, 0}, 1, 0, 0, NULL, NULL, 0, 0};
  if (!w.out.buf)
    return OMPLENS_REPORT_ENOMEM;
  size_t n = 0;
  omplens_trace_events(t, &n);
  w.total = n;
  int rc = render_trace(&w, t, doc_proc, index, origin);
  c->overflows = w.overflows;
  c->unmatched = w.unmatched;
  c->events = !w.first;
  return part_result(&w, out, rc);
}

int omplens_render__timeline_separator(FILE *out) {
  return fputs(",\n", out) == EOF ? OMPLENS_REPORT_EIO : 0;
}

int omplens_render__timeline_tail(const json_t *doc, const omplens_trace_info *const *infos,
                                  size_t n, uint64_t origin,
                                  const omplens_render__timeline_counts *sum, FILE *out) {
  tl_writer w = {{out, malloc(TL_OUT_BUF), 0, TL_OUT_BUF, 0}, 1, 0, 0, NULL, NULL, 0, 0};
  if (!w.out.buf)
    return OMPLENS_REPORT_ENOMEM;
  w.overflows = sum->overflows;
  w.unmatched = sum->unmatched;
  other_data(&w, doc, infos, n, origin);
  return part_result(&w, out, 0);
}

uint64_t omplens_render__timeline_origin(const uint64_t *start_ns, size_t n) {
  uint64_t origin = UINT64_MAX;
  for (size_t i = 0; i < n; i++)
    if (start_ns[i] && start_ns[i] < origin)
      origin = start_ns[i];
  return origin == UINT64_MAX ? 0 : origin;
}
