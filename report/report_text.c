/* Terminal summary: per process, counts per category and the top directives. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render_md_internal.h"
#include "report_internal.h"

/* " (generic-64bit)": the distinct type strings of the devices, in device
 * order; nothing when the trace does not say. */
static void format_device_types(const omplens_trace *t, int num_devices, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int d = 0; d < num_devices && d < OMPLENS_TRACE_TYPED_DEVICES && len < size; d++) {
    const char *type = omplens_trace_device_type(t, d);
    int seen = !type;
    for (int e = 0; e < d && !seen; e++)
      seen = omplens_trace_device_type(t, e) && !strcmp(omplens_trace_device_type(t, e), type);
    if (!seen)
      len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : " (", type);
  }
  if (len && len + 1 < size)
    strcat(buf, ")");
}

/* ", 1 used: device 0": the devices that had a kernel, a transfer or an
 * allocation among the events analysed. */
static void format_used_devices(const omplens_trace *t, int num_devices, char *buf, size_t size) {
  enum { MAX_LISTED = 1024 };
  unsigned char used[MAX_LISTED] = {0};
  size_t len = 0;
  int limit = num_devices < MAX_LISTED ? num_devices : MAX_LISTED;
  int count = omplens_report__devices_used(t, used, limit);
  len = (size_t)snprintf(buf, size, ", %d used%s", count, count ? ": device" : "");
  if (count > 1 && len < size)
    len += (size_t)snprintf(buf + len, size - len, "s");
  for (int d = 0, first = 1; d < limit && len < size; d++)
    if (used[d]) {
      len += (size_t)snprintf(buf + len, size - len, "%s %d", first ? "" : ",", d);
      first = 0;
    }
}

static void print_header(FILE *out, const omplens_trace *t, const omplens_program_total *tot) {
  const omplens_trace_info *i = omplens_trace_get_info(t);
  char a[32], b[32], c[32], types[256], used[256];
  format_device_types(t, i->num_devices, types, sizeof types);
  format_used_devices(t, i->num_devices, used, sizeof used);
  char rank[32] = "";
  if (i->rank >= 0)
    snprintf(rank, sizeof rank, ", rank %d", (int)i->rank);
  fprintf(out, "omplens: %s (pid %d%s), run %s, %d device%s%s%s%s\n",
          i->cmdline[0] ? i->cmdline : i->exe, i->pid, rank, omplens_format_ns(tot->run_ns, a),
          i->num_devices, i->num_devices == 1 ? "" : "s", types, used,
          i->complete ? "" : ", TRACE INCOMPLETE");
  uint64_t begin, end; /* --window: the part of the run these figures describe */
  if (omplens_trace_window(t, &begin, &end)) {
    end = end < i->duration_ns ? end : i->duration_ns;
    fprintf(out, "  window %.3f-%.3f s of %.3f s\n", begin / 1e9, (end > begin ? end : begin) / 1e9,
            i->duration_ns / 1e9);
  }
  size_t np;
  const omplens_trace_pause *pauses = omplens_trace_pauses(t, &np);
  for (size_t k = 0; k < np && k < 3; k++)
    fprintf(out, "  the program paused omplens from %s to %s (%s): not analysed\n",
            omplens_format_ns(pauses[k].begin_ns, a), omplens_format_ns(pauses[k].end_ns, b),
            omplens_format_ns(pauses[k].end_ns - pauses[k].begin_ns, c));
  if (np > 3)
    fprintf(out, "  ... and %zu more pauses (%s in all)\n", np - 3,
            omplens_format_ns(omplens_trace_paused_ns(t, 0, UINT64_MAX), a));
  fprintf(out, "  transfers %" PRIu64 " (%s, %s)", tot->num_transfers,
          omplens_format_bytes(tot->transfer_bytes, a), omplens_format_ns(tot->transfer_ns, b));
  fprintf(out, "   allocations %" PRIu64 " (%s)   kernels %" PRIu64 " (%s)\n", tot->num_allocs,
          omplens_format_ns(tot->alloc_ns, c), tot->num_kernels, omplens_format_ns(tot->kernel_ns, a));
  uint64_t sync_waits = tot->num_waits - tot->num_deferred_waits;
  if (tot->num_waits)
    fprintf(out, "  host waits %s in %" PRIu64 " synchronous construct%s",
            omplens_format_ns(tot->wait_ns, a), sync_waits, sync_waits == 1 ? "" : "s");
  if (tot->num_deferred_waits)
    fprintf(out, " and %" PRIu64 " waits for nowait ones (%s)", tot->num_deferred_waits,
            omplens_format_ns(tot->deferred_wait_ns, b));
  if (tot->num_waits)
    fputc('\n', out);
  if (i->dropped)
    fprintf(out, "  warning: %" PRIu64 " events were not recorded\n", i->dropped);
}

