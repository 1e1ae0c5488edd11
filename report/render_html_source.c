/* Annotated source views of report.html: reads a source file, highlights
 * C and C++ with a small lexer, and puts the badges and finding boxes that
 * the page renderer built on their lines. Every byte of the file goes
 * through omplens_html__escape. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_html_internal.h"

/* Files above this are shown only around their marked lines. */
#define FULL_VIEW_MAX_LINES 3000
#define CONTEXT_LINES 12
/* Files above this are not read at all. */
#define SOURCE_MAX_BYTES (64u << 20)

/* ---- Lexer ---------------------------------------------------------------- */

static const char *const keywords[] = {
    "alignas", "alignof", "asm", "auto", "break", "case", "catch", "class", "const",
    "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype", "default",
    "delete", "do", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
    "for", "friend", "goto", "if", "inline", "mutable", "namespace", "new", "noexcept",
    "nullptr", "operator", "private", "protected", "public", "register", "reinterpret_cast",
    "restrict", "return", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "using", "virtual", "volatile", "while", "_Alignas", "_Alignof", "_Atomic",
    "_Generic", "_Noreturn", "_Static_assert", "_Thread_local", "NULL",
};
static const char *const types[] = {
    "bool", "char", "double", "float", "int", "long", "short", "signed", "unsigned", "void",
    "wchar_t", "size_t", "ssize_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t", "ptrdiff_t", "_Bool",
    "_Complex", "char8_t", "char16_t", "char32_t", "FILE",
};

/* Whether the word s (len bytes) is in list: compared only where the first
 * letter matches, as every identifier of a source view is looked up. */
static int in_list(const char *const *list, size_t n, const char *s, size_t len) {
  for (size_t i = 0; i < n; i++)
    if (list[i][0] == s[0] && !strncmp(list[i], s, len) && !list[i][len])
      return 1;
  return 0;
}

static void span(omplens_strbuf *b, const char *cls, const char *s, size_t n) {
  if (cls)
    omplens_strbuf_printf(b, "<span class=\"%s\">", cls);
  omplens_html__escape(b, s, n);
  if (cls)
    omplens_strbuf_puts(b, "</span>");
}

/* Length of the block comment starting at s (up to n), ending the state. */
static size_t lex_block_comment(const char *s, size_t n, omplens_c_lexer *lx) {
  for (size_t i = 0; i + 1 < n; i++)
    if (s[i] == '*' && s[i + 1] == '/') {
      lx->in_comment = 0;
      return i + 2;
    }
  lx->in_comment = 1;
  return n;
}

static size_t lex_quoted(const char *s, size_t n) {
  size_t i = 1;
  while (i < n && s[i] != s[0])
    i += s[i] == '\\' ? 2 : 1;
  return i < n ? i + 1 : n;
}

static size_t lex_number(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '.' || s[i] == '\'' || s[i] == '_' ||
                   ((s[i] == '+' || s[i] == '-') && i && strchr("eEpP", s[i - 1]))))
    i++;
  return i;
}

static size_t lex_word(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
    i++;
  return i;
}

static size_t skip_blanks(const char *s, size_t i, size_t n) {
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  return i;
}

/* "#pragma omp ..." at s (the '#'), n bytes. */
static int is_omp_pragma(const char *s, size_t n) {
  size_t i = skip_blanks(s, 1, n);
  if (n - i < 6 || strncmp(s + i, "pragma", 6))
    return 0;
  i = skip_blanks(s, i + 6, n);
  return n - i >= 3 && !strncmp(s + i, "omp", 3);
}

/* A preprocessor line (and its continuations): one span. */
static void lex_directive(omplens_strbuf *b, const char *s, size_t n, omplens_c_lexer *lx) {
  if (!lx->in_directive)
    lx->directive_omp = is_omp_pragma(s, n);
  span(b, lx->directive_omp ? "omp" : "p", s, n);
  lx->in_directive = n && s[n - 1] == '\\';
}

