/* libFuzzer harness for the parts of the directive index that read source
 * text without libclang: the pragma scanner, statement extents from tokens,
 * the clause parser, the _Pragma reader and the #include line reader. They
 * must survive any file.
 *
 *   clang-19 -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     -I annotate -isystem /usr/lib/llvm-19/include \
 *     tests/unit/directives_fixture/fuzz_directives.c annotate/directives_text.c \
 *     annotate/directives_clauses.c annotate/directives_pool.c -o fuzz_directives
 *   ./fuzz_directives -max_total_time=60 tests/unit/directives_fixture/
 */
#include <stdlib.h>
#include <string.h>

#include "directives_internal.h"

static void pragma_parts(const omplens_directives__source *src,
                         const omplens_directives__scan *scan, uint32_t k)
{
  const omplens_directives__pragma *p =
      &OMPLENS_DIRECTIVES__AT(scan->pragmas, omplens_directives__pragma, k);
  omplens_directives__parsed parsed;
  if (omplens_directives__parse_pragma(p->text, p->len, &parsed) == 0)
    omplens_directives__parsed_free(&parsed);
  uint32_t begin, end;
  if (omplens_directives__text_statement(src, scan, k, &begin, &end) &&
      (begin > end || end > src->size))
    abort();
  (void)omplens_directives__text_names(src, scan, p->begin, src->size, "a");
  (void)omplens_directives__text_after_pragmas(scan, p->end);
}

static void operators(const omplens_directives__source *src)
{
  const char *at = src->text;
  while ((at = strstr(at, "_Pragma")) != NULL) {
    uint32_t after = 0;
    free(omplens_directives__pragma_operator(src->text, src->size,
                                             (uint32_t)(at - src->text), &after));
    at++;
  }
}

/* Every line as the search for a header's including sources reads it. */
static void include_lines(const omplens_directives__source *src)
{
  const char *end = src->text + src->size;
  for (const char *line = src->text; line < end;) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    eol = eol != NULL ? eol : end;
    char delim;
    const char *name;
    size_t len;
    if (omplens_directives__include_at(line, eol, &delim, &name, &len) &&
        (name < line || name + len > eol || (delim != '"' && delim != '<')))
      abort();
    line = eol + 1;
  }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  omplens_directives__source src;
  if (omplens_directives__source_from("fuzz.c", (const char *)data, size, &src) != 0)
    return 0;
  omplens_directives__scan scan;
  if (omplens_directives__scan_source(&src, &scan) == 0) {
    for (uint32_t k = 0; k < scan.pragmas.len; k++)
      pragma_parts(&src, &scan, k);
    omplens_directives__scan_free(&scan);
  }
  operators(&src);
  include_lines(&src);
  free(omplens_directives__normalize(src.text, src.size));
  omplens_directives__source_free(&src);
  return 0;
}
