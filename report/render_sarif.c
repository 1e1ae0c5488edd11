/* findings.sarif renderer: SARIF 2.1.0 for code scanning (GitHub and other
 * SARIF viewers). One rule per category with a stable id, one result per
 * finding. Design note: docs/sarif-and-timeline.md. The document is only
 * presented here; every decision about waste was made by the detectors. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omplens_config.h"
#include "omplens_render.h"
#include "json_stream.h"
#include "report_internal.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define SRCROOT "%SRCROOT%"
#define FINGERPRINT_KEY "omplensFinding/v1"

/* The rule table. Ids are part of the output format: a category keeps its id
 * for ever, new categories take the next free number. */
typedef struct sarif_rule {
  const char *id;
  const char *category;   /* findings.json category name */
  const char *name;       /* SARIF rule name (PascalCase) */
  const char *short_text; /* one sentence */
  const char *full_text;  /* what is measured */
  const char *help_text;  /* what to change */
} sarif_rule;

static const sarif_rule rules[] = {
  {"OMPL001", "duplicate-transfer", "DuplicateTransfer",
   "A buffer is sent again to a device (or the host) that received the same content from it "
   "before.",
   "The same host buffer is transferred again with content identical (same hash and size) to "
   "what the receiver received from it before: nothing in the trace changed the receiver's copy "
   "since it received (or produced and sent) this content, or the mapping that held it ended "
   "in between.",
   "Keep the data resident on the device instead of mapping it anew at every construct: map it "
   "once around the loop with `#pragma omp target data map(...)` or `target enter data`, and use "
   "`target update` only when the host really changed it."},
  {"OMPL002", "duplicate-content", "DuplicateContent",
   "A transfer sends content that the receiver already received for another buffer.",
   "A transfer carries content identical (same hash and size) to content the receiver already "
   "received for a different host buffer (a copy it may have freed since), typically "
   "zero-filled or constant arrays.",
   "Create the data on the device instead of copying it there: map the array with "
   "`map(alloc: ...)` and initialize it in a target region (for example fill it with zeros), or "
   "reuse the device copy that already holds this content."},
  {"OMPL003", "round-trip", "RoundTrip",
   "Data makes a round trip between host and device and comes back unchanged.",
   "A copy returns unchanged, for the first time, to the buffer that sent it: the device did "
   "not change it (host to device to host), or the host did not (device to host to device). "
   "Later unchanged re-sends are duplicates.",
   "Drop the copy that brings back unchanged data: use `map(to: ...)` instead of "
   "`map(tofrom: ...)` for data the kernel only reads, or remove the `target update` that "
   "refreshes a copy nobody modified."},
  {"OMPL004", "repeated-alloc", "RepeatedAllocation",
   "The same buffer is allocated on a device again and again with the same size.",
   "A device allocation for the same host buffer and size is repeated: the data is unmapped "
   "and mapped again between constructs.",
   "Allocate once and keep the mapping alive: wrap the repeated constructs in "
   "`#pragma omp target data` or use `target enter data` before the loop and `target exit data` "
   "after it."},
  {"OMPL005", "unused-alloc", "UnusedAllocation",
   "A device allocation lives while no kernel on its device uses it.",
   "An allocation on a device is created and freed without any kernel running on that device "
   "during its lifetime, or the kernels that ran were not given it: none of their map "
   "arguments lies in its host buffer or in the pointer it is attached through.",
   "Remove the map clause or the `target enter data` that creates it, or move it to the "
   "construct whose kernel actually uses the data."},
  {"OMPL006", "unused-transfer", "UnusedTransfer",
   "Data is sent to a device but no kernel reads it before it is overwritten or the run ends.",
   "A host-to-device transfer arrives after the device's last kernel, is overwritten by "
   "another transfer to the same device address before any kernel could read it, or goes "
   "into an allocation no kernel uses.",
   "Remove the transfer or turn it into an allocation (`map(alloc: ...)`), or move the "
   "`target update to(...)` next to the kernel that needs the data."},
  {"OMPL007", "mapped-but-unreferenced", "MappedButUnreferenced",
   "A variable is mapped by a construct whose code never references it (reserved).",
   "Reserved for a detector that compares map clauses with the variables a target region "
   "references. No finding uses this rule yet.",
   "Remove the variable from the map clause."},
  {"OMPL008", "round-trip-other-buffer", "RoundTripOtherBuffer",
   "Data that a device (or the host) sent out comes back to it unchanged through another buffer.",
   "Content that the receiver sent out returns to it unchanged through a different host "
   "buffer: for example the device computes a new grid, the host copies it into the old grid's "
   "array and sends that array back.",
   "Keep the result on the device: swap the device pointers between steps (or use the device "
   "buffer directly) instead of copying the result through the host and sending it back."},
  {"OMPL009", "reinitialization", "Reinitialization",
   "A copy sets data back to content its receiver held before (sum = 0, a loop flag, a "
   "counter).",
   "A transfer sends content that the receiver held before, but its copy changed since (a copy "
   "with other content came back, or went in, in between, or the buffer was freed and "
   "allocated again): the data is re-initialized, for "
   "example a reduction's start value, a loop flag, a counter or an input the host sets "
   "again. It is not a duplicate: the receiver no longer holds this content.",
   "Initialize the data on the device instead of copying it there: set it in the kernel, or in "
   "a small `#pragma omp target` region that sets it, and drop it from the map clause or the "
   "`target update to(...)`."},
};

