/* Test helper: prints the findings of a findings.json in the golden format
 *   category file:line device instances variable
 * one line per finding, sorted ("-" when the variable is unknown, "name?"
 * when it is a guess), then
 *   directive file:line kind | text
 * once per directive with findings (when the source was found), and
 *   called file:line < caller.c:line < ...
 * once per directive and call path of its findings (base names), and
 *   storage file:line variable = storage at caller.c:line
 * once per finding whose item points into an object's storage. A directive without a source line prints its
 * module offset instead. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings_refs.h"

typedef struct row {
  char key[512];
} row;

static int cmp_row(const void *a, const void *b) {
  return strcmp(((const row *)a)->key, ((const row *)b)->key);
}

/* Appends key to the rows; -1 when out of memory. */
static int add_row(row **rows, size_t *n, const char *key) {
  row *grown = realloc(*rows, (*n + 1) * sizeof **rows);
  if (!grown)
    return -1;
  *rows = grown;
  snprintf(grown[*n].key, sizeof grown[*n].key, "%s", key);
  (*n)++;
  return 0;
}

/* "file.c:12" (base name), else "symbol+?" (offsets vary by compiler),
 * else the module offset. */
static void where(json_t *loc, char *buf, size_t size) {
  const char *file = json_string_value(json_object_get(loc, "file"));
  const char *fn = json_string_value(json_object_get(loc, "function"));
  if (file) {
    const char *slash = strrchr(file, '/');
    snprintf(buf, size, "%s:%lld", slash ? slash + 1 : file,
             (long long)json_integer_value(json_object_get(loc, "line")));
  } else if (fn && strstr(fn, "+0x")) {
    snprintf(buf, size, "%.*s+?", (int)(strstr(fn, "+0x") - fn), fn);
  } else {
    snprintf(buf, size, "%s", json_string_value(json_object_get(loc, "offset")) ?: "?");
  }
}

/* The directive of finding f's location: the location's own (schema 5 and
 * before), else that of the process's directive at the same code address. */
static json_t *directive_of(json_t *proc, json_t *f) {
  json_t *loc = json_object_get(f, "location");
  if (json_object_get(loc, "directive"))
    return json_object_get(loc, "directive");
  const char *at = json_string_value(json_object_get(loc, "codeptr"));
  return json_object_get(findings_directive_location(proc, at), "directive");
}

static void device(json_t *d, char *buf, size_t size) {
  if (json_is_string(d))
    snprintf(buf, size, "%s", json_string_value(d));
  else
    snprintf(buf, size, "%lld", (long long)json_integer_value(d));
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: findings_digest FINDINGS.json\n");
    return 2;
  }
  json_error_t err;
  json_t *root = json_load_file(argv[1], 0, &err);
  if (!root) {
    fprintf(stderr, "findings_digest: %s: %s (line %d)\n", argv[1], err.text, err.line);
    return 1;
  }
  row *rows = NULL;
  size_t n = 0;
  size_t pi, fi;
  json_t *proc, *f;
  json_array_foreach(json_object_get(root, "processes"), pi, proc) {
    json_array_foreach(json_object_get(proc, "findings"), fi, f) {
      char line[256], dev[32], key[512];
      where(json_object_get(f, "location"), line, sizeof line);
      device(json_object_get(f, "device"), dev, sizeof dev);
      json_t *v = json_object_get(f, "variable");
      const char *var = json_string_value(json_object_get(v, "name"));
      int guess = var && json_is_false(json_object_get(v, "certain")); /* printed "name?" */
      snprintf(key, sizeof key, "%-24s %-24s %6s %6lld %.100s%s",
               json_string_value(json_object_get(f, "category")), line, dev,
               (long long)json_integer_value(json_object_get(f, "count")), var ? var : "-",
               guess ? "?" : "");
      if (add_row(&rows, &n, key))
        return 1;
    }
  }
  /* One line per directive with findings: where it is, its kind and text. */
  json_array_foreach(json_object_get(root, "processes"), pi, proc) {
    json_array_foreach(json_object_get(proc, "findings"), fi, f) {
      json_t *d = directive_of(proc, f);
      const char *kind = json_string_value(json_object_get(d, "kind"));
      if (!kind)
        continue;
      char line[256], key[512];
      where(json_object_get(f, "location"), line, sizeof line);
      snprintf(key, sizeof key, "directive %s %s | %s", line, kind,
               json_string_value(json_object_get(d, "text")));
      size_t i = 0;
      while (i < n && strcmp(rows[i].key, key))
        i++;
      if (i == n && add_row(&rows, &n, key))
        return 1;
    }
  }
  /* One line per directive and call path. */
  json_array_foreach(json_object_get(root, "processes"), pi, proc) {
    json_array_foreach(json_object_get(proc, "findings"), fi, f) {
      json_t *path = json_object_get(f, "call_path"), *site;
      if (!json_array_size(path))
        continue;
      char line[256], key[512];
      where(json_object_get(f, "location"), line, sizeof line);
      int len = snprintf(key, sizeof key, "called %s", line);
      size_t si;
      json_array_foreach(path, si, site) {
        char at[256];
        where(site, at, sizeof at);
        if (len >= 0 && (size_t)len < sizeof key)
          len += snprintf(key + len, sizeof key - (size_t)len, " < %s", at);
      }
      size_t i = 0;
      while (i < n && strcmp(rows[i].key, key))
        i++;
      if (i == n && add_row(&rows, &n, key))
        return 1;
    }
  }
  /* One line per finding whose item points into an object's storage. */
  json_array_foreach(json_object_get(root, "processes"), pi, proc) {
    json_array_foreach(json_object_get(proc, "findings"), fi, f) {
      json_t *v = json_object_get(f, "variable");
      const char *storage = json_string_value(json_object_get(v, "storage"));
      if (!storage)
        continue;
      char line[256], key[512];
      where(json_object_get(f, "location"), line, sizeof line);
      snprintf(key, sizeof key, "storage %s %s = %s at %s", line,
               json_string_value(json_object_get(v, "name")) ?: "-", storage,
               json_string_value(json_object_get(v, "storage_at")) ?: "?");
      size_t i = 0;
      while (i < n && strcmp(rows[i].key, key))
        i++;
      if (i == n && add_row(&rows, &n, key))
        return 1;
    }
  }
  if (n) /* qsort wants a non-NULL base even for 0 items */
    qsort(rows, n, sizeof *rows, cmp_row);
  for (size_t i = 0; i < n; i++)
    printf("%s\n", rows[i].key);
  free(rows);
  json_decref(root);
  return 0;
}
