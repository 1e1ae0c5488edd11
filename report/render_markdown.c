/* report.md: GitHub-flavoured Markdown for code review, and the Markdown
 * narrative that report.html shows through libcmark. One static function per
 * part of the report; omplens_render_markdown() is the loop over processes.
 * Every text from the program, the trace or the sources is escaped
 * (omplens_md__text, omplens_md__code). Design: docs/report.md. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "render_md_internal.h"
#include "report_internal.h"

#define TOP_DIRECTIVES 10
/* Findings listed under each of the top directives; the rest are counted. */
#define FINDINGS_PER_DIRECTIVE 10

typedef struct md_ctx {
  omplens_strbuf *b;
  const char *base;     /* paths are shown relative to it */
  size_t max_instances; /* per finding */
  omplens_render__shown fixes; /* of the process being written */
} md_ctx;

/* ---- Narrative (shared with report.html) --------------------------------- */

/* Each format is given the finding's device twice ("device 0", "the host"). */
static const char *const generic_explanation[OMPLENS_RENDER_CATEGORIES] = {
    [OMPLENS_CAT_DUPLICATE_SAME_BUFFER] =
        "The same bytes were sent to %s again from the same host buffer, which %s "
        "received before: no copy back showed its copy changed since (a kernel that writes "
        "it without copying it back would not show). Where the mapping ended in between, "
        "keeping it alive would have kept the bytes there.",
    [OMPLENS_CAT_DUPLICATE_OTHER_BUFFER] =
        "The same bytes were sent to %s from another host buffer, although %s received them "
        "before, for that other buffer (a copy that may have been freed since): the device "
        "could make this buffer itself, filling it or copying the other one, rather than "
        "receive it again.",
    [OMPLENS_CAT_ROUND_TRIP] =
        "The data came back unchanged: each of these copies completes a round trip between "
        "the host and %s (host to device and back, or the reverse), returning a copy to the "
        "buffer that sent it with nothing modifying it in between.",
    [OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER] =
        "The data came back unchanged through another host buffer: each of these copies "
        "returns content to the side that sent it out (here between the host and %s) after "
        "it was copied into this buffer, for example a device result that the host copies "
        "into the input array of the next step.",
    [OMPLENS_CAT_REINIT] =
        "Each of these copies re-initializes data on %s: %s held this content before, but "
        "its copy changed since (a kernel's result, other content sent in between, or its "
        "buffer freed and allocated again), so this is not a duplicate. The host sets the data "
        "back to an earlier value, such as a reduction's start value (sum = 0), a loop flag, a "
        "counter or an input it sets again.",
    [OMPLENS_CAT_REPEATED_ALLOC] =
        "The same host buffer was allocated again on %s with the same size: it is freed "
        "and allocated again instead of staying allocated.",
    [OMPLENS_CAT_UNUSED_ALLOC] =
        "The buffer was allocated on %s and freed again without any kernel running on %s "
        "in between.",
    [OMPLENS_CAT_UNUSED_TRANSFER] =
        "No kernel on %s read this copy: a later copy overwrote it, it arrived after %s "
        "ran its last kernel, or no kernel used the memory it went to.",
    [OMPLENS_RENDER_UNREFERENCED] =
        "The construct maps this item to %s although its body never names the variable: "
        "these copies and allocations serve no kernel.",
};

/* Where the host is the receiver (device-to-host duplicates, whose device
 * is "host"), the bytes came from the device. */
static const char *const host_explanation[OMPLENS_RENDER_CATEGORIES] = {
    [OMPLENS_CAT_DUPLICATE_SAME_BUFFER] =
        "The host received again, into the same buffer, bytes it still holds there as far as "
        "the trace shows: the device sent back data that did not change since it last did.",
    [OMPLENS_CAT_DUPLICATE_OTHER_BUFFER] =
        "The host received into this buffer bytes it already holds in another buffer: the "
        "device sent back data the host has (two kernels that compute the same values, or "
        "one that copies an array into another, do this).",
};

/* An unused allocation that the kernels which ran were not given. */
static const char passed_over_explanation[] =
    "Kernels ran on %s while the buffer was allocated, but none was given it: no map "
    "argument of theirs lies in it, or in the pointer it is attached through, so none of the "
    "kernels that ran on %s used it.";

/* An unused transfer back to the host: a copy out of memory nothing on the
 * device wrote. */
static const char copied_back_explanation[] =
    "The host received memory that nothing on %s wrote: no copy went into that device "
    "buffer and no kernel on %s was given it, so the copy brings back uninitialized device "
    "memory, over the values the host holds there.";

static int category_index(const char *name) {
  for (int c = 0; name && c < OMPLENS_RENDER_CATEGORIES; c++)
    if (!strcmp(name, omplens_render__category_name(c)))
      return c;
  return -1;
}

/* The annotator's notes on directives (sources parsed without the build's
 * flags, say) concern the run, not one finding: each distinct one once. */
static void directive_notes(omplens_strbuf *b, const json_t *proc) {
  enum { MAX_NOTES = 4 };
  const char *seen[MAX_NOTES];
  size_t n = 0, i;
  const json_t *f;
  json_array_foreach(omplens_render__array(proc, "findings"), i, f) {
    const json_t *d = json_object_get(json_object_get(f, "location"), "directive");
    const char *note = omplens_render__str(d, "note");
    size_t k = 0;
    while (note && k < n && strcmp(seen[k], note))
      k++;
    if (!note || k < n || n == MAX_NOTES)
      continue;
    seen[n++] = note;
    omplens_strbuf_puts(b, "\n*Note:* ");
    omplens_md__text(b, note, 0);
    omplens_strbuf_puts(b, "\n");
  }
}

/* Host waits (schema 4): the time host threads sat blocked in synchronous
 * constructs, the kernels and copies they waited for included, and at a
 * taskwait, taskgroup or barrier for nowait ones. */
