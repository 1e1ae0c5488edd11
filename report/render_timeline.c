/* timeline.json renderer: Chrome trace-event JSON that Perfetto and
 * chrome://tracing load. Streamed with stdio, one event per line, so a trace
 * of millions of events never becomes a JSON tree in memory.
 * Layout (docs/sarif-and-timeline.md): per traced process, one Perfetto
 * process for the host threads (target regions) and one per device (kernels,
 * transfers, allocations, findings); findings from the document mark the
 * operations they name. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_config.h"
#include "omplens_render.h"
#include "report_internal.h"

#define TL_SUBLANES 16       /* lanes per track before overlaps are tolerated */
#define TL_NEST 8            /* nesting depth followed per lane */
#define TL_PID_STRIDE 100000 /* pid = (process + 1) * stride + slot */
#define TL_LABEL 512

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

typedef struct tl_writer {
  FILE *f;
  int first;          /* no event written yet */
  uint64_t overflows; /* slices that had to overlap on a full track */
  uint64_t unmatched; /* finding instances naming no event of their trace */
} tl_writer;

/* One traced process being rendered. */
typedef struct tl_proc {
  const omplens_trace_info *info;
  const omplens_event *ev;
  size_t nev;
  const omplens_region *rg;
  size_t nrg;
  const omplens_map_arg *args;
  size_t nargs;
  const json_t *findings;  /* the document's findings of this process, or NULL */
  size_t index;            /* position among rendered processes: the pid */
  uint64_t offset_ns;      /* trace start minus the timeline's origin */
  uint8_t *ev_lane, *rg_lane;
  size_t *rg_order;        /* regions by begin time, longest first on ties */
  tl_mark *marks;          /* by event, then finding */
  size_t nmarks;
  int nslots;              /* device slots: host device, then devices 0.. */
  tl_track **dev_tracks;   /* [slot * TL_GROUPS + group], NULL when unused */
  uint32_t nthreads;
  tl_track **thr_tracks;   /* [thread] */
  tl_label_entry *labels;  /* from the document, by codeptr */
  size_t nlabels;
  uint64_t cached_codeptr; /* one-entry cache of label() */
  uint32_t cached_region;
  char cached[TL_LABEL];
} tl_proc;

/* ---- JSON output ------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p, 0 when invalid. */
static size_t utf8_length(const unsigned char *p) {
  unsigned c = p[0];
  int cont = (p[1] & 0xc0) == 0x80;
  if (c >= 0xc2 && c <= 0xdf)
    return cont ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
  }
  return 0;
}

/* A JSON string. Invalid UTF-8 becomes U+FFFD; '<', '>' and '&' are escaped
 * so that the file can sit inside a <script> element, and U+2028/2029 so
 * that it stays valid JavaScript. */
static void put_str(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  putc('"', f);
  while (*p) {
    if (*p == '"' || *p == '\\') {
      putc('\\', f);
      putc(*p++, f);
    } else if (*p < 0x20 || *p == 0x7f || *p == '<' || *p == '>' || *p == '&') {
      fprintf(f, "\\u%04x", *p++);
    } else if (*p < 0x80) {
      putc(*p++, f);
    } else {
      size_t n = utf8_length(p);
      if (!n)
        fputs("\\ufffd", f), p++;
      else if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
        fprintf(f, "\\u%04x", 0x2000 + (p[2] & 0x3f)), p += 3;
      else
        fwrite(p, 1, n, f), p += n;
    }
  }
  putc('"', f);
}

