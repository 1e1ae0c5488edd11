/* report.html building blocks: HTML and <script>-safe JSON escaping, the
 * template filler, and Markdown through libcmark. */
#include <cmark.h>
#include <stdlib.h>
#include <string.h>

#include "render_html_internal.h"

/* ---- Escaping ------------------------------------------------------------ */

void omplens_html__escape(omplens_strbuf *b, const char *s, size_t n) {
  size_t start = 0;
  for (size_t i = 0; s && i < n; i++) {
    const char *entity;
    switch (s[i]) {
    case '&': entity = "&amp;"; break;
    case '<': entity = "&lt;"; break;
    case '>': entity = "&gt;"; break;
    case '"': entity = "&quot;"; break;
    case '\'': entity = "&#39;"; break;
    case '\0': entity = "\xef\xbf\xbd"; break; /* U+FFFD: a NUL byte in a source file */
    default: continue;
    }
    omplens_strbuf_add(b, s + start, i - start);
    omplens_strbuf_puts(b, entity);
    start = i + 1;
  }
  if (s)
    omplens_strbuf_add(b, s + start, n - start);
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is invalid. */
static size_t utf8_length(const unsigned char *s) {
  if (s[0] < 0x80)
    return 1;
  size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
  if (s[0] >= 0xf8)
    n = 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

void omplens_html__json_string(omplens_strbuf *b, const char *s) {
  static const char hex[] = "0123456789abcdef";
  omplens_strbuf_puts(b, "\"");
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
    unsigned char c = *p;
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      omplens_strbuf_add(b, esc, 2);
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      omplens_strbuf_add(b, esc, 6);
    } else if (c >= 0x80) {
      size_t n = utf8_length(p);
      if (!n) {
        omplens_strbuf_puts(b, "\\ufffd");
        p++;
        continue;
      }
      omplens_strbuf_add(b, (const char *)p, n);
      p += n;
      continue;
    } else {
      omplens_strbuf_add(b, (const char *)p, 1);
    }
    p++;
  }
  omplens_strbuf_puts(b, "\"");
}

/* ---- Templates ------------------------------------------------------------ */

static const char *lookup(const omplens_tpl_var *vars, size_t n, const char *name, size_t len) {
  for (size_t i = 0; i < n; i++)
    if (strlen(vars[i].name) == len && !memcmp(vars[i].name, name, len))
      return vars[i].value ? vars[i].value : "";
  return NULL;
}

int omplens_html__fill(omplens_strbuf *b, const char *tpl, const omplens_tpl_var *vars, size_t n) {
  return omplens_html__fill_part(b, tpl, vars, n, NULL, NULL, NULL);
}

int omplens_html__fill_part(omplens_strbuf *b, const char *tpl, const omplens_tpl_var *vars,
                            size_t n, const char *part, void (*write)(omplens_strbuf *b, void *ctx),
                            void *ctx) {
  const char *p = tpl;
  for (;;) {
    const char *open = strstr(p, "{{");
    if (!open) {
      omplens_strbuf_puts(b, p);
      return 0;
    }
    omplens_strbuf_add(b, p, (size_t)(open - p));
    int raw = open[2] == '{';
    const char *name = open + 2 + raw;
    const char *close = strstr(name, raw ? "}}}" : "}}");
    if (!close)
      return OMPLENS_REPORT_EINVAL;
    size_t len = (size_t)(close - name);
    int is_part = raw && part && strlen(part) == len && !memcmp(part, name, len);
    const char *value = is_part ? "" : lookup(vars, n, name, len);
    if (!value)
      return OMPLENS_REPORT_EINVAL;
    if (is_part)
      write(b, ctx);
    else if (raw)
      omplens_strbuf_puts(b, value);
    else
      omplens_html__escape(b, value, strlen(value));
    p = close + 2 + raw;
  }
}

/* ---- Markdown ------------------------------------------------------------- */

/* Class of a line of a unified diff. */
static const char *diff_class(const char *line) {
  if (!strncmp(line, "+++", 3) || !strncmp(line, "---", 3))
    return "d-file";
  if (!strncmp(line, "@@", 2))
    return "d-hunk";
  if (line[0] == '+')
    return "d-add";
  if (line[0] == '-')
    return "d-del";
  return NULL;
}

/* Wraps each line of an (already escaped) diff body in a span, with its
 * newline inside: the spans are blocks, so nothing may stand between them. */
static void mark_diff_lines(omplens_strbuf *b, const char *s, size_t n) {
  const char *end = s + n;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
    const char *cls = diff_class(s);
    omplens_strbuf_printf(b, "<span class=\"%s\">", cls ? cls : "d-ctx");
    omplens_strbuf_add(b, s, len);
    omplens_strbuf_puts(b, "</span>");
    s += len;
  }
}

void omplens_html__markdown(omplens_strbuf *b, const char *markdown) {
  static const char pre[] = "<pre>", diff[] = "<code class=\"language-diff\">";
  int options = CMARK_OPT_DEFAULT | CMARK_OPT_SAFE | CMARK_OPT_VALIDATE_UTF8;
  char *html = cmark_markdown_to_html(markdown, strlen(markdown), options);
  if (!html) {
    b->failed = 1;
    return;
  }
  /* Raw HTML is dropped, so every "<pre>" opens a code block of cmark's. */
  const char *p = html;
  for (const char *start; (start = strstr(p, pre));) {
    omplens_strbuf_add(b, p, (size_t)(start - p));
    /* A block wider than the page scrolls: a keyboard can scroll it once it
     * takes the focus. */
    omplens_strbuf_puts(b, "<pre tabindex=\"0\">");
    p = start + sizeof pre - 1;
    const char *body = p + sizeof diff - 1, *stop = strstr(p, "</code></pre>");
    if (strncmp(p, diff, sizeof diff - 1) || !stop || stop < body)
      continue;
    omplens_strbuf_add(b, p, (size_t)(body - p));
    mark_diff_lines(b, body, (size_t)(stop - body));
    p = stop;
  }
  omplens_strbuf_puts(b, p);
  free(html);
}