static void summary_waits(omplens_strbuf *b, const json_t *tot) {
  uint64_t n = omplens_render__u64(tot, "host_waits"), ns = omplens_render__u64(tot, "host_wait_ns");
  uint64_t nd = omplens_render__u64(tot, "deferred_waits"), run = omplens_render__u64(tot, "run_ns");
  char t[32], td[32], deferred[160];
  if (!n)
    return;
  if (nd)
    snprintf(deferred, sizeof deferred,
             ", and %s of it in %" PRIu64 " wait%s for `nowait` ones at a taskwait, taskgroup or barrier",
             omplens_format_ns(omplens_render__u64(tot, "deferred_wait_ns"), td), nd, nd == 1 ? "" : "s");
  else
    snprintf(deferred, sizeof deferred, "; a `nowait` construct blocks no host thread until one "
                                        "waits for it at a taskwait, taskgroup or barrier");
  omplens_strbuf_printf(b, "\nHost threads waited **%s** (%.1f %% of the run) in %" PRIu64
                        " synchronous target construct%s%s.\n",
                        omplens_format_ns(ns, t), run ? 100.0 * (double)ns / (double)run : 0.0, n - nd,
                        n - nd == 1 ? "" : "s", deferred);
}

/* "The program paused omplens from 0.01 s to 0.52 s: not analysed." */
static void summary_paused(omplens_strbuf *b, const json_t *proc) {
  const json_t *pauses = omplens_render__array(proc, "paused"), *p;
  size_t i, n = json_array_size(pauses);
  if (!n)
    return;
  char t[32], t1[32], t2[32];
  omplens_strbuf_puts(b, "\n**The program paused omplens** (`omp_control_tool`) from ");
  json_array_foreach(pauses, i, p) {
    if (i == 3) {
      omplens_strbuf_printf(b, " and %zu more times", n - 3);
      break;
    }
    omplens_strbuf_printf(b, "%s%s to %s", i == 0 ? "" : i + 1 == n ? " and from " : ", from ",
                          omplens_format_ns(omplens_render__u64(p, "begin_ns"), t1),
                          omplens_format_ns(omplens_render__u64(p, "end_ns"), t2));
  }
  omplens_strbuf_printf(b, " into the run (%s in all): not analysed.\n",
                        omplens_format_ns(omplens_render__u64(proc, "paused_ns"), t));
}

void omplens_md__summary(omplens_strbuf *b, const json_t *proc, const char *base) {
  const json_t *tot = json_object_get(proc, "totals");
  json_t *owned;
  const json_t *dirs = omplens_render__finding_directives(proc, &owned);
  size_t nfind = omplens_render__num_findings(proc);
  char t1[32], t2[32], t3[32];
  if (!nfind) {
    uint64_t nt = omplens_render__u64(tot, "transfers"), na = omplens_render__u64(tot, "allocations");
    uint64_t nk = omplens_render__u64(tot, "kernels");
    omplens_strbuf_printf(b,
                          "**No wasted data movement found.** omplens checked %" PRIu64
                          " transfer%s (%s), %" PRIu64 " allocation%s and %" PRIu64 " kernel%s.\n",
                          nt, nt == 1 ? "" : "s",
                          omplens_format_bytes(omplens_render__u64(tot, "transfer_bytes"), t1), na,
                          na == 1 ? "" : "s", nk, nk == 1 ? "" : "s");
  } else {
    uint64_t run = omplens_render__u64(tot, "run_ns"), saved = omplens_render__predicted_savings(tot);
    uint64_t nops = omplens_render__total_count(tot);
    omplens_strbuf_printf(b, "omplens found **%" PRIu64 " wasteful operation%s** in %zu finding%s at "
                          "%zu directive%s. ",
                          nops, nops == 1 ? "" : "s", nfind, nfind == 1 ? "" : "s",
                          json_array_size(dirs), json_array_size(dirs) == 1 ? "" : "s");
    omplens_strbuf_printf(b, "Fixing %s is predicted to save **%s** of the %s run (%.1f %%)",
                          nops == 1 ? "it" : "them",
                          omplens_format_ns(saved, t1), omplens_format_ns(run, t2),
                          run ? 100.0 * (double)saved / (double)run : 0.0);
    double speedup = omplens_render__real(tot, "predicted_speedup");
    if (speedup > 0)
      omplens_strbuf_printf(b, ", a **%s** speedup.\n", omplens_render__speedup(speedup, t3));
    else
      omplens_strbuf_puts(b, "; no speedup can be predicted, because the operations overlapped "
                             "in time on several threads or devices.\n");
    size_t k;
    const json_t *note;
    json_array_foreach(omplens_render__array(tot, "model_notes"), k, note) {
      omplens_strbuf_puts(b, "\n*Note:* ");
      omplens_md__text(b, json_string_value(note), 0);
      omplens_strbuf_puts(b, "\n");
    }
    const json_t *top = json_array_get(dirs, 0);
    if (top) {
      char loc[4096];
      /* Set-up directives come last: the first is the largest of its part. */
      const json_t *last = json_array_get(dirs, json_array_size(dirs) - 1);
      if (omplens_render__bool(top, "setup", 0))
        omplens_strbuf_puts(b, "\nEvery finding lies in the program's set-up (before its first "
                               "repeated kernel). The largest saving is at ");
      else if (omplens_render__bool(last, "setup", 0))
        omplens_strbuf_puts(b, "\nThe largest saving outside the program's set-up is at ");
      else
        omplens_strbuf_puts(b, "\nThe largest saving is at ");
      omplens_md__code(b, omplens_render__location_label(json_object_get(top, "location"), base,
                                                         loc, sizeof loc), 0);
      omplens_strbuf_printf(b, " (%s).\n", omplens_format_ns(omplens_render__u64(top, "savings_ns"), t1));
    }
  }
  json_decref(owned);
  summary_paused(b, proc);
  summary_waits(b, tot);
  directive_notes(b, proc);
  if (!omplens_render__bool(proc, "complete", 1))
    omplens_strbuf_puts(b, "\n**The trace is incomplete**: the program crashed or ended with "
                           "`_exit()`, so only what was recorded is analysed.\n");
}

