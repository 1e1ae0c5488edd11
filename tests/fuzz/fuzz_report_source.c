/* libFuzzer target: report.html renders outside text (source files, and the
 * strings a document carries from the program and the trace) and must never
 * let any of it through as markup. The input becomes a source file that a
 * one-finding document points at, and the input's first line becomes the
 * finding's variable name and directive text. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omplens_render.h"

static json_t *document(const char *file, const char *text) {
  json_t *loc = json_pack("{s:s, s:s, s:i, s:i, s:{s:s, s:s, s:s, s:i, s:s}}", "codeptr", "0x1",
                          "file", file, "line", 2, "column", 1, "directive", "kind", "target",
                          "text", text, "file", file, "line", 2, "confidence", "exact");
  json_t *finding = json_pack(
      "{s:s, s:i, s:o, s:{s:s, s:s, s:b}, s:s, s:i, s:i, s:i, s:i, s:i, s:[], s:{s:s, s:s}}",
      "category", "round-trip", "device", 0, "location", loc, "variable", "item", text, "name",
      text, "certain", 1, "host_addr", "0x10", "bytes", 8, "count", 1, "total_bytes", 8,
      "total_ns", 5, "savings_ns", 5, "instances", "fix", "summary", text, "diff", text);
  return json_pack("{s:s, s:i, s:[{s:s, s:i, s:s, s:s, s:b, s:i, s:[o]}]}", "schema",
                   "omplens-findings", "schema_version", 1, "processes", "trace", text, "pid", 1,
                   "executable", text, "command_line", text, "complete", 1, "devices", 1,
                   "findings", finding);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[] = "/tmp/omplens-fuzz-srcXXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return 0;
  if (write(fd, data, size) != (ssize_t)size) {
    close(fd);
    unlink(path);
    return 0;
  }
  close(fd);
  char first[256];
  size_t n = 0;
  while (n < size && n < sizeof first - 1 && data[n] != '\n' && data[n])
    first[n] = (char)data[n], n++;
  first[n] = 0;
  json_t *doc = document(path, first);
  char *html = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&html, &len);
  if (doc && out) {
    omplens_render_options opt = {0};
    omplens_render_html(doc, NULL, 0, &opt, out);
  }
  if (out)
    fclose(out);
  /* Markup the page never writes itself: only outside text could make it. */
  if (html && (strstr(html, "<img") || strstr(html, "<script>alert") || strstr(html, "<iframe")))
    abort();
  free(html);
  json_decref(doc);
  unlink(path);
  return 0;
}