#define NUM_RULES (sizeof rules / sizeof rules[0])

typedef struct sarif_ctx {
  char *base;             /* absolute, normalized base directory */
  json_t *rules;          /* driver.rules: fixed rules, then unknown categories */
  json_t *fingerprints;   /* fingerprint -> occurrences so far */
  json_t *notifications;  /* invocation notifications */
} sarif_ctx;

/* ---- Reading the document ---------------------------------------------- */


/* ---- Paths and URIs ---------------------------------------------------- */

/* Makes path absolute against the working directory and removes ".", ".."
 * and repeated slashes, without looking at the file system: the sources may
 * be gone. Caller frees. */
static char *absolute_path(const char *path) {
  char cwd[4096] = "/";
  if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
    snprintf(cwd, sizeof cwd, "/");
  size_t n = strlen(cwd) + strlen(path) + 3;
  char *joined = malloc(n), *out = malloc(n);
  if (!joined || !out) {
    free(joined);
    free(out);
    return NULL;
  }
  snprintf(joined, n, "%s/%s", path[0] == '/' ? "" : cwd, path);
  size_t len = 0;
  char *save = NULL;
  for (char *seg = strtok_r(joined, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
    if (!strcmp(seg, "."))
      continue;
    if (!strcmp(seg, "..")) {
      while (len > 0 && out[--len] != '/')
        ;
      continue;
    }
    out[len++] = '/';
    memcpy(out + len, seg, strlen(seg));
    len += strlen(seg);
  }
  if (len == 0)
    out[len++] = '/';
  out[len] = 0;
  free(joined);
  return out;
}

/* RFC 3986 path: everything but unreserved characters and '/' is
 * percent-encoded, so spaces, '%', '#', '?' and non-ASCII survive. */
static char *percent_encode(const char *s) {
  char *out = malloc(3 * strlen(s) + 1), *p = out;
  if (!out)
    return NULL;
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
        strchr("-._~/", *c))
      *p++ = (char)*c;
    else
      p += sprintf(p, "%%%02X", *c);
  }
  *p = 0;
  return out;
}

/* An artifactLocation: relative to %SRCROOT% when under the base directory,
 * else an absolute file URI. */
static json_t *artifact_location(const sarif_ctx *ctx, const char *path) {
  char *abs = absolute_path(path);
  if (!abs)
    return NULL;
  size_t blen = strcmp(ctx->base, "/") ? strlen(ctx->base) : 0;
  int inside = !strncmp(abs, ctx->base, blen) && (abs[blen] == '/' || abs[blen] == 0);
  const char *rel = inside ? abs + blen + (abs[blen] == '/') : abs;
  char *enc = percent_encode(rel);
  json_t *o = json_object();
  if (enc && inside) {
    json_object_set_new(o, "uri", json_string(*enc ? enc : "."));
    json_object_set_new(o, "uriBaseId", json_string(SRCROOT));
  } else if (enc) {
    size_t n = strlen(enc) + 8;
    char *uri = malloc(n);
    if (uri)
      snprintf(uri, n, "file://%s", enc);
    json_object_set_new(o, "uri", json_string(uri ? uri : ""));
    free(uri);
  }
  free(enc);
  free(abs);
  return o;
}

/* ---- Fingerprints ------------------------------------------------------ */

/* FNV-1a 64 of the field and of the NUL byte that ends it. */
static uint64_t fnv1a(uint64_t h, const char *s) {
  for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++)
    h = (h ^ *c) * 0x100000001b3u;
  return h * 0x100000001b3u;
}

/* Directive text with whitespace runs (and backslash-newline continuations)
 * made one space, so re-indenting a pragma keeps its alerts. Caller frees. */
static char *squeeze_spaces(const char *s) {
  char *out = malloc(strlen(s) + 1), *p = out;
  if (!out)
    return NULL;
  int space = 0;
  for (; *s; s++) {
    int ws = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v' ||
             (*s == '\\' && (s[1] == '\n' || s[1] == '\r'));
    if (ws) {
      space = 1;
      continue;
    }
    if (space && p > out)
      *p++ = ' ';
    space = 0;
    *p++ = *s;
  }
  *p = 0;
  return out;
}