static void finding_generic_explanation(omplens_strbuf *b, const json_t *finding) {
  int c = category_index(omplens_render__str(finding, "category"));
  char dev[32];
  omplens_render__device(json_object_get(finding, "device"), dev);
  if (c < 0) {
    omplens_strbuf_puts(b, "See docs/detectors.md for this category.\n");
    return;
  }
  const char *text = generic_explanation[c];
  if (json_is_string(json_object_get(finding, "device")) && host_explanation[c])
    text = host_explanation[c];
  if (omplens_render__bool(finding, "passed_over", 0))
    text = passed_over_explanation;
  if (omplens_report__copies_back_unwritten(finding))
    text = copied_back_explanation;
  omplens_strbuf_printf(b, text, dev, dev);
  omplens_strbuf_puts(b, "\n");
}

static void finding_fix(omplens_strbuf *b, const json_t *fix) {
  const char *summary = omplens_render__str(fix, "summary");
  const char *diff = omplens_render__str(fix, "diff");
  const char *manual = omplens_render__str(fix, "manual");
  if (summary) {
    omplens_strbuf_puts(b, "\n**Suggested fix:** ");
    omplens_md__prose(b, summary, 0);
    omplens_strbuf_puts(b, "\n");
  }
  if (diff) {
    omplens_strbuf_puts(b, "\n");
    omplens_md__code_block(b, "diff", diff);
  }
  if (manual) {
    omplens_strbuf_puts(b, summary || diff ? "\n" : "\n**How to fix:** ");
    omplens_md__prose(b, manual, 0);
    omplens_strbuf_puts(b, "\n");
  }
  uint64_t saves = omplens_render__u64(fix, "predicted_savings_ns");
  if (saves) {
    char t[32], s[32];
    omplens_strbuf_printf(b, "\nPredicted effect of this fix: saves %s", omplens_format_ns(saves, t));
    double speedup = omplens_render__real(fix, "predicted_speedup");
    if (speedup > 0)
      omplens_strbuf_printf(b, ", %s speedup", omplens_render__speedup(speedup, s));
    omplens_strbuf_puts(b, ".\n");
  }
}

/* "Called from `main.c:15` (main), from `driver.c:40` (run)": the calls
 * that led to the directive, innermost first, and how many other paths. */
static void finding_call_path(omplens_strbuf *b, const json_t *finding, const char *base) {
  const json_t *path = omplens_render__array(finding, "call_path");
  size_t i, others = omplens_render__u64(finding, "call_paths");
  const json_t *site;
  if (!json_array_size(path))
    return;
  json_array_foreach(path, i, site) {
    char where[4096];
    const char *fn = omplens_render__str(site, "function");
    omplens_strbuf_puts(b, i ? ", from " : "\nCalled from ");
    snprintf(where, sizeof where, "%s:%" PRIu64,
             omplens_render__display_path(omplens_render__str(site, "file"), base),
             omplens_render__u64(site, "line"));
    omplens_md__code(b, where, 0);
    if (fn) {
      omplens_strbuf_puts(b, " in ");
      omplens_md__code(b, fn, 0);
    }
    if (omplens_render__u64(site, "loop_line"))
      omplens_strbuf_printf(b, ", in the loop at line %" PRIu64,
                            omplens_render__u64(site, "loop_line"));
  }
  size_t top = omplens_render__u64(finding, "call_paths_as_frequent");
  if (others > 1 && top >= others)
    omplens_strbuf_printf(b, " (one of %zu call paths, all as frequent)", others);
  else if (others > 1 && top > 1)
    omplens_strbuf_printf(b, " (one of the %zu most frequent of %zu call paths)", top, others);
  else if (others > 1)
    omplens_strbuf_printf(b, " (the most frequent of %zu call paths)", others);
  omplens_strbuf_puts(b, ".\n");
}

void omplens_md__finding(omplens_strbuf *b, const json_t *finding, const char *base,
                         const char *same_fix) {
  const char *explanation = omplens_render__str(finding, "explanation");
  if (explanation) {
    omplens_md__text(b, explanation, 0);
    omplens_strbuf_puts(b, "\n");
  } else {
    finding_generic_explanation(b, finding);
  }
  finding_call_path(b, finding, base);
  const json_t *fix = json_object_get(finding, "fix");
  if (json_is_object(fix) && same_fix) {
    omplens_strbuf_puts(b, "\n**Suggested fix:** the same change as for ");
    omplens_md__text(b, same_fix, 0);
    omplens_strbuf_puts(b, " above removes this finding too.\n");
  } else if (json_is_object(fix)) {
    finding_fix(b, fix);
  }
}

/* ---- report.md ------------------------------------------------------------ */

static const char *program_name(const json_t *proc) {
  const char *s = omplens_render__str(proc, "command_line");
  if (!s || !*s)
    s = omplens_render__str(proc, "executable");
  return s && *s ? s : "(unknown program)";
}

static void md_row(md_ctx *m, const char *label, const char *value) {
  omplens_strbuf_printf(m->b, "| %s | ", label);
  omplens_md__text(m->b, value, 1);
  omplens_strbuf_puts(m->b, " |\n");
}

