/* libFuzzer target: what rank 0 of a distributed report reads from the
 * other ranks (cli/distribute.h), and what `omplens report` reads back
 * from its spool files: parts (report/omplens_parts.h) and the plan of
 * traces. The first byte picks: even, parts (up to four, one after the
 * other, then put together into findings.json and the summary); odd, a
 * plan. Every promise of the readers is checked: a broken one aborts. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distribute.h"
#include "omplens_parts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void broken(const char *promise) {
  fprintf(stderr, "fuzz_report_part: broken promise: %s\n", promise);
  abort();
}

static volatile size_t sink;

static void walk(const char *s) {
  if (s)
    sink += strlen(s);
}

static void walk_part(const omplens_part *p, uint64_t length, uint64_t left) {
  if (length < 32 || length > left)
    broken("a part's length is within the bytes");
  walk(p->message), walk(p->trace), walk(p->exe), walk(p->cmdline), walk(p->warning);
  walk(p->base_dir), walk(p->summary);
  for (int r = 0; r < 2; r++)
    walk(p->patch[r]), walk(p->skipped[r]);
  if (!p->error && (!p->trace || !p->exe || !p->cmdline))
    broken("a process's part names its trace, executable and command line");
  const omplens_rank_record *r = &p->record;
  walk(r->job);
  for (size_t i = 0; i < r->num_directives; i++)
    walk(r->directives[i].location);
  for (size_t i = 0; i < r->num_findings; i++) {
    if (!r->finding_list[i].category || !r->finding_list[i].location)
      broken("a finding of the record has its category and location");
    walk(r->finding_list[i].item);
  }
  const omplens_part_span *s[] = {&p->json, &p->html, &p->timeline};
  for (size_t i = 0; i < 3; i++)
    if (s[i]->offset > p->src->size || s[i]->length > p->src->size - s[i]->offset)
      broken("a piece lies within the bytes");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  if (data[0] & 1) {
    omplens_cli_plan plan;
    if (omplens_cli_plan_decode(data + 1, size - 1, &plan))
      return 0;
    for (size_t i = 0; i < plan.n; i++)
      walk(plan.names[i]);
    omplens_cli_plan_free(&plan);
    return 0;
  }
  omplens_part_source src = {-1, data + 1, size - 1};
  omplens_part parts[4];
  size_t n = 0;
  uint64_t at = 0, length;
  while (n < 4 && !omplens_part_read(&src, at, &parts[n], &length)) {
    walk_part(&parts[n], length, src.size - at);
    at += length;
    n++;
  }
  if (n) {
    omplens_parts ps = {.parts = parts, .n = n, .program_exit_status = -1};
    FILE *out = fopen("/dev/null", "w");
    if (!omplens_parts_prepare(&ps) && out) {
      omplens_parts_write_json(&ps, out);
      omplens_parts_write_summary(&ps, 10, out);
      omplens_parts_jobs(&ps);
    }
    if (out)
      fclose(out);
    omplens_parts_release(&ps);
  }
  for (size_t i = 0; i < n; i++)
    omplens_part_free(&parts[i]);
  return 0;
}