/* The variable as fingerprinted: a guess (certain: false) is left out, so
 * that a better guess in a later run does not open a new alert. */
static const char *fingerprint_variable(const json_t *finding) {
  const json_t *v = json_object_get(finding, "variable");
  if (!json_is_object(v) || json_is_false(json_object_get(v, "certain")))
    return "";
  const char *item = omplens_report__str_at(v, "item");
  return item ? item : (omplens_report__str_at(v, "name") ? omplens_report__str_at(v, "name") : "");
}

/* What pins the finding inside its file: the directive's text, else its
 * line, else the module offset, else the raw address. */
static void fingerprint_anchor(const json_t *loc, char *buf, size_t size) {
  const json_t *dir = json_object_get(loc, "directive");
  const char *text = omplens_report__str_at(dir, "text");
  char *squeezed = text ? squeeze_spaces(text) : NULL;
  if (squeezed)
    snprintf(buf, size, "directive:%s", squeezed);
  else if (omplens_report__int_at(dir, "line") > 0)
    snprintf(buf, size, "line:%" JSON_INTEGER_FORMAT, omplens_report__int_at(dir, "line"));
  else if (omplens_report__int_at(loc, "line") > 0)
    snprintf(buf, size, "line:%" JSON_INTEGER_FORMAT, omplens_report__int_at(loc, "line"));
  else if (omplens_report__str_at(loc, "offset"))
    snprintf(buf, size, "offset:%s", omplens_report__str_at(loc, "offset"));
  else
    snprintf(buf, size, "codeptr:%s", omplens_report__str_at(loc, "codeptr") ? omplens_report__str_at(loc, "codeptr") : "");
  free(squeezed);
}

/* "<16 hex digits>:<n>", n counting equal hashes within this log. */
static json_t *fingerprints(sarif_ctx *ctx, const char *category, const char *uri,
                            const json_t *finding) {
  const json_t *loc = json_object_get(finding, "location");
  char anchor[8192];
  fingerprint_anchor(loc, anchor, sizeof anchor);
  uint64_t h = 0xcbf29ce484222325u;
  h = fnv1a(h, category);
  h = fnv1a(h, uri);
  h = fnv1a(h, anchor);
  h = fnv1a(h, omplens_report__str_at(loc, "function"));
  h = fnv1a(h, fingerprint_variable(finding));
  char hex[17], value[48];
  snprintf(hex, sizeof hex, "%016" PRIx64, h);
  json_int_t seen = json_integer_value(json_object_get(ctx->fingerprints, hex)) + 1;
  json_object_set_new(ctx->fingerprints, hex, json_integer(seen));
  snprintf(value, sizeof value, "%s:%" JSON_INTEGER_FORMAT, hex, seen);
  json_t *o = json_object();
  json_object_set_new(o, FINGERPRINT_KEY, json_string(value));
  return o;
}

/* ---- Rules ------------------------------------------------------------- */

/* A string cut by snprintf may end inside a UTF-8 sequence, which jansson
 * refuses: the partial character is dropped. */
static json_t *utf8_string(const char *s) {
  json_t *j = json_string(s);
  size_t n = strlen(s);
  for (size_t cut = 1; !j && cut <= 3 && cut <= n; cut++)
    j = json_stringn(s, n - cut);
  return j ? j : json_string("");
}

static json_t *text_object(const char *text) {
  json_t *o = json_object();
  json_object_set_new(o, "text", utf8_string(text));
  return o;
}

static json_t *rule_descriptor(const sarif_rule *r) {
  json_t *o = json_object();
  json_object_set_new(o, "id", json_string(r->id));
  json_object_set_new(o, "name", json_string(r->name));
  json_object_set_new(o, "shortDescription", text_object(r->short_text));
  json_object_set_new(o, "fullDescription", text_object(r->full_text));
  json_t *help = text_object(r->help_text);
  json_object_set_new(help, "markdown", json_string(r->help_text));
  json_object_set_new(o, "help", help);
  json_t *conf = json_object();
  json_object_set_new(conf, "level", json_string("warning"));
  json_object_set_new(o, "defaultConfiguration", conf);
  json_t *props = json_object();
  json_t *tags = json_array();
  json_array_append_new(tags, json_string("performance"));
  json_array_append_new(tags, json_string("openmp"));
  json_array_append_new(tags, json_string("data-movement"));
  json_object_set_new(props, "tags", tags);
  json_object_set_new(props, "precision", json_string("high"));
  json_object_set_new(props, "category", json_string(r->category));
  json_object_set_new(o, "properties", props);
  return o;
}

/* Index of the rule of a category. A category this renderer does not know
 * (a newer detector) gets a rule "OMPLX-<category>" appended once. */