static void md_process_table(md_ctx *m, const json_t *proc) {
  const json_t *tot = json_object_get(proc, "totals");
  omplens_strbuf *b = m->b;
  char v[256], t1[32], t2[32];
  omplens_strbuf_puts(b, "\n| Measure | Value |\n|---|---|\n| Program | ");
  omplens_md__code(b, program_name(proc), 1);
  omplens_strbuf_printf(b, " (pid %" PRIu64 ") |\n", omplens_render__u64(proc, "pid"));
  omplens_strbuf_printf(b, "| Run time | %s%s |\n", omplens_format_ns(omplens_render__u64(tot, "run_ns"), t1),
                        omplens_render__bool(proc, "complete", 1) ? "" : " (trace incomplete)");
  /* "4, 1 used (device 0)": host offload's four devices are not four used */
  const json_t *devs = omplens_render__array(proc, "devices_used"), *d;
  size_t nu = json_array_size(devs), di;
  omplens_strbuf_printf(b, "| Devices | %" PRIu64, omplens_render__u64(proc, "devices"));
  if (json_is_array(json_object_get(proc, "devices_used"))) {
    omplens_strbuf_printf(b, ", %zu used", nu);
    json_array_foreach(devs, di, d)
      omplens_strbuf_printf(b, "%s%" JSON_INTEGER_FORMAT, di ? ", " : nu == 1 ? " (device " : " (devices ",
                            json_integer_value(d));
    if (nu)
      omplens_strbuf_puts(b, ")");
  }
  omplens_strbuf_puts(b, " |\n");
  snprintf(v, sizeof v, "%" PRIu64 " (%s in %s)", omplens_render__u64(tot, "transfers"),
           omplens_format_bytes(omplens_render__u64(tot, "transfer_bytes"), t1),
           omplens_format_ns(omplens_render__u64(tot, "transfer_ns"), t2));
  md_row(m, "Transfers", v);
  snprintf(v, sizeof v, "%" PRIu64 " (%s)", omplens_render__u64(tot, "allocations"),
           omplens_format_ns(omplens_render__u64(tot, "alloc_ns"), t1));
  md_row(m, "Allocations", v);
  snprintf(v, sizeof v, "%" PRIu64 " (%s)", omplens_render__u64(tot, "kernels"),
           omplens_format_ns(omplens_render__u64(tot, "kernel_ns"), t1));
  md_row(m, "Kernels", v);
  if (json_object_get(tot, "host_wait_ns")) { /* schema 4 */
    uint64_t nd = omplens_render__u64(tot, "deferred_waits");
    char tw[32];
    uint64_t ns = omplens_render__u64(tot, "host_waits") - nd;
    snprintf(v, sizeof v, "%s in %" PRIu64 " synchronous construct%s",
             omplens_format_ns(omplens_render__u64(tot, "host_wait_ns"), t1), ns, ns == 1 ? "" : "s");
    if (nd)
      snprintf(v + strlen(v), sizeof v - strlen(v), " and %" PRIu64 " waits for nowait ones (%s)", nd,
               omplens_format_ns(omplens_render__u64(tot, "deferred_wait_ns"), tw));
    const json_t *threads = omplens_render__array(tot, "host_waits_by_thread"), *th;
    size_t k, used = strlen(v);
    json_array_foreach(threads, k, th) { /* per thread, when there are several */
      if (json_array_size(threads) < 2)
        break;
      if (used + 64 > sizeof v) {
        snprintf(v + used, sizeof v - used, ", \xe2\x80\xa6)");
        break;
      }
      used += (size_t)snprintf(v + used, sizeof v - used, "%sthread %" PRIu64 ": %s",
                               k ? ", " : " (", omplens_render__u64(th, "thread"),
                               omplens_format_ns(omplens_render__u64(th, "wait_ns"), t1));
      if (k + 1 == json_array_size(threads))
        snprintf(v + used, sizeof v - used, ")");
    }
    md_row(m, "Host waits", v);
  }
  uint64_t run = omplens_render__u64(tot, "run_ns"), saved = omplens_render__predicted_savings(tot);
  snprintf(v, sizeof v, "%s (%.1f %% of the run)", omplens_format_ns(saved, t1),
           run ? 100.0 * (double)saved / (double)run : 0.0);
  omplens_strbuf_printf(b, "| Predicted savings | **%s** |\n", v);
  md_row(m, "Predicted speedup", omplens_render__speedup(omplens_render__real(tot, "predicted_speedup"), t1));
}

static void md_category_table(md_ctx *m, const json_t *proc) {
  const json_t *tot = json_object_get(proc, "totals");
  const json_t *counts = json_object_get(tot, "counts"), *bytes = json_object_get(tot, "bytes");
  char t[32];
  omplens_strbuf_puts(m->b, "\n| Category | Instances | Bytes |\n|---|---:|---:|\n");
  for (int c = 0; c < OMPLENS_RENDER_CATEGORIES; c++) {
    const char *name = omplens_render__category_name(c);
    omplens_strbuf_printf(m->b, "| %s | %" PRIu64 " | %s |\n", omplens_render__category_title(c),
                          omplens_render__u64(counts, name),
                          omplens_format_bytes(omplens_render__u64(bytes, name), t));
  }
}

static void md_warnings(md_ctx *m, const json_t *proc) {
  uint64_t dropped = omplens_render__u64(proc, "dropped_events");
  if (dropped)
    omplens_strbuf_printf(m->b, "\n> **Warning:** %" PRIu64 " events were not recorded; the "
                                "findings may be incomplete.\n", dropped);
  size_t i;
  const json_t *line;
  json_array_foreach(omplens_render__array(proc, "damage"), i, line) {
    omplens_strbuf_puts(m->b, "\n> **Trace damage:** ");
    omplens_md__text(m->b, json_string_value(line), 0);
    omplens_strbuf_puts(m->b, "\n");
  }
}

/* "round trip 199, repeated alloc 398" for the categories a directive has. */
static void md_counts(md_ctx *m, const json_t *o) {
  const json_t *counts = json_object_get(o, "counts");
  int first = 1;
  for (int c = 0; c < OMPLENS_RENDER_CATEGORIES; c++) {
    uint64_t n = omplens_render__u64(counts, omplens_render__category_name(c));
    if (!n)
      continue;
    omplens_strbuf_printf(m->b, "%s%s %" PRIu64, first ? "" : ", ", omplens_render__category_title(c), n);
    first = 0;
  }
}

static uint64_t operation_ns(const json_t *profile, const char *kind) {
  return omplens_render__u64(json_object_get(profile, kind), "ns");
}

static uint64_t operation_bytes(const json_t *profile, const char *kind) {
  return omplens_render__u64(json_object_get(profile, kind), "bytes");
}