static void print_damage(FILE *out, const char *damage) {
  while (damage && *damage) {
    const char *nl = strchr(damage, '\n');
    int n = nl ? (int)(nl - damage) : (int)strlen(damage);
    fprintf(out, "  note: %.*s\n", n, damage);
    damage += nl ? n + 1 : n;
  }
}

/* The same figures as the pages (omplens_report__figures). */
static void print_categories(FILE *out, const omplens_program_total *tot,
                             const omplens_report_figures *g) {
  char a[32], b[32];
  fprintf(out, "\n  %-24s %10s %12s\n", "category", "instances", "bytes");
  for (int c = 0; c < OMPLENS_CAT_COUNT; c++)
    fprintf(out, "  %-24s %10" PRIu32 " %12s\n", omplens_category_name(c), tot->count[c],
            omplens_format_bytes(tot->bytes[c], a));
  fprintf(out, "  %-24s %10" PRIu64 " %12s\n", OMPLENS_REPORT_UNREFERENCED, g->unreferenced_count,
          omplens_format_bytes(g->unreferenced_bytes, a));
  fprintf(out, "\n  predicted savings %s of %s: ", omplens_format_ns(g->predicted_savings_ns, a),
          omplens_format_ns(tot->run_ns, b));
  if (g->predicted_speedup > 0)
    fprintf(out, "speedup %.2fx\n", g->predicted_speedup);
  else /* savings reach the run time: work overlapped across threads or devices */
    fprintf(out, "speedup n/a (overlapping work)\n");
}

/* "duplicate 9, round-trip 3" for the categories a directive has. */
static void format_counts(const omplens_directive_total *d, char *buf, size_t size) {
  static const char *const abbrev[OMPLENS_CAT_COUNT] = {
      [OMPLENS_CAT_DUPLICATE_SAME_BUFFER] = "duplicate",
      [OMPLENS_CAT_DUPLICATE_OTHER_BUFFER] = "dup-content",
      [OMPLENS_CAT_ROUND_TRIP] = "round-trip",
      [OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER] = "trip-other",
      [OMPLENS_CAT_REINIT] = "reinit",
      [OMPLENS_CAT_REPEATED_ALLOC] = "realloc",
      [OMPLENS_CAT_UNUSED_ALLOC] = "unused-alloc",
      [OMPLENS_CAT_UNUSED_TRANSFER] = "unused-xfer",
  };
  size_t len = 0;
  buf[0] = 0;
  for (int c = 0; c < OMPLENS_CAT_COUNT && len < size; c++)
    if (d->count[c])
      len += (size_t)snprintf(buf + len, size - len, "%s%s %" PRIu32, len ? ", " : "", abbrev[c],
                              d->count[c]);
}

static void print_directives(FILE *out, const omplens_report_input *in, size_t p, size_t top) {
  size_t n;
  const omplens_directive_total *d = omplens_analysis_directives(in->procs[p].analysis, &n);
  if (!n) {
    fprintf(out, "\n  no wasted data movement found\n");
    return;
  }
  bool setup = false; /* listed after the rest, whatever they save */
  for (size_t i = 0; i < n && i < top; i++)
    setup |= d[i].setup;
  fprintf(out, "\n  top directives by predicted savings%s\n",
          setup ? " (the program's set-up last)" : "");
  for (size_t i = 0; i < n && i < top; i++) {
    char loc[4096], counts[256], s[32];
    omplens_format_location(in, p, d[i].codeptr, loc, sizeof loc);
    format_counts(&d[i], counts, sizeof counts);
    fprintf(out, "  %2zu. %-40s saves %-9s (%s)%s\n", i + 1, loc, omplens_format_ns(d[i].savings_ns, s),
            counts, d[i].setup ? " set-up" : "");
  }
  if (n > top)
    fprintf(out, "  ... and %zu more directives (see findings.json)\n", n - top);
}