static size_t rule_index(sarif_ctx *ctx, const char *category) {
  for (size_t i = 0; i < json_array_size(ctx->rules); i++) {
    json_t *props = json_object_get(json_array_get(ctx->rules, i), "properties");
    if (!strcmp(omplens_report__str_at(props, "category"), category))
      return i;
  }
  char id[128], name[96];
  size_t n = 0;
  for (const char *c = category; *c && n < 60; c++)
    name[n++] = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' ? *c : '_';
  name[n] = 0;
  snprintf(id, sizeof id, "OMPLX-%s", name);
  sarif_rule r = {id, category, name, "Wasted data movement reported by a newer omplens detector.",
                  "A category of wasted data movement that this version of the SARIF renderer "
                  "has no description for.",
                  "See the finding's message and docs/detectors.md."};
  json_array_append_new(ctx->rules, rule_descriptor(&r));
  return json_array_size(ctx->rules) - 1;
}

/* ---- Result messages --------------------------------------------------- */

static const char *device_phrase(const json_t *dev, char *buf, size_t size) {
  if (json_is_integer(dev))
    snprintf(buf, size, "device %" JSON_INTEGER_FORMAT, json_integer_value(dev));
  else
    snprintf(buf, size, "the host");
  return buf;
}

/* What happens, per category, after the data; %1$s is the receiver. */
static const char *category_predicate(const char *category) {
  static const struct { const char *category, *format; } predicates[] = {
    {"duplicate-transfer", "is sent to %1$s again with the same content %1$s received before"},
    {"duplicate-content", "sends %1$s content that %1$s already received for another buffer"},
    {"round-trip", "goes between the host and %1$s and comes back unchanged"},
    {"round-trip-other-buffer", "brings back unchanged, between the host and %1$s, content that "
                                "its receiver sent out, through another host buffer"},
    {"reinitialization", "is sent to %1$s again to set back data that changed there (not a "
                         "duplicate: %1$s held this content before its copy changed)"},
    {"repeated-alloc", "is allocated on %1$s again with the same size"},
    {"unused-alloc", "is allocated on %1$s while no kernel there uses it"},
    {"unused-transfer", "is sent to %1$s but no kernel reads it before it is overwritten or "
                        "the run ends"},
  };
  for (size_t i = 0; i < sizeof predicates / sizeof predicates[0]; i++)
    if (!strcmp(predicates[i].category, category))
      return predicates[i].format;
  return NULL;
}

/* The data a finding is about: its map item, else the pointer the
 * runtime's own operation is for, else its host buffer. */
static void put_subject(FILE *m, const json_t *f) {
  const json_t *var = json_object_get(f, "variable");
  const char *item = omplens_report__str_at(var, "item") ? omplens_report__str_at(var, "item") : omplens_report__str_at(var, "name");
  const char *pointer = omplens_report__str_at(var, "pointer");
  if (item)
    fprintf(m, "'%s'%s", item, json_is_false(json_object_get(var, "certain")) ? " (probably)" : "");
  else if (pointer)
    fprintf(m, "The %s '%s'", strchr(pointer, ',') ? "pointers" : "pointer", pointer);
  else
    fprintf(m, "The buffer at %s", omplens_report__str_at(f, "host_addr") ? omplens_report__str_at(f, "host_addr") : "?");
}

static void put_where(FILE *m, const json_t *loc) {
  const json_t *dir = json_object_get(loc, "directive");
  if (omplens_report__str_at(dir, "file") && omplens_report__int_at(dir, "line") > 0)
    fprintf(m, "%s:%" JSON_INTEGER_FORMAT, omplens_report__base_name(omplens_report__str_at(dir, "file")), omplens_report__int_at(dir, "line"));
  else if (omplens_report__str_at(loc, "file") && omplens_report__int_at(loc, "line") > 0)
    fprintf(m, "%s:%" JSON_INTEGER_FORMAT, omplens_report__base_name(omplens_report__str_at(loc, "file")), omplens_report__int_at(loc, "line"));
  else if (omplens_report__str_at(loc, "module") && omplens_report__str_at(loc, "offset"))
    fprintf(m, "%s+%s", omplens_report__base_name(omplens_report__str_at(loc, "module")), omplens_report__str_at(loc, "offset"));
  else
    fprintf(m, "%s", omplens_report__str_at(loc, "codeptr") ? omplens_report__str_at(loc, "codeptr") : "unknown code");
}

/* The sentence made up from the numbers when the document has no
 * explanation. Written to a memory stream: no length limit, so no UTF-8
 * sequence is ever cut. Caller frees; NULL when out of memory. */