/* Microseconds with three decimals, from nanoseconds, without rounding. */
static void put_us(FILE *f, uint64_t ns) {
  fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* JSON parsers stop at 2^63; larger values (damaged traces) go as strings. */
static void put_u64(FILE *f, uint64_t v) {
  fprintf(f, v > (uint64_t)INT64_MAX ? "\"%" PRIu64 "\"" : "%" PRIu64, v);
}

static void event_start(tl_writer *w, const char *ph, uint64_t pid, uint64_t tid) {
  fprintf(w->f, "%s{\"ph\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64, w->first ? "" : ",\n",
          ph, pid, tid);
  w->first = 0;
}

static void field_str(FILE *f, const char *key, const char *value) {
  fprintf(f, ",\"%s\":", key);
  put_str(f, value);
}

static void field_u64(FILE *f, const char *key, uint64_t value) {
  fprintf(f, ",\"%s\":", key);
  put_u64(f, value);
}

static void field_hex(FILE *f, const char *key, uint64_t value) {
  fprintf(f, ",\"%s\":\"0x%" PRIx64 "\"", key, value);
}

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
static const char *label(tl_proc *p, uint64_t codeptr, uint32_t region) {
  if (p->cached[0] && p->cached_codeptr == codeptr && p->cached_region == region)
    return p->cached;
  tl_label_entry key = {codeptr, NULL};
  const tl_label_entry *e =
      p->nlabels ? bsearch(&key, p->labels, p->nlabels, sizeof key, label_cmp) : NULL;
  const char *source = region < p->nrg ? p->rg[region].source : NULL;
  if (e)
    snprintf(p->cached, sizeof p->cached, "%s", e->label);
  else if (source_label(source, p->cached, sizeof p->cached))
    module_label(p, codeptr, p->cached, sizeof p->cached);
  p->cached_codeptr = codeptr;
  p->cached_region = region;
  return p->cached;
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
  const omplens_region *x = &rg[*(const size_t *)a], *y = &rg[*(const size_t *)b];
  if (x->begin_ns != y->begin_ns)
    return x->begin_ns < y->begin_ns ? -1 : 1;
  if (x->end_ns != y->end_ns)
    return x->end_ns > y->end_ns ? -1 : 1;
  return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Sizes the track tables from the events and regions. */
static int alloc_layout(tl_proc *p) {
  int max_dev = -1;
  uint32_t max_thr = 0;
  for (size_t i = 0; i < p->nev; i++)
    max_dev = p->ev[i].device > max_dev ? p->ev[i].device : max_dev;
  for (size_t i = 0; i < p->nrg; i++)
    max_thr = p->rg[i].thread + 1 > max_thr ? p->rg[i].thread + 1 : max_thr;
  p->nslots = max_dev + 2;
  p->nthreads = max_thr;
  p->dev_tracks = calloc((size_t)p->nslots * TL_GROUPS, sizeof *p->dev_tracks);
  p->thr_tracks = calloc(max_thr + 1, sizeof *p->thr_tracks);
  p->ev_lane = malloc(p->nev + 1);
  p->rg_lane = malloc(p->nrg + 1);
  p->rg_order = malloc((p->nrg + 1) * sizeof *p->rg_order);
  if (!p->dev_tracks || !p->thr_tracks || !p->ev_lane || !p->rg_lane || !p->rg_order)
    return OMPLENS_REPORT_ENOMEM;
  for (size_t i = 0; i < p->nrg; i++)
    p->rg_order[i] = i;
  qsort_r(p->rg_order, p->nrg, sizeof *p->rg_order, region_cmp, (void *)p->rg);
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
  return 0;
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

static int load_marks(tl_proc *p, tl_writer *w) {
  size_t i, j, cap = 0;
  const json_t *f, *inst;
  json_array_foreach(p->findings, i, f) {
    json_array_foreach(json_object_get(f, "instances"), j, inst) {
      uint32_t event;
      if (instance_event(p, inst, &event)) {
        w->unmatched++;
        continue;
      }
      if (p->nmarks == cap) {
        cap = cap ? 2 * cap : 64;
        tl_mark *n = realloc(p->marks, cap * sizeof *n);
        if (!n)
          return OMPLENS_REPORT_ENOMEM;
        p->marks = n;
      }
      json_t *rel = json_object_get(inst, "related_event");
      p->marks[p->nmarks++] =
          (tl_mark){event, (uint32_t)i, json_is_integer(rel) ? json_integer_value(rel) : -1};
    }
  }
  if (p->nmarks)
    qsort(p->marks, p->nmarks, sizeof *p->marks, mark_cmp);
  return 0;
}

/* What a finding says, for the instant event. */
static const char *finding_message(const json_t *f) {
  static const struct { const char *category, *text; } texts[] = {
    {"duplicate-transfer", "the receiver already had this content from the same buffer"},
    {"duplicate-content", "the receiver already had this content from another buffer"},
    {"round-trip", "this copy brings back data that did not change"},
    {"repeated-alloc", "the same buffer was allocated again with the same size"},
    {"unused-alloc", "no kernel ran on the device while this allocation lived"},
    {"unused-transfer", "no kernel read this copy before it was overwritten or the run ended"},
  };
  const char *explanation = omplens_report__str_at(f, "explanation"), *category = omplens_report__str_at(f, "category");
  if (explanation && *explanation)
    return explanation;
  for (size_t i = 0; category && i < sizeof texts / sizeof texts[0]; i++)
    if (!strcmp(texts[i].category, category))
      return texts[i].text;
  return "wasted data movement";
}

/* ---- Slices ------------------------------------------------------------ */

/* The host threads' process, then the device processes by slot. */
static uint64_t host_pid(const tl_proc *p) { return (uint64_t)(p->index + 1) * TL_PID_STRIDE; }

static uint64_t device_pid(const tl_proc *p, int slot) { return host_pid(p) + 1 + (uint64_t)slot; }

static uint64_t tid_of(int group, int lane) { return (uint64_t)group * TL_SUBLANES + (uint64_t)lane + 1; }

static uint64_t at(const tl_proc *p, uint64_t ns) {
  return ns > UINT64_MAX - p->offset_ns ? UINT64_MAX : ns + p->offset_ns;
}

static void slice_times(tl_writer *w, const tl_proc *p, uint64_t begin, uint64_t end) {
  fputs(",\"ts\":", w->f);
  put_us(w->f, at(p, begin));
  fputs(",\"dur\":", w->f);
  put_us(w->f, end > begin ? end - begin : 0);
}

/* "to a[0:n], from b[0:n]": the named map items of a region. */
static void map_list(const tl_proc *p, const omplens_region *r, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < r->num_args && (size_t)r->first_arg + i < p->nargs && n < size; i++) {
    const omplens_map_arg *a = &p->args[r->first_arg + i];
    if (!a->name || a->name[0] != ';')
      continue;
    const char *end = strchr(a->name + 1, ';');
    int len = end ? (int)(end - a->name - 1) : (int)strlen(a->name + 1);
    unsigned dir = (unsigned)(a->type & (OMPLENS_MAPBIT_TO | OMPLENS_MAPBIT_FROM));
    static const char *const dirs[] = {"alloc", "to", "from", "tofrom"};
    n += (size_t)snprintf(buf + n, size - n, "%s%s %.*s", n ? ", " : "", dirs[dir], len,
                          a->name + 1);
  }
}

static void region_slice(tl_writer *w, tl_proc *p, size_t i) {
  const omplens_region *r = &p->rg[i];
  const char *kind = omplens_construct_kind_name(r->kind);
  event_start(w, "X", host_pid(p), (uint64_t)r->thread * TL_SUBLANES + p->rg_lane[i] + 1);
  field_str(w->f, "name", kind ? kind : "construct");
  field_str(w->f, "cat", "region");
  slice_times(w, p, r->begin_ns, r->end_ns);
  fputs(",\"args\":{\"region\":", w->f);
  put_u64(w->f, i);
  field_str(w->f, "directive", label(p, r->codeptr, (uint32_t)i));
  if (r->device >= 0)
    field_u64(w->f, "device", (uint64_t)r->device);
  else
    field_str(w->f, "device", "host");
  char maps[TL_LABEL];
  map_list(p, r, maps, sizeof maps);
  if (maps[0])
    field_str(w->f, "maps", maps);
  if (r->nowait)
    fputs(",\"nowait\":true", w->f);
  if (r->end_ns <= r->begin_ns)
    fputs(",\"end_recorded\":false", w->f);
  fputs("}}", w->f);
}

static const char *event_name(int kind) {
  switch (kind) {
  case OMPLENS_EV_H2D: return "H2D";
  case OMPLENS_EV_D2H: return "D2H";
  case OMPLENS_EV_D2D: return "D2D";
  default: return omplens_event_kind_name(kind) ? omplens_event_kind_name(kind) : "event";
  }
}

/* The categories of the findings that name this event, "a, b". */
static void mark_categories(const tl_proc *p, size_t m, size_t end, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = 0;
  for (size_t k = m; k < end && n < size; k++) {
    const char *c = omplens_report__str_at(json_array_get(p->findings, p->marks[k].finding), "category");
    if (c && !strstr(buf, c))
      n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", c);
  }
}

static void event_args(tl_writer *w, tl_proc *p, size_t i) {
  const omplens_event *e = &p->ev[i];
  fputs(",\"args\":{\"event\":", w->f);
  put_u64(w->f, i);
  if (e->kind == OMPLENS_EV_KERNEL) {
    if (e->bytes)
      field_u64(w->f, "teams", e->bytes);
  } else {
    field_u64(w->f, "bytes", e->bytes);
    if (e->host_addr)
      field_hex(w->f, "host_addr", e->host_addr);
    field_hex(w->f, "device_addr", e->dev_addr);
  }
  if (e->flags & OMPLENS_EVF_HASHED)
    field_hex(w->f, "hash", e->hash);
  if (e->kind == OMPLENS_EV_D2D)
    field_u64(w->f, "source_device", (uint64_t)(int64_t)e->peer_device);
  if (e->flags & OMPLENS_EVF_ASYNC)
    fputs(",\"async\":true", w->f);
  field_str(w->f, "directive", label(p, e->codeptr, e->region));
}

/* A kernel, transfer or allocation; marks[m, end) are its findings. */
static void event_slice(tl_writer *w, tl_proc *p, size_t i, size_t m, size_t end) {
  const omplens_event *e = &p->ev[i];
  int group = event_group(e->kind);
  char cats[256], name[320], cat[320];
  mark_categories(p, m, end, cats, sizeof cats);
  snprintf(name, sizeof name, cats[0] ? "%s (%s)" : "%s", event_name(e->kind), cats);
  snprintf(cat, sizeof cat, "%s%s%s", group == TL_KERNELS ? "kernel" :
           group == TL_TRANSFERS ? "transfer" : "alloc", cats[0] ? ",finding," : "", cats);
  for (char *c = cat; *c; c++)
    if (*c == ' ')
      memmove(c, c + 1, strlen(c));
  event_start(w, "X", device_pid(p, device_slot(e->device)), tid_of(group, p->ev_lane[i]));
  field_str(w->f, "name", name);
  field_str(w->f, "cat", cat);
  slice_times(w, p, e->begin_ns, e->end_ns);
  event_args(w, p, i);
  if (cats[0]) {
    field_str(w->f, "finding", cats);
    if (p->marks[m].related >= 0)
      field_u64(w->f, "related_event", (uint64_t)p->marks[m].related);
  }
  fputs("}}", w->f);
}

/* The instant on the device's findings track. */
static void finding_instant(tl_writer *w, tl_proc *p, const tl_mark *mk) {
  const omplens_event *e = &p->ev[mk->event];
  const json_t *f = json_array_get(p->findings, mk->finding);
  const char *category = omplens_report__str_at(f, "category") ? omplens_report__str_at(f, "category") : "finding";
  char cat[128];
  snprintf(cat, sizeof cat, "finding,%s", category);
  event_start(w, "i", device_pid(p, device_slot(e->device)), tid_of(TL_FINDINGS, 0));
  field_str(w->f, "name", category);
  field_str(w->f, "cat", cat);
  fputs(",\"s\":\"t\",\"ts\":", w->f);
  put_us(w->f, at(p, e->begin_ns));
  fputs(",\"args\":{\"event\":", w->f);
  put_u64(w->f, mk->event);
  field_str(w->f, "message", finding_message(f));
  const json_t *var = json_object_get(f, "variable");
  if (omplens_report__str_at(var, "item"))
    field_str(w->f, "variable", omplens_report__str_at(var, "item"));
  const char *fix = omplens_report__str_at(json_object_get(f, "fix"), "summary");
  if (fix)
    field_str(w->f, "fix", fix);
  field_u64(w->f, "finding_count", (uint64_t)omplens_report__int_at(f, "count"));
  field_u64(w->f, "finding_savings_ns", (uint64_t)omplens_report__int_at(f, "savings_ns"));
  if (mk->related >= 0 && (uint64_t)mk->related < p->nev) {
    field_u64(w->f, "related_event", (uint64_t)mk->related);
    fputs(",\"related_ts\":", w->f);
    put_us(w->f, at(p, p->ev[mk->related].begin_ns));
  }
  fputs("}}", w->f);
}

/* Second pass: regions and events merged in time order, each event
 * followed by the instants of its findings. */
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
    for (; m < end; m++)
      finding_instant(w, p, &p->marks[m]);
  }
}