/* One directive of "Where the time goes": its profile's sums. */
static void md_time_row(md_ctx *m, size_t rank, const json_t *d) {
  char loc[4096], t1[32], t2[32], t3[32], t4[32], t5[32];
  const json_t *l = json_object_get(d, "location"), *p = json_object_get(d, "profile");
  omplens_strbuf_printf(m->b, "| %zu | ", rank);
  omplens_md__code(m->b, omplens_render__location_label(l, m->base, loc, sizeof loc), 1);
  omplens_strbuf_puts(m->b, " | ");
  const char *kind = omplens_render__kind(l);
  omplens_md__text(m->b, kind ? kind : "\xe2\x80\x94", 1);
  uint64_t transfer_ns = operation_ns(p, "h2d") + operation_ns(p, "d2h") + operation_ns(p, "d2d");
  uint64_t transfer_bytes = operation_bytes(p, "h2d") + operation_bytes(p, "d2h") + operation_bytes(p, "d2d");
  omplens_strbuf_printf(m->b, " | %" PRIu64 " | %s | %s | %s | %s | %s | %.1f %% |\n",
                        omplens_render__u64(p, "executions"),
                        omplens_format_ns(operation_ns(p, "kernels"), t1),
                        omplens_format_ns(transfer_ns, t2), omplens_format_bytes(transfer_bytes, t3),
                        omplens_format_ns(operation_ns(p, "allocs") + operation_ns(p, "frees"), t4),
                        json_object_get(p, "host_waits") ? omplens_format_ns(operation_ns(p, "host_waits"), t5)
                                                         : "\xe2\x80\x94", /* before schema 4 */
                        100.0 * omplens_render__real(p, "share_of_run"));
}

/* Every directive's time, findings or not (the document lists them by
 * time; one before schema 3 has no profiles, and no such section). */