static char *generated_message(const json_t *f, const char *category) {
  char *text = NULL, dev[48], one[32], all[32], saved[32];
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m)
    return NULL;
  const char *predicate = category_predicate(category);
  if (omplens_report__copies_back_unwritten(f))
    predicate = "is copied back from %1$s, where nothing wrote it (no copy went into it and no "
                "kernel was given it): the host receives uninitialized device memory";
  if (!predicate) {
    fprintf(m, "%s: ", category);
    predicate = "is moved to or from %1$s";
  }
  put_subject(m, f);
  fputc(' ', m);
  fprintf(m, predicate, device_phrase(json_object_get(f, "device"), dev, sizeof dev));
  json_int_t count = omplens_report__int_at(f, "count");
  omplens_format_bytes((uint64_t)omplens_report__int_at(f, "bytes"), one);
  if (count == 1)
    fprintf(m, ": 1 wasted operation of %s", one);
  else
    fprintf(m, ": %" JSON_INTEGER_FORMAT " wasted operations of %s (%s in all)", count, one,
            omplens_format_bytes((uint64_t)omplens_report__int_at(f, "total_bytes"), all));
  fputs(" at ", m);
  put_where(m, json_object_get(f, "location"));
  fprintf(m, ". Fixing it saves about %s.",
          omplens_format_ns((uint64_t)omplens_report__int_at(f, "savings_ns"), saved));
  if (fclose(m)) {
    free(text);
    return NULL;
  }
  return text;
}

static json_t *result_message(const json_t *f, const char *category) {
  const char *explanation = omplens_report__str_at(f, "explanation");
  char *generated = explanation && *explanation ? NULL : generated_message(f, category);
  const char *text = generated ? generated : explanation ? explanation : category;
  const char *fix = omplens_report__str_at(json_object_get(f, "fix"), "summary");
  json_t *o;
  if (fix && *fix) {
    size_t n = strlen(text) + strlen(fix) + 32;
    char *both = malloc(n);
    if (both)
      snprintf(both, n, "%s Suggested fix: %s", text, fix);
    o = text_object(both ? both : text);
    free(both);
  } else {
    o = text_object(text);
  }
  free(generated);
  return o;
}

/* ---- Result locations -------------------------------------------------- */

static json_t *region(const json_t *loc) {
  const json_t *dir = json_object_get(loc, "directive");
  json_t *r = json_object();
  json_int_t line = omplens_report__int_at(dir, "line");
  if (line > 0) {
    json_object_set_new(r, "startLine", json_integer(line));
    if (omplens_report__int_at(dir, "end_line") > line)
      json_object_set_new(r, "endLine", json_integer(omplens_report__int_at(dir, "end_line")));
    if (omplens_report__str_at(dir, "text")) {
      json_t *snippet = text_object(omplens_report__str_at(dir, "text"));
      json_object_set_new(r, "snippet", snippet);
    }
    return r;
  }
  if (omplens_report__int_at(loc, "line") > 0) {
    json_object_set_new(r, "startLine", json_integer(omplens_report__int_at(loc, "line")));
    if (omplens_report__int_at(loc, "column") > 0)
      json_object_set_new(r, "startColumn", json_integer(omplens_report__int_at(loc, "column")));
    return r;
  }
  json_decref(r);
  return NULL;
}

/* The source file of a location: the directive's, else the line table's. */
static const char *source_file(const json_t *loc) {
  const json_t *dir = json_object_get(loc, "directive");
  if (omplens_report__str_at(dir, "file") && omplens_report__int_at(dir, "line") > 0)
    return omplens_report__str_at(dir, "file");
  return omplens_report__str_at(loc, "file");
}

static json_t *logical_locations(const json_t *loc) {
  json_t *arr = json_array();
  const char *module = omplens_report__str_at(loc, "module"), *offset = omplens_report__str_at(loc, "offset");
  const char *codeptr = omplens_report__str_at(loc, "codeptr") ? omplens_report__str_at(loc, "codeptr") : "0x0";
  char name[4200];
  json_t *l = json_object();
  if (module && offset) {
    snprintf(name, sizeof name, "%s+%s", omplens_report__base_name(module), offset);
    json_object_set_new(l, "name", utf8_string(name));
    snprintf(name, sizeof name, "%s+%s", module, offset);
    json_object_set_new(l, "fullyQualifiedName", utf8_string(name));
    json_object_set_new(l, "kind", json_string("module"));
  } else {
    json_object_set_new(l, "name", json_string(codeptr));
  }
  json_array_append_new(arr, l);
  if (omplens_report__str_at(loc, "function")) {
    l = json_object();
    json_object_set_new(l, "name", json_string(omplens_report__str_at(loc, "function")));
    json_object_set_new(l, "kind", json_string("function"));
    json_array_append_new(arr, l);
  }
  return arr;
}

/* A location in the source when attribution found one. Without a source
 * file, GitHub still needs a physicalLocation (it rejects the whole file
 * otherwise), so the module binary stands in, with the offset as a logical
 * location. With neither, only the logical location is left. */
