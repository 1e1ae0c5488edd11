/* libFuzzer harness for the reader of the compile command clang records in
 * DW_AT_producer (-grecord-command-line, directives_producer.c): the string
 * comes from the profiled program's DWARF, so any bytes. Its promises: a
 * command starts with the compiler and then an option, and every word is
 * a piece of the input with its escapes removed (never longer than it); no
 * command leaves the output empty. Built by tests/fuzz/CMakeLists.txt
 * (fuzz_producer, and fuzz_producer_replay over corpus/producer/ in every
 * build); run by tests/fuzz/run.sh with the other fuzzers. */
#include <stdlib.h>
#include <string.h>

#include "directives_internal.h"

static const char *word(const omplens_directives__args *a, size_t i)
{
  return OMPLENS_DIRECTIVES__AT(a->argv, char *, i);
}

static void check(const omplens_directives__args *a, int rc, size_t size)
{
  if (rc == 1 && a->argv.len != 0)
    abort(); /* broken promise: no command, yet words */
  if (rc == 0 && (a->argv.len < 2 || word(a, 1)[0] != '-'))
    abort(); /* broken promise: a command is the compiler and an option */
  size_t total = 0;
  for (size_t i = 0; i < a->argv.len; i++)
    total += strlen(word(a, i)) + 1;
  if (total > size + 1)
    abort(); /* broken promise: more text out than came in */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1); /* DWARF strings end at the first NUL */
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  omplens_directives__args a = {0};
  int rc = omplens_directives__producer_command(text, &a);
  if (rc != OMPLENS_DIRECTIVES_ENOMEM)
    check(&a, rc, strlen(text));
  omplens_directives__args_free(&a);
  free(text);
  return 0;
}
