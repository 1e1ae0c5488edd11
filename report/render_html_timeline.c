/* Timeline data of report.html: the events of one trace, one lane per host
 * thread (its target constructs) and per device (kernels, data operations),
 * as compact JSON for the canvas in templates/report.js. A track with more
 * than OMPLENS_TIMELINE_EXACT items has its operations merged per kind into
 * buckets of one quantum (span / OMPLENS_TIMELINE_BUCKETS) each, with a
 * count and their summed durations, so the page draws a few thousand items
 * per track even for millions of events. Every instance of every finding is
 * marked (a bucket counts its wasteful operations), from the analysis when
 * the renderer has it. For the page's analysis of an interval it also
 * writes, per directive, a histogram of durations of each kind and, when
 * tracks are merged, its device operations per quantum. The format is
 * described in docs/report.md. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render_html_internal.h"

enum tl_kind {
  TL_KERNEL, TL_H2D, TL_D2H, TL_D2D, TL_ALLOC, TL_DELETE,
  TL_TARGET, TL_ENTER, TL_EXIT, TL_UPDATE, TL_WAIT, TL_KINDS
};
static const char *const kind_names[TL_KINDS] = {
    "kernel", "h2d", "d2h", "d2d", "alloc", "delete",
    "target", "target enter data", "target exit data", "target update", "host wait"};

/* One drawn rectangle: an operation, or a bucket of `count` of them, all of
 * one kind, all beginning in the same quantum. */
typedef struct tl_item {
  uint64_t begin, end, bytes;
  uint64_t busy;          /* the operations' durations, summed */
  uint32_t count, wasted; /* operations; those that are finding instances */
  int32_t finding;        /* a finding one of them belongs to, TL_UNLISTED
                             (not on the page), or -1 (none) */
  int32_t site;           /* directive index in the document, or -1: in a
                             bucket, its longest operation's */
  uint32_t longest;       /* that operation's duration (saturated) */
  uint8_t kind;
} tl_item;

typedef struct tl_track {
  tl_item *items;
  size_t n, cap;
  size_t total;               /* operations on the track (first pass) */
  tl_item open[TL_KINDS];     /* bucket being filled, per kind */
  uint64_t open_end[TL_KINDS]; /* where its quantum ends */
} tl_track;

/* Duration histograms: bins of the 1-2-5 series of nanoseconds. Bin 0 is
 * [0, 1 ns), bin i is [edge[i-1], edge[i]), the last bin is open. */
#define TL_BINS 41

typedef struct tl_ctx {
  const omplens_event *ev;
  size_t nev;
  const uint64_t *site_codeptrs; /* the events' code addresses, by site */
  size_t num_event_sites;
  const omplens_region *reg;
  size_t nreg;
  const omplens_trace_wait *waits; /* host waits for nowait regions */
  size_t nwaits;
  uint8_t *finding_of;  /* by event: the document's finding it is an instance
                           of (the first), as TL_BYTE_* or the finding's
                           index; one byte an event (a page lists at most a
                           few hundred findings: one past TL_BYTE_LAST counts
                           as unlisted) */
  uint64_t *sites;      /* codeptr of each directive of the document */
  size_t num_sites;
  uint32_t *by_codeptr; /* indexes of sites, by codeptr then index */
  int32_t *event_site;  /* by the events' site: site_of() its codeptr */
  size_t num_devices, num_threads;
  tl_track *tracks;     /* threads' constructs first, then kernels and data
                           per device, then the threads' waits (wait_track) */
  uint32_t (**hist)[TL_BINS]; /* by site + 1: TL_KINDS histograms, or NULL */
  int merged;           /* a track has buckets */
  uint64_t edges[TL_BINS - 1]; /* hist_edge() */
  uint8_t below[65];    /* by bit width w: edges at or below 2^(w-1) */
  uint64_t span, quantum;
  int failed;
} tl_ctx;

/* finding_of: an instance of a finding the document does not list. */
#define TL_UNLISTED (-2)
/* finding_of's bytes: no finding, an unlisted one, else the index. */
#define TL_BYTE_NONE 255
#define TL_BYTE_UNLISTED 254
#define TL_BYTE_LAST 253

