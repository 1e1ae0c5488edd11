/* Source text without libclang: loading a file with its line table, a light
 * lexer that finds every pragma (`#pragma` lines with their continuations,
 * and `_Pragma("...")` written outside a macro), and statement extents from
 * tokens. This is what still works when libclang cannot parse the file, so
 * it must survive any input: every loop is bounded by the text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "directives_internal.h"

#define TOK_IDENT OMPLENS_DIRECTIVES__TOK_IDENT
#define TOK_NUMBER OMPLENS_DIRECTIVES__TOK_NUMBER
#define TOK_STRING OMPLENS_DIRECTIVES__TOK_STRING
#define TOK_PUNCT OMPLENS_DIRECTIVES__TOK_PUNCT
#define TOK_PRAGMA OMPLENS_DIRECTIVES__TOK_PRAGMA
#define MAX_NESTING 200

typedef omplens_directives__token token;
typedef omplens_directives__pragma pragma;

/* ---- loading ---- */

static int read_all(const char *path, char *buf, size_t size, size_t *got)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return OMPLENS_DIRECTIVES_EIO;
  *got = fread(buf, 1, size, f);
  int bad = ferror(f);
  fclose(f);
  return bad ? OMPLENS_DIRECTIVES_EIO : 0;
}

/* Whether t[i] ends a line as clang counts lines: "\n", the "\n" of
 * "\r\n", or a lone "\r" (old Mac files, and stray ones in CRLF files).
 * The "\r" of "\r\n" is not a break of its own: it is blank space. */
static bool is_eol(const char *t, uint32_t n, uint32_t i)
{
  return t[i] == '\n' || (t[i] == '\r' && (i + 1 >= n || t[i + 1] != '\n'));
}

static int build_lines(omplens_directives__source *s)
{
  uint32_t count = 1;
  for (uint32_t i = 0; i < s->size; i++)
    count += is_eol(s->text, s->size, i);
  s->line_start = malloc(count * sizeof(*s->line_start));
  if (s->line_start == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  uint32_t n = 0;
  s->line_start[n++] = 0;
  for (uint32_t i = 0; i < s->size; i++)
    if (is_eol(s->text, s->size, i))
      s->line_start[n++] = i + 1;
  /* A final line break ends the last line; it does not open another. */
  bool trailing = s->size > 0 && is_eol(s->text, s->size, s->size - 1);
  s->num_lines = s->size == 0 ? 0 : (trailing ? n - 1 : n);
  return 0;
}

int omplens_directives__source_from(const char *path, const char *data,
                                    size_t len, omplens_directives__source *out)
{
  memset(out, 0, sizeof(*out));
  if (len > OMPLENS_DIRECTIVES_MAX_FILE)
    return OMPLENS_DIRECTIVES_EFBIG;
  out->path = strdup(path);
  out->text = malloc(len + 1);
  if (out->path == NULL || out->text == NULL) {
    omplens_directives__source_free(out);
    return OMPLENS_DIRECTIVES_ENOMEM;
  }
  if (len > 0)
    memcpy(out->text, data, len);
  out->text[len] = '\0';
  out->size = (uint32_t)len;
  int err = build_lines(out);
  if (err != 0)
    omplens_directives__source_free(out);
  return err;
}

int omplens_directives__source_load(const char *path,
                                    omplens_directives__source *out)
{
  memset(out, 0, sizeof(*out));
  struct stat st;
  if (stat(path, &st) != 0)
    return errno == ENOENT || errno == ENOTDIR ? OMPLENS_DIRECTIVES_ENOENT
                                               : OMPLENS_DIRECTIVES_EIO;
  if (!S_ISREG(st.st_mode))
    return OMPLENS_DIRECTIVES_EIO;
  if ((uint64_t)st.st_size > OMPLENS_DIRECTIVES_MAX_FILE)
    return OMPLENS_DIRECTIVES_EFBIG;
  char *buf = malloc((size_t)st.st_size + 1);
  if (buf == NULL)
    return OMPLENS_DIRECTIVES_ENOMEM;
  size_t got = 0;
  int err = read_all(path, buf, (size_t)st.st_size, &got);
  if (err == 0)
    err = omplens_directives__source_from(path, buf, got, out);
  free(buf);
  out->mtime = (int64_t)st.st_mtime;
  out->fsize = (int64_t)st.st_size;
  return err;
}

void omplens_directives__source_free(omplens_directives__source *s)
{
  free(s->path);
  free(s->text);
  free(s->line_start);
  memset(s, 0, sizeof(*s));
}

void omplens_directives__source_position(const omplens_directives__source *s,
                                         uint32_t offset, uint32_t *line,
                                         uint32_t *column)
{
  uint32_t lo = 0, hi = s->line_start != NULL ? s->num_lines : 0;
  if (hi == 0) {
    *line = 1;
    *column = offset + 1;
    return;
  }
  while (hi - lo > 1) { /* last line starting at or before offset */
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->line_start[mid] <= offset)
      lo = mid;
    else
      hi = mid;
  }
  *line = lo + 1;
  *column = offset - s->line_start[lo] + 1;
}