static void md_time_table(md_ctx *m, const json_t *proc) {
  const json_t *dirs = omplens_render__array(proc, "directives"), *d;
  if (!json_object_get(json_array_get(dirs, 0), "profile"))
    return;
  omplens_strbuf_puts(m->b, "\n## Where the time goes\n\n| # | Directive | Kind | Executions | Kernel time "
                            "| Transfer time | Transferred | Allocation time | Host wait | Share of run |\n"
                            "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  size_t i;
  json_array_foreach(dirs, i, d) {
    if (i == TOP_DIRECTIVES)
      break;
    md_time_row(m, i + 1, d);
  }
  if (json_array_size(dirs) > TOP_DIRECTIVES)
    omplens_strbuf_printf(m->b, "\n%zu more directives are profiled in findings.json.\n",
                          json_array_size(dirs) - TOP_DIRECTIVES);
}

static void md_directive_table(md_ctx *m, const json_t *dirs) {
  char loc[4096], t[32];
  size_t i;
  const json_t *d;
  omplens_strbuf_puts(m->b, "\n## Top directives\n\n| # | Directive | Kind | Savings | Findings |\n"
                            "|---:|---|---|---:|---|\n");
  json_array_foreach(dirs, i, d) {
    if (i == TOP_DIRECTIVES)
      break;
    const json_t *l = json_object_get(d, "location");
    omplens_strbuf_printf(m->b, "| %zu | ", i + 1);
    omplens_md__code(m->b, omplens_render__location_label(l, m->base, loc, sizeof loc), 1);
    omplens_strbuf_puts(m->b, " | ");
    const char *kind = omplens_render__kind(l);
    omplens_md__text(m->b, kind ? kind : "\xe2\x80\x94", 1);
    omplens_strbuf_printf(m->b, " | %s | ", omplens_format_ns(omplens_render__u64(d, "savings_ns"), t));
    md_counts(m, d);
    omplens_strbuf_puts(m->b, omplens_render__bool(d, "setup", 0) ? " (set-up) |\n" : " |\n");
  }
  if (json_array_size(dirs) > TOP_DIRECTIVES)
    omplens_strbuf_printf(m->b, "\n%zu more directives are listed in report.html and findings.json.\n",
                          json_array_size(dirs) - TOP_DIRECTIVES);
}

static int same_location(const json_t *a, const json_t *b) {
  const char *x = omplens_render__str(a, "codeptr"), *y = omplens_render__str(b, "codeptr");
  return x && y && !strcmp(x, y);
}

static int instances_have_variables(const json_t *inst) {
  size_t i;
  const json_t *e;
  json_array_foreach(inst, i, e)
    if (json_object_get(e, "variable"))
      return 1;
  return 0;
}

/* A finding's subject as code, with the words that qualify it ("(probably)",
 * "(pointer)") after the code span rather than in it. */
static void md_subject(md_ctx *m, const json_t *f, int in_table) {
  char subject[512];
  const char *note;
  omplens_md__code(m->b, omplens_render__subject(f, subject, sizeof subject, &note), in_table);
  omplens_md__text(m->b, note, in_table);
}

static void md_instance(md_ctx *m, size_t i, const json_t *e, int variables) {
  char t1[32], t2[32], t3[32];
  omplens_strbuf_printf(m->b, "| %zu | %s | %s | %s | %s |", i + 1,
                        omplens_render__operation(omplens_render__str(e, "kind")),
                        omplens_format_ns(omplens_render__u64(e, "time_ns"), t1),
                        omplens_format_ns(omplens_render__u64(e, "duration_ns"), t2),
                        omplens_format_bytes(omplens_render__u64(e, "bytes"), t3));
  if (variables && json_object_get(e, "variable")) {
    omplens_strbuf_puts(m->b, " ");
    md_subject(m, e, 1);
  }
  omplens_strbuf_puts(m->b, variables ? " |\n" : "\n");
}

/* Event numbers and content hashes, folded away: they match the instances
 * with findings.json and the trace, and mean nothing to a reader. */
static void md_instance_ids(md_ctx *m, const json_t *inst) {
  size_t i;
  const json_t *e;
  omplens_strbuf_puts(m->b, "\n<details><summary>Identifiers in the trace</summary>\n\n"
                            "| # | Event | Content hash |\n|---:|---:|---|\n");
  json_array_foreach(inst, i, e) {
    if (i == m->max_instances)
      break;
    const json_t *ev = json_object_get(e, "event");
    const char *hash = omplens_render__str(e, "hash");
    omplens_strbuf_printf(m->b, "| %zu | ", i + 1);
    if (json_is_integer(ev))
      omplens_strbuf_printf(m->b, "%" JSON_INTEGER_FORMAT, json_integer_value(ev));
    omplens_strbuf_puts(m->b, " | ");
    if (hash)
      omplens_md__code(m->b, hash, 1);
    omplens_strbuf_puts(m->b, " |\n");
  }
  omplens_strbuf_puts(m->b, "\n</details>\n");
}

/* The instances, up to max_instances; a variable column only when they
 * name variables of their own (they differ from the finding's). */
static void md_instances(md_ctx *m, const json_t *finding) {
  const json_t *inst = omplens_render__array(finding, "instances");
  size_t i, n = json_array_size(inst);
  const json_t *e;
  int variables = instances_have_variables(inst);
  if (!n)
    return;
  omplens_strbuf_puts(m->b, variables ? "\n| # | Operation | Time | Duration | Bytes | Variable |\n"
                                        "|---:|---|---:|---:|---:|---|\n"
                                      : "\n| # | Operation | Time | Duration | Bytes |\n"
                                        "|---:|---|---:|---:|---:|\n");
  json_array_foreach(inst, i, e) {
    if (i == m->max_instances)
      break;
    md_instance(m, i, e, variables);
  }
  /* Every instance counts, not only those the document lists. */
  uint64_t all = n + omplens_render__u64(finding, "instances_omitted");
  size_t rows = n < m->max_instances ? n : m->max_instances;
  if (all > rows)
    omplens_strbuf_printf(m->b, "\nand %" PRIu64 " more instances.\n", all - rows);
  md_instance_ids(m, inst);
}

static void md_finding(md_ctx *m, const json_t *f) {
  char subject[512], dev[32], t1[32], t2[32], t3[32], t4[32];
  omplens_strbuf_printf(m->b, "\n#### %s of ",
                        omplens_render__category_title_of(omplens_render__str(f, "category")));
  md_subject(m, f, 0);
  omplens_render__finding_subject(f, subject, sizeof subject); /* for the fix's words */
  omplens_strbuf_printf(m->b, " on %s%s\n\n", omplens_render__device(json_object_get(f, "device"), dev),
                        omplens_render__bool(f, "setup", 0) ? " (set-up)" : "");
  if (omplens_render__bool(f, "setup", 0))
    omplens_strbuf_puts(m->b, "*Set-up:* every operation ran before the program's first repeated "
                              "kernel, in its one-time initialisation; ranked after the others.\n\n");
  char frees[64] = "", t5[32];
  uint64_t frees_ns = omplens_render__frees_ns(f);
  if (frees_ns)
    snprintf(frees, sizeof frees, ", and %s in their frees", omplens_format_ns(frees_ns, t5));
  omplens_strbuf_printf(m->b, "%" PRIu64 " \xc3\x97 %s (%s in total, %s%s); predicted savings %s.\n\n",
                        omplens_render__u64(f, "count"),
                        omplens_format_bytes(omplens_render__u64(f, "bytes"), t1),
                        omplens_format_bytes(omplens_render__u64(f, "total_bytes"), t2),
                        omplens_format_ns(omplens_render__u64(f, "total_ns"), t3), frees,
                        omplens_format_ns(omplens_render__u64(f, "savings_ns"), t4));
  char where[600];
  int n = snprintf(where, sizeof where, "the %s of %s on %s",
                   omplens_render__category_title_of(omplens_render__str(f, "category")), subject,
                   dev);
  if (n > 4)
    where[4] = (char)tolower((unsigned char)where[4]); /* "the round trip" */
  omplens_md__finding(m->b, f, m->base, omplens_render__fix_shown(&m->fixes, f, where));
  md_instances(m, f);
}

static void md_directive(md_ctx *m, size_t rank, const json_t *d, const json_t *findings) {
  const json_t *l = json_object_get(d, "location");
  const json_t *dir = json_object_get(l, "directive");
  char loc[4096], t1[32], t2[32], t3[32];
  omplens_strbuf_printf(m->b, "\n### %zu. ", rank);
  omplens_md__code(m->b, omplens_render__location_label(l, m->base, loc, sizeof loc), 0);
  const char *kind = omplens_render__kind(l);
  if (kind) {
    omplens_strbuf_puts(m->b, " \xe2\x80\x94 ");
    omplens_md__text(m->b, kind, 0);
  }
  omplens_strbuf_puts(m->b, "\n\n");
  if (omplens_render__str(dir, "text"))
    omplens_md__code_block(m->b, "c", omplens_render__str(dir, "text"));
  else if (!omplens_render__str(l, "file"))
    omplens_strbuf_puts(m->b, "Source not attributed: shown as module+offset.\n");
  uint64_t runs = omplens_render__u64(d, "executions");
  omplens_strbuf_printf(m->b, "\nExecuted %" PRIu64 " time%s; %s transferred in %s; predicted savings **%s** (",
                        runs, runs == 1 ? "" : "s",
                        omplens_format_bytes(omplens_render__u64(d, "transfer_bytes"), t1),
                        omplens_format_ns(omplens_render__u64(d, "transfer_ns"), t2),
                        omplens_format_ns(omplens_render__u64(d, "savings_ns"), t3));
  md_counts(m, d);
  omplens_strbuf_puts(m->b, ").\n");
  size_t i, listed = 0, left = 0;
  const json_t *f;
  json_array_foreach(findings, i, f) {
    if (!same_location(json_object_get(f, "location"), l))
      continue;
    if (listed++ < FINDINGS_PER_DIRECTIVE)
      md_finding(m, f);
    else
      left++;
  }
  if (left)
    omplens_strbuf_printf(m->b, "\nand %zu more findings at this directive (see report.html or "
                                "findings.json).\n", left);
}

/* The mappings no exit data or free ended, the first few by item and
 * directive. */
static void md_leftovers(md_ctx *m, const json_t *proc) {
  const json_t *all = omplens_render__array(proc, "mappings_at_exit"), *l;
  size_t n = json_array_size(all), i;
  if (!n)
    return;
  omplens_strbuf_printf(m->b, "\nNote: %zu mapping%s still present when the program ended:\n\n",
                        n, n == 1 ? " was" : "s were");
  json_array_foreach(all, i, l) {
    if (i == OMPLENS_REPORT__LEFTOVERS_SHOWN)
      break;
    const json_t *loc = json_object_get(l, "location");
    char dev[32], bytes[32], where[4096];
    omplens_strbuf_puts(m->b, "- ");
    md_subject(m, l, 0);
    omplens_strbuf_printf(m->b, " (%s) on %s, mapped at ",
                          omplens_format_bytes(omplens_render__u64(l, "bytes"), bytes),
                          omplens_render__device(json_object_get(l, "device"), dev));
    omplens_md__code(m->b, omplens_render__location_label(loc, m->base, where, sizeof where), 0);
    omplens_strbuf_puts(m->b, "\n");
  }
  if (n > OMPLENS_REPORT__LEFTOVERS_SHOWN)
    omplens_strbuf_printf(m->b, "- and %zu more (findings.json, `mappings_at_exit`)\n",
                          n - OMPLENS_REPORT__LEFTOVERS_SHOWN);
  /* Their fixes: each change (an exit data where the buffer is freed, in
   * fixes.patch) and each distinct recipe once. */
  const char *said[OMPLENS_REPORT__LEFTOVERS_SHOWN];
  size_t num_said = 0;
  json_array_foreach(all, i, l) {
    const json_t *fix = json_object_get(l, "fix");
    const char *text = omplens_render__str(fix, "diff");
    if (!text)
      text = omplens_render__str(fix, "manual");
    bool again = false;
    for (size_t k = 0; text && k < num_said && !again; k++)
      again = !strcmp(said[k], text);
    if (!text || again)
      continue;
    if (num_said == OMPLENS_REPORT__LEFTOVERS_SHOWN)
      break;
    said[num_said++] = text;
    omplens_strbuf_puts(m->b, "\nFor ");
    md_subject(m, l, 0);
    omplens_strbuf_puts(m->b, ":\n");
    finding_fix(m->b, fix);
  }
}

void omplens_md__leftovers(omplens_strbuf *b, const json_t *proc, const char *base) {
  md_ctx m = {.b = b, .base = base};
  md_leftovers(&m, proc);
}

static void md_process(md_ctx *m, const json_t *proc, size_t index, size_t count) {
  if (count > 1) {
    omplens_strbuf_printf(m->b, "\n## Process %zu: ", index + 1);
    if (json_is_integer(json_object_get(proc, "rank")))
      omplens_strbuf_printf(m->b, "rank %" PRIu64 ", ", omplens_render__u64(proc, "rank"));
    omplens_strbuf_printf(m->b, "pid %" PRIu64 ", ", omplens_render__u64(proc, "pid"));
    omplens_md__code(m->b, program_name(proc), 0);
    omplens_strbuf_puts(m->b, "\n");
  }
  omplens_strbuf_puts(m->b, count > 1 ? "\n### Summary\n\n" : "\n## Summary\n\n");
  omplens_md__summary(m->b, proc, m->base);
  md_process_table(m, proc);
  md_category_table(m, proc);
  md_warnings(m, proc);
  md_time_table(m, proc);
  json_t *owned;
  const json_t *dirs = omplens_render__finding_directives(proc, &owned);
  if (!json_array_size(dirs)) {
    json_decref(owned);
    md_leftovers(m, proc);
    return;
  }
  md_directive_table(m, dirs);
  size_t i;
  const json_t *d;
  json_array_foreach(dirs, i, d) {
    if (i == TOP_DIRECTIVES)
      break;
    md_directive(m, i + 1, d, omplens_render__array(proc, "findings"));
  }
  json_decref(owned);
  omplens_render__shown_free(&m->fixes);
  md_leftovers(m, proc);
}

/* "3, 3, 3, 7": the per-rank values of a merged row. */
static void md_per_rank(omplens_strbuf *b, const json_t *arr, int as_ns) {
  size_t i;
  const json_t *v;
  char t[32];
  json_array_foreach(arr, i, v) {
    uint64_t x = (uint64_t)json_integer_value(v);
    if (as_ns)
      omplens_strbuf_printf(b, "%s%s", i ? ", " : "", omplens_format_ns(x, t));
    else
      omplens_strbuf_printf(b, "%s%" PRIu64, i ? ", " : "", x);
  }
}

static void md_rank_table(md_ctx *m, const json_t *procs) {
  omplens_strbuf_puts(m->b, "\n| Rank | Process | Devices used | Device time | Transfer bytes | "
                            "Findings |\n|---:|---:|---|---:|---:|---:|\n");
  size_t i;
  const json_t *p;
  char t1[32], t2[32];
  json_array_foreach(procs, i, p) {
    omplens_strbuf_printf(m->b, "| %" PRIu64 " | %" PRIu64 " (pid %" PRIu64 ") | ",
                          omplens_render__u64(p, "rank"), omplens_render__u64(p, "process") + 1,
                          omplens_render__u64(p, "pid"));
    md_per_rank(m->b, json_object_get(p, "devices_used"), 0);
    omplens_strbuf_printf(m->b, " | %s | %s | %" PRIu64 " |\n",
                          omplens_format_ns(omplens_render__u64(p, "device_ns"), t1),
                          omplens_format_bytes(omplens_render__u64(p, "transfer_bytes"), t2),
                          omplens_render__u64(p, "findings"));
  }
}

static void md_rank_directives(md_ctx *m, const json_t *dirs, size_t n) {
  omplens_strbuf_puts(m->b, "\n| Directive | Ranks | Device time | Min | Median | Max | Per rank |\n"
                            "|---|---:|---:|---:|---:|---:|---|\n");
  size_t i;
  const json_t *d;
  char t[4][32];
  json_array_foreach(dirs, i, d) {
    if (i == TOP_DIRECTIVES)
      break;
    omplens_strbuf_puts(m->b, "| ");
    omplens_md__code(m->b, omplens_render__display_path(omplens_render__str(d, "location"), m->base), 1);
    omplens_strbuf_printf(m->b, " | %" PRIu64 " of %zu | %s | %s | %s | %s | ",
                          omplens_render__u64(d, "ranks"), n,
                          omplens_format_ns(omplens_render__u64(d, "total_ns"), t[0]),
                          omplens_format_ns(omplens_render__u64(d, "min_ns"), t[1]),
                          omplens_format_ns(omplens_render__u64(d, "median_ns"), t[2]),
                          omplens_format_ns(omplens_render__u64(d, "max_ns"), t[3]));
    md_per_rank(m->b, json_object_get(d, "per_rank_ns"), 1);
    omplens_strbuf_puts(m->b, " |\n");
  }
}

static void md_rank_findings(md_ctx *m, const json_t *finds, size_t n) {
  if (!json_array_size(finds))
    return;
  omplens_strbuf_puts(m->b, "\n| Finding | Variable | Directive | On ranks | Instances per rank |\n"
                            "|---|---|---|---:|---|\n");
  size_t i;
  const json_t *f;
  json_array_foreach(finds, i, f) {
    const char *var = omplens_render__str(f, "variable");
    omplens_strbuf_printf(m->b, "| %s | ", omplens_render__str(f, "category"));
    omplens_md__code(m->b, var ? var : "(host buffer)", 1);
    omplens_strbuf_puts(m->b, " | ");
    omplens_md__code(m->b, omplens_render__display_path(omplens_render__str(f, "location"), m->base), 1);
    omplens_strbuf_printf(m->b, " | %" PRIu64 " of %zu | ", omplens_render__u64(f, "ranks"), n);
    md_per_rank(m->b, json_object_get(f, "per_rank_count"), 0);
    omplens_strbuf_puts(m->b, " |\n");
  }
}

static void md_rank_outliers(md_ctx *m, const json_t *outliers) {
  size_t i;
  const json_t *o;
  if (!json_array_size(outliers))
    omplens_strbuf_puts(m->b, "\nNo rank stands far from the median.\n");
  char line[256];
  json_array_foreach(outliers, i, o) {
    omplens_strbuf_printf(m->b, "%s- **Rank %" PRIu64 "** stands out: ", i ? "" : "\n",
                          omplens_render__u64(o, "rank"));
    omplens_md__text(m->b, omplens_render__outlier_text(o, line, sizeof line), 0);
    omplens_strbuf_puts(m->b, "\n");
  }
}

/* The merged view of an MPI job's ranks (findings.json's "ranks"). */
static void md_ranks(md_ctx *m, const json_t *r) {
  if (!json_is_object(r))
    return;
  const json_t *procs = omplens_render__array(r, "processes");
  size_t n = json_array_size(procs);
  omplens_strbuf_printf(m->b, "\n## MPI job: %zu ranks merged\n\nRanks at %.1fx or 1/%.1f of the "
                        "median in device time, transfer bytes or findings are named below. "
                        "Each rank's own report follows as a process.\n",
                        n, omplens_render__real(r, "far_ratio"), omplens_render__real(r, "far_ratio"));
  md_rank_table(m, procs);
  md_rank_directives(m, omplens_render__array(r, "directives"), n);
  md_rank_findings(m, omplens_render__array(r, "findings"), n);
  md_rank_outliers(m, omplens_render__array(r, "outliers"));
}

static void md_header(md_ctx *m, const json_t *doc, const omplens_render_options *opt) {
  const json_t *first = json_array_get(omplens_render__array(doc, "processes"), 0);
  const char *title = opt && opt->title ? opt->title : first ? program_name(first) : "no process";
  omplens_strbuf_puts(m->b, "# omplens report: ");
  omplens_md__text(m->b, title, 0);
  omplens_strbuf_puts(m->b, "\n\n");
  const char *version = omplens_render__str(doc, "omplens_version");
  omplens_strbuf_puts(m->b, "Wasted data movement found by omplens ");
  omplens_md__text(m->b, version ? version : "", 0);
  omplens_strbuf_puts(m->b, ". Times are measured; savings are predictions.\n");
  if (!json_array_size(omplens_render__array(doc, "processes")))
    omplens_strbuf_puts(m->b, "\nNo traced process: the program left no trace.\n");
}

int omplens_render_markdown(const json_t *doc, const omplens_render_options *opt, FILE *out) {
  if (!json_is_object(doc) || !out)
    return OMPLENS_REPORT_EINVAL;
  char cwd[4096];
  omplens_strbuf b = {0};
  md_ctx m = {.b = &b, .base = opt && opt->base_dir ? opt->base_dir : getcwd(cwd, sizeof cwd),
              .max_instances = opt && opt->max_instances ? opt->max_instances : 50};
  md_header(&m, doc, opt);
  md_ranks(&m, json_object_get(doc, "ranks"));
  const json_t *procs = omplens_render__array(doc, "processes");
  size_t i;
  const json_t *p;
  json_array_foreach(procs, i, p)
    md_process(&m, p, i, json_array_size(procs));
  int rc = b.failed ? OMPLENS_REPORT_ENOMEM : 0;
  if (!rc && (fwrite(omplens_strbuf_str(&b), 1, b.len, out) != b.len || fflush(out)))
    rc = OMPLENS_REPORT_EIO;
  omplens_strbuf_free(&b);
  return rc;
}
