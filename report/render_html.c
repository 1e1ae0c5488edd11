/* report.html: one self-contained page (inline CSS and JS from templates/,
 * embedded at build time). omplens_render_html() is a loop over the
 * processes of the document; each section of a process is one static
 * function (section_*), which decides what to show and fills a template.
 * Every text from the program, the trace or the sources is escaped by the
 * template filler; Markdown narrative comes from render_markdown.c through
 * libcmark. Design: docs/report.md. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omplens_names.h"
#include "render_html_internal.h"

/* Findings shown on the page, by savings; the rest are counted (all are in
 * findings.json). A synthetic run of a million events has 68,000. */
#define MAX_FINDINGS_SHOWN 250
/* Finding boxes under one directive's source line. */
#define MAX_NOTES_PER_DIRECTIVE 6

/* A source file named by the document. */
typedef struct source_ref {
  const char *path;   /* as in the document */
  const char *status; /* sources[].status, or NULL */
  char id[48];        /* element id of its view: the prefix, "-s", a number */
  int readable;
} source_ref;

/* A directive's line in its source file (ordered by source, line, then
 * document order). */
typedef struct line_directive {
  size_t source;
  unsigned line;
  size_t directive;
} line_directive;

typedef struct html_ctx {
  omplens_strbuf *body;  /* the page's main part: a sink, written as it is made */
  const char *base;      /* paths are shown relative to it */
  size_t max_instances;
  const omplens_report_input *input; /* what the document was built from, or NULL */
  const omplens_analysis *analysis;  /* the process's, when rendered alone, or NULL */
  int err;               /* first error of a template fill */
  /* The process being rendered. */
  const json_t *proc;
  const omplens_trace *trace; /* or NULL */
  size_t index, num_procs;
  char prefix[24];       /* element ids of the process start with it */
  source_ref *sources;   /* in the order the document names them */
  size_t num_sources;
  omplens_names source_names; /* path -> index in sources */
  /* The directives of each source by line: source s has
   * dir_lines[lines_from[s], lines_from[s + 1]). */
  line_directive *dir_lines;
  size_t *lines_from;
  const json_t *directives; /* with findings (omplens_render__finding_directives) */
  json_t *own_directives;   /* that list when made here, else NULL */
  const json_t *findings;
  size_t num_shown;                     /* findings on the page */
  char **finding_ids, **finding_labels; /* per finding shown */
  char **site_labels, **targets;        /* per directive: label, element id to open */
  /* The findings of each directive, in order: the first directive with
   * its codeptr lists them from dir_first[d], through next_of[finding];
   * dir_of[finding] is that directive (SIZE_MAX: none). */
  size_t *dir_of, *dir_first, *next_of;
  int category_shown[OMPLENS_RENDER_CATEGORIES];
  omplens_render__shown card_fixes, note_fixes; /* each change shown once */
} html_ctx;

#define FILL(h, b, tpl, ...)                                                                    \
  fill(h, b, tpl, (const omplens_tpl_var[]){__VA_ARGS__},                                      \
       sizeof((const omplens_tpl_var[]){__VA_ARGS__}) / sizeof(omplens_tpl_var))

static void fill(html_ctx *h, omplens_strbuf *b, const char *tpl, const omplens_tpl_var *vars,
                 size_t n) {
  int rc = omplens_html__fill(b, tpl, vars, n);
  if (rc && !h->err)
    h->err = rc;
}

/* ---- Formatting ---------------------------------------------------------------- */

static const char *fmt_ns(uint64_t ns, char *buf) {
  omplens_format_ns(ns, buf);
  char *us = strstr(buf, " us");
  if (us)
    memcpy(us, " \xc2\xb5s", 5); /* " µs" and its NUL fit in " us\0" + 1 */
  return buf;
}