/* The mappings no exit data or free ended, the first few by item and
 * directive. */
static void print_leftovers(FILE *out, const omplens_report_input *in, size_t p) {
  size_t n;
  const omplens_leftover *l = omplens_analysis_leftovers(in->procs[p].analysis, &n);
  if (!n)
    return;
  fprintf(out, "\n  note: %zu mapping%s still present when the program ended:\n", n,
          n == 1 ? " was" : "s were");
  size_t kept = 0; /* the runtime's copies of pointers */
  for (size_t i = 0; i < n; i++) {
    char loc[4096], what[512], bytes[32];
    omplens_variable v;
    bool named = omplens_report__leftover_variable(in, p, &l[i], &v);
    kept += !named && v.pointer_storage;
    if (i >= OMPLENS_REPORT__LEFTOVERS_SHOWN)
      continue;
    if (v.pointer)
      snprintf(what, sizeof what, "the device's copy of the pointer %s", v.pointer);
    else
      snprintf(what, sizeof what, "buffer 0x%" PRIx64, l[i].host_addr);
    omplens_format_location(in, p, l[i].codeptr, loc, sizeof loc);
    fprintf(out, "    %s (%s) on device %d, mapped at %s\n", named ? v.item : what,
            omplens_format_bytes(l[i].bytes, bytes), l[i].device, loc);
  }
  if (n > OMPLENS_REPORT__LEFTOVERS_SHOWN)
    fprintf(out, "    ... and %zu more (see findings.json, mappings_at_exit)\n",
            n - OMPLENS_REPORT__LEFTOVERS_SHOWN);
  size_t ended = 0; /* by a change of fixes.patch */
  const omplens_fix *fx;
  for (size_t i = 0; in->procs[p].fixer && i < n; i++)
    ended += !omplens_fix_for_leftover(in->procs[p].fixer, i, &fx) && fx->diff;
  if (kept == 1)
    fprintf(out, "    %s the device's copy of a pointer that a section goes through, which the "
            "runtime keeps: nothing to change\n", n == 1 ? "it is" : "one of them is");
  else if (kept == 2 && n == 2)
    fprintf(out, "    both are the device's copies of pointers that sections go through, which the "
            "runtime keeps: nothing to change\n");
  else if (kept)
    fprintf(out, "    %s%zu of them are the device's copies of pointers that sections go through, "
            "which the runtime keeps: nothing to change\n", kept == n ? "all " : "", kept);
  if (ended == 1 && n == 1)
    fprintf(out, "    fixes.patch deletes it before the host frees it\n");
  else if (ended)
    fprintf(out, "    fixes.patch deletes %s%zu of them before the host frees %s\n",
            ended == n ? "all " : "", ended, ended == 1 ? "it" : "them");
}

/* "3 3 3 7": a per-rank array of the merged view, cut after 16 ranks. */
static void format_per_rank(const json_t *arr, char *buf, size_t size) {
  size_t len = 0, n = json_array_size(arr);
  buf[0] = 0;
  for (size_t i = 0; i < n && i < 16 && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%" JSON_INTEGER_FORMAT, i ? " " : "",
                            json_integer_value(json_array_get(arr, i)));
  if (n > 16 && len < size)
    snprintf(buf + len, size - len, " ...");
}

static void print_rank_devices(FILE *out, const json_t *procs) {
  fputs("  devices:", out);
  for (size_t r = 0; r < json_array_size(procs); r++) {
    const json_t *p = json_array_get(procs, r), *used = json_object_get(p, "devices_used");
    fprintf(out, "%s rank %" JSON_INTEGER_FORMAT " ->", r ? "," : "",
            omplens_report__int_at(p, "rank"));
    for (size_t d = 0; d < json_array_size(used); d++)
      fprintf(out, "%s%" JSON_INTEGER_FORMAT, d ? "+" : " ", json_integer_value(json_array_get(used, d)));
    if (!json_array_size(used))
      fputs(" none", out);
  }
  fputc('\n', out);
}