void omplens_html__highlight_line(omplens_strbuf *b, const char *s, size_t n, omplens_c_lexer *lx) {
  size_t i = 0;
  if (lx->in_directive) {
    lex_directive(b, s, n, lx);
    return;
  }
  size_t lead = skip_blanks(s, 0, n);
  if (!lx->in_comment && lead < n && s[lead] == '#') {
    omplens_html__escape(b, s, lead);
    lex_directive(b, s + lead, n - lead, lx);
    return;
  }
  while (i < n) {
    const char *p = s + i;
    size_t len, rest = n - i;
    const char *cls = NULL;
    if (lx->in_comment) {
      len = lex_block_comment(p, rest, lx);
      cls = "c";
    } else if (rest >= 2 && p[0] == '/' && p[1] == '*') {
      len = 2 + lex_block_comment(p + 2, rest - 2, lx);
      cls = "c";
    } else if (rest >= 2 && p[0] == '/' && p[1] == '/') {
      len = rest;
      cls = "c";
    } else if (p[0] == '"' || p[0] == '\'') {
      len = lex_quoted(p, rest);
      cls = "s";
    } else if (isdigit((unsigned char)p[0]) || (p[0] == '.' && rest > 1 && isdigit((unsigned char)p[1]))) {
      len = lex_number(p, rest);
      cls = "n";
    } else if (isalpha((unsigned char)p[0]) || p[0] == '_') {
      len = lex_word(p, rest);
      cls = in_list(keywords, sizeof keywords / sizeof *keywords, p, len) ? "k"
            : in_list(types, sizeof types / sizeof *types, p, len)     ? "t"
                                                                       : NULL;
    } else {
      len = 1;
      while (len < rest && !isalnum((unsigned char)p[len]) && !strchr("_\"'/.", p[len]))
        len++;
    }
    if (len > rest)
      len = rest;
    span(b, cls, p, len);
    i += len;
  }
}

/* ---- Source view ------------------------------------------------------------ */

typedef struct source_file {
  char *text;
  size_t size;
  size_t *line_start; /* line_start[i]: offset of line i + 1 */
  size_t num_lines;
} source_file;

static void source_free(source_file *f) {
  free(f->text);
  free(f->line_start);
}

/* Returns 0, or an errno value. */
static int source_read(const char *path, source_file *f) {
  memset(f, 0, sizeof *f);
  FILE *in = fopen(path, "rb");
  if (!in)
    return errno;
  int err = 0;
  if (fseek(in, 0, SEEK_END) || ftell(in) < 0)
    err = errno ? errno : EIO;
  long size = err ? 0 : ftell(in);
  if (!err && (unsigned long)size > SOURCE_MAX_BYTES)
    err = EFBIG;
  rewind(in);
  f->text = err ? NULL : malloc((size_t)size + 1);
  if (!err && !f->text)
    err = ENOMEM;
  if (!err && fread(f->text, 1, (size_t)size, in) != (size_t)size)
    err = EIO;
  fclose(in);
  if (err) {
    source_free(f);
    return err;
  }
  f->size = (size_t)size;
  f->text[size] = 0;
  size_t lines = 1;
  for (size_t i = 0; i < f->size; i++)
    lines += f->text[i] == '\n';
  f->line_start = malloc(lines * sizeof *f->line_start);
  if (!f->line_start) {
    source_free(f);
    return ENOMEM;
  }
  f->line_start[f->num_lines++] = 0;
  for (size_t i = 0; i < f->size; i++)
    if (f->text[i] == '\n' && i + 1 < f->size)
      f->line_start[f->num_lines++] = i + 1;
  return 0;
}

static size_t line_length(const source_file *f, size_t i) {
  size_t end = i + 1 < f->num_lines ? f->line_start[i + 1] : f->size;
  size_t len = end - f->line_start[i];
  while (len && (f->text[f->line_start[i] + len - 1] == '\n' || f->text[f->line_start[i] + len - 1] == '\r'))
    len--;
  return len;
}

/* Whether line (1-based) is shown: every line of a small file, else only
 * those near a mark. The marks are by line, and marks[m] is the first at
 * or after line: the nearest are it and the one before. */
static int line_shown(const source_file *f, unsigned line, const omplens_source_mark *marks, size_t n,
                      size_t m) {
  if (f->num_lines <= FULL_VIEW_MAX_LINES)
    return 1;
  return (m < n && marks[m].line <= line + CONTEXT_LINES) ||
         (m > 0 && line <= marks[m - 1].line + CONTEXT_LINES);
}

