/* Shared pieces of the report.md and report.html renderers: text buffer,
 * document lookups, labels and Markdown escaping. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omplens_detect.h"
#include "render_md_internal.h"
#include "report_internal.h"

/* ---- Text buffer --------------------------------------------------------- */

void omplens_strbuf_free(omplens_strbuf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

static int strbuf_reserve(omplens_strbuf *b, size_t extra) {
  if (b->failed)
    return -1;
  if (b->len + extra + 1 <= b->cap)
    return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) {
    if (cap > SIZE_MAX / 2) {
      b->failed = 1;
      return -1;
    }
    cap *= 2;
  }
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = 1;
    return -1;
  }
  b->data = p;
  b->cap = cap;
  return 0;
}

void omplens_strbuf_add(omplens_strbuf *b, const char *s, size_t n) {
  if (b->sink) {
    if (!b->failed && fwrite(s, 1, n, b->sink) != n)
      b->failed = 1;
    b->len += n;
    return;
  }
  if (strbuf_reserve(b, n))
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void omplens_strbuf_puts(omplens_strbuf *b, const char *s) {
  omplens_strbuf_add(b, s, strlen(s));
}

void omplens_strbuf_printf(omplens_strbuf *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n < sizeof small) {
    omplens_strbuf_add(b, small, (size_t)n);
    return;
  }
  if (b->sink) {
    va_start(ap, fmt);
    if (!b->failed && vfprintf(b->sink, fmt, ap) != n)
      b->failed = 1;
    va_end(ap);
    b->len += (size_t)n;
    return;
  }
  if (strbuf_reserve(b, (size_t)n))
    return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* A buffer with a sink has nothing to show: "". */
const char *omplens_strbuf_str(const omplens_strbuf *b) {
  return b->data ? b->data : "";
}

/* ---- Reading the document ------------------------------------------------ */

const char *omplens_render__str(const json_t *o, const char *key) {
  return json_string_value(json_object_get(o, key));
}

const char *omplens_render__kind(const json_t *loc) {
  const char *kind = omplens_render__str(json_object_get(loc, "directive"), "kind");
  return kind ? kind : omplens_render__str(loc, "construct");
}

uint64_t omplens_render__u64(const json_t *o, const char *key) {
  json_int_t v = json_integer_value(json_object_get(o, key));
  return v > 0 ? (uint64_t)v : 0;
}

double omplens_render__real(const json_t *o, const char *key) {
  return json_number_value(json_object_get(o, key));
}

int omplens_render__bool(const json_t *o, const char *key, int fallback) {
  const json_t *v = json_object_get(o, key);
  return json_is_boolean(v) ? json_is_true(v) : fallback;
}

const json_t *omplens_render__array(const json_t *o, const char *key) {
  /* One per process, never freed; made once even when the renderers of
   * two outputs, on two threads, first need it together. */
  static _Atomic(json_t *) empty;
  const json_t *a = json_object_get(o, key);
  if (json_is_array(a))
    return a;
  json_t *e = atomic_load_explicit(&empty, memory_order_acquire);
  if (!e) {
    json_t *mine = json_array(), *none = NULL;
    if (atomic_compare_exchange_strong(&empty, &none, mine))
      e = mine;
    else {
      json_decref(mine);
      e = none;
    }
  }
  return e;
}

size_t omplens_render__num_findings(const json_t *proc) {
  return json_array_size(omplens_render__array(proc, "findings")) +
         (size_t)omplens_render__u64(proc, "findings_omitted");
}

static uint64_t codeptr_of(const json_t *directive) {
  const char *cp = omplens_render__str(json_object_get(directive, "location"), "codeptr");
  return cp ? strtoull(cp, NULL, 16) : 0;
}

/* Set-up directives (schema 4) after the others, then by savings. */
static int compare_by_savings(const void *pa, const void *pb) {
  const json_t *a = *(const json_t *const *)pa, *b = *(const json_t *const *)pb;
  int ua = omplens_render__bool(a, "setup", 0), ub = omplens_render__bool(b, "setup", 0);
  if (ua != ub)
    return ua - ub;
  uint64_t sa = omplens_render__u64(a, "savings_ns"), sb = omplens_render__u64(b, "savings_ns");
  if (sa != sb)
    return sa > sb ? -1 : 1;
  uint64_t ca = codeptr_of(a), cb = codeptr_of(b);
  return ca < cb ? -1 : ca > cb;
}

json_t *omplens_report__page_directives(const json_t *proc) {
  const json_t *all = omplens_render__array(proc, "directives"), *d;
  size_t n = json_array_size(all), kept = 0, i;
  const json_t **list = malloc((n ? n : 1) * sizeof *list);
  json_t *out = json_array();
  if (!list || !out) {
    free(list);
    return out;
  }
  json_array_foreach(all, i, d) {
    const json_t *profile = json_object_get(d, "profile");
    if (!profile || omplens_render__bool(profile, "has_findings", 0))
      list[kept++] = d;
  }
  qsort(list, kept, sizeof *list, compare_by_savings);
  for (i = 0; i < kept; i++)
    json_array_append(out, (json_t *)list[i]);
  free(list);
  return out;
}

const json_t *omplens_render__finding_directives(const json_t *proc, json_t **owned) {
  const json_t *made = json_object_get(proc, OMPLENS_REPORT__PAGE_DIRECTIVES);
  *owned = made ? NULL : omplens_report__page_directives(proc);
  return made ? made : *owned;
}

omplens_source_pos omplens_render__source_pos(const json_t *location) {
  const json_t *d = json_object_get(location, "directive");
  omplens_source_pos p = {omplens_render__str(d, "file"), (unsigned)omplens_render__u64(d, "line")};
  if (p.file && p.line)
    return p;
  p.file = omplens_render__str(location, "file");
  p.line = (unsigned)omplens_render__u64(location, "line");
  if (!p.line)
    p.file = NULL;
  return p;
}

const char *omplens_render__display_path(const char *path, const char *base) {
  size_t n = base ? strlen(base) : 0;
  while (n > 1 && base[n - 1] == '/')
    n--;
  if (n && path[0] == '/' && !strncmp(path, base, n) && path[n] == '/' && path[n + 1])
    return path + n + 1;
  return path;
}


const char *omplens_render__location_label(const json_t *location, const char *base, char *buf,
                                           size_t size) {
  omplens_source_pos p = omplens_render__source_pos(location);
  const char *module = omplens_render__str(location, "module");
  const char *offset = omplens_render__str(location, "offset");
  const char *codeptr = omplens_render__str(location, "codeptr");
  if (p.file)
    snprintf(buf, size, "%s:%u", omplens_render__display_path(p.file, base), p.line);
  else if (module && offset)
    snprintf(buf, size, "%s+%s", omplens_report__base_name(module), offset);
  else
    snprintf(buf, size, "%s", codeptr ? codeptr : "unknown location");
  return buf;
}

/* ---- Categories ---------------------------------------------------------- */

const char *omplens_render__category_name(int c) {
  return c == OMPLENS_RENDER_UNREFERENCED ? OMPLENS_REPORT_UNREFERENCED : omplens_category_name(c);
}

const char *omplens_render__category_title(int c) {
  return c == OMPLENS_RENDER_UNREFERENCED ? "Unreferenced mapping" : omplens_category_title(c);
}

const char *omplens_render__category_title_of(const char *name) {
  for (int c = 0; name && c < OMPLENS_RENDER_CATEGORIES; c++)
    if (!strcmp(name, omplens_render__category_name(c)))
      return omplens_render__category_title(c);
  return name ? name : "unknown";
}

uint64_t omplens_render__frees_ns(const json_t *finding) {
  const char *c = omplens_render__str(finding, "category");
  uint64_t saves = omplens_render__u64(finding, "savings_ns"), own = omplens_render__u64(finding, "total_ns");
  int alloc = c && (!strcmp(c, omplens_category_name(OMPLENS_CAT_REPEATED_ALLOC)) ||
                     !strcmp(c, omplens_category_name(OMPLENS_CAT_UNUSED_ALLOC)));
  return alloc && saves > own ? saves - own : 0;
}

uint64_t omplens_render__predicted_savings(const json_t *totals) {
  return json_object_get(totals, "predicted_savings_ns")
             ? omplens_render__u64(totals, "predicted_savings_ns")
             : omplens_render__u64(totals, "savings_ns");
}

uint64_t omplens_render__total_count(const json_t *o) {
  const json_t *counts = json_object_get(o, "counts");
  const char *key;
  const json_t *v;
  uint64_t sum = 0;
  json_object_foreach((json_t *)counts, key, v)
    sum += json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
  return sum;
}

const char *omplens_render__subject(const json_t *finding, char *buf, size_t size,
                                   const char **note) {
  const json_t *var = json_object_get(finding, "variable");
  const char *item = omplens_render__str(var, "item");
  if (!item)
    item = omplens_render__str(var, "name");
  const char *addr = omplens_render__str(finding, "host_addr");
  const char *storage = omplens_render__str(var, "storage");
  const char *pointer = omplens_render__str(var, "pointer");
  *note = item && !omplens_render__bool(var, "certain", 1) ? " (probably)" : "";
  if (item && storage && strcmp(storage, item))
    snprintf(buf, size, "%s (%s)", item, storage);
  else if (item)
    snprintf(buf, size, "%s", item);
  else if (pointer) {
    snprintf(buf, size, "%s", pointer);
    *note = strchr(pointer, ',') ? " (pointers)" : " (pointer)";
  } else
    snprintf(buf, size, "buffer %s", addr ? addr : "?");
  return buf;
}

const char *omplens_render__finding_subject(const json_t *finding, char *buf, size_t size) {
  const char *note;
  omplens_render__subject(finding, buf, size, &note);
  size_t len = strlen(buf);
  snprintf(buf + len, size - len, "%s", note);
  return buf;
}

const char *omplens_render__operation(const char *kind) {
  static const char *const words[][2] = {
      {"h2d", "host-to-device copy"}, {"d2h", "device-to-host copy"}, {"d2d", "device-to-device copy"},
      {"alloc", "allocation"},        {"delete", "release"},         {"kernel", "kernel"}};
  for (size_t i = 0; kind && i < sizeof words / sizeof *words; i++)
    if (!strcmp(kind, words[i][0]))
      return words[i][1];
  return kind ? kind : "operation";
}

const char *omplens_render__confidence(const char *confidence, char *title) {
  if (!confidence || !strcmp(confidence, "exact"))
    return NULL;
  if (!strcmp(confidence, "nearest")) {
    snprintf(title, 256, "Attributed to the closest directive: the line the runtime reported "
                         "holds no directive, so this is the one that encloses it");
    return "closest directive";
  }
  if (!strcmp(confidence, "ambiguous")) {
    snprintf(title, 256, "Several directives fit the line the runtime reported equally well");
    return "one of several";
  }
  snprintf(title, 256, "No directive of the source fits the line the runtime reported");
  return "no directive found";
}

const char *omplens_render__device(const json_t *device, char *buf) {
  if (json_is_integer(device))
    snprintf(buf, 32, "device %" JSON_INTEGER_FORMAT, json_integer_value(device));
  else
    snprintf(buf, 32, "the host");
  return buf;
}

const char *omplens_render__speedup(double speedup, char *buf) {
  if (speedup > 0)
    snprintf(buf, 32, "%.2f\xc3\x97", speedup);
  else
    snprintf(buf, 32, "n/a (overlapping work)");
  return buf;
}

/* ---- Markdown escaping --------------------------------------------------- */

/* Characters that can open or close Markdown markup anywhere in a line ('#'
 * only at a line's start). */
static int md_special(char c, int in_table) {
  return strchr("\\`*_[]<>!~&", c) || (in_table && c == '|');
}

void omplens_md__text(omplens_strbuf *b, const char *s, int in_table) {
  int line_start = !in_table && (!b->len || b->data[b->len - 1] == '\n');
  for (; s && *s; s++) {
    char c = *s;
    if (c == '\n' || c == '\r') {
      omplens_strbuf_puts(b, in_table ? " " : "\n");
      line_start = !in_table;
      continue;
    }
    if (line_start && (c == ' ' || c == '\t'))
      continue; /* indentation would make a code block */
    if (line_start && c >= '0' && c <= '9') { /* "1." or "1)" would start a list */
      size_t n = strspn(s, "0123456789");
      omplens_strbuf_add(b, s, n);
      s += n - 1;
      if (s[1] == '.' || s[1] == ')')
        omplens_strbuf_puts(b, "\\");
      line_start = 0;
      continue;
    }
    /* At a line's start: list markers, headings, setext underlines. */
    if (md_special(c, in_table) || (line_start && strchr("#+-=|", c)))
      omplens_strbuf_puts(b, "\\");
    omplens_strbuf_add(b, &c, 1);
    line_start = 0;
  }
}

static size_t longest_backtick_run(const char *s) {
  size_t best = 0, run = 0;
  for (; s && *s; s++) {
    run = *s == '`' ? run + 1 : 0;
    if (run > best)
      best = run;
  }
  return best;
}

static void add_fence(omplens_strbuf *b, char c, size_t n) {
  for (size_t i = 0; i < n; i++)
    omplens_strbuf_add(b, &c, 1);
}

void omplens_md__prose(omplens_strbuf *b, const char *s, int in_table) {
  while (s && *s) {
    const char *open = strchr(s, '`'), *close = open ? strchr(open + 1, '`') : NULL;
    if (close && close == open + 1) /* `` opens no span: the rest is text */
      close = NULL;
    size_t n = close ? (size_t)(open - s) : strlen(s);
    if (n) { /* the text before the span, escaped as text */
      char *part = strndup(s, n);
      if (!part)
        return;
      omplens_md__text(b, part, in_table);
      free(part);
    }
    if (!close)
      break;
    char *code = strndup(open + 1, (size_t)(close - open - 1));
    if (!code)
      return;
    omplens_md__code(b, code, in_table);
    free(code);
    s = close + 1;
  }
}

void omplens_md__code(omplens_strbuf *b, const char *s, int in_table) {
  s = s ? s : "";
  size_t fence = longest_backtick_run(s) + 1;
  size_t n = strlen(s);
  /* A space on each side keeps a leading or trailing backtick apart from the
   * fence; CommonMark strips one space from each side. */
  int pad = n && (s[0] == '`' || s[n - 1] == '`' || s[0] == ' ' || s[n - 1] == ' ');
  add_fence(b, '`', fence);
  if (pad)
    omplens_strbuf_puts(b, " ");
  for (; *s; s++) {
    if (*s == '\n' || *s == '\r')
      omplens_strbuf_puts(b, " ");
    else if (in_table && *s == '|')
      omplens_strbuf_puts(b, "\\|"); /* GFM: a pipe ends the cell even in code */
    else
      omplens_strbuf_add(b, s, 1);
  }
  if (pad)
    omplens_strbuf_puts(b, " ");
  add_fence(b, '`', fence);
}

void omplens_md__code_block(omplens_strbuf *b, const char *info, const char *s) {
  s = s ? s : "";
  size_t fence = longest_backtick_run(s) + 1;
  if (fence < 3)
    fence = 3;
  add_fence(b, '`', fence);
  omplens_strbuf_printf(b, "%s\n", info ? info : "");
  omplens_strbuf_puts(b, s);
  if (*s && s[strlen(s) - 1] != '\n')
    omplens_strbuf_puts(b, "\n");
  add_fence(b, '`', fence);
  omplens_strbuf_puts(b, "\n");
}

/* ---- Fixes shown once ------------------------------------------------------ */

/* Fix ids are places in the process's fix list: an array by id serves. */
const char *omplens_render__fix_shown(omplens_render__shown *s, const json_t *finding,
                                      const char *where) {
  const json_t *id = json_object_get(json_object_get(finding, "fix"), "id");
  /* An id past any fix list's length (a foreign document) is shown again. */
  if (!json_is_integer(id) || json_integer_value(id) < 0 || json_integer_value(id) >= 1 << 24)
    return NULL;
  size_t k = (size_t)json_integer_value(id);
  if (k < s->cap && s->where[k])
    return s->where[k];
  if (k >= s->cap) {
    size_t cap = s->cap ? s->cap : 64;
    while (cap <= k)
      cap *= 2;
    char **grown = realloc(s->where, cap * sizeof *grown);
    if (!grown)
      return NULL; /* without room it is shown again: still correct */
    memset(grown + s->cap, 0, (cap - s->cap) * sizeof *grown);
    s->where = grown;
    s->cap = cap;
  }
  s->where[k] = strdup(where ? where : "");
  return NULL;
}

void omplens_render__shown_free(omplens_render__shown *s) {
  for (size_t i = 0; i < s->cap; i++)
    free(s->where[i]);
  free(s->where);
  *s = (omplens_render__shown){0};
}

const char *omplens_render__outlier_text(const json_t *o, char *buf, size_t size) {
  const char *m = omplens_render__str(o, "measure");
  uint64_t v = omplens_render__u64(o, "value"), med = omplens_render__u64(o, "median");
  char a[32], b[32];
  const char *what = "findings";
  if (m && !strcmp(m, "device_ns")) {
    what = "device time";
    omplens_format_ns(v, a), omplens_format_ns(med, b);
  } else if (m && !strcmp(m, "transfer_bytes")) {
    what = "transfer bytes";
    omplens_format_bytes(v, a), omplens_format_bytes(med, b);
  } else {
    snprintf(a, sizeof a, "%" PRIu64, v), snprintf(b, sizeof b, "%" PRIu64, med);
  }
  int n = snprintf(buf, size, "%s %s, median %s", what, a, b);
  if (med && n >= 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n, " (%.2fx)", (double)v / (double)med);
  return buf;
}