static void print_rank_outliers(FILE *out, const json_t *outliers) {
  char line[256];
  if (!json_array_size(outliers))
    fputs("\n  no rank stands far from the median\n", out);
  for (size_t i = 0; i < json_array_size(outliers); i++) {
    const json_t *o = json_array_get(outliers, i);
    fprintf(out, "%s  rank %" JSON_INTEGER_FORMAT " stands out: %s\n", i ? "" : "\n",
            omplens_report__int_at(o, "rank"), omplens_render__outlier_text(o, line, sizeof line));
  }
}

/* The merged view of a job's ranks, after the processes. */
static void print_ranks(FILE *out, const json_t *r, size_t top) {
  const json_t *procs = json_object_get(r, "processes"), *dirs = json_object_get(r, "directives"),
               *finds = json_object_get(r, "findings");
  size_t n = json_array_size(procs);
  char a[32], b[32], c[32], d[32], per[256];
  fprintf(out, "\nomplens: MPI job, %zu ranks", n);
  if (json_is_integer(json_object_get(r, "job_size")))
    fprintf(out, " of %" JSON_INTEGER_FORMAT, omplens_report__int_at(r, "job_size"));
  fputs(" merged\n", out);
  print_rank_devices(out, procs);
  fprintf(out, "\n  %-40s %5s %9s %9s %9s %9s\n", "directive (device time)", "ranks", "total",
          "min", "median", "max");
  for (size_t i = 0; i < json_array_size(dirs) && i < top; i++) {
    const json_t *o = json_array_get(dirs, i);
    fprintf(out, "  %-40s %2" JSON_INTEGER_FORMAT "/%-2zu %9s %9s %9s %9s\n",
            omplens_report__str_at(o, "location"), omplens_report__int_at(o, "ranks"), n,
            omplens_format_ns((uint64_t)omplens_report__int_at(o, "total_ns"), a),
            omplens_format_ns((uint64_t)omplens_report__int_at(o, "min_ns"), b),
            omplens_format_ns((uint64_t)omplens_report__int_at(o, "median_ns"), c),
            omplens_format_ns((uint64_t)omplens_report__int_at(o, "max_ns"), d));
  }
  if (json_array_size(finds))
    fputs("\n  findings (instances per rank)\n", out);
  for (size_t i = 0; i < json_array_size(finds) && i < top; i++) {
    const json_t *o = json_array_get(finds, i);
    const char *var = omplens_report__str_at(o, "variable");
    format_per_rank(json_object_get(o, "per_rank_count"), per, sizeof per);
    fprintf(out, "  %2zu. %s %s%s at %s: on %" JSON_INTEGER_FORMAT " of %zu ranks (%s)\n", i + 1,
            omplens_report__str_at(o, "category"), var ? var : "", var ? "" : "(buffer)",
            omplens_report__str_at(o, "location"), omplens_report__int_at(o, "ranks"), n, per);
  }
  print_rank_outliers(out, json_object_get(r, "outliers"));
}

int omplens_report__print_process_text(const omplens_report_input *in, size_t p, FILE *out,
                                       size_t top) {
  const omplens_program_total *tot = omplens_analysis_total(in->procs[p].analysis);
  if (!tot)
    return OMPLENS_REPORT_EINVAL;
  print_header(out, in->procs[p].trace, tot);
  print_damage(out, omplens_trace_damage(in->procs[p].trace));
  omplens_report_figures scratch;
  print_categories(out, tot, omplens_report__figures(in, p, &scratch));
  print_directives(out, in, p, top);
  print_leftovers(out, in, p);
  return 0;
}

void omplens_report__print_ranks_text(FILE *out, const json_t *ranks, size_t top) {
  if (ranks)
    print_ranks(out, ranks, top);
}

int omplens_report_print_text(const omplens_report_input *in, FILE *out, size_t top) {
  if (!in || !out)
    return OMPLENS_REPORT_EINVAL;
  for (size_t p = 0; p < in->num_procs; p++) {
    if (!omplens_analysis_total(in->procs[p].analysis))
      return OMPLENS_REPORT_EINVAL;
    if (p)
      fputc('\n', out);
    omplens_report__print_process_text(in, p, out, top);
  }
  json_t *ranks = omplens_report__ranks(in);
  omplens_report__print_ranks_text(out, ranks, top);
  json_decref(ranks);
  return ferror(out) ? OMPLENS_REPORT_EIO : 0;
}