/* ---- Metadata ---------------------------------------------------------- */

static void meta(tl_writer *w, const char *what, uint64_t pid, uint64_t tid, const char *name,
                 uint64_t sort) {
  event_start(w, "M", pid, tid);
  fprintf(w->f, ",\"name\":\"%s_name\",\"args\":{\"name\":", what);
  put_str(w->f, name);
  fputs("}}", w->f);
  event_start(w, "M", pid, tid);
  fprintf(w->f, ",\"name\":\"%s_sort_index\",\"args\":{\"sort_index\":%" PRIu64 "}}", what, sort);
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

static void proc_free(tl_proc *p) {
  for (int i = 0; p->dev_tracks && i < p->nslots * TL_GROUPS; i++)
    free(p->dev_tracks[i]);
  for (uint32_t i = 0; p->thr_tracks && i < p->nthreads; i++)
    free(p->thr_tracks[i]);
  for (size_t i = 0; i < p->nlabels; i++)
    free(p->labels[i].label);
  free(p->dev_tracks);
  free(p->thr_tracks);
  free(p->labels);
  free(p->marks);
  free(p->ev_lane);
  free(p->rg_lane);
  free(p->rg_order);
}

static int render_trace(tl_writer *w, const omplens_trace *t, const json_t *doc_proc,
                        size_t index, uint64_t origin) {
  tl_proc p = {.info = omplens_trace_get_info(t), .index = index,
               .findings = json_object_get(doc_proc, "findings")};
  p.ev = omplens_trace_events(t, &p.nev);
  p.rg = omplens_trace_regions(t, &p.nrg);
  p.args = omplens_trace_args(t, &p.nargs);
  if (!p.info)
    return OMPLENS_REPORT_EINVAL;
  p.offset_ns = p.info->start_realtime_ns > origin ? p.info->start_realtime_ns - origin : 0;
  int rc = load_labels(&p, doc_proc);
  rc = rc ? rc : load_marks(&p, w);
  rc = rc ? rc : layout(&p, w);
  if (!rc) {
    host_meta(w, &p);
    device_meta(w, &p);
    slices(w, &p);
  }
  proc_free(&p);
  return rc;
}

/* The instances of one finding of a process without trace, on the
 * findings track of its device (tid: device + 2, the host 1). */
static void doc_only_finding(tl_writer *w, const json_t *f, uint64_t pid, uint64_t offset) {
  const json_t *dev = json_object_get(f, "device"), *loc = json_object_get(f, "location");
  const char *category = omplens_report__str_at(f, "category") ? omplens_report__str_at(f, "category") : "finding";
  uint64_t tid = json_is_integer(dev) ? (uint64_t)json_integer_value(dev) + 2 : 1;
  char cat[128], where[TL_LABEL];
  if (json_is_integer(dev))
    snprintf(where, sizeof where, "findings on device %" JSON_INTEGER_FORMAT,
             json_integer_value(dev));
  else
    snprintf(where, sizeof where, "findings on the host");
  meta(w, "thread", pid, tid, where, tid); /* repeated per finding: the same name */
  snprintf(cat, sizeof cat, "finding,%s", category);
  if (doc_label(loc, where, sizeof where))
    snprintf(where, sizeof where, "%s", omplens_report__str_at(loc, "codeptr") ? omplens_report__str_at(loc, "codeptr") : "?");
  size_t j;
  const json_t *inst;
  json_array_foreach(json_object_get(f, "instances"), j, inst) {
    event_start(w, "i", pid, tid);
    field_str(w->f, "name", category);
    field_str(w->f, "cat", cat);
    fputs(",\"s\":\"t\",\"ts\":", w->f);
    put_us(w->f, (uint64_t)omplens_report__int_at(inst, "time_ns") + offset);
    fputs(",\"args\":{\"message\":", w->f);
    put_str(w->f, finding_message(f));
    field_str(w->f, "directive", where);
    field_u64(w->f, "bytes", (uint64_t)omplens_report__int_at(inst, "bytes"));
    field_u64(w->f, "duration_ns", (uint64_t)omplens_report__int_at(inst, "duration_ns"));
    fputs("}}", w->f);
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

static void other_data(tl_writer *w, const json_t *doc, const omplens_trace *const *traces,
                       size_t n, uint64_t origin) {
  const char *version = omplens_report__str_at(doc, "omplens_version");
  fprintf(w->f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tool\":\"omplens\"");
  field_str(w->f, "omplens_version", version ? version : OMPLENS_VERSION);
  fprintf(w->f, ",\"time_origin_unix_ns\":\"%" PRIu64 "\"", origin);
  for (size_t i = 0; i < n; i++) {
    const omplens_trace_info *info = omplens_trace_get_info(traces[i]);
    char key[32], value[TL_LABEL];
    snprintf(key, sizeof key, "process_%zu", i + 1);
    snprintf(value, sizeof value, "%s (pid %d)%s", info && info->cmdline ? info->cmdline : "?",
             info ? (int)info->pid : 0, info && !info->complete ? ", trace incomplete" : "");
    field_str(w->f, key, value);
  }
  if (w->overflows)
    fprintf(w->f, ",\"overlapping_slices\":\"%" PRIu64 "\"", w->overflows);
  if (w->unmatched)
    fprintf(w->f, ",\"unmatched_finding_instances\":\"%" PRIu64 "\"", w->unmatched);
  fputs("}}\n", w->f);
}

int omplens_render_timeline(const json_t *doc, const omplens_trace *const *traces,
                            size_t num_traces, FILE *out) {
  if (!out || (doc && !json_is_object(doc)) || (num_traces && !traces) ||
      omplens_report__int_at(doc, "schema_version") > OMPLENS_FINDINGS_SCHEMA_VERSION)
    return OMPLENS_REPORT_EINVAL;
  const json_t *procs = json_object_get(doc, "processes");
  char *used = calloc(json_array_size(procs) + 1, 1);
  if (!used)
    return OMPLENS_REPORT_ENOMEM;
  uint64_t origin = origin_of(procs, traces, num_traces);
  tl_writer w = {out, 1, 0, 0};
  fputs("{\"traceEvents\":[\n", out);
  int rc = 0;
  for (size_t i = 0; !rc && i < num_traces; i++)
    if (traces[i])
      rc = render_trace(&w, traces[i], match_process(procs, traces[i], used), i, origin);
  size_t i;
  const json_t *proc;
  json_array_foreach(procs, i, proc)
    if (!rc && !used[i])
      render_doc_only(&w, proc, num_traces + i, origin);
  free(used);
  other_data(&w, doc, traces, num_traces, origin);
  if (!rc && (fflush(out) || ferror(out)))
    rc = OMPLENS_REPORT_EIO;
  return rc;
}
