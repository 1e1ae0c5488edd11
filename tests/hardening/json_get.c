/* Test helper: prints one value of a JSON file, for shell tests.
 *   json_get FILE PATH
 * PATH is dot-separated object keys and array indices; a final `#` gives
 * the length of an array or object. Strings print raw, other values as
 * compact JSON (true, false, null, 42). Exit 1 when the path is absent,
 * 2 on usage or parse errors.
 * Example: json_get findings.json processes.0.complete   -> false */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Follows one step of the path; NULL when absent. */
static json_t *step(json_t *v, const char *key) {
  if (json_is_array(v)) {
    char *end;
    long i = strtol(key, &end, 10);
    return *key && !*end && i >= 0 ? json_array_get(v, (size_t)i) : NULL;
  }
  return json_is_object(v) ? json_object_get(v, key) : NULL;
}

static int print_value(json_t *v) {
  if (json_is_string(v)) {
    printf("%s\n", json_string_value(v));
    return 0;
  }
  char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  if (!s)
    return 2;
  printf("%s\n", s);
  free(s);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: json_get FILE PATH\n");
    return 2;
  }
  json_error_t err;
  json_t *root = json_load_file(argv[1], 0, &err);
  if (!root) {
    fprintf(stderr, "json_get: %s: %s (line %d)\n", argv[1], err.text, err.line);
    return 2;
  }
  char *path = strdup(argv[2]);
  json_t *v = root;
  int rc = 1;
  for (char *save = NULL, *key = strtok_r(path, ".", &save); v && key;
       key = strtok_r(NULL, ".", &save)) {
    if (!strcmp(key, "#")) {
      long long n = json_is_array(v) ? (long long)json_array_size(v)
                    : json_is_object(v) ? (long long)json_object_size(v) : -1;
      if (n >= 0)
        printf("%lld\n", n);
      rc = n >= 0 ? 0 : 1;
      v = NULL;
      break;
    }
    v = step(v, key);
  }
  if (v)
    rc = print_value(v);
  else if (rc)
    fprintf(stderr, "json_get: %s: no %s\n", argv[1], argv[2]);
  free(path);
  json_decref(root);
  return rc;
}