/* ---- lexing helpers ---- */

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_ident_start(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (unsigned char)c >= 0x80;
}

static bool is_ident_char(char c)
{
  return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

/* Length of a backslash-newline at i, 0 if there is none. */
static uint32_t splice_len(const char *t, uint32_t n, uint32_t i)
{
  if (t[i] != '\\' || i + 1 >= n)
    return 0;
  if (t[i + 1] == '\r' && i + 2 < n && t[i + 2] == '\n')
    return 3;
  return is_eol(t, n, i + 1) ? 2 : 0;
}

static uint32_t skip_block_comment(const char *t, uint32_t n, uint32_t i)
{
  for (i += 2; i + 1 < n; i++)
    if (t[i] == '*' && t[i + 1] == '/')
      return i + 2;
  return n;
}

/* Returns the index of the newline that ends the comment (not consumed). */
static uint32_t skip_line_comment(const char *t, uint32_t n, uint32_t i)
{
  while (i < n && !is_eol(t, n, i)) {
    uint32_t s = splice_len(t, n, i);
    i += s > 0 ? s : 1;
  }
  return i;
}

/* i at the opening quote; returns the index after the closing one, or the
 * unescaped newline where a broken literal stops. */
static uint32_t skip_quoted(const char *t, uint32_t n, uint32_t i)
{
  char q = t[i++];
  while (i < n && t[i] != q && !is_eol(t, n, i))
    i += (t[i] == '\\' && i + 1 < n) ? 2 : 1;
  return i < n && t[i] == q ? i + 1 : i;
}

/* i at the quote of R"delim( ... )delim". */
static uint32_t skip_raw_string(const char *t, uint32_t n, uint32_t i)
{
  uint32_t d = i + 1;
  while (d < n && d - i <= 17 && t[d] != '(' && !is_eol(t, n, d))
    d++;
  if (d >= n || t[d] != '(')
    return skip_quoted(t, n, i);
  uint32_t dlen = d - i - 1;
  for (uint32_t j = d + 1; j + dlen + 1 < n; j++)
    if (t[j] == ')' && memcmp(t + j + 1, t + i + 1, dlen) == 0 &&
        t[j + 1 + dlen] == '"')
      return j + dlen + 2;
  return n;
}

static uint32_t skip_gap(const char *t, uint32_t n, uint32_t i, bool newlines)
{
  while (i < n) {
    uint32_t s = splice_len(t, n, i);
    if (s > 0)
      i += s;
    else if (is_space(t[i]) || (newlines && is_eol(t, n, i)))
      i++;
    else if (t[i] == '/' && i + 1 < n && t[i + 1] == '*')
      i = skip_block_comment(t, n, i);
    else
      break;
  }
  return i;
}

/* Index of the newline ending the logical line that holds i (or n). */
static uint32_t logical_line_end(const char *t, uint32_t n, uint32_t i)
{
  while (i < n && !is_eol(t, n, i)) {
    uint32_t s = splice_len(t, n, i);
    if (s > 0)
      i += s;
    else if (t[i] == '/' && i + 1 < n && t[i + 1] == '*')
      i = skip_block_comment(t, n, i);
    else if (t[i] == '/' && i + 1 < n && t[i + 1] == '/')
      i = skip_line_comment(t, n, i);
    else if (t[i] == '"' || t[i] == '\'')
      i = skip_quoted(t, n, i);
    else
      i++;
  }
  return i;
}

/* ---- normalized text with positions ---- */

typedef struct textbuf {
  char *s;
  uint32_t *pos;
  uint32_t len, cap;
  bool oom;
} textbuf;

static void tb_put(textbuf *b, char c, uint32_t pos)
{
  if (b->oom)
    return;
  if (b->len + 1 >= b->cap) {
    uint32_t cap = b->cap == 0 ? 128 : b->cap * 2;
    char *s = realloc(b->s, cap);
    if (s != NULL)
      b->s = s;
    uint32_t *p = realloc(b->pos, cap * sizeof(*p));
    if (p != NULL)
      b->pos = p;
    if (s == NULL || p == NULL) {
      b->oom = true;
      return;
    }
    b->cap = cap;
  }
  b->s[b->len] = c;
  b->pos[b->len++] = pos;
  b->s[b->len] = '\0';
}

static void tb_free(textbuf *b)
{
  free(b->s);
  free(b->pos);
}

/* Appends s[from..to) with whitespace runs, splices and comments turned
 * into one space; the source offset of s[j] is map[j], or j without map. */
static void tb_normalize(textbuf *b, const char *s, uint32_t from, uint32_t to,
                         const uint32_t *map)
{
  bool space = b->len > 0;
  uint32_t j = from;
  while (j < to) {
    uint32_t sp = splice_len(s, to, j);
    if (sp > 0 || is_space(s[j]) || s[j] == '\n') {
      j += sp > 0 ? sp : 1;
      space = b->len > 0;
      continue;
    }
    if (s[j] == '/' && j + 1 < to && (s[j + 1] == '*' || s[j + 1] == '/')) {
      j = s[j + 1] == '*' ? skip_block_comment(s, to, j)
                          : skip_line_comment(s, to, j);
      space = b->len > 0;
      continue;
    }
    if (space)
      tb_put(b, ' ', map != NULL ? map[j] : j);
    space = false;
    uint32_t end = (s[j] == '"' || s[j] == '\'') ? skip_quoted(s, to, j) : j + 1;
    for (; j < end; j++)
      tb_put(b, s[j], map != NULL ? map[j] : j);
  }
}

static void tb_head(textbuf *b, uint32_t pos)
{
  for (const char *h = "#pragma"; *h != '\0'; h++)
    tb_put(b, *h, pos);
}

char *omplens_directives__normalize(const char *s, size_t n)
{
  textbuf b = {0};
  tb_normalize(&b, s, 0, (uint32_t)n, NULL);
  free(b.pos);
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s != NULL ? b.s : strdup("");
}

/* ---- _Pragma("...") ---- */

/* Unescapes the literal at t[q] (the quote) into raw, keeping where each
 * character came from; returns the index after the literal, 0 if broken. */
static uint32_t unescape_literal(const char *t, uint32_t n, uint32_t q,
                                 textbuf *raw)
{
  uint32_t i = q + 1;
  while (i < n && t[i] != '"' && !is_eol(t, n, i)) {
    if (t[i] == '\\' && i + 1 < n)
      i++;
    tb_put(raw, t[i], i);
    i++;
  }
  return i < n && t[i] == '"' ? i + 1 : 0;
}

/* Reads `_Pragma ( "..." )` at `at` into out ("#pragma ..." with source
 * positions); returns the offset after ')', 0 if it is not one. */
static uint32_t read_operator(const char *t, uint32_t n, uint32_t at,
                              textbuf *out)
{
  uint32_t i = skip_gap(t, n, at + 7, true);
  if (i >= n || t[i] != '(')
    return 0;
  i = skip_gap(t, n, i + 1, true);
  if (i < n && t[i] == 'L')
    i++;
  if (i >= n || t[i] != '"')
    return 0;
  textbuf raw = {0};
  i = unescape_literal(t, n, i, &raw);
  if (i != 0)
    i = skip_gap(t, n, i, true);
  if (i != 0 && i < n && t[i] == ')') {
    tb_head(out, at);
    tb_normalize(out, raw.s != NULL ? raw.s : "", 0, raw.len, raw.pos);
    i++;
  } else {
    i = 0;
  }
  tb_free(&raw);
  return out->oom ? 0 : i;
}

char *omplens_directives__pragma_operator(const char *text, uint32_t size,
                                          uint32_t at, uint32_t *after)
{
  textbuf b = {0};
  *after = read_operator(text, size, at, &b);
  free(b.pos);
  if (*after == 0) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

/* ---- scanning ---- */

typedef struct lexer {
  const char *t;
  uint32_t n;
  omplens_directives__scan *scan;
  bool oom;
} lexer;

static void push_token(lexer *lx, uint32_t kind, uint32_t begin, uint32_t end,
                       uint32_t prag)
{
  token tok = {kind, begin, end, prag};
  if (omplens_directives__vec_push(&lx->scan->tokens, sizeof(tok), &tok) == NULL)
    lx->oom = true;
}

static void push_pragma(lexer *lx, textbuf *b, uint32_t begin, uint32_t end,
                        bool operator_form)
{
  if (b->oom || b->s == NULL) {
    lx->oom = lx->oom || b->oom;
    tb_free(b);
    return;
  }
  pragma p = {begin, end, b->s, b->pos, b->len, false, operator_form};
  p.omp = b->len >= 11 && strncmp(b->s, "#pragma omp", 11) == 0 &&
          (b->len == 11 || b->s[11] == ' ');
  uint32_t index = (uint32_t)lx->scan->pragmas.len;
  if (omplens_directives__vec_push(&lx->scan->pragmas, sizeof(p), &p) == NULL) {
    tb_free(b);
    lx->oom = true;
    return;
  }
  push_token(lx, TOK_PRAGMA, begin, end, index);
}

static uint32_t ident_end(const char *t, uint32_t n, uint32_t i)
{
  while (i < n && is_ident_char(t[i]))
    i++;
  return i;
}

static bool word_is(const char *t, uint32_t b, uint32_t e, const char *w)
{
  size_t len = strlen(w);
  return e - b == len && memcmp(t + b, w, len) == 0;
}

/* i at '#' opening a line; returns the end of the logical line. */
static uint32_t directive(lexer *lx, uint32_t i)
{
  const char *t = lx->t;
  uint32_t end = logical_line_end(t, lx->n, i);
  uint32_t w = skip_gap(t, end, i + 1, false);
  uint32_t we = ident_end(t, end, w);
  if (word_is(t, w, we, "pragma")) {
    textbuf b = {0};
    tb_head(&b, i);
    tb_normalize(&b, t, we, end, NULL);
    /* The extent ends with the last character kept: not a trailing comment. */
    uint32_t last = b.len > 0 && !b.oom ? b.pos[b.len - 1] + 1 : end;
    push_pragma(lx, &b, i, last, false);
  }
  return end;
}

static bool is_literal_prefix(const char *t, uint32_t b, uint32_t e, bool *raw)
{
  static const char *const prefixes[] = {"L", "u", "U", "u8", "R",
                                         "LR", "uR", "UR", "u8R"};
  for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
    if (word_is(t, b, e, prefixes[k])) {
      *raw = t[e - 1] == 'R';
      return true;
    }
  return false;
}

static uint32_t identifier(lexer *lx, uint32_t i)
{
  const char *t = lx->t;
  uint32_t e = ident_end(t, lx->n, i);
  bool raw = false;
  if (e < lx->n && (t[e] == '"' || t[e] == '\'') &&
      is_literal_prefix(t, i, e, &raw)) {
    uint32_t end = raw && t[e] == '"' ? skip_raw_string(t, lx->n, e)
                                       : skip_quoted(t, lx->n, e);
    push_token(lx, TOK_STRING, i, end, 0);
    return end;
  }
  if (word_is(t, i, e, "_Pragma")) {
    textbuf b = {0};
    uint32_t after = read_operator(t, lx->n, i, &b);
    if (after != 0) {
      push_pragma(lx, &b, i, after, true);
      return after;
    }
    tb_free(&b);
  }
  push_token(lx, TOK_IDENT, i, e, 0);
  return e;
}

static uint32_t number(lexer *lx, uint32_t i)
{
  const char *t = lx->t;
  uint32_t j = i + 1;
  while (j < lx->n) {
    char c = t[j];
    bool sign = (c == '+' || c == '-') && strchr("eEpP", t[j - 1]) != NULL;
    bool sep = c == '\'' && j + 1 < lx->n && is_ident_char(t[j + 1]);
    if (!is_ident_char(c) && c != '.' && !sign && !sep)
      break;
    j++;
  }
  push_token(lx, TOK_NUMBER, i, j, 0);
  return j;
}

static uint32_t one_token(lexer *lx, uint32_t i)
{
  char c = lx->t[i];
  if (is_ident_start(c))
    return identifier(lx, i);
  if (is_digit(c) || (c == '.' && i + 1 < lx->n && is_digit(lx->t[i + 1])))
    return number(lx, i);
  if (c == '"' || c == '\'') {
    uint32_t end = skip_quoted(lx->t, lx->n, i);
    push_token(lx, TOK_STRING, i, end, 0);
    return end;
  }
  push_token(lx, TOK_PUNCT, i, i + 1, 0);
  return i + 1;
}

int omplens_directives__scan_source(const omplens_directives__source *src,
                                    omplens_directives__scan *out)
{
  memset(out, 0, sizeof(*out));
  lexer lx = {src->text, src->size, out, false};
  const char *t = src->text;
  bool line_start = true;
  uint32_t i = 0;
  while (i < lx.n && !lx.oom) {
    uint32_t s = splice_len(t, lx.n, i);
    bool eol = is_eol(t, lx.n, i);
    if (eol || s > 0 || is_space(t[i])) {
      line_start = line_start || eol;
      i += s > 0 ? s : 1;
    } else if (t[i] == '/' && i + 1 < lx.n && t[i + 1] == '/') {
      i = skip_line_comment(t, lx.n, i);
    } else if (t[i] == '/' && i + 1 < lx.n && t[i + 1] == '*') {
      i = skip_block_comment(t, lx.n, i);
    } else if (t[i] == '#' && line_start) {
      i = directive(&lx, i);
    } else {
      line_start = false;
      i = one_token(&lx, i);
    }
  }
  if (lx.oom) {
    omplens_directives__scan_free(out);
    return OMPLENS_DIRECTIVES_ENOMEM;
  }
  return 0;
}

void omplens_directives__scan_free(omplens_directives__scan *scan)
{
  for (size_t i = 0; i < scan->pragmas.len; i++) {
    pragma *p = &OMPLENS_DIRECTIVES__AT(scan->pragmas, pragma, i);
    free(p->text);
    free(p->pos);
  }
  omplens_directives__vec_free(&scan->pragmas);
  omplens_directives__vec_free(&scan->tokens);
}

/* ---- statements from tokens ---- */

typedef struct walk {
  const char *text;
  const token *tok;
  size_t n;
  const omplens_directives__scan *scan;
  int depth;
} walk;

static bool tok_is(const walk *w, size_t i, const char *s)
{
  return i < w->n && w->tok[i].kind != TOK_STRING &&
         w->tok[i].kind != TOK_PRAGMA &&
         word_is(w->text, w->tok[i].begin, w->tok[i].end, s);
}

/* i at an opening bracket; the index of its partner (or the last token). */
static size_t match_bracket(const walk *w, size_t i)
{
  int depth = 0;
  for (size_t j = i; j < w->n; j++) {
    if (w->tok[j].kind != TOK_PUNCT)
      continue;
    char c = w->text[w->tok[j].begin];
    depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
    if (depth == 0)
      return j;
  }
  return w->n - 1;
}

static size_t statement_end(walk *w, size_t i);

/* An expression statement: up to ';' at depth 0, or before the '}' that
 * closes the enclosing block, or before a pragma line. */
static size_t expression_end(const walk *w, size_t i)
{
  int depth = 0;
  for (size_t j = i; j < w->n; j++) {
    if (w->tok[j].kind == TOK_PRAGMA && depth == 0 && j > i)
      return j - 1;
    if (w->tok[j].kind != TOK_PUNCT)
      continue;
    char c = w->text[w->tok[j].begin];
    if (c == '(' || c == '[' || c == '{')
      depth++;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0)
        return j > i ? j - 1 : j;
      depth--;
    } else if (c == ';' && depth == 0)
      return j;
  }
  return w->n - 1;
}