static json_t *result_location(const sarif_ctx *ctx, const json_t *loc) {
  json_t *l = json_object();
  const char *file = source_file(loc);
  const char *artifact = file ? file : omplens_report__str_at(loc, "module");
  if (artifact && *artifact) {
    json_t *phys = json_object();
    json_object_set_new(phys, "artifactLocation", artifact_location(ctx, artifact));
    json_t *r = file ? region(loc) : NULL;
    if (r)
      json_object_set_new(phys, "region", r);
    json_object_set_new(l, "physicalLocation", phys);
  }
  json_object_set_new(l, "logicalLocations", logical_locations(loc));
  return l;
}

/* Other directives an ambiguous attribution could mean. */
static json_t *related_locations(const sarif_ctx *ctx, const json_t *loc) {
  const json_t *cands = json_object_get(json_object_get(loc, "directive"), "candidates");
  if (!json_array_size(cands))
    return NULL;
  json_t *arr = json_array();
  size_t i;
  const json_t *c;
  json_array_foreach(cands, i, c) {
    if (!omplens_report__str_at(c, "file"))
      continue;
    json_t *l = json_object(), *phys = json_object();
    json_object_set_new(l, "id", json_integer((json_int_t)i + 1));
    json_object_set_new(phys, "artifactLocation", artifact_location(ctx, omplens_report__str_at(c, "file")));
    if (omplens_report__int_at(c, "line") > 0) {
      json_t *r = json_object();
      json_object_set_new(r, "startLine", json_integer(omplens_report__int_at(c, "line")));
      json_object_set_new(phys, "region", r);
    }
    json_object_set_new(l, "physicalLocation", phys);
    json_object_set_new(l, "message", text_object("another directive this finding may belong to"));
    json_array_append_new(arr, l);
  }
  return arr;
}

/* ---- Results ----------------------------------------------------------- */

/* Copies, not references: the document is shared by the renderers'
 * threads, and a reference would change its nodes' counts. */
static void copy_field(json_t *to, const char *to_key, const json_t *from, const char *key) {
  json_t *v = json_object_get(from, key);
  if (v)
    json_object_set_new(to, to_key, json_deep_copy(v));
}

/* Says why a set-up finding is a note. */
static void append_setup_note(json_t *message) {
  const char *text = omplens_report__str_at(message, "text");
  static const char note[] = " It lies in the program's one-time set-up (before its first repeated "
                             "kernel), so it costs once per run: ranked after the other findings.";
  size_t n = text ? strlen(text) : 0;
  char *joined = malloc(n + sizeof note);
  if (!joined)
    return;
  memcpy(joined, text ? text : "", n);
  memcpy(joined + n, note, sizeof note);
  json_object_set_new(message, "text", json_string(joined));
  free(joined);
}

/* Numbers copied from findings.json keep their names there; fields that
 * only SARIF has are camelCase. */
static json_t *result_properties(const json_t *proc, const json_t *f, const char *category) {
  json_t *p = json_object();
  json_object_set_new(p, "category", json_string(category));
  static const char *const numbers[] = {"bytes", "count", "total_bytes", "total_ns",
                                        "savings_ns", "device", "host_addr"};
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
    copy_field(p, numbers[i], f, numbers[i]);
  copy_field(p, "pid", proc, "pid");
  const json_t *loc = json_object_get(f, "location");
  copy_field(p, "codeptr", loc, "codeptr");
  const json_t *var = json_object_get(f, "variable");
  copy_field(p, "variable", var, "item");
  copy_field(p, "variableCertain", var, "certain");
  const json_t *dir = json_object_get(loc, "directive");
  copy_field(p, "attributionConfidence", dir, "confidence");
  copy_field(p, "sourceStale", dir, "stale");
  const json_t *fix = json_object_get(f, "fix");
  copy_field(p, "suggestedDiff", fix, "diff");
  copy_field(p, "manualFix", fix, "manual");
  copy_field(p, "predictedSpeedup", fix, "predicted_speedup");
  copy_field(p, "setup", f, "setup");
  return p;
}

