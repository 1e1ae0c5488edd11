/* Internal pieces shared by the report.md and report.html renderers: a
 * growable text buffer, read access to the findings document, and the
 * Markdown narrative (summary text, explanations and fixes) that both
 * renderers show, so that the two never disagree. Design: docs/report.md. */
#ifndef OMPLENS_RENDER_MD_INTERNAL_H
#define OMPLENS_RENDER_MD_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "omplens_render.h"

/* ---- Text buffer ---------------------------------------------------------
 * Appends never fail visibly: on allocation failure the buffer keeps what it
 * had and sets `failed`, checked once at the end (cf. curl's dynbuf).
 * A buffer with a sink keeps nothing: what is appended goes straight to the
 * stream (`failed` then means a write failed), so that a page of megabytes
 * is not held in memory just to be written out. */
typedef struct omplens_strbuf {
  char *data;   /* NUL-terminated once anything was appended; owned */
  size_t len, cap;
  int failed;
  FILE *sink;   /* or NULL; len then counts the bytes written */
} omplens_strbuf;

void omplens_strbuf_free(omplens_strbuf *b);
void omplens_strbuf_add(omplens_strbuf *b, const char *s, size_t n);
void omplens_strbuf_puts(omplens_strbuf *b, const char *s);
void omplens_strbuf_printf(omplens_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The text so far ("" when empty); valid until the next append or free. */
const char *omplens_strbuf_str(const omplens_strbuf *b);

/* ---- Reading the document ------------------------------------------------
 * Lookups accept NULL (an absent parent) and give NULL / 0 / the fallback. */
const char *omplens_render__str(const json_t *o, const char *key);
/* A location's directive kind: libclang's ("target teams distribute
 * parallel for"), else the construct the runtime reported ("target",
 * "target data"), else NULL. */
const char *omplens_render__kind(const json_t *loc);
uint64_t omplens_render__u64(const json_t *o, const char *key);
double omplens_render__real(const json_t *o, const char *key);
int omplens_render__bool(const json_t *o, const char *key, int fallback);
/* The array under key, or an empty static array: callers loop without checks. */
const json_t *omplens_render__array(const json_t *o, const char *key);
/* All findings of a process: those listed plus those the document left
 * out (findings_omitted, see omplens_report_document_limited). */
size_t omplens_render__num_findings(const json_t *proc);
/* The directives with findings, by savings, largest first (then by
 * codeptr). A document of omplens_report_document_limited() holds the
 * list, made while it was built on one thread (the renderers share the
 * document between threads and may take no reference into it); for any
 * other document a new list is made, set in *owned for the caller to
 * json_decref (NULL otherwise). A document before schema 3 lists no other
 * directives, in that order already. */
const json_t *omplens_render__finding_directives(const json_t *proc, json_t **owned);

/* The source position a person knows a directive by: the directive's own
 * file:line when attribution found it, else the location's. file is NULL
 * when neither is known. */
typedef struct omplens_source_pos {
  const char *file;
  unsigned line;
} omplens_source_pos;
omplens_source_pos omplens_render__source_pos(const json_t *location);

/* A path as shown: relative to base (or the working directory when base is
 * NULL) when it lies below it, else unchanged. Returns a pointer into path. */
const char *omplens_render__display_path(const char *path, const char *base);

/* "examples/jacobi.c:37", else "jacobi-O0+0x14ab", else the codeptr.
 * Returns buf; size >= 64 recommended. */
const char *omplens_render__location_label(const json_t *location, const char *base, char *buf,
                                           size_t size);

/* Categories in the fixed order of docs/detectors.md (enum omplens_category),
 * then the one only the source gives (OMPLENS_REPORT_UNREFERENCED). */
enum {
  OMPLENS_RENDER_UNREFERENCED = OMPLENS_CAT_COUNT,
  OMPLENS_RENDER_CATEGORIES = OMPLENS_CAT_COUNT + 1
};
const char *omplens_render__category_name(int c);  /* "round-trip"       */
const char *omplens_render__category_title(int c); /* "Round trip"       */
/* Title for any name found in a document; unknown names are shown as is. */
const char *omplens_render__category_title_of(const char *name);
/* The time of the device frees a finding's savings count beside its own
 * operations (a repeated or unused allocation saves its free too): its
 * savings minus its operations' time, or 0. */
uint64_t omplens_render__frees_ns(const json_t *finding);
/* What fixing every finding saves: the what-if prediction of a process's
 * totals (predicted_savings_ns), else the sum of the findings' savings. */
uint64_t omplens_render__predicted_savings(const json_t *totals);
/* Number of distinct wasteful operations over all categories of an object
 * with a "counts" member. */
uint64_t omplens_render__total_count(const json_t *o);

/* How many of a process's mappings left at exit the summary and
 * report.md name. */
#define OMPLENS_REPORT__LEFTOVERS_SHOWN 5

/* What a finding is about: the map-clause item ("a[0:n]") when attribution
 * named it, else the pointer the runtime's own operation is for
 * ("this->re (pointer)"), else "buffer 0x7ffd…". Returns buf. */
const char *omplens_render__finding_subject(const json_t *finding, char *buf, size_t size);
/* The same in two parts: what is named, into buf (returned), and the words
 * that qualify it, in *note (" (probably)", " (pointer)", or ""). */
const char *omplens_render__subject(const json_t *finding, char *buf, size_t size,
                                   const char **note);
/* An operation kind of the trace ("h2d") in words ("host-to-device copy");
 * an unknown kind is returned as is, NULL as "operation". */
const char *omplens_render__operation(const char *kind);
/* How sure the attribution of a location is, in words, for a confidence
 * other than "exact" ("nearest": "closest directive"); NULL for "exact" or
 * none. title receives a sentence that explains it (256 bytes). */
const char *omplens_render__confidence(const char *confidence, char *title);
/* "device 0" or "the host". Returns buf (32 bytes). */
const char *omplens_render__device(const json_t *device, char *buf);

/* "n/a (overlapping work)" for a speedup of 0 (docs/detectors.md), else
 * "1.86×". buf holds 32 bytes. */
const char *omplens_render__speedup(double speedup, char *buf);
/* "transfer bytes 6.0 MiB, median 3.0 MiB (2.00x)": one entry of an MPI
 * job's ranks.outliers in words. Returns buf. */
const char *omplens_render__outlier_text(const json_t *outlier, char *buf, size_t size);

/* ---- Markdown ------------------------------------------------------------ */

/* Text with every character that could start Markdown markup escaped. In a
 * table cell `|` is escaped as well and newlines become spaces. */
void omplens_md__text(omplens_strbuf *b, const char *s, int in_table);
/* Text whose `...` pairs are code spans (the fixer's texts quote code
 * that way), the rest escaped as by omplens_md__text. */
void omplens_md__prose(omplens_strbuf *b, const char *s, int in_table);
/* An inline code span whose fence is longer than any backtick run inside. */
void omplens_md__code(omplens_strbuf *b, const char *s, int in_table);
/* A fenced code block whose fence is longer than any backtick run inside. */
void omplens_md__code_block(omplens_strbuf *b, const char *info, const char *s);

/* The narrative summary of one process: one or two paragraphs. */
void omplens_md__summary(omplens_strbuf *b, const json_t *proc, const char *base);
/* The mappings still present at exit (the first few) and their fixes, as
 * report.md writes them after the directives; nothing when there are
 * none. */
void omplens_md__leftovers(omplens_strbuf *b, const json_t *proc, const char *base);
/* A finding's explanation, then its suggested fix (summary, ```diff block,
 * manual recipe) when the document has one. */
/* same_fix: where the finding's fix was shown already (a label), or NULL
 * to show it here. */
void omplens_md__finding(omplens_strbuf *b, const json_t *finding, const char *base,
                         const char *same_fix);

/* The fixes a page has shown, by their id in findings.json, with where: a
 * change that removes several findings is shown once. Zero-initialize. */
typedef struct omplens_render__shown {
  char **where; /* by fix id: the label of the finding that shows it */
  size_t cap;
} omplens_render__shown;
/* Where finding's fix was shown, or NULL when it was not (then it is
 * recorded as shown at where) or has no id. */
const char *omplens_render__fix_shown(omplens_render__shown *s, const json_t *finding,
                                      const char *where);
void omplens_render__shown_free(omplens_render__shown *s);

#endif
