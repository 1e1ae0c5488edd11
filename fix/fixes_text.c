/* A source file as bytes and lines, edits of it, and unified diffs of the
 * edits. Diffs are made from the edits, not by comparing texts: every
 * changed line is known, so a hunk is the changed lines with three lines of
 * context, and hunks closer than twice the context merge (as diff -u does).
 * Line endings are kept byte for byte, so a CRLF file gets a CRLF diff that
 * patch and git apply accept. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixes_internal.h"

/* ---- growable strings ---- */

static bool buf_reserve(omplens_fix__buf *b, size_t more) {
  if (b->failed)
    return false;
  /* No object is larger (and gcc -O3 then knows memcpy's bound is sane). */
  if (more >= PTRDIFF_MAX - b->len) {
    b->failed = 1;
    return false;
  }
  if (b->len + more + 1 <= b->cap)
    return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more + 1)
    cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = 1;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void omplens_fix__buf_add(omplens_fix__buf *b, const char *s, size_t n) {
  if (!buf_reserve(b, n))
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void omplens_fix__buf_str(omplens_fix__buf *b, const char *s) {
  omplens_fix__buf_add(b, s, strlen(s));
}

void omplens_fix__buf_printf(omplens_fix__buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !buf_reserve(b, (size_t)n)) {
    b->failed = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

char *omplens_fix__buf_take(omplens_fix__buf *b) {
  char *s = b->failed ? NULL : b->data;
  if (!s && !b->failed)
    s = calloc(1, 1);
  if (b->failed)
    free(b->data);
  memset(b, 0, sizeof *b);
  return s;
}

/* The pointer is read and written with memcpy: storing through a void **
 * that really points at a T * would break the aliasing rules. */
bool omplens_fix__room(void *array, size_t n, size_t *cap, size_t size, size_t first) {
  if (n < *cap)
    return true;
  size_t next = *cap ? 2 * *cap : first;
  if (next > SIZE_MAX / size)
    return false;
  void *old, *grown;
  memcpy(&old, array, sizeof old);
  if (!(grown = realloc(old, next * size)))
    return false;
  memcpy(array, &grown, sizeof grown);
  *cap = next;
  return true;
}

void omplens_fix__buf_free(omplens_fix__buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* ---- source text ---- */

/* Whether text[i] ends a line: LF, CR LF (at the LF), or a CR alone, as
 * clang counts lines (a file that mixes them numbers lines as the
 * compiler and the runtime do). */
static bool ends_line(const omplens_fix__source *s, size_t i) {
  return s->text[i] == '\n' || (s->text[i] == '\r' && (i + 1 == s->size || s->text[i + 1] != '\n'));
}

static int index_lines(omplens_fix__source *s) {
  size_t n = 1, crlf = 0, lf = 0;
  for (size_t i = 0; i < s->size; i++)
    if (ends_line(s, i)) {
      n++;
      if (s->text[i] == '\n' && i && s->text[i - 1] == '\r')
        crlf++;
      else if (s->text[i] == '\n')
        lf++;
    }
  s->line_start = malloc((n + 1) * sizeof *s->line_start);
  if (!s->line_start)
    return OMPLENS_FIX_ENOMEM;
  size_t k = 0;
  s->line_start[k++] = 0;
  for (size_t i = 0; i < s->size; i++)
    if (ends_line(s, i))
      s->line_start[k++] = i + 1;
  /* A final line without EOL is a line; an EOL at the very end starts none. */
  if (s->line_start[k - 1] == s->size && k > 1)
    k--;
  s->num_lines = s->size ? k : 0;
  s->line_start[s->num_lines] = s->size;
  s->eol = crlf > lf ? "\r\n" : "\n";
  size_t flush = 0, indented = 0;
  for (size_t l = 0; l < s->num_lines; l++) {
    const char *p = s->text + s->line_start[l];
    while (*p == ' ' || *p == '\t')
      p++;
    if (!strncmp(p, "#pragma", 7)) {
      flush += p == s->text + s->line_start[l];
      indented += p != s->text + s->line_start[l];
    }
  }
  s->pragmas_flush = flush && !indented;
  return 0;
}

int omplens_fix__source_from(const char *path, const char *data, size_t len,
                             omplens_fix__source *out) {
  memset(out, 0, sizeof *out);
  if (memchr(data, 0, len))
    return OMPLENS_FIX_EINVAL; /* not text */
  out->path = strdup(path ? path : "");
  out->text = malloc(len + 1);
  if (!out->path || !out->text) {
    omplens_fix__source_free(out);
    return OMPLENS_FIX_ENOMEM;
  }
  memcpy(out->text, data, len);
  out->text[len] = 0;
  out->size = len;
  int rc = index_lines(out);
  if (rc)
    omplens_fix__source_free(out);
  return rc;
}

int omplens_fix__source_load(const char *path, omplens_fix__source *out) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f)
    return OMPLENS_FIX_EINVAL;
  struct stat st;
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) ||
      (uint64_t)st.st_size > OMPLENS_DIRECTIVES_MAX_FILE) {
    fclose(f);
    return OMPLENS_FIX_EINVAL;
  }
  size_t size = (size_t)st.st_size;
  char *data = malloc(size + 1);
  if (!data) {
    fclose(f);
    return OMPLENS_FIX_ENOMEM;
  }
  size_t got = fread(data, 1, size, f);
  fclose(f);
  int rc = got == size ? omplens_fix__source_from(path, data, size, out) : OMPLENS_FIX_EINVAL;
  free(data);
  return rc;
}