/* for/while/switch/if: the parenthesized head, then a statement. */
static size_t headed_end(walk *w, size_t i)
{
  if (!tok_is(w, i + 1, "("))
    return expression_end(w, i);
  size_t close = match_bracket(w, i + 1);
  if (close + 1 >= w->n)
    return close;
  size_t end = statement_end(w, close + 1);
  if (tok_is(w, i, "if") && tok_is(w, end + 1, "else") && end + 2 < w->n)
    end = statement_end(w, end + 2);
  return end;
}

static size_t do_end(walk *w, size_t i)
{
  size_t end = i + 1 < w->n ? statement_end(w, i + 1) : i;
  if (!tok_is(w, end + 1, "while") || !tok_is(w, end + 2, "("))
    return end;
  size_t close = match_bracket(w, end + 2);
  return tok_is(w, close + 1, ";") ? close + 1 : close;
}

static size_t pragma_end(walk *w, size_t i)
{
  const pragma *p =
      &OMPLENS_DIRECTIVES__AT(w->scan->pragmas, pragma, w->tok[i].pragma);
  if (!omplens_directives__takes_body(p->text, p->len) || i + 1 >= w->n)
    return i;
  return statement_end(w, i + 1);
}

static size_t statement_end(walk *w, size_t i)
{
  if (i >= w->n)
    return w->n - 1;
  if (++w->depth > MAX_NESTING)
    return i; /* deeper than any real code: give up on the extent */
  size_t end;
  if (w->tok[i].kind == TOK_PRAGMA)
    end = pragma_end(w, i);
  else if (tok_is(w, i, "{"))
    end = match_bracket(w, i);
  else if (tok_is(w, i, ";"))
    end = i;
  else if (tok_is(w, i, "for") || tok_is(w, i, "while") ||
           tok_is(w, i, "switch") || tok_is(w, i, "if"))
    end = headed_end(w, i);
  else if (tok_is(w, i, "do"))
    end = do_end(w, i);
  else
    end = expression_end(w, i);
  w->depth--;
  return end;
}