static int event_kind(uint8_t kind) {
  switch (kind) {
  case OMPLENS_EV_KERNEL: return TL_KERNEL;
  case OMPLENS_EV_H2D: return TL_H2D;
  case OMPLENS_EV_D2H: return TL_D2H;
  case OMPLENS_EV_D2D: return TL_D2D;
  case OMPLENS_EV_ALLOC: return TL_ALLOC;
  case OMPLENS_EV_DELETE: return TL_DELETE;
  default: return -1; /* associate / disassociate: not drawn */
  }
}

static int region_kind(uint8_t kind) {
  switch (kind) {
  case OMPLENS_CONSTRUCT_TARGET: return TL_TARGET;
  case OMPLENS_CONSTRUCT_ENTER_DATA: return TL_ENTER;
  case OMPLENS_CONSTRUCT_EXIT_DATA: return TL_EXIT;
  case OMPLENS_CONSTRUCT_UPDATE: return TL_UPDATE;
  default: return -1;
  }
}

static tl_track *event_track(tl_ctx *c, const omplens_event *e) {
  if (e->device < 0 || (size_t)e->device >= c->num_devices)
    return NULL;
  return &c->tracks[c->num_threads + 2 * (size_t)e->device + (e->kind == OMPLENS_EV_KERNEL ? 0 : 1)];
}

/* Where host thread `thread` waits: after the devices' tracks. */
static tl_track *wait_track(tl_ctx *c, size_t thread) {
  return &c->tracks[c->num_threads + 2 * c->num_devices + thread];
}

static size_t num_tracks(const tl_ctx *c) { return 2 * c->num_threads + 2 * c->num_devices; }

/* The first directive with codeptr, or -1: a binary search, as a trace of
 * thousands of directives asks once per region. */
static int32_t site_of(const tl_ctx *c, uint64_t codeptr) {
  size_t lo = 0, hi = c->num_sites;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->sites[c->by_codeptr[mid]] < codeptr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < c->num_sites && c->sites[c->by_codeptr[lo]] == codeptr ? (int32_t)c->by_codeptr[lo]
                                                                     : -1;
}

/* site_of() an event's codeptr: looked up once per site of the trace. */
static int32_t event_site(const tl_ctx *c, const omplens_event *e) {
  return e->site < c->num_event_sites ? c->event_site[e->site] : site_of(c, 0);
}


/* ---- Building the items ------------------------------------------------------ */

static uint32_t saturate32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

static void track_push(tl_ctx *c, tl_track *t, const tl_item *it) {
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    tl_item *p = realloc(t->items, cap * sizeof *p);
    if (!p) {
      c->failed = 1;
      return;
    }
    t->items = p;
    t->cap = cap;
  }
  t->items[t->n++] = *it;
}

/* Adds one operation, merged on a dense track into the open bucket of its
 * kind while it begins in that bucket's quantum. */
static void track_add(tl_ctx *c, tl_track *t, const tl_item *it) {
  if (t->total <= OMPLENS_TIMELINE_EXACT) {
    track_push(c, t, it);
    return;
  }
  tl_item *o = &t->open[it->kind];
  if (o->count && it->begin < t->open_end[it->kind] && it->begin >= t->open_end[it->kind] - c->quantum) {
    o->end = it->end > o->end ? it->end : o->end;
    o->bytes += it->bytes;
    o->busy += it->busy;
    o->count++;
    o->wasted += it->wasted;
    if (it->finding >= 0 ? o->finding < 0 : o->finding == -1) /* a listed finding first */
      o->finding = it->finding;
    if (it->longest > o->longest) {
      o->longest = it->longest;
      o->site = it->site;
    }
    return;
  }
  if (o->count)
    track_push(c, t, o);
  *o = *it;
  t->open_end[it->kind] = it->begin - it->begin % c->quantum + c->quantum;
}

/* The edges of the bins: 1, 2, 5, 10, 20, 50, ... 10^13 ns. */
static uint64_t hist_edge(int i) {
  static const uint64_t mantissa[3] = {1, 2, 5};
  uint64_t e = mantissa[i % 3];
  for (int d = 0; d < i / 3; d++)
    e *= 10;
  return e;
}