static int source_line(omplens_strbuf *b, const char *id, const source_file *f, size_t i,
                       omplens_c_lexer *lx, const omplens_source_mark *mark) {
  omplens_strbuf code = {0};
  char no[24], line_id[512];
  omplens_html__highlight_line(&code, f->text + f->line_start[i], line_length(f, i), lx);
  snprintf(no, sizeof no, "%zu", i + 1);
  snprintf(line_id, sizeof line_id, "%s-L%zu", id, i + 1);
  int rc = omplens_html__fill(b, omplens_tpl__source_line_html,
                              (const omplens_tpl_var[]){{"class", mark ? "ln marked" : "ln"},
                                                        {"id", line_id},
                                                        {"number", no},
                                                        {"code", omplens_strbuf_str(&code)},
                                                        {"badge", mark ? mark->badge : NULL}},
                              5);
  if (code.failed)
    b->failed = 1;
  omplens_strbuf_free(&code);
  if (mark && mark->notes)
    omplens_strbuf_puts(b, mark->notes);
  return rc;
}

/* The lines of the view, with a gap marker where lines are left out. */
static int source_lines(omplens_strbuf *b, const char *id, const source_file *f,
                        const omplens_source_mark *marks, size_t n) {
  omplens_c_lexer lx = {0};
  size_t m = 0;
  int gap = 0, rc = 0;
  for (size_t i = 0; i < f->num_lines && !rc; i++) {
    unsigned line = (unsigned)(i + 1);
    while (m < n && marks[m].line < line)
      m++;
    if (!line_shown(f, line, marks, n, m)) {
      /* Lines left out still move the lexer, so that comments stay right. */
      omplens_strbuf skip = {0};
      omplens_html__highlight_line(&skip, f->text + f->line_start[i], line_length(f, i), &lx);
      omplens_strbuf_free(&skip);
      gap = 1;
      continue;
    }
    if (gap)
      omplens_strbuf_puts(b, "<div class=\"ln gap\"><span class=\"no\">\xe2\x8b\xae</span><code class=\"tx\"></code></div>\n");
    gap = 0;
    rc = source_line(b, id, f, i, &lx, m < n && marks[m].line == line ? &marks[m] : NULL);
  }
  if (gap)
    omplens_strbuf_puts(b, "<div class=\"ln gap\"><span class=\"no\">\xe2\x8b\xae</span><code class=\"tx\"></code></div>\n");
  return rc;
}

static const char *status_note(const char *status) {
  if (status && !strcmp(status, "stale"))
    return "This file changed after the program was built: the lines may not match.";
  if (status && !strcmp(status, "partial"))
    return "The file could not be parsed completely: directive texts may be missing.";
  return "";
}

static int source_missing(omplens_strbuf *b, const char *id, const char *shown, const char *path,
                          int err) {
  char reason[512];
  if (err == ENOENT)
    snprintf(reason, sizeof reason, "Source file not found (moved or deleted since the build?). "
                                    "Findings for it are listed above by line.");
  else
    snprintf(reason, sizeof reason, "Source file could not be read: %s.", strerror(err));
  return omplens_html__fill(b, omplens_tpl__source_missing_html,
                            (const omplens_tpl_var[]){{"id", id}, {"path", shown}, {"full_path", path},
                                                      {"reason", reason}},
                            4);
}

/* source_lines() as a template's part, written where it stands. */
typedef struct lines_job {
  const char *id;
  const source_file *f;
  const omplens_source_mark *marks;
  size_t num_marks;
  int rc;
} lines_job;

static void write_lines(omplens_strbuf *b, void *ctx) {
  lines_job *j = ctx;
  j->rc = source_lines(b, j->id, j->f, j->marks, j->num_marks);
}

int omplens_html__source_view(omplens_strbuf *b, const char *id, const char *path,
                              const char *shown_path, const char *status,
                              const omplens_source_mark *marks, size_t num_marks, int open) {
  source_file f;
  int err = status && !strcmp(status, "missing") ? ENOENT : source_read(path, &f);
  if (err)
    return source_missing(b, id, shown_path, path, err);
  char info[128];
  snprintf(info, sizeof info, "%zu lines \xc2\xb7 %zu marked", f.num_lines, num_marks);
  lines_job job = {id, &f, marks, num_marks, 0};
  int rc = omplens_html__fill_part(b, omplens_tpl__source_file_html,
                                   (const omplens_tpl_var[]){{"id", id},
                                                             {"open", open ? " open" : ""},
                                                             {"path", shown_path},
                                                             {"full_path", path},
                                                             {"info", info},
                                                             {"status_note", status_note(status)}},
                                   6, "lines", write_lines, &job);
  source_free(&f);
  return rc ? rc : job.rc;
}