void omplens_fix__source_free(omplens_fix__source *s) {
  free(s->path);
  free(s->text);
  free(s->line_start);
  memset(s, 0, sizeof *s);
}

size_t omplens_fix__offset(const omplens_fix__source *s, unsigned line, unsigned column) {
  if (!line || line > s->num_lines || !column)
    return SIZE_MAX;
  size_t at = s->line_start[line - 1] + column - 1;
  return at <= s->line_start[line] ? at : SIZE_MAX;
}

unsigned omplens_fix__line_of(const omplens_fix__source *s, size_t offset) {
  size_t lo = 0, hi = s->num_lines; /* the last line start <= offset */
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (s->line_start[mid] <= offset)
      lo = mid;
    else
      hi = mid;
  }
  return (unsigned)lo + 1;
}

size_t omplens_fix__indent(const omplens_fix__source *s, unsigned line, size_t *at) {
  if (!line || line > s->num_lines) {
    *at = s->size;
    return 0;
  }
  size_t b = s->line_start[line - 1], e = b;
  while (e < s->size && (s->text[e] == ' ' || s->text[e] == '\t'))
    e++;
  *at = b;
  return e - b;
}

size_t omplens_fix__line_end(const omplens_fix__source *s, unsigned line) {
  size_t e = s->line_start[line];
  if (e > s->line_start[line - 1] && s->text[e - 1] == '\n')
    e--;
  if (e > s->line_start[line - 1] && s->text[e - 1] == '\r')
    e--;
  return e;
}

bool omplens_fix__next_identifier(const char **p, char *word, size_t size) {
  const char *s = *p;
  for (;;) {
    while (*s && !omplens_fix__ident_char(*s))
      s++;
    if (!*s) {
      *p = s;
      return false;
    }
    size_t n = 0;
    while (omplens_fix__ident_char(s[n]))
      n++;
    if (!isdigit((unsigned char)*s)) {
      snprintf(word, size, "%.*s", (int)n, s);
      *p = s + n;
      return true;
    }
    s += n; /* a number and its suffix */
  }
}