/* The bin of a duration: the number of edges at or below it. Edges are at
 * least twice the one before, so above the edges at or below the power of
 * two under ns (below[bit width]) at most one more can be. */
static int hist_bin(const tl_ctx *c, uint64_t ns) {
  if (!ns)
    return 0;
  int bin = c->below[64 - __builtin_clzll(ns)];
  return bin + (bin < TL_BINS - 1 && c->edges[bin] <= ns);
}

static void hist_add(tl_ctx *c, const tl_item *it) {
  uint32_t (**h)[TL_BINS] = &c->hist[it->site + 1];
  if (!*h && !(*h = calloc(TL_KINDS, sizeof **h))) {
    c->failed = 1;
    return;
  }
  (*h)[it->kind][hist_bin(c, it->busy)]++;
}

static int cmp_item(const void *a, const void *b) {
  const tl_item *x = a, *y = b;
  return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static void track_finish(tl_ctx *c, tl_track *t) {
  for (int k = 0; k < TL_KINDS; k++)
    if (t->open[k].count)
      track_push(c, t, &t->open[k]);
  if (t->n) /* qsort wants a non-NULL base even for 0 items */
    qsort(t->items, t->n, sizeof *t->items, cmp_item);
}

static void add_events(tl_ctx *c) {
  for (size_t i = 0; i < c->nev; i++) {
    const omplens_event *e = &c->ev[i];
    tl_track *t = event_track(c, e);
    int k = event_kind(e->kind);
    if (!t || k < 0)
      continue;
    uint8_t b = c->finding_of[i];
    int32_t finding = b == TL_BYTE_NONE ? -1 : b == TL_BYTE_UNLISTED ? TL_UNLISTED : (int32_t)b;
    uint64_t end = e->end_ns > e->begin_ns ? e->end_ns : e->begin_ns;
    tl_item it = {e->begin_ns, end, e->kind == OMPLENS_EV_KERNEL ? 0 : e->bytes, end - e->begin_ns, 1,
                  finding != -1, finding, event_site(c, e), saturate32(end - e->begin_ns), (uint8_t)k};
    hist_add(c, &it);
    track_add(c, t, &it);
  }
}

static void add_regions(tl_ctx *c) {
  for (size_t i = 0; i < c->nreg; i++) {
    const omplens_region *r = &c->reg[i];
    int k = region_kind(r->kind);
    if (k < 0 || r->thread >= c->num_threads)
      continue;
    uint64_t end = r->end_ns > r->begin_ns ? r->end_ns : r->begin_ns;
    tl_item it = {r->begin_ns, end, 0, end - r->begin_ns, 1, 0, -1, site_of(c, r->codeptr),
                  saturate32(end - r->begin_ns), (uint8_t)k};
    hist_add(c, &it);
    track_add(c, &c->tracks[r->thread], &it);
  }
}

/* Host waits (docs/detectors.md, "Host waits"), on each thread's waits
 * track: a synchronous construct blocks its thread from its begin to its
 * end; a wait for nowait ones lasts until the region that released it
 * ended. Both take the directive of the construct waited for. */
static void add_waits(tl_ctx *c) {
  size_t w = 0;
  for (size_t i = 0; i <= c->nreg; i++) { /* regions and waits, by begin */
    uint64_t until = i < c->nreg ? c->reg[i].begin_ns : UINT64_MAX;
    for (; w < c->nwaits && (c->waits[w].begin_ns <= until || i == c->nreg); w++) {
      const omplens_trace_wait *x = &c->waits[w];
      if (x->thread >= c->num_threads || x->region >= c->nreg)
        continue;
      uint64_t end = x->end_ns > x->begin_ns ? x->end_ns : x->begin_ns;
      tl_item it = {x->begin_ns, end, 0, end - x->begin_ns, 1, 0, -1,
                    site_of(c, c->reg[x->region].codeptr), saturate32(end - x->begin_ns), TL_WAIT};
      hist_add(c, &it);
      track_add(c, wait_track(c, x->thread), &it);
    }
    if (i == c->nreg)
      break;
    const omplens_region *r = &c->reg[i];
    if (r->nowait || region_kind(r->kind) < 0 || r->thread >= c->num_threads)
      continue;
    uint64_t end = r->end_ns > r->begin_ns ? r->end_ns : r->begin_ns;
    tl_item it = {r->begin_ns, end, 0, end - r->begin_ns, 1, 0, -1, site_of(c, r->codeptr),
                  saturate32(end - r->begin_ns), TL_WAIT};
    hist_add(c, &it);
    track_add(c, wait_track(c, r->thread), &it);
  }
}

/* First pass: lanes, track sizes and the time span. */
static void survey(tl_ctx *c, uint64_t duration) {
  c->span = duration;
  for (size_t i = 0; i < c->nev; i++) {
    const omplens_event *e = &c->ev[i];
    if (e->device >= 0 && (size_t)e->device + 1 > c->num_devices)
      c->num_devices = (size_t)e->device + 1;
    if (e->end_ns > c->span)
      c->span = e->end_ns;
  }
  for (size_t i = 0; i < c->nreg; i++) {
    if ((size_t)c->reg[i].thread + 1 > c->num_threads)
      c->num_threads = (size_t)c->reg[i].thread + 1;
    if (c->reg[i].end_ns > c->span)
      c->span = c->reg[i].end_ns;
  }
  for (size_t i = 0; i < c->nwaits; i++)
    if ((size_t)c->waits[i].thread + 1 > c->num_threads)
      c->num_threads = (size_t)c->waits[i].thread + 1;
  c->quantum = c->span / OMPLENS_TIMELINE_BUCKETS ? c->span / OMPLENS_TIMELINE_BUCKETS : 1;
}

static int count_tracks(tl_ctx *c) {
  c->tracks = calloc(num_tracks(c) + 1, sizeof *c->tracks);
  if (!c->tracks)
    return -1;
  for (size_t i = 0; i < c->nev; i++) {
    tl_track *t = event_track(c, &c->ev[i]);
    if (t && event_kind(c->ev[i].kind) >= 0)
      t->total++;
  }
  for (size_t i = 0; i < c->nreg; i++)
    if (c->reg[i].thread < c->num_threads) {
      c->tracks[c->reg[i].thread].total++;
      wait_track(c, c->reg[i].thread)->total += !c->reg[i].nowait && region_kind(c->reg[i].kind) >= 0;
    }
  for (size_t i = 0; i < c->nwaits; i++)
    if (c->waits[i].thread < c->num_threads && c->waits[i].region < c->nreg)
      wait_track(c, c->waits[i].thread)->total++;
  for (size_t i = 0; i < num_tracks(c); i++)
    if (c->tracks[i].total > OMPLENS_TIMELINE_EXACT)
      c->merged = 1;
  return 0;
}

static void mark(tl_ctx *c, uint64_t event, int32_t finding) {
  uint8_t b = finding < 0 || finding > TL_BYTE_LAST ? TL_BYTE_UNLISTED : (uint8_t)finding;
  if (event < c->nev && c->finding_of[event] == TL_BYTE_NONE)
    c->finding_of[event] = b; /* an event of several findings: the first */
}

/* Every instance of the analysis's findings. The document lists the first
 * `listed` of them first and in the same order (omplens_report_document),
 * then its source-only findings: the others are findings it leaves out. */
static void mark_analysis(tl_ctx *c, const omplens_analysis *an, size_t listed) {
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(an, &n);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < f[i].num_instances; k++)
      mark(c, f[i].instances[k].event, i < listed ? (int32_t)i : TL_UNLISTED);
}

