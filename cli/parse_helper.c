/* libclang's parses in helper processes: see parse_helper.h and
 * docs/directives.md, "Parses in helper processes". */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "libclang_dl.h"
#include "omplens_directives.h"
#include "omplens_fix.h"
#include "parse_helper.h"

/* The helper's directive indexes: one whose plain parses also record the
 * fixer's node tables, as the requester's do when it says "hook", and one
 * whose do not. Made on first need, kept for the helper's life. */
static omplens_directive_index *indexes[2];

static int unit_job(const char *const *parts, size_t n) {
  if (n < 1 || !parts[0])
    return -1;
  bool hooked = parts[0][0] != '\0';
  if (!indexes[hooked] && !omplens_directive_index_create(NULL, &indexes[hooked]) && hooked)
    omplens_fix_share_parses(indexes[hooked]);
  return omplens_directives_unit_job(indexes[hooked], parts + 1, n - 1);
}

static const omplens_libclang_job jobs[] = {
    {OMPLENS_LIBCLANG_JOB_UNIT, unit_job},
    {OMPLENS_LIBCLANG_JOB_AST, omplens_fix_ast_job},
    {OMPLENS_LIBCLANG_JOB_ERRORS, omplens_fix_errors_job},
};

int omplens_parse_helper_main(int argc, char **argv) {
  struct stat st;
  if (argc != 3 || fstat(0, &st) || !S_ISSOCK(st.st_mode)) { /* only omplens starts helpers */
    fprintf(stderr, "omplens: %s serves omplens's own parses on a socket; it is not a command\n",
            OMPLENS_PARSE_HELPER_COMMAND);
    return 64; /* EX_USAGE */
  }
  /* Every job needs libclang: loaded before the first request comes (a
   * helper started early loads it while the report reads its trace). */
  if (omplens_libclang_load())
    omplens_libclang_release_code();
  int rc = omplens_libclang_serve(0, argv[2], jobs, sizeof jobs / sizeof *jobs);
  for (size_t i = 0; i < 2; i++)
    omplens_directive_index_destroy(indexes[i]);
  return rc ? 65 : 0; /* EX_DATAERR: a request that was not one */
}

void omplens_parse_helpers_on(void) {
  /* The running binary itself, also when it was replaced on disk since. */
  omplens_libclang_apart_with("/proc/self/exe", OMPLENS_PARSE_HELPER_COMMAND);
}

void omplens_parse_helpers_warm(void) {
  if (omplens_libclang_cache_empty()) /* else a parse may need no helper */
    omplens_libclang_apart_warm();
}