/* 1234567 as "1,234,567". buf holds 32 bytes. */
static const char *fmt_count(uint64_t n, char *buf) {
  char digits[24];
  int len = snprintf(digits, sizeof digits, "%" PRIu64, n), o = 0;
  for (int i = 0; i < len; i++) {
    if (i && (len - i) % 3 == 0)
      buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = 0;
  return buf;
}

static const char *fmt_u64(uint64_t n, char *buf) {
  snprintf(buf, 32, "%" PRIu64, n);
  return buf;
}

static const char *fmt_pct(uint64_t part, uint64_t whole, char *buf) {
  double pct = whole ? 100.0 * (double)part / (double)whole : 0.0;
  snprintf(buf, 32, "%.2f", pct > 100 ? 100.0 : pct);
  return buf;
}

static char *xstrdup(html_ctx *h, const char *s) {
  char *p = strdup(s ? s : "");
  if (!p)
    h->body->failed = 1;
  return p;
}

/* ---- Preparing a process: ids, labels, sources ---------------------------------- */

static size_t source_index(const html_ctx *h, const char *path) {
  return omplens_names_get(&h->source_names, path); /* OMPLENS_NAMES_NONE is SIZE_MAX */
}

static void add_source(html_ctx *h, const char *path, const char *status, size_t *cap) {
  if (!path || source_index(h, path) != SIZE_MAX)
    return;
  if (h->num_sources == *cap) {
    size_t more = *cap ? 2 * *cap : 16;
    source_ref *p = realloc(h->sources, more * sizeof *p);
    if (!p) {
      h->body->failed = 1;
      return;
    }
    h->sources = p;
    *cap = more;
  }
  if (omplens_names_put(&h->source_names, path, h->num_sources)) {
    h->body->failed = 1;
    return;
  }
  source_ref *s = &h->sources[h->num_sources];
  s->path = path;
  s->status = status;
  snprintf(s->id, sizeof s->id, "%s-s%zu", h->prefix, h->num_sources);
  s->readable = !(status && !strcmp(status, "missing")) && access(path, R_OK) == 0;
  h->num_sources++;
}

/* The files of sources[], then those of the directives and findings, in
 * document order, each once: found by path through a map, as a program
 * may have thousands of files and directives. */
static void collect_sources(html_ctx *h) {
  size_t i, cap = 0;
  const json_t *o;
  json_array_foreach(omplens_render__array(h->proc, "sources"), i, o)
    add_source(h, omplens_render__str(o, "path"), omplens_render__str(o, "status"), &cap);
  json_array_foreach(h->directives, i, o)
    add_source(h, omplens_render__source_pos(json_object_get(o, "location")).file, NULL, &cap);
  json_array_foreach(h->findings, i, o)
    add_source(h, omplens_render__source_pos(json_object_get(o, "location")).file, NULL, &cap);
}

static int by_source_line(const void *a, const void *b) {
  const line_directive *x = a, *y = b;
  if (x->source != y->source)
    return x->source < y->source ? -1 : 1;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return (x->directive > y->directive) - (x->directive < y->directive);
}

/* dir_lines and lines_from: each directive placed in its source once. */
static void index_source_lines(html_ctx *h) {
  size_t nd = json_array_size(h->directives), n = 0;
  h->dir_lines = malloc((nd + 1) * sizeof *h->dir_lines);
  h->lines_from = calloc(h->num_sources + 1, sizeof *h->lines_from);
  if (!h->dir_lines || !h->lines_from) {
    h->body->failed = 1;
    return;
  }
  for (size_t d = 0; d < nd; d++) {
    omplens_source_pos pos =
        omplens_render__source_pos(json_object_get(json_array_get(h->directives, d), "location"));
    size_t s = source_index(h, pos.file);
    if (s != SIZE_MAX)
      h->dir_lines[n++] = (line_directive){s, pos.line, d};
  }
  if (n)
    qsort(h->dir_lines, n, sizeof *h->dir_lines, by_source_line);
  for (size_t i = 0, s = 0; s < h->num_sources; s++) { /* lines_from[s + 1]: s's end */
    while (i < n && h->dir_lines[i].source == s)
      i++;
    h->lines_from[s + 1] = i;
  }
}

static const char *codeptr_of(const json_t *o) {
  return omplens_render__str(json_object_get(o, "location"), "codeptr");
}

/* Directive indices sorted by codeptr, then index (for a binary search). */
typedef struct dir_key {
  const char *codeptr;
  size_t index;
} dir_key;

static int cmp_dir_key(const void *a, const void *b) {
  const dir_key *x = a, *y = b;
  int c = strcmp(x->codeptr, y->codeptr);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The first directive of keys[0, n) with codeptr c, or SIZE_MAX. */
static size_t find_dir(const dir_key *keys, size_t n, const char *c) {
  size_t a = 0, b = n;
  while (c && a < b) {
    size_t m = a + (b - a) / 2;
    if (strcmp(keys[m].codeptr, c) < 0)
      a = m + 1;
    else
      b = m;
  }
  return c && a < n && !strcmp(keys[a].codeptr, c) ? keys[a].index : SIZE_MAX;
}

/* dir_of, dir_first and next_of: each finding found by its codeptr once,
 * not every directive's findings by a scan of all findings. */
static void index_findings(html_ctx *h) {
  size_t nd = json_array_size(h->directives), nf = json_array_size(h->findings), n = 0, i;
  dir_key *keys = malloc((nd + 1) * sizeof *keys);
  h->dir_of = malloc((nf + 1) * sizeof *h->dir_of);
  h->next_of = malloc((nf + 1) * sizeof *h->next_of);
  h->dir_first = malloc((nd + 1) * sizeof *h->dir_first);
  size_t *last = malloc((nd + 1) * sizeof *last);
  if (!keys || !h->dir_of || !h->next_of || !h->dir_first || !last) {
    h->body->failed = 1;
    free(keys);
    free(last);
    return;
  }
  const json_t *o;
  json_array_foreach(h->directives, i, o) {
    h->dir_first[i] = last[i] = SIZE_MAX;
    if (codeptr_of(o))
      keys[n++] = (dir_key){codeptr_of(o), i};
  }
  if (n)
    qsort(keys, n, sizeof *keys, cmp_dir_key);
  json_array_foreach(h->findings, i, o) {
    size_t d = h->dir_of[i] = find_dir(keys, n, codeptr_of(o));
    h->next_of[i] = SIZE_MAX;
    if (d == SIZE_MAX)
      continue;
    if (last[d] == SIZE_MAX)
      h->dir_first[d] = i;
    else
      h->next_of[last[d]] = i;
    last[d] = i;
  }
  json_array_foreach(h->directives, i, o) /* one list per codeptr */
    h->dir_first[i] = h->dir_first[find_dir(keys, n, codeptr_of(o)) == SIZE_MAX
                                       ? i
                                       : find_dir(keys, n, codeptr_of(o))];
  free(keys);
  free(last);
}

/* Where a click on a directive goes: its line in the source view, else its
 * first finding. */
static char *directive_target(html_ctx *h, const json_t *d, size_t dir_index) {
  omplens_source_pos pos = omplens_render__source_pos(json_object_get(d, "location"));
  size_t s = source_index(h, pos.file);
  char id[96];
  if (s != SIZE_MAX && h->sources[s].readable) {
    snprintf(id, sizeof id, "%s-L%u", h->sources[s].id, pos.line);
    return xstrdup(h, id);
  }
  size_t first = h->dir_first ? h->dir_first[dir_index] : SIZE_MAX;
  if (first < h->num_shown)
    return xstrdup(h, h->finding_ids[first]);
  snprintf(id, sizeof id, "%s-findings", h->prefix);
  return xstrdup(h, id);
}

static void prepare_labels(html_ctx *h) {
  size_t nf = h->num_shown, nd = json_array_size(h->directives), i;
  h->finding_ids = calloc(nf + 1, sizeof *h->finding_ids);
  h->finding_labels = calloc(nf + 1, sizeof *h->finding_labels);
  h->site_labels = calloc(nd + 1, sizeof *h->site_labels);
  h->targets = calloc(nd + 1, sizeof *h->targets);
  if (!h->finding_ids || !h->finding_labels || !h->site_labels || !h->targets) {
    h->body->failed = 1;
    return;
  }
  const json_t *o;
  char buf[4096], loc[4096], subject[512];
  for (i = 0; i < nf; i++) {
    o = json_array_get(h->findings, i);
    snprintf(buf, sizeof buf, "%s-f%zu", h->prefix, i);
    h->finding_ids[i] = xstrdup(h, buf);
    snprintf(buf, sizeof buf, "%s \xc2\xb7 %s \xc2\xb7 %s",
             omplens_render__category_title_of(omplens_render__str(o, "category")),
             omplens_render__location_label(json_object_get(o, "location"), h->base, loc, sizeof loc),
             omplens_render__finding_subject(o, subject, sizeof subject));
    h->finding_labels[i] = xstrdup(h, buf);
  }
  json_array_foreach(h->directives, i, o) {
    h->site_labels[i] = xstrdup(h, omplens_render__location_label(json_object_get(o, "location"),
                                                                   h->base, loc, sizeof loc));
    h->targets[i] = directive_target(h, o, i);
  }
}

static void prepare_process(html_ctx *h) {
  h->directives = omplens_render__finding_directives(h->proc, &h->own_directives);
  h->findings = omplens_render__array(h->proc, "findings");
  h->num_shown = json_array_size(h->findings) < MAX_FINDINGS_SHOWN ? json_array_size(h->findings)
                                                                     : MAX_FINDINGS_SHOWN;
  snprintf(h->prefix, sizeof h->prefix, "p%zu", h->index);
  const json_t *counts = json_object_get(json_object_get(h->proc, "totals"), "counts");
  for (int c = 0; c < OMPLENS_RENDER_CATEGORIES; c++)
    h->category_shown[c] = omplens_render__u64(counts, omplens_render__category_name(c)) > 0;
  collect_sources(h);
  index_source_lines(h);
  index_findings(h);
  prepare_labels(h);
}

static void free_list(char **list, size_t n) {
  for (size_t i = 0; list && i < n; i++)
    free(list[i]);
  free(list);
}

static void release_process(html_ctx *h) {
  free_list(h->finding_ids, h->num_shown);
  free_list(h->finding_labels, h->num_shown);
  free_list(h->site_labels, json_array_size(h->directives));
  free_list(h->targets, json_array_size(h->directives));
  json_decref(h->own_directives);
  h->own_directives = NULL;
  h->directives = NULL;
  free(h->sources);
  omplens_names_free(&h->source_names);
  free(h->dir_lines);
  free(h->lines_from);
  h->sources = NULL;
  h->lines_from = NULL;
  h->dir_lines = NULL;
  h->num_sources = 0;
  h->finding_ids = h->finding_labels = h->site_labels = h->targets = NULL;
  free(h->dir_of);
  free(h->dir_first);
  free(h->next_of);
  h->dir_of = h->dir_first = h->next_of = NULL;
  omplens_render__shown_free(&h->card_fixes);
  omplens_render__shown_free(&h->note_fixes);
}

/* ---- Shared fragments -------------------------------------------------------------- */

static const char *program_name(const json_t *proc) {
  const char *s = omplens_render__str(proc, "command_line");
  if (!s || !*s)
    s = omplens_render__str(proc, "executable");
  return s && *s ? s : "(unknown program)";
}

static void markdown_html(omplens_strbuf *out, const json_t *finding, const char *base,
                          const char *same_fix) {
  omplens_strbuf md = {0};
  omplens_md__finding(&md, finding, base, same_fix);
  omplens_html__markdown(out, omplens_strbuf_str(&md));
  if (md.failed)
    out->failed = 1;
  omplens_strbuf_free(&md);
}

static void empty_state(html_ctx *h, omplens_strbuf *b, const char *title, const char *text) {
  FILL(h, b, omplens_tpl__empty_html, {"title", title}, {"text", text});
}

/* ---- Summary ------------------------------------------------------------------------- */

static void summary_warnings(html_ctx *h, omplens_strbuf *b) {
  const json_t *p = h->proc;
  char n[32];
  if (!omplens_render__bool(p, "complete", 1))
    omplens_strbuf_puts(b, "<div class=\"warning\"><b>Trace incomplete.</b> The program crashed or ended "
                           "with _exit(): only what was recorded is analysed.</div>\n");
  if (omplens_render__u64(p, "dropped_events")) {
    omplens_strbuf_printf(b, "<div class=\"warning\"><b>%s events were not recorded.</b> The findings may "
                             "be incomplete.</div>\n", fmt_count(omplens_render__u64(p, "dropped_events"), n));
  }
  size_t i;
  const json_t *line;
  json_array_foreach(omplens_render__array(p, "damage"), i, line) {
    omplens_strbuf_puts(b, "<div class=\"warning\"><b>Trace damage:</b> ");
    const char *s = json_string_value(line);
    omplens_html__escape(b, s, s ? strlen(s) : 0);
    omplens_strbuf_puts(b, "</div>\n");
  }
}

static void summary_categories(html_ctx *h, omplens_strbuf *b, const json_t *tot) {
  const json_t *counts = json_object_get(tot, "counts"), *bytes = json_object_get(tot, "bytes");
  for (int c = 0; c < OMPLENS_RENDER_CATEGORIES; c++) {
    const char *name = omplens_render__category_name(c);
    char cls[64], n[32], by[32];
    uint64_t count = omplens_render__u64(counts, name);
    snprintf(cls, sizeof cls, "cat-%s%s", name, count ? "" : " zero");
    FILL(h, b, omplens_tpl__category_html, {"class", cls}, {"title", omplens_render__category_title(c)},
         {"count", fmt_count(count, n)},
         {"bytes", omplens_format_bytes(omplens_render__u64(bytes, name), by)});
  }
}

static void section_summary(html_ctx *h) {
  const json_t *p = h->proc, *tot = json_object_get(p, "totals");
  uint64_t run = omplens_render__u64(tot, "run_ns"), saved = omplens_render__predicted_savings(tot);
  uint64_t tns = omplens_render__u64(tot, "transfer_ns"), ans = omplens_render__u64(tot, "alloc_ns");
  uint64_t kns = omplens_render__u64(tot, "kernel_ns");
  double speedup = omplens_render__real(tot, "predicted_speedup");
  char id[48], meta[160], share[64], sp[32], r[32], dev[48], t[6][32], detail[3][96], pct[3][32], bar[256];
  omplens_strbuf warnings = {0}, narrative = {0}, md = {0}, cats = {0};
  summary_warnings(h, &warnings);
  omplens_md__summary(&md, p, h->base);
  omplens_md__leftovers(&md, p, h->base); /* and the exit data fixes.patch adds for them */
  omplens_html__markdown(&narrative, omplens_strbuf_str(&md));
  summary_categories(h, &cats, tot);
  snprintf(id, sizeof id, "%s-summary", h->prefix);
  snprintf(meta, sizeof meta, "pid %" PRIu64 " \xc2\xb7 exit %s", omplens_render__u64(p, "pid"),
           omplens_render__bool(p, "complete", 1) ? "normal" : "abnormal (trace incomplete)");
  snprintf(share, sizeof share, "%.1f %% of the run time", run ? 100.0 * (double)saved / (double)run : 0.0);
  snprintf(dev, sizeof dev, "%" PRIu64 " device%s", omplens_render__u64(p, "devices"),
           omplens_render__u64(p, "devices") == 1 ? "" : "s");
  snprintf(detail[0], sizeof detail[0], "%s in %s", omplens_format_bytes(omplens_render__u64(tot, "transfer_bytes"), t[0]),
           fmt_ns(tns, t[1]));
  snprintf(detail[1], sizeof detail[1], "%s", fmt_ns(ans, t[2]));
  snprintf(detail[2], sizeof detail[2], "%s", fmt_ns(kns, t[3]));
  /* Host threads blocked in synchronous constructs (schema 4): the part of
   * that not spent on the device work it waits for is "waiting"; the run
   * outside the constructs is host compute. */
  int waits = json_object_get(tot, "host_wait_ns") != NULL;
  uint64_t wns = omplens_render__u64(tot, "host_wait_ns"), work = tns + ans + kns;
  uint64_t idle = wns > work ? wns - work : 0, host = run > wns ? run - wns : 0;
  char wt[2][32], wpct[32], wait_legend[256] = "";
  fmt_ns(idle, wt[0]);
  fmt_ns(host, wt[1]);
  if (waits)
    snprintf(wait_legend, sizeof wait_legend,
             "<span><span class=\"key seg-wait\"></span>waiting %s</span> "
             "<span><span class=\"key seg-host\"></span>host compute %s</span> ",
             wt[0], wt[1]);
  snprintf(bar, sizeof bar, "transfers %s, allocations %s, kernels %s%s%s%s%s (they may overlap)",
           t[1], t[2], t[3], waits ? ", waiting " : "", waits ? wt[0] : "",
           waits ? ", host compute " : "", waits ? wt[1] : "");
  char nt[32], na[32], nk[32];
  FILL(h, h->body, omplens_tpl__summary_html, {"id", id}, {"meta", meta},
       {"executable", omplens_render__str(p, "executable")}, {"command", program_name(p)},
       {"warnings", omplens_strbuf_str(&warnings)}, {"savings", fmt_ns(saved, t[4])},
       {"savings_share", share}, {"speedup", speedup > 0 ? omplens_render__speedup(speedup, sp) : "n/a"},
       {"speedup_note", speedup > 0 ? "if every finding is fixed" : "operations overlapped in time"},
       {"run", fmt_ns(run, r)}, {"devices", dev},
       {"transfers", fmt_count(omplens_render__u64(tot, "transfers"), nt)}, {"transfer_detail", detail[0]},
       {"allocations", fmt_count(omplens_render__u64(tot, "allocations"), na)}, {"alloc_detail", detail[1]},
       {"kernels", fmt_count(omplens_render__u64(tot, "kernels"), nk)}, {"kernel_detail", detail[2]},
       {"timebar_title", bar}, {"transfer_pct", fmt_pct(tns, run, pct[0])},
       {"alloc_pct", fmt_pct(ans, run, pct[1])}, {"kernel_pct", fmt_pct(kns, run, pct[2])},
       {"wait_pct", fmt_pct(idle, run, wpct)}, {"wait_legend", wait_legend},
       {"transfer_time", t[1]}, {"alloc_time", t[2]}, {"kernel_time", t[3]},
       {"narrative", omplens_strbuf_str(&narrative)}, {"categories", omplens_strbuf_str(&cats)});
  if (warnings.failed || narrative.failed || md.failed || cats.failed)
    h->body->failed = 1;
  omplens_strbuf_free(&warnings);
  omplens_strbuf_free(&narrative);
  omplens_strbuf_free(&md);
  omplens_strbuf_free(&cats);
}

/* ---- Directives ------------------------------------------------------------------------ */

static void directive_head(html_ctx *h, omplens_strbuf *b) {
  FILL(h, b, omplens_tpl__table_head_html, {"class", "num"}, {"type", "num"}, {"title", "Rank by predicted savings"}, {"label", "#"});
  FILL(h, b, omplens_tpl__table_head_html, {"class", ""}, {"type", "text"}, {"title", "Source location, or module+offset"}, {"label", "Location"});
  FILL(h, b, omplens_tpl__table_head_html, {"class", ""}, {"type", "text"}, {"title", "OpenMP directive"}, {"label", "Directive"});
  static const char *const short_titles[OMPLENS_RENDER_CATEGORIES] = {
      [OMPLENS_CAT_DUPLICATE_SAME_BUFFER] = "Duplicate",
      [OMPLENS_CAT_DUPLICATE_OTHER_BUFFER] = "Same content",
      [OMPLENS_CAT_ROUND_TRIP] = "Round trip",
      [OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER] = "Trip via other",
      [OMPLENS_CAT_REINIT] = "Re-init",
      [OMPLENS_CAT_REPEATED_ALLOC] = "Re-alloc",
      [OMPLENS_CAT_UNUSED_ALLOC] = "Unused alloc",
      [OMPLENS_CAT_UNUSED_TRANSFER] = "Unused copy",
      [OMPLENS_RENDER_UNREFERENCED] = "Unreferenced",
  };
  for (int c = 0; c < OMPLENS_RENDER_CATEGORIES; c++)
    if (h->category_shown[c])
      FILL(h, b, omplens_tpl__table_head_html, {"class", "num"}, {"type", "num"},
           {"title", omplens_render__category_title(c)}, {"label", short_titles[c]});
  FILL(h, b, omplens_tpl__table_head_html, {"class", "num"}, {"type", "num"}, {"title", "Times the directive ran"}, {"label", "Runs"});
  FILL(h, b, omplens_tpl__table_head_html, {"class", "num"}, {"type", "num"}, {"title", "Bytes transferred at this directive"}, {"label", "Bytes"});
  FILL(h, b, omplens_tpl__table_head_html, {"class", "num"}, {"type", "num"}, {"title", "Time in transfers at this directive"}, {"label", "Transfer time"});
  FILL(h, b, omplens_tpl__table_head_html, {"class", "num sorted-desc"}, {"type", "num"}, {"title", "Predicted savings"}, {"label", "Savings"});
}

/* Small tags after a location: how sure the attribution is. */
static void location_tags(omplens_strbuf *b, const json_t *location) {
  const json_t *d = json_object_get(location, "directive");
  char why[256];
  const char *confidence = omplens_render__confidence(omplens_render__str(d, "confidence"), why);
  if (confidence) {
    omplens_strbuf_puts(b, " <span class=\"tag\" title=\"");
    omplens_html__escape(b, why, strlen(why));
    omplens_strbuf_puts(b, "\">");
    omplens_html__escape(b, confidence, strlen(confidence));
    omplens_strbuf_puts(b, "</span>");
  }
  if (omplens_render__bool(d, "stale", 0))
    omplens_strbuf_puts(b, " <span class=\"tag warn\">source changed</span>");
  if (!omplens_render__source_pos(location).file)
    omplens_strbuf_puts(b, " <span class=\"tag\">no source</span>");
}

/* Appends line `line` of f (without its newline) to b; 0 when it exists. */
static int read_line(FILE *f, unsigned line, omplens_strbuf *b) {
  char chunk[512];
  unsigned at = 1;
  while (fgets(chunk, sizeof chunk, f)) {
    size_t n = strlen(chunk);
    int complete = n && chunk[n - 1] == '\n';
    if (at == line) {
      omplens_strbuf_add(b, chunk, n - complete);
      if (complete)
        return 0;
    }
    at += complete;
    if (at > line)
      return 0;
  }
  return at == line && b->len ? 0 : -1;
}

/* The directive's text when the document lacks it: its source line, if
 * that is an OpenMP pragma (with its continuation lines). */
static void pragma_from_source(const char *path, unsigned line, omplens_strbuf *out) {
  FILE *f = path && line ? fopen(path, "r") : NULL;
  if (!f)
    return;
  omplens_strbuf text = {0};
  int more = !read_line(f, line, &text);
  while (more && text.len && text.data[text.len - 1] == '\\') {
    text.data[--text.len] = 0;
    more = !read_line(f, 1, &text); /* the next line: fgets has consumed this one */
  }
  fclose(f);
  const char *s = omplens_strbuf_str(&text);
  s += strspn(s, " \t");
  const char *p = s + (*s == '#');
  p += strspn(p, " \t");
  if ((*s == '#' && !strncmp(p, "pragma", 6) && strstr(p, "omp")) || !strncmp(s, "_Pragma", 7))
    omplens_strbuf_puts(out, s);
  omplens_strbuf_free(&text);
}

static void directive_row(html_ctx *h, omplens_strbuf *b, size_t i, const json_t *d, uint64_t max_savings) {
  const json_t *l = json_object_get(d, "location"), *dir = json_object_get(l, "directive");
  const json_t *counts = json_object_get(d, "counts");
  omplens_strbuf cells = {0}, tags = {0};
  char rank[32], exec[32], bv[32], by[32], tv[32], tm[32], sv[32], sm[32], pct[32], title[4096];
  for (int c = 0; c < OMPLENS_RENDER_CATEGORIES; c++) {
    if (!h->category_shown[c])
      continue;
    uint64_t n = omplens_render__u64(counts, omplens_render__category_name(c));
    char v[32];
    omplens_strbuf_printf(&cells, "<td class=\"num%s\" data-v=\"%" PRIu64 "\">%s</td>", n ? "" : " zero", n,
                          n ? fmt_count(n, v) : "\xc2\xb7");
  }
  location_tags(&tags, l);
  if (omplens_render__bool(d, "setup", 0)) /* ranked after the others */
    omplens_strbuf_puts(&tags, " <span class=\"tag\" title=\"All its findings ran before the "
                               "program's first repeated kernel, in its one-time initialisation\">"
                               "set-up</span>");
  const char *module = omplens_render__str(l, "module");
  snprintf(title, sizeof title, "%s%s%s", omplens_render__source_pos(l).file ? omplens_render__source_pos(l).file : "",
           module ? " in " : "", module ? module : "");
  uint64_t saved = omplens_render__u64(d, "savings_ns");
  const char *kind = omplens_render__kind(l);
  omplens_strbuf text = {0};
  if (omplens_render__str(dir, "text"))
    omplens_strbuf_puts(&text, omplens_render__str(dir, "text"));
  else
    pragma_from_source(omplens_render__source_pos(l).file, omplens_render__source_pos(l).line, &text);
  FILL(h, b, omplens_tpl__directive_row_html, {"target", h->targets[i]}, {"rank", fmt_u64(i + 1, rank)},
       {"location", h->site_labels[i]}, {"location_title", title}, {"tags", omplens_strbuf_str(&tags)},
       {"kind", kind ? kind : text.len ? "" : "\xe2\x80\x94"}, {"text", omplens_strbuf_str(&text)},
       {"category_cells", omplens_strbuf_str(&cells)},
       {"executions", fmt_u64(omplens_render__u64(d, "executions"), exec)},
       {"bytes_value", fmt_u64(omplens_render__u64(d, "transfer_bytes"), bv)},
       {"bytes", omplens_format_bytes(omplens_render__u64(d, "transfer_bytes"), by)},
       {"time_value", fmt_u64(omplens_render__u64(d, "transfer_ns"), tv)},
       {"time", fmt_ns(omplens_render__u64(d, "transfer_ns"), tm)}, {"savings_value", fmt_u64(saved, sv)},
       {"savings", fmt_ns(saved, sm)}, {"savings_pct", fmt_pct(saved, max_savings, pct)});
  if (cells.failed || tags.failed || text.failed)
    b->failed = 1;
  omplens_strbuf_free(&cells);
  omplens_strbuf_free(&tags);
  omplens_strbuf_free(&text);
}

static void section_directives(html_ctx *h) {
  omplens_strbuf head = {0}, rows = {0};
  char id[48], table[48], subtitle[128];
  size_t i, n = json_array_size(h->directives);
  const json_t *d;
  directive_head(h, &head);
  uint64_t max_savings = omplens_render__u64(json_array_get(h->directives, 0), "savings_ns");
  json_array_foreach(h->directives, i, d)
    directive_row(h, &rows, i, d, max_savings);
  snprintf(id, sizeof id, "%s-directives", h->prefix);
  snprintf(table, sizeof table, "%s-directive-table", h->prefix);
  snprintf(subtitle, sizeof subtitle, "%zu directive%s with findings, by predicted savings; click a row "
           "to see it in the source", n, n == 1 ? "" : "s");
  FILL(h, h->body, omplens_tpl__directives_html, {"id", id}, {"subtitle", subtitle}, {"table_id", table},
       {"head", omplens_strbuf_str(&head)}, {"rows", omplens_strbuf_str(&rows)});
  if (head.failed || rows.failed)
    h->body->failed = 1;
  omplens_strbuf_free(&head);
  omplens_strbuf_free(&rows);
}

/* ---- Where the time goes ------------------------------------------------------------------- */

static void profile_head(html_ctx *h, omplens_strbuf *b) {
  static const char *const cols[][4] = {
      {"num", "num", "Rank by time", "#"},
      {"", "text", "Source location, or module+offset", "Location"},
      {"", "text", "OpenMP directive", "Directive"},
      {"num", "num", "Times the directive ran", "Runs"},
      {"num", "num", "Time in its kernels", "Kernel time"},
      {"num", "num", "Time in its transfers, both ways", "Transfer time"},
      {"num", "num", "Bytes it transferred", "Bytes"},
      {"num", "num", "Time in its allocations and frees", "Allocation time"},
      {"num", "num", "Time host threads were blocked in its synchronous executions, or waited for its nowait ones at a taskwait, taskgroup or barrier",
       "Host wait"},
      {"num sorted-desc", "num", "Its operations' time, as a share of the run", "Share of run"},
      {"", "text", "Whether findings name it", "Findings"},
  };
  for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
    FILL(h, b, omplens_tpl__table_head_html, {"class", cols[i][0]}, {"type", cols[i][1]},
         {"title", cols[i][2]}, {"label", cols[i][3]});
}

static uint64_t profile_sum(const json_t *p, const char *const *kinds, const char *field) {
  uint64_t sum = 0;
  for (; *kinds; kinds++)
    sum += omplens_render__u64(json_object_get(p, *kinds), field);
  return sum;
}

static void profile_row(html_ctx *h, omplens_strbuf *b, size_t i, const json_t *d) {
  static const char *const transfers[] = {"h2d", "d2h", "d2d", NULL};
  static const char *const kernels[] = {"kernels", NULL}, *const allocs[] = {"allocs", "frees", NULL};
  const json_t *l = json_object_get(d, "location"), *p = json_object_get(d, "profile");
  char rank[32], exec[32], kv[32], km[32], tv[32], tm[32], bv[32], by[32], av[32], am[32];
  static const char *const waits[] = {"host_waits", NULL};
  char sv[32], sh[32], wv[32], wm[32], loc[4096];
  uint64_t wait = profile_sum(p, waits, "ns");
  uint64_t kernel = profile_sum(p, kernels, "ns"), transfer = profile_sum(p, transfers, "ns");
  uint64_t bytes = profile_sum(p, transfers, "bytes"), alloc = profile_sum(p, allocs, "ns");
  double share = omplens_render__real(p, "share_of_run");
  int findings = omplens_render__bool(p, "has_findings", 0);
  const char *kind = omplens_render__kind(l);
  const char *file = omplens_render__source_pos(l).file;
  snprintf(sv, sizeof sv, "%.6f", share);
  snprintf(sh, sizeof sh, "%.1f %%", 100.0 * share);
  FILL(h, b, omplens_tpl__profile_row_html, {"has_findings", findings ? "1" : "0"},
       {"rank", fmt_u64(i + 1, rank)},
       {"location", omplens_render__location_label(l, h->base, loc, sizeof loc)},
       {"location_title", file ? file : ""}, {"kind", kind ? kind : "\xe2\x80\x94"},
       {"executions", fmt_u64(omplens_render__u64(p, "executions"), exec)},
       {"kernel_value", fmt_u64(kernel, kv)}, {"kernel", fmt_ns(kernel, km)},
       {"transfer_value", fmt_u64(transfer, tv)}, {"transfer", fmt_ns(transfer, tm)},
       {"bytes_value", fmt_u64(bytes, bv)}, {"bytes", omplens_format_bytes(bytes, by)},
       {"alloc_value", fmt_u64(alloc, av)}, {"alloc", fmt_ns(alloc, am)},
       {"wait_value", fmt_u64(wait, wv)},
       {"wait", json_object_get(p, "host_waits") ? fmt_ns(wait, wm) : "\xe2\x80\x94"}, /* schema 4 */
       {"share_value", sv}, {"share", sh}, {"findings", findings ? "yes" : "no"});
}

/* Every directive by time (schema 3's profiles), findings or not. */
static void section_profile(html_ctx *h) {
  const json_t *all = omplens_render__array(h->proc, "directives"), *d;
  if (!json_object_get(json_array_get(all, 0), "profile"))
    return;
  omplens_strbuf head = {0}, rows = {0};
  char id[48], table[48], subtitle[128];
  size_t i, n = json_array_size(all);
  profile_head(h, &head);
  json_array_foreach(all, i, d)
    profile_row(h, &rows, i, d);
  snprintf(id, sizeof id, "%s-profile", h->prefix);
  snprintf(table, sizeof table, "%s-profile-table", h->prefix);
  snprintf(subtitle, sizeof subtitle, "%zu directive%s, by the time of their kernels, transfers and "
           "allocations", n, n == 1 ? "" : "s");
  FILL(h, h->body, omplens_tpl__profile_html, {"id", id}, {"subtitle", subtitle}, {"table_id", table},
       {"head", omplens_strbuf_str(&head)}, {"rows", omplens_strbuf_str(&rows)});
  if (head.failed || rows.failed)
    h->body->failed = 1;
  omplens_strbuf_free(&head);
  omplens_strbuf_free(&rows);
}

/* ---- Findings ------------------------------------------------------------------------------ */

/* "the device-to-host copy at 1.2 ms": the earlier operation that makes an
 * instance wasteful. Its event number is among the identifiers. */
static const char *related_text(html_ctx *h, const json_t *inst, char *buf, size_t size) {
  const json_t *rel = json_object_get(inst, "related_event");
  char t[32];
  if (!json_is_integer(rel)) {
    snprintf(buf, size, "\xe2\x80\x94");
    return buf;
  }
  size_t nev = 0;
  const omplens_event *ev = omplens_trace_events(h->trace, &nev);
  json_int_t e = json_integer_value(rel);
  const char *kind = e >= 0 && (size_t)e < nev ? omplens_event_kind_name(ev[e].kind) : NULL;
  snprintf(buf, size, "the %s at %s", omplens_render__operation(kind),
           fmt_ns(omplens_render__u64(inst, "related_time_ns"), t));
  return buf;
}

/* "15", or "" when the document has no such number. */
static const char *event_number(const json_t *inst, const char *key, char *buf) {
  const json_t *e = json_object_get(inst, key);
  if (json_is_integer(e))
    snprintf(buf, 32, "%" JSON_INTEGER_FORMAT, json_integer_value(e));
  else
    buf[0] = 0;
  return buf;
}

/* The listed instances in plain words (rows), and what identifies each in
 * the trace and findings.json (ids): event numbers and content hashes. */
static void finding_instances(html_ctx *h, omplens_strbuf *rows, omplens_strbuf *ids, const json_t *f) {
  size_t i;
  const json_t *inst;
  json_array_foreach(omplens_render__array(f, "instances"), i, inst) {
    if (i == h->max_instances)
      break;
    char no[32], t1[32], t2[32], by[32], var[512], rel[128], ev[32], rev[32];
    const json_t *v = json_object_get(inst, "variable") ? inst : f;
    const char *kind = omplens_render__str(inst, "kind");
    FILL(h, rows, omplens_tpl__instance_row_html, {"number", fmt_u64(i + 1, no)},
         {"kind", kind}, {"operation", omplens_render__operation(kind)},
         {"time", fmt_ns(omplens_render__u64(inst, "time_ns"), t1)},
         {"duration", fmt_ns(omplens_render__u64(inst, "duration_ns"), t2)},
         {"bytes", omplens_format_bytes(omplens_render__u64(inst, "bytes"), by)},
         {"variable", omplens_render__finding_subject(v, var, sizeof var)},
         {"related", related_text(h, inst, rel, sizeof rel)});
    FILL(h, ids, omplens_tpl__instance_ids_html, {"number", no}, {"event", event_number(inst, "event", ev)},
         {"hash", omplens_render__str(inst, "hash")},
         {"related_event", event_number(inst, "related_event", rev)});
  }
}

/* The instances beyond the rows shown: every one counts, not only those
 * the document lists. */
static void more_instances(const json_t *f, size_t max_rows, omplens_strbuf *b) {
  size_t listed = json_array_size(omplens_render__array(f, "instances"));
  size_t rows = listed < max_rows ? listed : max_rows;
  uint64_t all = listed + omplens_render__u64(f, "instances_omitted");
  char n[32], cap[32];
  if (all <= rows)
    return;
  if (all <= OMPLENS_REPORT_MAX_INSTANCES)
    omplens_strbuf_printf(b, "<p class=\"more\">and %s more instances (all are in findings.json)</p>",
                          fmt_count(all - rows, n));
  else
    omplens_strbuf_printf(b, "<p class=\"more\">and %s more instances, counted in the figures above "
                             "(findings.json lists the first %s)</p>",
                          fmt_count(all - rows, n), fmt_count(OMPLENS_REPORT_MAX_INSTANCES, cap));
}

static void finding_facts(const json_t *f, char *buf, size_t size) {
  char a[32], b[32], c[32], d[32], frees[64] = "";
  uint64_t frees_ns = omplens_render__frees_ns(f);
  if (frees_ns)
    snprintf(frees, sizeof frees, " \xc2\xb7 %s in their frees", fmt_ns(frees_ns, d));
  snprintf(buf, size, "%s moved in total \xc2\xb7 %s spent in these operations%s \xc2\xb7 first at %s",
           omplens_format_bytes(omplens_render__u64(f, "total_bytes"), a),
           fmt_ns(omplens_render__u64(f, "total_ns"), b), frees,
           fmt_ns(omplens_render__u64(json_array_get(omplens_render__array(f, "instances"), 0), "time_ns"), c));
}

/* The first directive with finding i's codeptr, or SIZE_MAX. */
static size_t directive_of(const html_ctx *h, size_t i) {
  return h->dir_of ? h->dir_of[i] : SIZE_MAX;
}

static void finding(html_ctx *h, omplens_strbuf *b, size_t i, const json_t *f) {
  omplens_strbuf narrative = {0}, rows = {0}, ids = {0}, more = {0};
  char subject[512], dev[32], count[32], by[32], sv[32], facts[512], loc[4096];
  const char *category = omplens_render__str(f, "category");
  size_t d = directive_of(h, i);
  markdown_html(&narrative, f, h->base,
                omplens_render__fix_shown(&h->card_fixes, f, h->finding_labels[i]));
  finding_instances(h, &rows, &ids, f);
  more_instances(f, h->max_instances, &more);
  finding_facts(f, facts, sizeof facts);
  FILL(h, b, omplens_tpl__finding_html, {"category", category}, {"id", h->finding_ids[i]},
       {"category_title", omplens_render__category_title_of(category)},
       {"setup", omplens_render__bool(f, "setup", 0)
                     ? "<span class=\"chip setup\" title=\"Every operation ran before the program's "
                       "first repeated kernel, in its one-time initialisation\">set-up</span>"
                     : ""},
       {"subject", omplens_render__finding_subject(f, subject, sizeof subject)},
       {"device", omplens_render__device(json_object_get(f, "device"), dev)},
       {"location_target", d != SIZE_MAX ? h->targets[d] : h->finding_ids[i]},
       {"location", omplens_render__location_label(json_object_get(f, "location"), h->base, loc, sizeof loc)},
       {"count", fmt_count(omplens_render__u64(f, "count"), count)},
       {"bytes", omplens_format_bytes(omplens_render__u64(f, "bytes"), by)},
       {"savings", fmt_ns(omplens_render__u64(f, "savings_ns"), sv)},
       {"narrative", omplens_strbuf_str(&narrative)}, {"facts", facts},
       {"instances", omplens_strbuf_str(&rows)}, {"more", omplens_strbuf_str(&more)},
       {"ids", omplens_strbuf_str(&ids)},
       {"host_addr", omplens_render__str(f, "host_addr") ? omplens_render__str(f, "host_addr") : "unknown"});
  if (narrative.failed || rows.failed || ids.failed || more.failed)
    b->failed = 1;
  omplens_strbuf_free(&narrative);
  omplens_strbuf_free(&rows);
  omplens_strbuf_free(&ids);
  omplens_strbuf_free(&more);
}

/* What the page leaves out of a long list of findings. */
static void findings_left_out(html_ctx *h, omplens_strbuf *b) {
  size_t n = json_array_size(h->findings);
  uint64_t saved = omplens_render__u64(h->proc, "findings_omitted_savings_ns");
  char t[32], count[32];
  for (size_t i = h->num_shown; i < n; i++)
    saved += omplens_render__u64(json_array_get(h->findings, i), "savings_ns");
  omplens_strbuf_printf(b, "<p class=\"more\">and %s more findings, saving %s together: all are in "
                           "findings.json.</p>",
                        fmt_count(omplens_render__num_findings(h->proc) - h->num_shown, count),
                        fmt_ns(saved, t));
}

static void section_findings(html_ctx *h) {
  omplens_strbuf list = {0};
  char id[48], subtitle[128];
  size_t n = omplens_render__num_findings(h->proc);
  for (size_t i = 0; i < h->num_shown; i++)
    finding(h, &list, i, json_array_get(h->findings, i));
  if (n > h->num_shown)
    findings_left_out(h, &list);
  snprintf(id, sizeof id, "%s-findings", h->prefix);
  snprintf(subtitle, sizeof subtitle, "%zu finding%s, by predicted savings; open one for its instances", n,
           n == 1 ? "" : "s");
  FILL(h, h->body, omplens_tpl__findings_html, {"id", id}, {"subtitle", subtitle},
       {"findings", omplens_strbuf_str(&list)});
  if (list.failed)
    h->body->failed = 1;
  omplens_strbuf_free(&list);
}

/* No findings: one friendly card in place of directives and findings. */
static void section_no_findings(html_ctx *h) {
  char id[48];
  snprintf(id, sizeof id, "%s-findings", h->prefix);
  omplens_strbuf_printf(h->body, "<section class=\"card\" id=\"%s\">", id);
  empty_state(h, h->body, "No wasted data movement found",
              "No transfer, allocation or copy in this run repeats or wastes data: nothing to fix.");
  omplens_strbuf_puts(h->body, "</section>\n");
}

/* ---- Timeline ---------------------------------------------------------------------------------- */

static void timeline_legend(omplens_strbuf *b) {
  static const char *const keys[][2] = {
      {"kernel", "kernel"}, {"h2d", "host to device"}, {"d2h", "device to host"}, {"d2d", "device to device"},
      {"alloc", "allocation"}, {"delete", "free"}, {"target", "target"}, {"enter", "enter data"},
      {"exit", "exit data"}, {"update", "update"}, {"wait", "host wait"}, {"wasted", "wasteful"}};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    omplens_strbuf_printf(b, "<span class=\"legend-item\"><span class=\"key k-%s\"></span>%s</span>", keys[i][0],
                          keys[i][1]);
}

/* The analysis behind the process's findings, when the renderer has it. */
static const omplens_analysis *process_analysis(const html_ctx *h) {
  const omplens_report_input *in = h->input;
  if (h->analysis)
    return h->analysis;
  if (!in || h->index >= in->num_procs || in->procs[h->index].trace != h->trace)
    return NULL;
  return in->procs[h->index].analysis;
}

/* What the timeline says under it about what it shows. */
static const char *timeline_note(const html_ctx *h, const omplens_analysis *an, size_t nev) {
  size_t i;
  const json_t *f;
  json_array_foreach(h->findings, i, f) /* the analysis has the instances of detected findings */
    if ((!an || omplens_render__bool(f, "source_only", 0)) && omplens_render__u64(f, "instances_omitted"))
      return "Only the first instances of each finding are marked: findings.json lists the others.";
  return nev > OMPLENS_TIMELINE_EXACT ? "Where operations are dense, each mark stands for a group of them, "
                                        "with their count." : "";
}

static void section_timeline(html_ctx *h) {
  char id[48], data_id[48], subtitle[160], t[32];
  snprintf(id, sizeof id, "%s-timeline", h->prefix);
  snprintf(data_id, sizeof data_id, "%s-timeline-data", h->prefix);
  if (!h->trace) {
    omplens_strbuf_printf(h->body, "<section class=\"card\" id=\"%s\"><div class=\"section-head\"><h2>Timeline"
                                   "</h2></div><p class=\"muted\">No trace was given to the renderer.</p></section>\n", id);
    return;
  }
  omplens_strbuf legend = {0};
  /* Every directive of the document (schema 3 on: with or without
   * findings), so that the timeline's colours, selection and histograms
   * name directives also in a run without findings. */
  const json_t *all = json_object_get(h->proc, "directives"), *o;
  size_t nall = json_array_size(all), k;
  char **sites = calloc(nall + 1, sizeof *sites), loc[4096];
  if (!sites) {
    h->body->failed = 1;
    return;
  }
  json_array_foreach(all, k, o)
    sites[k] = xstrdup(h, omplens_render__location_label(json_object_get(o, "location"), h->base, loc, sizeof loc));
  omplens_timeline_labels labels = {h->num_shown, (const char *const *)h->finding_ids,
                                    (const char *const *)h->finding_labels, (const char *const *)sites, all};
  omplens_timeline_input in = {0};
  in.events = omplens_trace_events(h->trace, &in.num_events);
  in.regions = omplens_trace_regions(h->trace, &in.num_regions);
  in.waits = omplens_trace_waits(h->trace, &in.num_waits);
  in.site_codeptrs = omplens_trace_sites(h->trace, &in.num_sites);
  in.duration_ns = omplens_trace_get_info(h->trace) ? omplens_trace_get_info(h->trace)->duration_ns : 0;
  in.analysis = process_analysis(h);
  timeline_legend(&legend);
  size_t nev = 0;
  omplens_trace_events(h->trace, &nev);
  char events[32];
  snprintf(subtitle, sizeof subtitle, "%s operations over %s", fmt_count(nev, events),
           fmt_ns(omplens_render__u64(json_object_get(h->proc, "totals"), "run_ns"), t));
  FILL(h, h->body, omplens_tpl__timeline_html, {"id", id}, {"subtitle", subtitle}, {"data_id", data_id},
       {"legend", omplens_strbuf_str(&legend)}, {"label", "Timeline of kernels, transfers, allocations and host waits"},
       {"note", timeline_note(h, in.analysis, nev)});
  /* The data follows its section, streamed like the rest of the page. The
   * JSON is built by omplens_html__json_string: it holds no '<'. */
  omplens_strbuf_printf(h->body, "<script type=\"application/json\" id=\"%s\">", data_id);
  int rc = omplens_html__timeline_json(h->body, &in, h->proc, &labels);
  if (rc && !h->err)
    h->err = rc;
  omplens_strbuf_puts(h->body, "</script>\n");
  if (legend.failed)
    h->body->failed = 1;
  omplens_strbuf_free(&legend);
  free_list(sites, nall);
}

/* ---- Sources ------------------------------------------------------------------------------------ */

/* Category chips of one directive, each linking to its first finding. */
static void source_badge(html_ctx *h, omplens_strbuf *b, size_t d) {
  const json_t *dir = json_array_get(h->directives, d), *counts = json_object_get(dir, "counts");
  char n[32], t[32];
  omplens_strbuf_puts(b, "<span class=\"badges\">");
  for (int c = 0; c < OMPLENS_RENDER_CATEGORIES; c++) {
    uint64_t count = omplens_render__u64(counts, omplens_render__category_name(c));
    if (count)
      omplens_strbuf_printf(b, "<span class=\"chip cat-%s\">%s %s</span>", omplens_render__category_name(c),
                            omplens_render__category_title(c), fmt_count(count, n));
  }
  omplens_strbuf_printf(b, "<span class=\"badge-savings\">saves %s</span></span>",
                        fmt_ns(omplens_render__u64(dir, "savings_ns"), t));
}

static void source_note(html_ctx *h, omplens_strbuf *b, size_t i, const json_t *f) {
  omplens_strbuf narrative = {0};
  char subject[512], dev[32], count[32], by[32], sv[32];
  const char *category = omplens_render__str(f, "category");
  markdown_html(&narrative, f, h->base,
                omplens_render__fix_shown(&h->note_fixes, f, h->finding_labels[i]));
  FILL(h, b, omplens_tpl__source_note_html, {"category", category},
       {"category_title", omplens_render__category_title_of(category)},
       {"setup", omplens_render__bool(f, "setup", 0)
                     ? "<span class=\"chip setup\" title=\"Every operation ran before the program's "
                       "first repeated kernel, in its one-time initialisation\">set-up</span>"
                     : ""},
       {"subject", omplens_render__finding_subject(f, subject, sizeof subject)},
       {"device", omplens_render__device(json_object_get(f, "device"), dev)},
       {"count", fmt_count(omplens_render__u64(f, "count"), count)},
       {"bytes", omplens_format_bytes(omplens_render__u64(f, "bytes"), by)},
       {"savings", fmt_ns(omplens_render__u64(f, "savings_ns"), sv)}, {"finding_id", h->finding_ids[i]},
       {"narrative", omplens_strbuf_str(&narrative)});
  if (narrative.failed)
    b->failed = 1;
  omplens_strbuf_free(&narrative);
}

/* The finding boxes of one directive, the largest first. */
static void source_notes(html_ctx *h, omplens_strbuf *b, size_t d) {
  size_t shown = 0, left = 0;
  for (size_t i = h->dir_first ? h->dir_first[d] : SIZE_MAX; i != SIZE_MAX; i = h->next_of[i]) {
    const json_t *f = json_array_get(h->findings, i);
    if (i < h->num_shown && shown < MAX_NOTES_PER_DIRECTIVE) {
      source_note(h, b, i, f);
      shown++;
    } else {
      left++;
    }
  }
  if (left)
    omplens_strbuf_printf(b, "<div class=\"note more\">and %zu more finding%s at this directive: see "
                             "<a href=\"#%s-findings\">Findings</a> and findings.json.</div>", left,
                          left == 1 ? "" : "s", h->prefix);
}

typedef struct line_marks {
  omplens_source_mark *marks;
  omplens_strbuf *badges, *notes; /* per mark */
  size_t n;
} line_marks;

/* The marks of source s, by line: a badge and the finding boxes on each
 * directive line; directives sharing a line share its mark. */
static int source_marks(html_ctx *h, size_t s, line_marks *m) {
  const line_directive *ld = h->dir_lines ? &h->dir_lines[h->lines_from[s]] : NULL;
  size_t n = h->dir_lines ? h->lines_from[s + 1] - h->lines_from[s] : 0;
  m->marks = calloc(n + 1, sizeof *m->marks);
  m->badges = calloc(n + 1, sizeof *m->badges);
  m->notes = calloc(n + 1, sizeof *m->notes);
  m->n = 0;
  if (!m->marks || !m->badges || !m->notes)
    return -1;
  for (size_t i = 0; i < n; i++) {
    if (!i || ld[i].line != ld[i - 1].line)
      m->marks[m->n++].line = ld[i].line;
    source_badge(h, &m->badges[m->n - 1], ld[i].directive);
    source_notes(h, &m->notes[m->n - 1], ld[i].directive);
  }
  for (size_t k = 0; k < m->n; k++) {
    m->marks[k].badge = omplens_strbuf_str(&m->badges[k]);
    m->marks[k].notes = omplens_strbuf_str(&m->notes[k]);
  }
  return 0;
}

static void source_file(html_ctx *h, omplens_strbuf *b, size_t si, int open) {
  const source_ref *s = &h->sources[si];
  line_marks m;
  if (source_marks(h, si, &m)) {
    h->body->failed = 1;
  } else {
    int rc = omplens_html__source_view(b, s->id, s->path, omplens_render__display_path(s->path, h->base),
                                       s->status, m.marks, m.n, open);
    if (rc && !h->err)
      h->err = rc;
  }
  for (size_t k = 0; k < m.n && m.badges && m.notes; k++) {
    if (m.badges[k].failed || m.notes[k].failed)
      h->body->failed = 1;
    omplens_strbuf_free(&m.badges[k]);
    omplens_strbuf_free(&m.notes[k]);
  }
  free(m.marks);
  free(m.badges);
  free(m.notes);
}

/* The views of every source file, written where the template asks. */
static void source_files(omplens_strbuf *b, void *ctx) {
  html_ctx *h = ctx;
  for (size_t i = 0; i < h->num_sources; i++)
    source_file(h, b, i, h->num_sources <= 2);
  if (!h->num_sources)
    omplens_strbuf_puts(b, "<p class=\"muted\">The document has no source attribution: directives are "
                           "shown as module+offset. Build the program with <code>-g</code> so that omplens "
                           "can map them to source lines.</p>");
}

static void section_sources(html_ctx *h) {
  char id[48], subtitle[160];
  snprintf(id, sizeof id, "%s-sources", h->prefix);
  snprintf(subtitle, sizeof subtitle, "%zu file%s with findings", h->num_sources, h->num_sources == 1 ? "" : "s");
  const omplens_tpl_var vars[] = {{"id", id}, {"subtitle", subtitle}};
  int rc = omplens_html__fill_part(h->body, omplens_tpl__sources_html, vars, 2, "files",
                                   source_files, h);
  if (rc && !h->err)
    h->err = rc;
}

/* ---- Page ----------------------------------------------------------------------------------------- */

static void section_process_title(html_ctx *h) {
  char id[48], number[32], count[32], pid[32], rank[48] = "";
  snprintf(id, sizeof id, "%s", h->prefix);
  if (json_is_integer(json_object_get(h->proc, "rank")))
    snprintf(rank, sizeof rank, "rank %" PRIu64 " \xc2\xb7 ", omplens_render__u64(h->proc, "rank"));
  FILL(h, h->body, omplens_tpl__process_html, {"id", id}, {"number", fmt_u64(h->index + 1, number)},
       {"count", fmt_u64(h->num_procs, count)}, {"pid", fmt_u64(omplens_render__u64(h->proc, "pid"), pid)},
       {"rank", rank}, {"command", program_name(h->proc)});
}

/* ---- MPI job ------------------------------------------------------------------------------------- */

/* "<td>text</td>" with text escaped. */
static void cell(omplens_strbuf *b, const char *text, const char *cls) {
  omplens_strbuf_printf(b, cls ? "<td class=\"%s\">" : "<td>", cls);
  omplens_html__escape(b, text ? text : "", text ? strlen(text) : 0);
  omplens_strbuf_puts(b, "</td>");
}

/* "3, 3, 3, 7": a merged row's per-rank values. */
static void per_rank_text(const json_t *arr, char *buf, size_t size) {
  size_t len = 0, i;
  const json_t *v;
  buf[0] = 0;
  json_array_foreach(arr, i, v) {
    if (len >= size)
      break;
    len += (size_t)snprintf(buf + len, size - len, "%s%" JSON_INTEGER_FORMAT, i ? ", " : "",
                            json_integer_value(v));
  }
}

static void rank_rows(omplens_strbuf *b, const json_t *procs) {
  size_t i;
  const json_t *p;
  char t[4][64], devices[256];
  json_array_foreach(procs, i, p) {
    per_rank_text(json_object_get(p, "devices_used"), devices, sizeof devices);
    snprintf(t[0], sizeof t[0], "%" PRIu64, omplens_render__u64(p, "rank"));
    snprintf(t[1], sizeof t[1], "%" PRIu64 " (pid %" PRIu64 ")", omplens_render__u64(p, "process") + 1,
             omplens_render__u64(p, "pid"));
    omplens_strbuf_puts(b, "<tr>");
    cell(b, t[0], "num");
    cell(b, t[1], "num");
    cell(b, devices, NULL);
    cell(b, omplens_format_ns(omplens_render__u64(p, "device_ns"), t[2]), "num");
    cell(b, omplens_format_bytes(omplens_render__u64(p, "transfer_bytes"), t[3]), "num");
    snprintf(t[0], sizeof t[0], "%" PRIu64, omplens_render__u64(p, "findings"));
    cell(b, t[0], "num");
    omplens_strbuf_puts(b, "</tr>");
  }
}

static void rank_directive_rows(html_ctx *h, omplens_strbuf *b, const json_t *dirs, size_t n) {
  size_t i;
  const json_t *d;
  char t[64];
  static const char *const spread[] = {"total_ns", "min_ns", "median_ns", "max_ns"};
  json_array_foreach(dirs, i, d) {
    omplens_strbuf_puts(b, "<tr>");
    cell(b, omplens_render__display_path(omplens_render__str(d, "location"), h->base), NULL);
    snprintf(t, sizeof t, "%" PRIu64 " of %zu", omplens_render__u64(d, "ranks"), n);
    cell(b, t, "num");
    for (size_t k = 0; k < 4; k++)
      cell(b, omplens_format_ns(omplens_render__u64(d, spread[k]), t), "num");
    omplens_strbuf_puts(b, "</tr>");
  }
}

static void rank_finding_rows(html_ctx *h, omplens_strbuf *b, const json_t *finds, size_t n) {
  size_t i;
  const json_t *f;
  char t[64], per[1024];
  json_array_foreach(finds, i, f) {
    const char *var = omplens_render__str(f, "variable");
    omplens_strbuf_puts(b, "<tr>");
    cell(b, omplens_render__str(f, "category"), NULL);
    cell(b, var ? var : "(host buffer)", NULL);
    cell(b, omplens_render__display_path(omplens_render__str(f, "location"), h->base), NULL);
    snprintf(t, sizeof t, "on %" PRIu64 " of %zu ranks", omplens_render__u64(f, "ranks"), n);
    cell(b, t, "num");
    per_rank_text(json_object_get(f, "per_rank_count"), per, sizeof per);
    cell(b, per, NULL);
    omplens_strbuf_puts(b, "</tr>");
  }
}

static void rank_outliers(omplens_strbuf *b, const json_t *outliers) {
  size_t i;
  const json_t *o;
  if (!json_array_size(outliers)) {
    omplens_strbuf_puts(b, "<p>No rank stands far from the median.</p>");
    return;
  }
  omplens_strbuf_puts(b, "<ul class=\"outliers\">");
  json_array_foreach(outliers, i, o) {
    char line[256];
    omplens_render__outlier_text(o, line, sizeof line);
    omplens_strbuf_printf(b, "<li><strong>Rank %" PRIu64 "</strong> stands out: ",
                          omplens_render__u64(o, "rank"));
    omplens_html__escape(b, line, strlen(line));
    omplens_strbuf_puts(b, "</li>");
  }
  omplens_strbuf_puts(b, "</ul>");
}

/* The merged view of an MPI job's ranks (findings.json's "ranks"), before
 * the processes. */
static void section_ranks(html_ctx *h, const json_t *r) {
  if (!json_is_object(r))
    return;
  const json_t *procs = omplens_render__array(r, "processes");
  size_t n = json_array_size(procs);
  omplens_strbuf rows = {0}, dirs = {0}, finds = {0}, outs = {0};
  rank_rows(&rows, procs);
  rank_directive_rows(h, &dirs, omplens_render__array(r, "directives"), n);
  rank_finding_rows(h, &finds, omplens_render__array(r, "findings"), n);
  rank_outliers(&outs, omplens_render__array(r, "outliers"));
  char ranks[32], subtitle[160];
  snprintf(subtitle, sizeof subtitle, "ranks at %.1fx or 1/%.1f of the median are named; each rank's "
           "own report follows", omplens_render__real(r, "far_ratio"), omplens_render__real(r, "far_ratio"));
  if (rows.failed || dirs.failed || finds.failed || outs.failed) {
    if (!h->err)
      h->err = OMPLENS_REPORT_ENOMEM;
  } else {
    FILL(h, h->body, omplens_tpl__ranks_html, {"ranks", fmt_u64(n, ranks)}, {"subtitle", subtitle},
         {"outliers", omplens_strbuf_str(&outs)}, {"rank_rows", omplens_strbuf_str(&rows)},
         {"directive_rows", omplens_strbuf_str(&dirs)}, {"finding_rows", omplens_strbuf_str(&finds)});
  }
  omplens_strbuf_free(&rows);
  omplens_strbuf_free(&dirs);
  omplens_strbuf_free(&finds);
  omplens_strbuf_free(&outs);
}

static void render_process(html_ctx *h) {
  prepare_process(h);
  if (h->num_procs > 1)
    section_process_title(h);
  section_summary(h);
  if (json_array_size(h->findings)) {
    section_directives(h);
    section_findings(h);
  } else {
    section_no_findings(h);
  }
  section_profile(h);
  section_timeline(h);
  if (json_array_size(h->findings))
    section_sources(h);
  release_process(h);
}

/* The sections of the first process: directives and sources need
 * findings, "Time" (where the time goes) a profile (schema 3 on). */
static void page_nav(omplens_strbuf *b, const json_t *doc) {
  static const char *const parts[][2] = {{"summary", "Summary"}, {"directives", "Directives"},
                                         {"findings", "Findings"}, {"profile", "Time"},
                                         {"timeline", "Timeline"}, {"sources", "Sources"}};
  const json_t *first = json_array_get(omplens_render__array(doc, "processes"), 0);
  int has_findings = json_array_size(omplens_render__array(first, "findings")) > 0;
  int has_profile = json_object_get(json_array_get(omplens_render__array(first, "directives"), 0), "profile") != NULL;
  if (json_is_object(json_object_get(doc, "ranks")))
    omplens_strbuf_puts(b, "<a href=\"#ranks\">Ranks</a>");
  for (size_t i = 0; first && i < sizeof parts / sizeof *parts; i++) {
    int shown = i == 1 || i == 5 ? has_findings : i == 3 ? has_profile : 1;
    if (shown)
      omplens_strbuf_printf(b, "<a href=\"#p0-%s\"%s>%s</a>", parts[i][0],
                            i == 3 ? " title=\"Where the time goes: every directive\"" : "", parts[i][1]);
  }
}

/* Fills the part of the page template before its {{{body}}} (head) or
 * after it (tail) into page. */
static void page_part(html_ctx *h, const json_t *doc, const omplens_render_options *opt, int head,
                      omplens_strbuf *page) {
  static const char mark[] = "{{{body}}}";
  const char *tpl = omplens_tpl__page_html, *at = strstr(tpl, mark);
  char *part = !at ? NULL : head ? strndup(tpl, (size_t)(at - tpl)) : strdup(at + sizeof mark - 1);
  omplens_strbuf nav = {0};
  const json_t *first = json_array_get(omplens_render__array(doc, "processes"), 0);
  const char *title = opt && opt->title ? opt->title : first ? program_name(first) : "omplens report";
  const char *version = omplens_render__str(doc, "omplens_version");
  page_nav(&nav, doc);
  if (part)
    FILL(h, page, part, {"version", version ? version : "?"}, {"title", title},
         {"css", omplens_tpl__report_css}, {"nav", omplens_strbuf_str(&nav)},
         {"js", omplens_tpl__report_js});
  if ((!part || nav.failed) && !h->err)
    h->err = at ? OMPLENS_REPORT_ENOMEM : OMPLENS_REPORT_EINVAL;
  omplens_strbuf_free(&nav);
  free(part);
}

int omplens_render_html(const json_t *doc, const omplens_trace *const *traces, size_t num_traces,
                        const omplens_render_options *opt, FILE *out) {
  if (!json_is_object(doc) || !out)
    return OMPLENS_REPORT_EINVAL;
  char cwd[4096];
  /* The page is written as it is made, never held whole in memory. */
  omplens_strbuf page = {.sink = out};
  html_ctx h = {.body = &page,
                .base = opt && opt->base_dir ? opt->base_dir : getcwd(cwd, sizeof cwd),
                .max_instances = opt && opt->max_instances ? opt->max_instances : 50,
                .input = opt ? opt->input : NULL};
  page_part(&h, doc, opt, 1, &page);
  const json_t *procs = omplens_render__array(doc, "processes");
  h.num_procs = json_array_size(procs);
  section_ranks(&h, json_object_get(doc, "ranks"));
  for (h.index = 0; h.index < h.num_procs && !h.err && !page.failed; h.index++) {
    h.proc = json_array_get(procs, h.index);
    h.trace = traces && h.index < num_traces ? traces[h.index] : NULL;
    render_process(&h);
  }
  if (!h.num_procs)
    empty_state(&h, &page, "No traced process", "The program left no trace: was it built with -fopenmp and "
                                                "offloading, and linked with LLVM's libomp?");
  page_part(&h, doc, opt, 0, &page);
  /* A part that failed was out of memory, unless the stream failed. */
  if (h.err)
    return h.err;
  if (page.failed)
    return ferror(out) ? OMPLENS_REPORT_EIO : OMPLENS_REPORT_ENOMEM;
  return fflush(out) ? OMPLENS_REPORT_EIO : 0;
}

/* ---- The page in parts, one process at a time (report_parts.c) ---------- */

/* What omplens_render_html() returns after writing into page. */
static int page_result(const html_ctx *h, const omplens_strbuf *page, FILE *out) {
  if (h->err)
    return h->err;
  if (page->failed)
    return ferror(out) ? OMPLENS_REPORT_EIO : OMPLENS_REPORT_ENOMEM;
  return fflush(out) ? OMPLENS_REPORT_EIO : 0;
}

static html_ctx part_ctx(omplens_strbuf *page, const omplens_render_options *opt, char *cwd,
                         size_t size) {
  return (html_ctx){.body = page,
                    .base = opt && opt->base_dir ? opt->base_dir : getcwd(cwd, size),
                    .max_instances = opt && opt->max_instances ? opt->max_instances : 50,
                    .input = opt ? opt->input : NULL};
}

int omplens_render__html_head(const json_t *doc, const omplens_render_options *opt, FILE *out) {
  if (!json_is_object(doc) || !out)
    return OMPLENS_REPORT_EINVAL;
  char cwd[4096];
  omplens_strbuf page = {.sink = out};
  html_ctx h = part_ctx(&page, opt, cwd, sizeof cwd);
  page_part(&h, doc, opt, 1, &page);
  h.num_procs = json_array_size(omplens_render__array(doc, "processes"));
  section_ranks(&h, json_object_get(doc, "ranks"));
  return page_result(&h, &page, out);
}

int omplens_render__html_process(const json_t *proc, size_t index, size_t num_procs,
                                 const omplens_trace *trace, const omplens_analysis *analysis,
                                 const omplens_render_options *opt, FILE *out) {
  if (!json_is_object(proc) || !out)
    return OMPLENS_REPORT_EINVAL;
  char cwd[4096];
  omplens_strbuf page = {.sink = out};
  html_ctx h = part_ctx(&page, opt, cwd, sizeof cwd);
  h.input = NULL;
  h.analysis = analysis;
  h.num_procs = num_procs;
  h.index = index;
  h.proc = proc;
  h.trace = trace;
  render_process(&h);
  return page_result(&h, &page, out);
}

int omplens_render__html_tail(const json_t *doc, const omplens_render_options *opt, FILE *out) {
  if (!json_is_object(doc) || !out)
    return OMPLENS_REPORT_EINVAL;
  char cwd[4096];
  omplens_strbuf page = {.sink = out};
  html_ctx h = part_ctx(&page, opt, cwd, sizeof cwd);
  if (!json_array_size(omplens_render__array(doc, "processes")))
    empty_state(&h, &page, "No traced process", "The program left no trace: was it built with -fopenmp and "
                                                "offloading, and linked with LLVM's libomp?");
  page_part(&h, doc, opt, 0, &page);
  return page_result(&h, &page, out);
}