/* Marks the events that are instances of findings: by event, linear in
 * events and instances. Without the analysis, those the document lists. */
static int map_findings(tl_ctx *c, const json_t *findings, const omplens_analysis *an) {
  size_t i, j, detected = 0;
  const json_t *f, *inst;
  c->finding_of = malloc((c->nev ? c->nev : 1) * sizeof *c->finding_of);
  if (!c->finding_of)
    return -1;
  memset(c->finding_of, TL_BYTE_NONE, c->nev * sizeof *c->finding_of);
  json_array_foreach(findings, i, f)
    detected += !omplens_render__bool(f, "source_only", 0);
  if (an)
    mark_analysis(c, an, detected);
  json_array_foreach(findings, i, f) {
    if (an && i < detected)
      continue;
    json_array_foreach(omplens_render__array(f, "instances"), j, inst) {
      const json_t *ev = json_object_get(inst, "event");
      if (json_is_integer(ev) && json_integer_value(ev) >= 0)
        mark(c, (uint64_t)json_integer_value(ev), (int32_t)i);
    }
  }
  return 0;
}

static int cmp_site(const void *x, const void *y, void *sites) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  uint64_t ca = ((const uint64_t *)sites)[a], cb = ((const uint64_t *)sites)[b];
  if (ca != cb)
    return ca < cb ? -1 : 1;
  return a < b ? -1 : a > b;
}

