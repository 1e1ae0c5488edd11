/* Streaming JSON writer (json_stream.h). The layout rules are jansson's
 * JSON_INDENT(2): "key": value, a newline and two spaces per level inside
 * non-empty containers, and {} / [] when empty. */
#include "json_stream.h"

#include "report_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INDENT 2

void omplens_jout_init(omplens_jout *j, FILE *f) {
  j->f = f;
  j->len = 0;
  j->failed = 0;
}

static void flush(omplens_jout *j) {
  if (j->len && !j->failed && fwrite(j->buf, 1, j->len, j->f) != j->len)
    j->failed = 1;
  j->len = 0;
}

int omplens_jout_finish(omplens_jout *j) {
  flush(j);
  if (!j->failed && fflush(j->f))
    j->failed = 1;
  return j->failed ? -1 : 0;
}

void omplens_jout__raw_slow(omplens_jout *j, const char *s, size_t n) {
  flush(j);
  if (n > sizeof j->buf) {
    if (!j->failed && fwrite(s, 1, n, j->f) != n)
      j->failed = 1;
    return;
  }
  memcpy(j->buf + j->len, s, n);
  j->len += n;
}

void omplens_jout_newline(omplens_jout *j, int depth) {
  static const char spaces[] = "                                                                ";
  size_t n = (size_t)depth * INDENT;
  if (n + 1 <= sizeof j->buf - j->len) { /* the usual case: in the buffer at once */
    j->buf[j->len] = '\n';
    memset(j->buf + j->len + 1, ' ', n);
    j->len += n + 1;
    return;
  }
  omplens_jout_raw(j, "\n", 1);
  for (; n > sizeof spaces - 1; n -= sizeof spaces - 1) /* deeper than the table: rare */
    omplens_jout_raw(j, spaces, sizeof spaces - 1);
  omplens_jout_raw(j, spaces, n);
}

static void put_u64(omplens_jout *j, uint64_t v) {
  char tmp[24];
  omplens_jout_raw(j, tmp, (size_t)(omplens_report__format_u64(tmp, v) - tmp));
}

/* As jansson writes an integer. */
static void put_int(omplens_jout *j, json_int_t v) {
  if (v < 0) {
    omplens_jout_raw(j, "-", 1);
    put_u64(j, (uint64_t)0 - (uint64_t)v);
  } else {
    put_u64(j, (uint64_t)v);
  }
}

/* Text that needs no escape under JSON_ENSURE_ASCII. */
static int plain(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
      return 0;
  }
  return 1;
}

/* Anything else is left to jansson, so escapes match json_dumpf exactly. */
static void dumped(omplens_jout *j, const json_t *v) {
  char small[256];
  size_t need = json_dumpb(v, small, sizeof small, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
  if (!need) {
    j->failed = 1;
    return;
  }
  if (need <= sizeof small) {
    omplens_jout_raw(j, small, need);
    return;
  }
  char *big = malloc(need);
  if (!big || json_dumpb(v, big, need, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) != need)
    j->failed = 1;
  else
    omplens_jout_raw(j, big, need);
  free(big);
}

/* ASCII text with escapes, as jansson writes it: a backslash, a quote and
 * the control characters escaped (the short forms where JSON has one),
 * DEL as it is. False, writing nothing, when s holds other bytes (their
 * \u escapes, and what invalid UTF-8 makes of them, are left to jansson). */
static int escaped_ascii(omplens_jout *j, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] >= 0x80)
      return 0;
  static const char hex[] = "0123456789ABCDEF";
  omplens_jout_raw(j, "\"", 1);
  size_t from = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    omplens_jout_raw(j, s + from, i - from);
    from = i + 1;
    const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b"
                  : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                  : c == '\t' ? "\\t" : NULL;
    if (e) {
      omplens_jout_raw(j, e, 2);
    } else {
      char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      omplens_jout_raw(j, u, 6);
    }
  }
  omplens_jout_raw(j, s + from, n - from);
  omplens_jout_raw(j, "\"", 1);
  return 1;
}

static void quoted(omplens_jout *j, const char *s, size_t n) {
  if (plain(s, n)) {
    if (n + 2 <= sizeof j->buf - j->len) {
      char *at = j->buf + j->len;
      at[0] = '"';
      memcpy(at + 1, s, n);
      at[n + 1] = '"';
      j->len += n + 2;
      return;
    }
    omplens_jout_raw(j, "\"", 1);
    omplens_jout_raw(j, s, n);
    omplens_jout_raw(j, "\"", 1);
    return;
  }
  if (escaped_ascii(j, s, n))
    return;
  json_t *tmp = json_stringn_nocheck(s, n);
  if (!tmp) {
    j->failed = 1;
    return;
  }
  dumped(j, tmp);
  json_decref(tmp);
}