bool omplens_fix__blank(const omplens_fix__source *s, size_t from, size_t to) {
  const char *t = s->text;
  for (size_t i = from; i < to; i++) {
    if (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n')
      continue;
    if (t[i] == '/' && i + 1 < to && t[i + 1] == '/')
      return true; /* a line comment runs to the end of the line */
    if (t[i] == '/' && i + 1 < to && t[i + 1] == '*') {
      const char *close = strstr(t + i + 2, "*/");
      if (!close || (size_t)(close - t) + 2 > to)
        return false;
      i = (size_t)(close - t) + 1;
      continue;
    }
    return false;
  }
  return true;
}

/* ---- edits ---- */

void omplens_fix__edit_raw(omplens_fix__edits *e, size_t begin, size_t end, const char *text) {
  if (e->failed)
    return;
  char *t = strdup(text);
  if (t && e->n == e->cap) {
    size_t cap = e->cap ? 2 * e->cap : 8;
    omplens_fix__edit *v = realloc(e->v, cap * sizeof *v);
    if (v) {
      e->v = v;
      e->cap = cap;
    }
  }
  if (!t || e->n == e->cap) {
    free(t);
    e->failed = 1;
    return;
  }
  e->v[e->n++] = (omplens_fix__edit){begin, end, t};
}

void omplens_fix__replace(omplens_fix__edits *e, const omplens_fix__source *s, size_t begin,
                          size_t end, const char *text) {
  omplens_fix__buf b = {0};
  omplens_fix__buf_str(&b, "");
  for (const char *p = text; *p; p++) {
    if (*p == '\n')
      omplens_fix__buf_str(&b, s->eol);
    else
      omplens_fix__buf_add(&b, p, 1);
  }
  char *t = omplens_fix__buf_take(&b);
  if (!t) {
    e->failed = 1;
    return;
  }
  omplens_fix__edit_raw(e, begin, end, t);
  free(t);
}

void omplens_fix__insert_lines(omplens_fix__edits *e, const omplens_fix__source *s, unsigned line,
                               const char *indent, size_t indent_len, const char *lines) {
  omplens_fix__buf b = {0};
  size_t at = line > s->num_lines ? s->size : s->line_start[line - 1];
  /* Appending after a last line that has no EOL: end that line first. */
  if (at == s->size && s->size && s->text[s->size - 1] != '\n')
    omplens_fix__buf_str(&b, "\n");
  for (const char *p = lines; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (!s->pragmas_flush || strncmp(p, "#pragma", 7)) /* the file's own place for pragmas */
      omplens_fix__buf_add(&b, indent, indent_len);
    omplens_fix__buf_add(&b, p, n);
    omplens_fix__buf_str(&b, "\n");
    p += n + (nl != NULL);
  }
  char *text = omplens_fix__buf_take(&b);
  if (!text) {
    e->failed = 1;
    return;
  }
  omplens_fix__replace(e, s, at, at, text);
  free(text);
}

void omplens_fix__remove_lines(omplens_fix__edits *e, const omplens_fix__source *s, unsigned first,
                               unsigned last) {
  omplens_fix__replace(e, s, s->line_start[first - 1], s->line_start[last], "");
}

void omplens_fix__edits_free(omplens_fix__edits *e) {
  for (size_t i = 0; i < e->n; i++)
    free(e->v[i].text);
  free(e->v);
  memset(e, 0, sizeof *e);
}

bool omplens_fix__edits_sort(omplens_fix__edits *e) {
  for (size_t i = 1; i < e->n; i++) { /* insertion sort: stable, few edits */
    omplens_fix__edit x = e->v[i];
    size_t j = i;
    for (; j > 0 && e->v[j - 1].begin > x.begin; j--)
      e->v[j] = e->v[j - 1];
    e->v[j] = x;
  }
  for (size_t i = 1; i < e->n; i++) {
    const omplens_fix__edit *a = &e->v[i - 1], *b = &e->v[i];
    bool a_insert = a->begin == a->end;
    if (b->begin < a->end || (b->begin == a->begin && !a_insert && b->begin == b->end))
      return false;
  }
  return true;
}

bool omplens_fix__edits_merged(const omplens_fix__edits *a, const omplens_fix__edits *b,
                               omplens_fix__edits *out) {
  *out = (omplens_fix__edits){0};
  for (size_t i = 0; i < a->n; i++)
    omplens_fix__edit_raw(out, a->v[i].begin, a->v[i].end, a->v[i].text);
  for (size_t i = 0; i < b->n; i++) {
    bool same = false; /* two fixes making one change (an exit data per
                          mapping of one site) make it once */
    for (size_t j = 0; j < a->n && !same; j++)
      same = a->v[j].begin == b->v[i].begin && a->v[j].end == b->v[i].end &&
             !strcmp(a->v[j].text, b->v[i].text);
    if (!same)
      omplens_fix__edit_raw(out, b->v[i].begin, b->v[i].end, b->v[i].text);
  }
  if (!out->failed && omplens_fix__edits_sort(out))
    return true;
  omplens_fix__edits_free(out);
  return false;
}

char *omplens_fix__apply(const omplens_fix__source *s, const omplens_fix__edits *e) {
  omplens_fix__buf b = {0};
  size_t at = 0;
  for (size_t i = 0; i < e->n; i++) {
    omplens_fix__buf_add(&b, s->text + at, e->v[i].begin - at);
    omplens_fix__buf_str(&b, e->v[i].text);
    at = e->v[i].end;
  }
  omplens_fix__buf_add(&b, s->text + at, s->size - at);
  return omplens_fix__buf_take(&b);
}

/* ---- unified diff ---- */

/* A run of changed lines: old lines [a, b) (0-based) become text. */
typedef struct block {
  size_t a, b;
  size_t first_edit, num_edits;
} block;

/* The old lines an edit touches: [*a, *b), 0-based. A pure insertion of
 * whole lines at a line start touches none. */
static void edit_lines(const omplens_fix__source *s, const omplens_fix__edit *ed, size_t *a,
                       size_t *b) {
  size_t n = strlen(ed->text);
  bool eof_with_eol = ed->begin == s->size && (!s->size || s->text[s->size - 1] == '\n');
  if (ed->begin == ed->end && n && ed->text[n - 1] == '\n' &&
      (eof_with_eol || ed->begin == s->line_start[omplens_fix__line_of(s, ed->begin) - 1])) {
    *a = *b = eof_with_eol ? s->num_lines : omplens_fix__line_of(s, ed->begin) - 1;
    return;
  }
  if (ed->begin == s->size) { /* appending to a last line without EOL */
    *a = s->num_lines ? s->num_lines - 1 : 0;
    *b = s->num_lines;
    return;
  }
  *a = omplens_fix__line_of(s, ed->begin) - 1;
  *b = omplens_fix__line_of(s, ed->end > ed->begin ? ed->end - 1 : ed->begin);
}

static void emit_line(omplens_fix__buf *out, char mark, const char *p, size_t n) {
  omplens_fix__buf_add(out, &mark, 1);
  omplens_fix__buf_add(out, p, n);
  if (!n || p[n - 1] != '\n')
    omplens_fix__buf_str(out, "\n\\ No newline at end of file\n");
}

static void emit_old(omplens_fix__buf *out, const omplens_fix__source *s, size_t line, char mark) {
  emit_line(out, mark, s->text + s->line_start[line],
            s->line_start[line + 1] - s->line_start[line]);
}

/* The new text of a block: its old lines with its edits applied. */
static char *block_text(const omplens_fix__source *s, const omplens_fix__edits *e,
                        const block *bl) {
  omplens_fix__buf b = {0};
  size_t at = s->line_start[bl->a];
  for (size_t i = bl->first_edit; i < bl->first_edit + bl->num_edits; i++) {
    omplens_fix__buf_add(&b, s->text + at, e->v[i].begin - at);
    omplens_fix__buf_str(&b, e->v[i].text);
    at = e->v[i].end;
  }
  size_t stop = s->line_start[bl->b];
  if (at < stop)
    omplens_fix__buf_add(&b, s->text + at, stop - at);
  return omplens_fix__buf_take(&b);
}

static size_t count_lines(const char *t) {
  size_t n = 0;
  for (const char *p = t; *p; p++)
    n += *p == '\n';
  if (*t && t[strlen(t) - 1] != '\n')
    n++;
  return n;
}

static void emit_new(omplens_fix__buf *out, const char *t) {
  for (const char *p = t; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
    emit_line(out, '+', p, n);
    p += n;
  }
}

static void range(omplens_fix__buf *out, size_t start, size_t count) {
  if (count == 1)
    omplens_fix__buf_printf(out, "%zu", start + 1);
  else
    omplens_fix__buf_printf(out, "%zu,%zu", count ? start + 1 : start, count);
}

/* One hunk over blocks [first, last]; *delta is new minus old lines so far. */
static void emit_hunk(omplens_fix__buf *out, const omplens_fix__source *s,
                      const omplens_fix__edits *e, const block *bl, size_t first, size_t last,
                      long *delta) {
  size_t start = bl[first].a > OMPLENS_FIX__CONTEXT ? bl[first].a - OMPLENS_FIX__CONTEXT : 0;
  size_t stop = bl[last].b + OMPLENS_FIX__CONTEXT;
  if (stop > s->num_lines)
    stop = s->num_lines;
  char *texts[last - first + 1];
  size_t new_count = stop - start;
  for (size_t i = first; i <= last; i++) {
    texts[i - first] = block_text(s, e, &bl[i]);
    new_count =
        new_count - (bl[i].b - bl[i].a) + (texts[i - first] ? count_lines(texts[i - first]) : 0);
  }
  omplens_fix__buf_str(out, "@@ -");
  range(out, start, stop - start);
  omplens_fix__buf_str(out, " +");
  range(out, (size_t)((long)start + *delta), new_count);
  omplens_fix__buf_str(out, " @@\n");
  size_t line = start;
  for (size_t i = first; i <= last; i++) {
    for (; line < bl[i].a; line++)
      emit_old(out, s, line, ' ');
    for (; line < bl[i].b; line++)
      emit_old(out, s, line, '-');
    if (texts[i - first])
      emit_new(out, texts[i - first]);
    else
      out->failed = 1;
    free(texts[i - first]);
  }
  for (; line < stop; line++)
    emit_old(out, s, line, ' ');
  *delta += (long)new_count - (long)(stop - start);
}

void omplens_fix__diff(const omplens_fix__source *s, const omplens_fix__edits *e, const char *name,
                       omplens_fix__buf *out) {
  if (!e->n)
    return;
  block *bl = calloc(e->n, sizeof *bl);
  if (!bl) {
    out->failed = 1;
    return;
  }
  size_t nb = 0;
  for (size_t i = 0; i < e->n; i++) {
    size_t a, b;
    edit_lines(s, &e->v[i], &a, &b);
    /* Edits sharing a line make one block. */
    if (nb && a < bl[nb - 1].b) {
      if (b > bl[nb - 1].b)
        bl[nb - 1].b = b;
      bl[nb - 1].num_edits++;
      continue;
    }
    bl[nb++] = (block){a, b, i, 1};
  }
  const char *sep = name[0] == '/' ? "" : "/";
  omplens_fix__buf_printf(out, "--- a%s%s\n+++ b%s%s\n", sep, name, sep, name);
  long delta = 0;
  for (size_t i = 0; i < nb;) {
    size_t j = i;
    while (j + 1 < nb && bl[j + 1].a <= bl[j].b + 2 * OMPLENS_FIX__CONTEXT)
      j++;
    emit_hunk(out, s, e, bl, i, j, &delta);
    i = j + 1;
  }
  free(bl);
}

/* ---- verifying a diff ---- */

/* "@@ -os[,oc] +ns[,nc] @@": the four numbers (a missing count is 1). */
static bool hunk_header(const char *p, unsigned long r[4]) {
  if (strncmp(p, "@@ -", 4))
    return false;
  const char *q = p + 4;
  for (int side = 0; side < 2; side++) {
    char *end;
    r[2 * side] = strtoul(q, &end, 10);
    r[2 * side + 1] = 1;
    if (end == q)
      return false;
    q = end;
    if (*q == ',') {
      r[2 * side + 1] = strtoul(q + 1, &end, 10);
      q = end;
    }
    if (side == 0 && strncmp(q, " +", 2))
      return false;
    q += 2;
  }
  return true;
}

/* Applies one hunk's lines at *p to s from old line *line, appending to
 * out; counts the old and new lines it saw. */
static bool hunk_body(const omplens_fix__source *s, const char **p, size_t *line,
                      omplens_fix__buf *out, unsigned long *seen_old, unsigned long *seen_new) {
  while (**p == ' ' || **p == '-' || **p == '+' || **p == '\\') {
    const char *nl = strchr(*p, '\n');
    size_t n = nl ? (size_t)(nl - *p) + 1 : strlen(*p);
    const char *body = *p + 1;
    /* the line's own bytes: without the '\n' the diff added if a marker follows */
    size_t len = n - 1 - (!strncmp(*p + n, "\\ No newline", 12) && n > 1 && (*p)[n - 1] == '\n');
    char mark = **p;
    *p += n;
    if (mark == '\\')
      continue;
    if (mark == '+') {
      omplens_fix__buf_add(out, body, len);
      (*seen_new)++;
      continue;
    }
    size_t ol = *line < s->num_lines ? s->line_start[*line + 1] - s->line_start[*line] : 0;
    if (*line >= s->num_lines || ol != len || memcmp(s->text + s->line_start[*line], body, len))
      return false; /* the context or removed line is not the file's */
    if (mark == ' ')
      omplens_fix__buf_add(out, body, len);
    (*line)++;
    (*seen_old)++;
    *seen_new += mark == ' ';
  }
  return true;
}

/* Applies a unified diff of one file strictly (every hunk at its stated
 * line, context exact, no fuzz) to s and compares with expected. The
 * fixer's own check that what it prints is what it means. */
bool omplens_fix__diff_verify(const omplens_fix__source *s, const char *diff,
                              const char *expected) {
  omplens_fix__buf out = {0};
  omplens_fix__buf_str(&out, "");
  size_t line = 0;     /* next old line to copy, 0-based */
  size_t new_line = 0; /* lines written so far */
  const char *p = diff;
  bool ok = true;
  while (ok && *p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
    if (!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4)) {
      p += n;
      continue;
    }
    unsigned long r[4]; /* old start, old count, new start, new count */
    p += n;
    ok = hunk_header(p - n, r);
    size_t start = ok && r[1] ? r[0] - 1 : ok ? r[0] : 0;
    ok = ok && start >= line && start <= s->num_lines;
    if (!ok)
      break;
    omplens_fix__buf_add(&out, s->text + s->line_start[line],
                         s->line_start[start] - s->line_start[line]);
    new_line += start - line;
    line = start;
    unsigned long seen_old = 0, seen_new = 0;
    ok = r[2] == (r[3] ? new_line + 1 : new_line) &&
         hunk_body(s, &p, &line, &out, &seen_old, &seen_new) && seen_old == r[1] &&
         seen_new == r[3];
    new_line += seen_new;
  }
  if (ok)
    omplens_fix__buf_add(&out, s->text + s->line_start[line], s->size - s->line_start[line]);
  char *got = omplens_fix__buf_take(&out);
  ok = ok && got && !strcmp(got, expected);
  free(got);
  return ok;
}