static int map_sites(tl_ctx *c, const json_t *directives) {
  c->num_sites = json_array_size(directives);
  c->sites = calloc(c->num_sites + 1, sizeof *c->sites);
  c->by_codeptr = malloc((c->num_sites + 1) * sizeof *c->by_codeptr);
  c->event_site = malloc((c->num_event_sites + 1) * sizeof *c->event_site);
  c->hist = calloc(c->num_sites + 1, sizeof *c->hist);
  for (int e = 0; e < TL_BINS - 1; e++)
    c->edges[e] = hist_edge(e);
  for (int w = 1; w <= 64; w++)
    for (int e = 0; e < TL_BINS - 1 && c->edges[e] <= 1ull << (w - 1); e++)
      c->below[w] = (uint8_t)(e + 1);
  if (!c->sites || !c->by_codeptr || !c->event_site || !c->hist)
    return -1;
  size_t i;
  const json_t *d;
  json_array_foreach(directives, i, d) {
    const char *cp = omplens_render__str(json_object_get(d, "location"), "codeptr");
    c->sites[i] = cp ? strtoull(cp, NULL, 16) : 0;
    c->by_codeptr[i] = (uint32_t)i;
  }
  qsort_r(c->by_codeptr, c->num_sites, sizeof *c->by_codeptr, cmp_site, c->sites);
  for (i = 0; i < c->num_event_sites; i++)
    c->event_site[i] = site_of(c, c->site_codeptrs ? c->site_codeptrs[i] : 0);
  return 0;
}

/* ---- Writing the JSON ---------------------------------------------------------- */

/* Appends sep (unless 0) and v in decimal, without printf's parsing: the
 * bulk arrays hold hundreds of thousands of numbers. */
static void put_u64(omplens_strbuf *b, char sep, uint64_t v) {
  char text[24], *p = text + sizeof text;
  do
    *--p = (char)('0' + v % 10);
  while (v /= 10);
  if (sep)
    *--p = sep;
  omplens_strbuf_add(b, p, (size_t)(text + sizeof text - p));
}

static void put_i32(omplens_strbuf *b, char sep, int32_t v) {
  if (v >= 0) {
    put_u64(b, sep, (uint64_t)v);
    return;
  }
  if (sep)
    omplens_strbuf_add(b, &sep, 1);
  put_u64(b, '-', (uint64_t)-(int64_t)v);
}

static void write_strings(omplens_strbuf *b, const char *key, const char *const *list, size_t n) {
  omplens_strbuf_printf(b, "\"%s\":[", key);
  for (size_t i = 0; i < n; i++) {
    if (i)
      omplens_strbuf_puts(b, ",");
    omplens_html__json_string(b, list ? list[i] : "");
  }
  omplens_strbuf_puts(b, "]");
}

/* Items as a flat array of 8 numbers each:
 * begin, duration, kind, count, wasted, finding, bytes, site; on a merged
 * track, "busy" gives each item's summed durations (else its duration). */
static void write_track(omplens_strbuf *b, const char *name, const tl_track *t) {
  int merged = t->total > OMPLENS_TIMELINE_EXACT;
  omplens_strbuf_puts(b, "{\"name\":");
  omplens_html__json_string(b, name);
  omplens_strbuf_printf(b, ",\"ops\":%zu,\"merged\":%s,", t->total, merged ? "true" : "false");
  if (merged) {
    omplens_strbuf_puts(b, "\"busy\":[");
    for (size_t i = 0; i < t->n; i++)
      put_u64(b, i ? ',' : 0, t->items[i].busy);
    omplens_strbuf_puts(b, "],");
  }
  omplens_strbuf_puts(b, "\"items\":[");
  for (size_t i = 0; i < t->n; i++) {
    const tl_item *it = &t->items[i];
    put_u64(b, i ? ',' : 0, it->begin);
    put_u64(b, ',', it->end - it->begin);
    put_u64(b, ',', it->kind);
    put_u64(b, ',', it->count);
    put_u64(b, ',', it->wasted);
    put_i32(b, ',', it->finding);
    put_u64(b, ',', it->bytes);
    put_i32(b, ',', it->site);
  }
  omplens_strbuf_puts(b, "]}");
}