static json_t *result(sarif_ctx *ctx, const json_t *proc, const json_t *f) {
  const char *category = omplens_report__str_at(f, "category") ? omplens_report__str_at(f, "category") : "unknown";
  size_t ri = rule_index(ctx, category);
  const json_t *rule = json_array_get(ctx->rules, ri);
  const json_t *loc = json_object_get(f, "location");
  json_t *r = json_object();
  json_object_set_new(r, "ruleId", json_string(omplens_report__str_at(rule, "id")));
  json_object_set_new(r, "ruleIndex", json_integer((json_int_t)ri));
  /* A set-up finding (every instance before the first repeated kernel)
   * costs once per run: a note, below the warnings (docs/detectors.md). */
  int setup = json_is_true(json_object_get(f, "setup"));
  json_object_set_new(r, "level", json_string(setup ? "note" : "warning"));
  json_t *message = result_message(f, category);
  if (setup)
    append_setup_note(message);
  json_object_set_new(r, "message", message);
  json_t *location = result_location(ctx, loc);
  json_t *locations = json_array();
  json_array_append_new(locations, location);
  json_object_set_new(r, "locations", locations);
  json_t *related = related_locations(ctx, loc);
  if (related)
    json_object_set_new(r, "relatedLocations", related);
  const json_t *artifact = json_object_get(json_object_get(location, "physicalLocation"),
                                           "artifactLocation");
  json_object_set_new(r, "partialFingerprints",
                      fingerprints(ctx, category, omplens_report__str_at(artifact, "uri"), f));
  json_object_set_new(r, "properties", result_properties(proc, f, category));
  return r;
}

/* ---- Run-level notes --------------------------------------------------- */

static void notify(sarif_ctx *ctx, const char *level, const char *text) {
  json_t *n = json_object();
  json_object_set_new(n, "level", json_string(level));
  json_object_set_new(n, "message", text_object(text));
  json_array_append_new(ctx->notifications, n);
}

/* Trouble reading a process's trace or its sources weakens the results;
 * code scanning shows these on the tool's status page. */
static void process_notes(sarif_ctx *ctx, const json_t *proc) {
  char text[1024];
  json_int_t pid = omplens_report__int_at(proc, "pid");
  if (json_is_false(json_object_get(proc, "complete"))) {
    snprintf(text, sizeof text, "pid %" JSON_INTEGER_FORMAT ": the trace is incomplete (the "
             "program crashed or called _exit); findings may be missing.", pid);
    notify(ctx, "warning", text);
  }
  if (omplens_report__int_at(proc, "dropped_events") > 0) {
    snprintf(text, sizeof text, "pid %" JSON_INTEGER_FORMAT ": %" JSON_INTEGER_FORMAT
             " events were not recorded.", pid, omplens_report__int_at(proc, "dropped_events"));
    notify(ctx, "warning", text);
  }
  if (omplens_report__int_at(proc, "findings_omitted") > 0) {
    snprintf(text, sizeof text, "pid %" JSON_INTEGER_FORMAT ": %" JSON_INTEGER_FORMAT
             " more findings, each saving less than those listed, are only in findings.json.",
             pid, omplens_report__int_at(proc, "findings_omitted"));
    notify(ctx, "note", text);
  }
  size_t i;
  const json_t *v;
  json_array_foreach(json_object_get(proc, "damage"), i, v) {
    snprintf(text, sizeof text, "pid %" JSON_INTEGER_FORMAT ": %s", pid,
             json_string_value(v) ? json_string_value(v) : "damaged trace");
    notify(ctx, "warning", text);
  }
  json_array_foreach(json_object_get(proc, "sources"), i, v) {
    const char *status = omplens_report__str_at(v, "status");
    if (!status || !strcmp(status, "ok"))
      continue;
    snprintf(text, sizeof text, "source %s: %s", omplens_report__str_at(v, "path") ? omplens_report__str_at(v, "path") : "?",
             status);
    notify(ctx, "note", text);
  }
}

static json_t *invocation(sarif_ctx *ctx, const json_t *doc) {
  json_t *inv = json_object();
  json_object_set_new(inv, "executionSuccessful", json_true());
  json_t *status = json_object_get(doc, "program_exit_status");
  if (json_is_integer(status))
    json_object_set_new(inv, "exitCode", json_deep_copy(status));
  if (json_array_size(ctx->notifications))
    json_object_set(inv, "toolExecutionNotifications", ctx->notifications);
  return inv;
}

/* ---- The log ----------------------------------------------------------- */

static json_t *driver(const json_t *doc, json_t *rule_list) {
  const char *version = omplens_report__str_at(doc, "omplens_version");
  json_t *d = json_object();
  json_object_set_new(d, "name", json_string("omplens"));
  json_object_set_new(d, "version", json_string(version ? version : OMPLENS_VERSION));
  json_object_set_new(d, "semanticVersion", json_string(version ? version : OMPLENS_VERSION));
  json_object_set(d, "rules", rule_list);
  return d;
}

static json_t *original_uri_base_ids(const sarif_ctx *ctx) {
  char *enc = percent_encode(ctx->base);
  size_t n = (enc ? strlen(enc) : 0) + 16;
  char *uri = malloc(n);
  json_t *o = json_object(), *root = json_object();
  if (enc && uri) {
    snprintf(uri, n, "file://%s%s", enc, strcmp(ctx->base, "/") ? "/" : "");
    json_object_set_new(root, "uri", json_string(uri));
  }
  json_object_set_new(o, SRCROOT, root);
  free(enc);
  free(uri);
  return o;
}

