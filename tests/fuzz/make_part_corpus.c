/* Writes the seed corpus of fuzz_report_part (tests/fuzz/corpus/part/):
 * the parts of a synthetic trace with every piece and with a few, an
 * error part, two parts in a row, and a plan of traces. Each file starts
 * with the byte that picks the reader (fuzz_report_part.c).
 * usage: make_part_corpus TRACE OUTDIR   (TRACE: a small bench/gen_trace -R trace) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distribute.h"
#include "omplens_parts.h"

static int write_seed(const char *dir, const char *name, int kind, FILE *body) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  fputc(kind, f);
  rewind(body);
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, body)) > 0;)
    fwrite(buf, 1, n, f);
  return fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s TRACE OUTDIR\n", argv[0]);
    return 64;
  }
  omplens_trace *t;
  omplens_analysis *a;
  if (omplens_trace_open(argv[1], &t) || omplens_detect_trace(t, &a)) {
    fprintf(stderr, "%s: cannot read or analyse %s\n", argv[0], argv[1]);
    return 1;
  }
  omplens_report_figures fig = {0};
  omplens_report_process proc = {t, a, NULL, NULL, &fig};
  omplens_report_input in = {&proc, 1, -1};
  const struct {
    const char *name;
    unsigned pieces;
  } seeds[] = {{"part.all", OMPLENS_PART_JSON | OMPLENS_PART_SUMMARY | OMPLENS_PART_DOC |
                                OMPLENS_PART_HTML | OMPLENS_PART_TIMELINE | OMPLENS_PART_PATCH},
               {"part.summary", OMPLENS_PART_SUMMARY},
               {"part.json-summary", OMPLENS_PART_JSON | OMPLENS_PART_SUMMARY}};
  int rc = 0;
  for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
    FILE *body = tmpfile();
    omplens_part_options o = {seeds[i].pieces, 0, 1, 5, 0, "a warning", NULL, NULL};
    rc |= !body || omplens_part_write(&in, 0, &o, body) || write_seed(argv[2], seeds[i].name, 0, body);
    if (body)
      fclose(body);
  }
  FILE *body = tmpfile();
  omplens_part_options o0 = {OMPLENS_PART_SUMMARY | OMPLENS_PART_JSON, 0, 2, 5, 0, NULL, NULL, NULL};
  rc |= !body || omplens_part_write(&in, 0, &o0, body) ||
        omplens_part_write_error(1, "/x/b.trace", 65, "cannot read trace /x/b.trace", body) ||
        write_seed(argv[2], "parts.two", 0, body);
  if (body)
    fclose(body);
  body = tmpfile();
  rc |= !body || omplens_part_write_error(0, "/x/a.trace", 66, NULL, body) ||
        write_seed(argv[2], "part.error", 0, body);
  if (body)
    fclose(body);
  char *names[] = {"/x/omplens-app-r0-1.trace", "/x/omplens-app-r1-2.trace", "/x/dir with space/c.trace"};
  uint32_t owner[] = {0, 1, 0};
  omplens_cli_plan plan = {0, 3, names, owner, 1234567};
  uint8_t *bytes;
  size_t n;
  body = tmpfile();
  rc |= !body || omplens_cli_plan_encode(&plan, &bytes, &n) || fwrite(bytes, 1, n, body) != n ||
        write_seed(argv[2], "plan", 1, body);
  if (body)
    fclose(body);
  omplens_analysis_free(a);
  omplens_trace_close(t);
  return rc ? 1 : 0;
}