static void write_lanes(omplens_strbuf *b, const tl_ctx *c) {
  char name[64];
  int first = 1;
  omplens_strbuf_puts(b, "\"lanes\":[");
  for (size_t i = 0; i < c->num_threads; i++) {
    const tl_track *constructs = &c->tracks[i], *waits = &c->tracks[num_tracks(c) - c->num_threads + i];
    if (!constructs->n && !waits->n)
      continue;
    snprintf(name, sizeof name, "Host thread %zu", i);
    omplens_strbuf_printf(b, "%s{\"name\":", first ? "" : ",");
    omplens_html__json_string(b, name);
    omplens_strbuf_puts(b, ",\"tracks\":[");
    if (constructs->n)
      write_track(b, "constructs", constructs);
    if (waits->n) {
      if (constructs->n)
        omplens_strbuf_puts(b, ",");
      write_track(b, "waits", waits);
    }
    omplens_strbuf_puts(b, "]}");
    first = 0;
  }
  for (size_t d = 0; d < c->num_devices; d++) {
    const tl_track *k = &c->tracks[c->num_threads + 2 * d], *data = k + 1;
    if (!k->n && !data->n)
      continue;
    snprintf(name, sizeof name, "Device %zu", d);
    omplens_strbuf_printf(b, "%s{\"name\":", first ? "" : ",");
    omplens_html__json_string(b, name);
    omplens_strbuf_puts(b, ",\"tracks\":[");
    write_track(b, "kernels", k);
    omplens_strbuf_puts(b, ",");
    write_track(b, "data", data);
    omplens_strbuf_puts(b, "]}");
    first = 0;
  }
  omplens_strbuf_puts(b, "]");
}

/* "hist": the 1-2-5 edges and, per directive (site, -1: none) and kind with
 * operations, the counts of its bins from the first to the last non-empty. */
static void write_hist(omplens_strbuf *b, const tl_ctx *c) {
  omplens_strbuf_puts(b, "\"hist\":{\"edges\":[");
  for (int i = 0; i < TL_BINS - 1; i++)
    put_u64(b, i ? ',' : 0, c->edges[i]);
  omplens_strbuf_puts(b, "],\"sets\":[");
  int first = 1;
  for (size_t s = 0; s <= c->num_sites; s++)
    for (int k = 0; c->hist[s] && k < TL_KINDS; k++) {
      const uint32_t *h = c->hist[s][k];
      int lo = 0, hi = TL_BINS - 1;
      while (lo <= hi && !h[lo])
        lo++;
      while (hi >= lo && !h[hi])
        hi--;
      if (lo > hi)
        continue;
      omplens_strbuf_printf(b, "%s{\"site\":%d,\"kind\":%d,\"first\":%d,\"counts\":[", first ? "" : ",",
                            (int)s - 1, k, lo);
      for (int i = lo; i <= hi; i++)
        put_u64(b, i > lo ? ',' : 0, h[i]);
      omplens_strbuf_puts(b, "]}");
      first = 0;
    }
  omplens_strbuf_puts(b, "]}");
}

/* Writes the sites' sums of one quantum and clears them. */
static void flush_cells(omplens_strbuf *b, uint64_t q, uint64_t (*sum)[2], const int32_t *touched, size_t n,
                        int *first) {
  for (size_t t = 0; t < n; t++) {
    uint64_t *s = sum[touched[t]];
    put_u64(b, *first ? 0 : ',', q);
    put_i32(b, ',', touched[t] - 1);
    put_u64(b, ',', s[0]);
    put_u64(b, ',', s[1]);
    s[0] = s[1] = 0;
    *first = 0;
  }
}

