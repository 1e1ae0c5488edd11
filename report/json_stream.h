/* A streaming JSON writer for outputs too large to hold as one jansson tree
 * (findings.json of a large trace has hundreds of thousands of instances).
 * It writes exactly what json_dumpf(JSON_INDENT(2) | JSON_ENSURE_ASCII)
 * would, so a document can be written part by part: small parts as jansson
 * values, the bulk as raw text (numbers formatted with report_internal.h).
 * Errors are sticky: after a failed write every call does nothing and
 * omplens_jout_finish() reports the failure. */
#ifndef OMPLENS_JSON_STREAM_H
#define OMPLENS_JSON_STREAM_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct omplens_jout {
  FILE *f;
  char buf[1 << 18]; /* written out when full: 256 KiB per write call */
  size_t len;
  int failed;
} omplens_jout;

void omplens_jout_init(omplens_jout *j, FILE *f);
/* Flushes; 0, or -1 when a write failed. */
int omplens_jout_finish(omplens_jout *j);

/* The buffer's overflow: flushes, then keeps or writes s. */
void omplens_jout__raw_slow(omplens_jout *j, const char *s, size_t n);
/* A newline and the indentation of nesting level depth. */
void omplens_jout_newline(omplens_jout *j, int depth);

/* Inline: a findings file is written a few bytes at a time. */
static inline void omplens_jout_raw(omplens_jout *j, const char *s, size_t n) {
  if (n <= sizeof j->buf - j->len) {
    memcpy(j->buf + j->len, s, n);
    j->len += n;
  } else {
    omplens_jout__raw_slow(j, s, n);
  }
}

/* Opens member `key` of an object at nesting level depth: a comma unless
 * *first, the newline and indentation, the quoted key and ": ". */
void omplens_jout_key(omplens_jout *j, int depth, const char *key, int *first);

/* A jansson value whose first line continues the current one and whose
 * contents are at nesting level depth + 1. When a member of an object is
 * the pointer `hole`, hole_fn(ctx, d) writes its value instead, d being the
 * member's own level (contents at d + 1, closing bracket at d). */
void omplens_jout_value(omplens_jout *j, const json_t *v, int depth, const json_t *hole,
                        void (*hole_fn)(void *ctx, int depth), void *ctx);
/* The members of object o, continuing an object opened by the caller. */
void omplens_jout_members(omplens_jout *j, const json_t *o, int depth, int *first,
                          const json_t *hole, void (*hole_fn)(void *ctx, int depth), void *ctx);

/* The members of one object, either added to a jansson object (a page's
 * document keeps its findings) or written at once (findings.json writes
 * each finding once, and making it a tree first cost a third of that
 * file). Members keep the order they are given, as a jansson object keeps
 * its insertion order; both forms give the same text. */
typedef struct omplens_jmembers {
  json_t *obj;     /* the object being built; NULL: members written to j */
  omplens_jout *j;
  int depth;       /* written: the members' nesting level */
  int first;       /* written: no member yet (start with 1) */
} omplens_jmembers;

/* Member key = v, taking v's reference; no member when v is NULL. */
void omplens_jm_value(omplens_jmembers *m, const char *key, json_t *v);
/* What json_string(s) gives: no member when s is NULL or not UTF-8. */
void omplens_jm_string(omplens_jmembers *m, const char *key, const char *s);
void omplens_jm_int(omplens_jmembers *m, const char *key, json_int_t v);
/* "0x..." in lowercase hexadecimal digits. */
void omplens_jm_hex(omplens_jmembers *m, const char *key, uint64_t v);
void omplens_jm_bool(omplens_jmembers *m, const char *key, int v);

#endif