/* First token beginning at or after offset. */
static size_t token_from(const omplens_directives__scan *scan, uint32_t offset)
{
  const token *tok = scan->tokens.data;
  size_t lo = 0, hi = scan->tokens.len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tok[mid].begin < offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool omplens_directives__text_statement(const omplens_directives__source *src,
                                        const omplens_directives__scan *scan,
                                        uint32_t p, uint32_t *begin,
                                        uint32_t *end)
{
  const pragma *pr = &OMPLENS_DIRECTIVES__AT(scan->pragmas, pragma, p);
  walk w = {src->text, scan->tokens.data, scan->tokens.len, scan, 0};
  size_t i = token_from(scan, pr->end);
  if (i >= w.n)
    return false;
  size_t last = statement_end(&w, i);
  *begin = w.tok[i].begin;
  *end = w.tok[last].end;
  return true;
}

uint32_t omplens_directives__text_after_pragmas(const omplens_directives__scan *scan,
                                                uint32_t offset)
{
  const token *tok = scan->tokens.data;
  for (size_t i = token_from(scan, offset); i < scan->tokens.len; i++)
    if (tok[i].kind != TOK_PRAGMA)
      return tok[i].begin;
  return OMPLENS_DIRECTIVES__NONE;
}

bool omplens_directives__text_names(const omplens_directives__source *src,
                                    const omplens_directives__scan *scan,
                                    uint32_t begin, uint32_t end,
                                    const char *name)
{
  const token *tok = scan->tokens.data;
  for (size_t i = token_from(scan, begin); i < scan->tokens.len; i++) {
    if (tok[i].begin >= end)
      break;
    if (tok[i].kind == TOK_IDENT &&
        word_is(src->text, tok[i].begin, tok[i].end, name))
      return true;
  }
  return false;
}

/* ---- #include lines (directives_includers.c) ---- */

/* At p, after a line's leading blanks: `# include "x"` or `<x>`; the
 * name and its delimiter, or false. */
bool omplens_directives__include_at(const char *p, const char *end, char *delim,
                                    const char **name, size_t *len)
{
  if (p >= end || *p != '#')
    return false;
  for (p++; p < end && (*p == ' ' || *p == '\t'); p++)
    ;
  if ((size_t)(end - p) < 7 || strncmp(p, "include", 7) != 0)
    return false;
  for (p += 7; p < end && (*p == ' ' || *p == '\t'); p++)
    ;
  if (p >= end || (*p != '"' && *p != '<'))
    return false;
  char close = *p == '"' ? '"' : '>';
  const char *q = memchr(p + 1, close, (size_t)(end - p - 1));
  if (q == NULL || q == p + 1)
    return false;
  *delim = *p == '"' ? '"' : '<';
  *name = p + 1;
  *len = (size_t)(q - p - 1);
  return true;
}