/* The results, made and written one at a time into the log's hole (a
 * thousand findings' results were megabytes of JSON objects). */
typedef struct results_writer {
  omplens_jout *j;
  sarif_ctx *ctx;
  const json_t *doc;
} results_writer;

static void write_results(void *arg, int depth) {
  results_writer *w = arg;
  size_t n = 0, i, k;
  const json_t *proc, *f;
  json_array_foreach(json_object_get(w->doc, "processes"), i, proc) {
    json_array_foreach(json_object_get(proc, "findings"), k, f) {
      json_t *r = result(w->ctx, proc, f);
      if (!r) {
        w->j->failed = 1;
        return;
      }
      omplens_jout_raw(w->j, n ? "," : "[", 1);
      omplens_jout_newline(w->j, depth + 1);
      omplens_jout_value(w->j, r, depth + 1, NULL, NULL, NULL);
      json_decref(r);
      n++;
    }
  }
  if (n)
    omplens_jout_newline(w->j, depth);
  omplens_jout_raw(w->j, n ? "]" : "[]", n ? 1 : 2);
}

/* The run, with `hole` for its results. The notes and the rules of every
 * finding's category come first: the tool and the invocation, written
 * before the results, list them. */
static json_t *run(sarif_ctx *ctx, const json_t *doc, json_t *hole) {
  size_t i, j;
  const json_t *proc, *f;
  json_array_foreach(json_object_get(doc, "processes"), i, proc) {
    process_notes(ctx, proc);
    json_array_foreach(json_object_get(proc, "findings"), j, f) {
      const char *category = omplens_report__str_at(f, "category");
      rule_index(ctx, category ? category : "unknown");
    }
  }
  json_t *tool = json_object();
  json_object_set_new(tool, "driver", driver(doc, ctx->rules));
  json_t *r = json_object();
  json_object_set_new(r, "tool", tool);
  json_t *invocations = json_array();
  json_array_append_new(invocations, invocation(ctx, doc));
  json_object_set_new(r, "invocations", invocations);
  json_object_set_new(r, "originalUriBaseIds", original_uri_base_ids(ctx));
  json_object_set(r, "results", hole);
  json_object_set_new(r, "columnKind", json_string("unicodeCodePoints"));
  return r;
}

static json_t *sarif_log(sarif_ctx *ctx, const json_t *doc, json_t *hole) {
  json_t *log = json_object();
  json_object_set_new(log, "$schema", json_string(SARIF_SCHEMA));
  json_object_set_new(log, "version", json_string("2.1.0"));
  json_t *runs = json_array();
  json_array_append_new(runs, run(ctx, doc, hole));
  json_object_set_new(log, "runs", runs);
  return log;
}

static int sarif_ctx_init(sarif_ctx *ctx, const omplens_render_options *opt) {
  memset(ctx, 0, sizeof *ctx);
  ctx->base = absolute_path(opt && opt->base_dir && *opt->base_dir ? opt->base_dir : ".");
  ctx->rules = json_array();
  ctx->fingerprints = json_object();
  ctx->notifications = json_array();
  for (size_t i = 0; ctx->rules && i < NUM_RULES; i++)
    json_array_append_new(ctx->rules, rule_descriptor(&rules[i]));
  return ctx->base && ctx->rules && ctx->fingerprints && ctx->notifications
             ? 0 : OMPLENS_REPORT_ENOMEM;
}

static void sarif_ctx_free(sarif_ctx *ctx) {
  free(ctx->base);
  json_decref(ctx->rules);
  json_decref(ctx->fingerprints);
  json_decref(ctx->notifications);
}

int omplens_render_sarif(const json_t *doc, const omplens_render_options *opt, FILE *out) {
  if (!json_is_object(doc) || !out ||
      omplens_report__int_at(doc, "schema_version") > OMPLENS_FINDINGS_SCHEMA_VERSION)
    return OMPLENS_REPORT_EINVAL;
  sarif_ctx ctx;
  int rc = sarif_ctx_init(&ctx, opt);
  json_t *hole = rc ? NULL : json_array();
  json_t *log = hole ? sarif_log(&ctx, doc, hole) : NULL;
  omplens_jout *j = log ? malloc(sizeof *j) : NULL;
  if (!rc && !j)
    rc = OMPLENS_REPORT_ENOMEM;
  if (!rc) {
    results_writer w = {j, &ctx, doc};
    omplens_jout_init(j, out);
    omplens_jout_value(j, log, 0, hole, write_results, &w);
    omplens_jout_raw(j, "\n", 1);
    if (omplens_jout_finish(j) || fflush(out) || ferror(out))
      rc = OMPLENS_REPORT_EIO;
  }
  free(j);
  json_decref(log);
  json_decref(hole);
  sarif_ctx_free(&ctx);
  return rc;
}
