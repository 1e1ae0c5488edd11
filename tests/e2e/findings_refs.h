/* Test helper for findings.json readers (findings_digest, consistency_check):
 * schema 6 leaves a finding's directive out of its location, and the
 * process's directives entry with the same code address has it. */
#ifndef OMPLENS_TESTS_FINDINGS_REFS_H
#define OMPLENS_TESTS_FINDINGS_REFS_H

#include <jansson.h>
#include <string.h>

/* The location of proc's directives entry at code address codeptr (a
 * "0x..." string), or NULL when none has it. */
static inline json_t *findings_directive_location(const json_t *proc, const char *codeptr) {
  size_t i;
  json_t *d;
  json_array_foreach(json_object_get(proc, "directives"), i, d) {
    json_t *loc = json_object_get(d, "location");
    const char *at = json_string_value(json_object_get(loc, "codeptr"));
    if (codeptr && at && !strcmp(codeptr, at))
      return loc;
  }
  return NULL;
}

#endif