void omplens_jout_key(omplens_jout *j, int depth, const char *key, int *first) {
  if (!*first)
    omplens_jout_raw(j, ",", 1);
  *first = 0;
  omplens_jout_newline(j, depth);
  quoted(j, key, strlen(key));
  omplens_jout_raw(j, ": ", 2);
}

void omplens_jout_members(omplens_jout *j, const json_t *o, int depth, int *first,
                          const json_t *hole, void (*hole_fn)(void *ctx, int depth), void *ctx) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    omplens_jout_key(j, depth, key, first);
    if (v == hole && hole_fn)
      hole_fn(ctx, depth);
    else
      omplens_jout_value(j, v, depth, hole, hole_fn, ctx);
  }
}

static void array(omplens_jout *j, const json_t *a, int depth, const json_t *hole,
                  void (*hole_fn)(void *ctx, int depth), void *ctx) {
  size_t n = json_array_size(a);
  if (!n) {
    omplens_jout_raw(j, "[]", 2);
    return;
  }
  omplens_jout_raw(j, "[", 1);
  for (size_t i = 0; i < n; i++) {
    if (i)
      omplens_jout_raw(j, ",", 1);
    omplens_jout_newline(j, depth + 1);
    omplens_jout_value(j, json_array_get(a, i), depth + 1, hole, hole_fn, ctx);
  }
  omplens_jout_newline(j, depth);
  omplens_jout_raw(j, "]", 1);
}

/* A non-empty object. */
static void object(omplens_jout *j, const json_t *v, int depth, const json_t *hole,
                   void (*hole_fn)(void *ctx, int depth), void *ctx) {
  omplens_jout_raw(j, "{", 1);
  int first = 1;
  omplens_jout_members(j, v, depth + 1, &first, hole, hole_fn, ctx);
  omplens_jout_newline(j, depth);
  omplens_jout_raw(j, "}", 1);
}

void omplens_jout_value(omplens_jout *j, const json_t *v, int depth, const json_t *hole,
                        void (*hole_fn)(void *ctx, int depth), void *ctx) {
  switch (json_typeof(v)) {
  case JSON_OBJECT:
    if (!json_object_size(v)) {
      omplens_jout_raw(j, "{}", 2);
      return;
    }
    object(j, v, depth, hole, hole_fn, ctx);
    return;
  case JSON_ARRAY:
    array(j, v, depth, hole, hole_fn, ctx);
    return;
  case JSON_STRING:
    quoted(j, json_string_value(v), json_string_length(v));
    return;
  case JSON_INTEGER:
    put_int(j, json_integer_value(v));
    return;
  case JSON_TRUE:
    omplens_jout_raw(j, "true", 4);
    return;
  case JSON_FALSE:
    omplens_jout_raw(j, "false", 5);
    return;
  case JSON_NULL:
    omplens_jout_raw(j, "null", 4);
    return;
  default: /* reals: jansson's own formatting */
    dumped(j, v);
    return;
  }
}

/* ---- Members built or written ---- */

/* Built, a member jansson cannot add (out of memory) is left out and v
 * dropped, as the document's objects always were. */
void omplens_jm_value(omplens_jmembers *m, const char *key, json_t *v) {
  if (m->obj) {
    json_object_set_new(m->obj, key, v);
    return;
  }
  if (!v)
    return;
  omplens_jout_key(m->j, m->depth, key, &m->first);
  omplens_jout_value(m->j, v, m->depth, NULL, NULL, NULL);
  json_decref(v);
}

static int ascii(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] >= 0x80)
      return 0;
  return 1;
}

void omplens_jm_string(omplens_jmembers *m, const char *key, const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (m->obj || !s || !ascii(s, n)) { /* other bytes: jansson checks them */
    omplens_jm_value(m, key, s ? json_stringn(s, n) : NULL);
    return;
  }
  omplens_jout_key(m->j, m->depth, key, &m->first);
  quoted(m->j, s, n);
}

void omplens_jm_int(omplens_jmembers *m, const char *key, json_int_t v) {
  if (m->obj) {
    omplens_jm_value(m, key, json_integer(v));
    return;
  }
  omplens_jout_key(m->j, m->depth, key, &m->first);
  put_int(m->j, v);
}

void omplens_jm_hex(omplens_jmembers *m, const char *key, uint64_t v) {
  char tmp[24]; /* with its quotes */
  size_t n = (size_t)(omplens_report__format_hex(tmp, v) - tmp);
  if (m->obj) {
    omplens_jm_value(m, key, json_stringn(tmp + 1, n - 2));
    return;
  }
  omplens_jout_key(m->j, m->depth, key, &m->first);
  omplens_jout_raw(m->j, tmp, n);
}

void omplens_jm_bool(omplens_jmembers *m, const char *key, int v) {
  if (m->obj) {
    omplens_jm_value(m, key, json_boolean(v));
    return;
  }
  omplens_jout_key(m->j, m->depth, key, &m->first);
  omplens_jout_raw(m->j, v ? "true" : "false", v ? 4 : 5);
}
