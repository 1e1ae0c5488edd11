/* libFuzzer harness for the DWARF 5 line table header reader of the
 * symbolizer (symbolize_files.c): a .debug_line section comes from the
 * profiled program's file and must never make it read out of bounds.
 * The first input byte picks the byte order and which file entry to ask.
 * Built by tests/fuzz/CMakeLists.txt (fuzz_line_table) and run by
 * tests/fuzz/run.sh with the other fuzzers. */
#include <stdlib.h>
#include <string.h>

#include "symbolize_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  uint8_t md5[16];
  size_t index = data[0] >> 1;
  /* A copy of exactly the rest, so that a read past it is caught. */
  uint8_t *section = malloc(size - 1 > 0 ? size - 1 : 1);
  if (section == NULL)
    return 0;
  memcpy(section, data + 1, size - 1);
  for (size_t count = 0; count < 4; count++)
    (void)omplens_symbolize__line_table_md5(section, size - 1, data[0] & 1, 0, index, count,
                                            md5);
  free(section);
  return 0;
}