/* "directive_cells": on a timeline with buckets, each directive's device
 * operations per quantum, as (quantum, site, count, busy) quadruples in the
 * events' order (by quantum), summed while writing: one counter per site. */
static int write_cells(omplens_strbuf *b, const tl_ctx *c) {
  uint64_t (*sum)[2] = calloc(c->num_sites + 1, sizeof *sum);
  int32_t *touched = malloc((c->num_sites + 1) * sizeof *touched); /* sites with sums, site + 1 */
  if (!sum || !touched) {
    free(sum);
    free(touched);
    return -1;
  }
  size_t n = 0;
  uint64_t quantum = 0, from = 0;
  int first = 1;
  omplens_strbuf_puts(b, ",\"directive_cells\":[");
  for (size_t i = 0; i < c->nev; i++) {
    const omplens_event *e = &c->ev[i];
    if (e->device < 0 || (size_t)e->device >= c->num_devices || event_kind(e->kind) < 0)
      continue; /* not drawn (event_track, add_events) */
    if (!n || e->begin_ns < from || e->begin_ns >= from + c->quantum) { /* another quantum */
      flush_cells(b, quantum, sum, touched, n, &first);
      n = 0;
      quantum = e->begin_ns / c->quantum;
      from = quantum * c->quantum;
    }
    int32_t site = event_site(c, e) + 1;
    if (!sum[site][0])
      touched[n++] = site;
    sum[site][0]++;
    sum[site][1] += e->end_ns > e->begin_ns ? e->end_ns - e->begin_ns : 0;
  }
  flush_cells(b, quantum, sum, touched, n, &first);
  omplens_strbuf_puts(b, "]");
  free(sum);
  free(touched);
  return 0;
}

static void ctx_free(tl_ctx *c) {
  size_t n = c->tracks ? num_tracks(c) : 0;
  for (size_t i = 0; i < n; i++)
    free(c->tracks[i].items);
  free(c->tracks);
  for (size_t s = 0; c->hist && s <= c->num_sites; s++)
    free(c->hist[s]);
  free(c->hist);
  free(c->finding_of);
  free(c->sites);
  free(c->by_codeptr);
  free(c->event_site);
}

int omplens_html__timeline_json(omplens_strbuf *b, const omplens_timeline_input *in,
                                const json_t *proc, const omplens_timeline_labels *labels) {
  tl_ctx c = {.ev = in->events, .nev = in->num_events, .reg = in->regions, .nreg = in->num_regions,
              .waits = in->waits, .nwaits = in->waits ? in->num_waits : 0,
              .site_codeptrs = in->site_codeptrs, .num_event_sites = in->num_sites};
  const json_t *findings = omplens_render__array(proc, "findings");
  const json_t *directives = labels->directives;
  survey(&c, in->duration_ns);
  int rc = map_findings(&c, findings, in->analysis) || map_sites(&c, directives) || count_tracks(&c)
               ? OMPLENS_REPORT_ENOMEM : 0;
  if (!rc) {
    add_regions(&c);
    add_events(&c);
    add_waits(&c);
    size_t n = num_tracks(&c);
    for (size_t i = 0; i < n; i++)
      track_finish(&c, &c.tracks[i]);
    rc = c.failed ? OMPLENS_REPORT_ENOMEM : 0;
  }
  if (!rc) {
    omplens_strbuf_printf(b, "{\"span\":%" PRIu64 ",\"quantum\":%" PRIu64 ",", c.span, c.quantum);
    write_strings(b, "kinds", kind_names, TL_KINDS);
    omplens_strbuf_puts(b, ",");
    write_strings(b, "findings", labels->finding_labels, labels->num_findings);
    omplens_strbuf_puts(b, ",");
    write_strings(b, "targets", labels->finding_ids, labels->num_findings);
    omplens_strbuf_puts(b, ",");
    write_strings(b, "sites", labels->site_labels, json_array_size(directives));
    omplens_strbuf_puts(b, ",");
    write_lanes(b, &c);
    omplens_strbuf_puts(b, ",");
    write_hist(b, &c);
    if (c.merged && write_cells(b, &c))
      rc = OMPLENS_REPORT_ENOMEM;
    omplens_strbuf_puts(b, "}");
  }
  ctx_free(&c);
  return rc;
}
