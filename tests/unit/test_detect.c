/* Unit tests of the detectors (detect/): hand-built event sequences, each
 * pattern next to its clean twin. Definitions: docs/detectors.md. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "progress_heard.h"
#include "detect_internal.h"
#include "omplens_detect.h"

/* Durations make every saving easy to add up by hand. */
enum { T_ALLOC = 10, T_DELETE = 3, T_H2D = 100, T_D2H = 200, T_KERNEL = 1000 };

/* Code addresses of directives. */
enum { CP_TARGET = 0x1000, CP_ENTER = 0x2000, CP_EXIT = 0x3000,
       CP_UPDATE = 0x4000, CP_OTHER = 0x5000 };

/* ---- Building event sequences ----------------------------------------- */

typedef struct seq {
  omplens_event *ev;
  size_t n, cap;
  uint64_t now;     /* next begin time */
  uint32_t region;  /* region of the events being added */
  uint64_t codeptr; /* directive of the events being added */
} seq;

static void seq_init(seq *s) {
  memset(s, 0, sizeof *s);
  s->now = 1;
  s->codeptr = CP_TARGET;
}

static void seq_free(seq *s) { free(s->ev); }

/* Starts a new construct instance at codeptr. */
static void directive(seq *s, uint64_t codeptr) {
  s->codeptr = codeptr;
  s->region++;
}

static uint32_t add(seq *s, int kind, int dev, uint64_t host, uint64_t daddr,
                    uint64_t bytes, uint64_t hash, uint64_t dur) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->ev = realloc(s->ev, s->cap * sizeof *s->ev);
    assert_non_null(s->ev);
  }
  omplens_event *e = &s->ev[s->n];
  memset(e, 0, sizeof *e);
  e->begin_ns = s->now;
  e->end_ns = s->now + dur;
  e->host_addr = host;
  e->dev_addr = daddr;
  e->bytes = bytes;
  e->hash = hash;
  e->site = (uint32_t)s->codeptr; /* no sites table: a site is its codeptr */
  e->region = s->region;
  e->device = (int16_t)dev;
  e->peer_device = OMPLENS_HOST;
  e->kind = (uint8_t)kind;
  e->flags = hash ? OMPLENS_EVF_HASHED : 0;
  s->now = e->end_ns + 1;
  return (uint32_t)s->n++;
}

static uint32_t alloc(seq *s, int dev, uint64_t host, uint64_t daddr,
                      uint64_t bytes) {
  return add(s, OMPLENS_EV_ALLOC, dev, host, daddr, bytes, 0, T_ALLOC);
}
/* The runtime gives only the device pointer of a delete. */
static uint32_t del(seq *s, int dev, uint64_t daddr) {
  return add(s, OMPLENS_EV_DELETE, dev, 0, daddr, 0, 0, T_DELETE);
}
static uint32_t h2d(seq *s, int dev, uint64_t host, uint64_t daddr,
                    uint64_t bytes, uint64_t hash) {
  return add(s, OMPLENS_EV_H2D, dev, host, daddr, bytes, hash, T_H2D);
}
static uint32_t d2h(seq *s, int dev, uint64_t host, uint64_t daddr,
                    uint64_t bytes, uint64_t hash) {
  return add(s, OMPLENS_EV_D2H, dev, host, daddr, bytes, hash, T_D2H);
}
static uint32_t kernel(seq *s, int dev) {
  return add(s, OMPLENS_EV_KERNEL, dev, 0, 0, 64, 0, T_KERNEL);
}

/* One `target map(to:a[0:n]) map(tofrom:b[0:n])` on device dev. */
static void target_to_tofrom(seq *s, int dev, uint64_t a, uint64_t ha,
                             uint64_t b, uint64_t hb_in, uint64_t hb_out) {
  directive(s, CP_TARGET);
  alloc(s, dev, a, a + 0x100000, 800);
  h2d(s, dev, a, a + 0x100000, 800, ha);
  alloc(s, dev, b, b + 0x100000, 800);
  h2d(s, dev, b, b + 0x100000, 800, hb_in);
  kernel(s, dev);
  d2h(s, dev, b, b + 0x100000, 800, hb_out);
  del(s, dev, a + 0x100000);
  del(s, dev, b + 0x100000);
}

/* ---- Querying an analysis --------------------------------------------- */

static omplens_analysis *run_with(const seq *s, uint64_t run_ns) {
  omplens_detect_params p = {.run_ns = run_ns};
  omplens_analysis *a = NULL;
  int rc = omplens_detect_run(s->ev, s->n, &p, &a);
  assert_int_equal(rc, OMPLENS_DETECT_OK);
  assert_non_null(a);
  return a;
}

static omplens_analysis *run(const seq *s) { return run_with(s, 1000000); }

static size_t num_findings(const omplens_analysis *a) {
  size_t n;
  omplens_analysis_findings(a, &n);
  return n;
}

/* Instances of a category, summed over its findings. */
static size_t count_of(const omplens_analysis *a, int category) {
  size_t n, total = 0;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  for (size_t i = 0; i < n; i++)
    if (f[i].category == category)
      total += f[i].num_instances;
  return total;
}

static size_t findings_of(const omplens_analysis *a, int category) {
  size_t n, total = 0;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  for (size_t i = 0; i < n; i++)
    total += f[i].category == category;
  return total;
}

/* The k-th finding of a category, in report order. */
static const omplens_finding *finding(const omplens_analysis *a, int category,
                                      size_t k) {
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  for (size_t i = 0; i < n; i++)
    if (f[i].category == category && k-- == 0)
      return &f[i];
  fail_msg("no finding %zu of category %s", k,
           omplens_category_name(category));
  return NULL;
}

/* Is event an instance of category (and with which related)? */
static int instance_of(const omplens_analysis *a, int category, uint32_t event,
                       uint32_t *related) {
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  for (size_t i = 0; i < n; i++) {
    if (f[i].category != category)
      continue;
    for (size_t j = 0; j < f[i].num_instances; j++) {
      if (f[i].instances[j].event != event)
        continue;
      if (related)
        *related = f[i].instances[j].related;
      return 1;
    }
  }
  return 0;
}

/* Totals must agree with the findings whatever the scenario. */
/* The directive profiles: every operation in one, by time, adding up to the
 * program's totals; those with findings agree with their totals. */
static void check_profiles(const omplens_analysis *a) {
  size_t np, nd, with_findings = 0;
  const omplens_directive_profile *pr = omplens_analysis_profiles(a, &np);
  const omplens_directive_total *d = omplens_analysis_directives(a, &nd);
  const omplens_program_total *p = omplens_analysis_total(a);
  uint64_t kernels = 0, kernel_ns = 0, transfers = 0, transfer_ns = 0, transfer_bytes = 0;
  uint64_t allocs = 0, frees = 0, alloc_ns = 0, free_ns = 0;
  for (size_t i = 0; i < np; i++) {
    const omplens_directive_profile *x = &pr[i];
    if (i > 0)
      assert_true(pr[i - 1].total_ns > x->total_ns ||
                  (pr[i - 1].total_ns == x->total_ns && pr[i - 1].codeptr < x->codeptr));
    assert_int_equal(x->total_ns, x->kernels.ns + x->h2d.ns + x->d2h.ns + x->d2d.ns +
                                      x->allocs.ns + x->frees.ns);
    kernels += x->kernels.count;
    kernel_ns += x->kernels.ns;
    transfers += x->h2d.count + x->d2h.count + x->d2d.count;
    transfer_ns += x->h2d.ns + x->d2h.ns + x->d2d.ns;
    transfer_bytes += x->h2d.bytes + x->d2h.bytes + x->d2d.bytes;
    allocs += x->allocs.count;
    alloc_ns += x->allocs.ns + x->frees.ns;
    frees += x->frees.count;
    free_ns += x->frees.ns;
    size_t k = 0;
    while (k < nd && d[k].codeptr != x->codeptr)
      k++;
    assert_int_equal(x->has_findings, k < nd);
    if (k == nd)
      continue;
    with_findings++;
    assert_int_equal(d[k].executions, x->executions);
    assert_int_equal(d[k].transfer_ns, x->h2d.ns + x->d2h.ns + x->d2d.ns);
    assert_int_equal(d[k].transfer_bytes, x->h2d.bytes + x->d2h.bytes + x->d2d.bytes);
  }
  assert_int_equal(with_findings, nd);
  assert_int_equal(kernels, p->num_kernels);
  assert_int_equal(kernel_ns, p->kernel_ns);
  assert_int_equal(transfers, p->num_transfers);
  assert_int_equal(transfer_ns, p->transfer_ns);
  assert_int_equal(transfer_bytes, p->transfer_bytes);
  assert_int_equal(allocs, p->num_allocs);
  assert_int_equal(alloc_ns, p->alloc_ns);
  assert_int_equal(frees, p->num_frees);
  assert_int_equal(free_ns, p->free_ns);
}

static void check_consistency(const omplens_analysis *a) {
  size_t n, nd;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  const omplens_directive_total *d = omplens_analysis_directives(a, &nd);
  const omplens_program_total *p = omplens_analysis_total(a);
  uint32_t count[OMPLENS_CAT_COUNT] = {0};
  uint64_t dir_savings = 0, max_finding = 0, finding_savings = 0;
  uint64_t wasted_ops = 0, wasted_transfer_bytes = 0;
  for (size_t i = 0; i < n; i++) {
    count[f[i].category] += (uint32_t)f[i].num_instances;
    finding_savings += f[i].savings_ns;
    wasted_ops += f[i].num_instances;
    if (!omplens_detect__is_alloc_category(f[i].category))
      wasted_transfer_bytes += f[i].total_bytes;
    if (i > 0) /* set-up findings last, each part by savings */
      assert_true(f[i - 1].setup < f[i].setup ||
                  (f[i - 1].setup == f[i].setup && f[i - 1].savings_ns >= f[i].savings_ns));
    for (size_t j = 1; j < f[i].num_instances; j++)
      assert_true(f[i].instances[j - 1].event < f[i].instances[j].event);
    if (f[i].savings_ns > max_finding)
      max_finding = f[i].savings_ns;
  }
  for (int c = 0; c < OMPLENS_CAT_COUNT; c++)
    assert_int_equal(count[c], p->count[c]);
  for (size_t i = 0; i < nd; i++) {
    dir_savings += d[i].savings_ns;
    if (i > 0)
      assert_true(d[i - 1].setup < d[i].setup ||
                  (d[i - 1].setup == d[i].setup && d[i - 1].savings_ns >= d[i].savings_ns));
  }
  assert_int_equal(dir_savings, p->savings_ns);
  assert_true(p->savings_ns >= max_finding);
  /* One category per operation: the numbers add up. */
  assert_int_equal(finding_savings, p->savings_ns);
  assert_true(wasted_ops <= p->num_transfers + p->num_allocs);
  assert_true(wasted_transfer_bytes <= p->transfer_bytes);
  check_profiles(a);
}

/* ---- API edges ---------------------------------------------------------- */

static void test_empty_input(void **state) {
  (void)state;
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(NULL, 0, NULL, &a), OMPLENS_DETECT_OK);
  assert_non_null(a);
  assert_int_equal(num_findings(a), 0);
  size_t n = 99;
  omplens_analysis_directives(a, &n);
  assert_int_equal(n, 0);
  omplens_analysis_leftovers(a, &n);
  assert_int_equal(n, 0);
  const omplens_program_total *p = omplens_analysis_total(a);
  assert_int_equal(p->run_ns, 0);
  assert_int_equal(p->savings_ns, 0);
  assert_int_equal(p->num_transfers, 0);
  assert_true(p->speedup == 1.0);
  omplens_analysis_free(a);
}

static void test_null_analysis(void **state) {
  (void)state;
  size_t n = 7;
  assert_null(omplens_analysis_findings(NULL, &n));
  assert_int_equal(n, 0);
  n = 7;
  assert_null(omplens_analysis_directives(NULL, &n));
  assert_int_equal(n, 0);
  n = 7;
  assert_null(omplens_analysis_leftovers(NULL, &n));
  assert_int_equal(n, 0);
  assert_null(omplens_analysis_total(NULL));
  assert_null(omplens_analysis_findings(NULL, NULL));
  omplens_analysis_free(NULL);
}

static void test_invalid_arguments(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  kernel(&s, 0);
  kernel(&s, 0);
  omplens_analysis *a = (omplens_analysis *)&s; /* must be reset to NULL */
  assert_int_equal(omplens_detect_run(s.ev, s.n, NULL, NULL),
                   OMPLENS_DETECT_EINVAL);
  assert_int_equal(omplens_detect_run(NULL, 3, NULL, &a), OMPLENS_DETECT_EINVAL);
  assert_null(a);
  s.ev[1].begin_ns = 0; /* not sorted by begin time */
  a = (omplens_analysis *)&s;
  assert_int_equal(omplens_detect_run(s.ev, s.n, NULL, &a),
                   OMPLENS_DETECT_EINVAL);
  assert_null(a);
  seq_free(&s);
}

static void test_names(void **state) {
  (void)state;
  /* The names are the findings.json vocabulary. */
  static const char *const names[OMPLENS_CAT_COUNT] = {
      "duplicate-transfer", "duplicate-content", "round-trip",
      "round-trip-other-buffer", "reinitialization", "repeated-alloc",
      "unused-alloc", "unused-transfer"};
  for (int c = 0; c < OMPLENS_CAT_COUNT; c++)
    assert_string_equal(omplens_category_name(c), names[c]);
  assert_string_equal(omplens_category_title(OMPLENS_CAT_UNUSED_ALLOC),
                      "Unused allocation");
  assert_string_equal(omplens_category_title(OMPLENS_CAT_REINIT),
                      "Re-initialization");
  assert_string_equal(omplens_category_name(-1), "unknown");
  assert_string_equal(omplens_category_name(OMPLENS_CAT_COUNT), "unknown");
  for (int c = 0; c < OMPLENS_CAT_COUNT; c++) {
    assert_non_null(omplens_category_name(c));
    assert_non_null(omplens_category_title(c));
  }
  assert_string_equal(omplens_detect_strerror(OMPLENS_DETECT_ENOMEM),
                      "out of memory");
  assert_non_null(omplens_detect_strerror(OMPLENS_DETECT_EINVAL));
  assert_non_null(omplens_detect_strerror(-1000));
}

/* ---- A clean target region --------------------------------------------- */

/* With the trace's sites table, findings, directive totals and leftovers
 * name the table's code addresses, and a site past the table is 0. */
static void test_sites_table(void **state) {
  (void)state;
  static const uint64_t sites[] = {0, 0x7f0000401000, 0x7f0000402000};
  seq s;
  seq_init(&s);
  directive(&s, 1);
  alloc(&s, 0, 0xa000, 0xd000, 800);
  h2d(&s, 0, 0xa000, 0xd000, 800, 77);
  kernel(&s, 0);
  directive(&s, 2);
  h2d(&s, 0, 0xa000, 0xd000, 800, 77); /* duplicate, at site 2 */
  kernel(&s, 0);
  directive(&s, 9); /* past the table */
  h2d(&s, 0, 0xa000, 0xd000, 800, 77);
  kernel(&s, 0);
  omplens_detect_params p = {.run_ns = 1000000, .sites = sites, .num_sites = 3};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(s.ev, s.n, &p, &a), OMPLENS_DETECT_OK);
  size_t n, nd, nl;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  const omplens_directive_total *d = omplens_analysis_directives(a, &nd);
  const omplens_leftover *l = omplens_analysis_leftovers(a, &nl);
  int seen_site2 = 0, seen_unknown = 0;
  for (size_t i = 0; i < n; i++) {
    if (f[i].category != OMPLENS_CAT_DUPLICATE_SAME_BUFFER)
      continue;
    seen_site2 += f[i].codeptr == sites[2];
    seen_unknown += f[i].codeptr == 0;
  }
  assert_int_equal(seen_site2, 1);
  assert_int_equal(seen_unknown, 1);
  for (size_t i = 0; i < nd; i++)
    assert_true(d[i].codeptr == sites[2] || d[i].codeptr == 0);
  assert_int_equal(nl, 1); /* never deleted: a leftover of site 1 */
  assert_int_equal(l[0].codeptr, sites[1]);
  omplens_analysis_free(a);
  seq_free(&s);
}

static void test_single_target_is_clean(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  target_to_tofrom(&s, 0, 0xa000, 11, 0xb000, 21, 22);
  omplens_analysis *a = run(&s);
  assert_int_equal(num_findings(a), 0);
  size_t n;
  omplens_analysis_directives(a, &n);
  assert_int_equal(n, 0);
  omplens_analysis_leftovers(a, &n);
  assert_int_equal(n, 0);
  const omplens_program_total *p = omplens_analysis_total(a);
  assert_int_equal(p->num_transfers, 3);
  assert_int_equal(p->transfer_bytes, 2400);
  assert_int_equal(p->transfer_ns, 2 * T_H2D + T_D2H);
  assert_int_equal(p->num_allocs, 2);
  /* What fixing an allocation saves includes its free. */
  assert_int_equal(p->alloc_ns, 2 * T_ALLOC + 2 * T_DELETE);
  assert_int_equal(p->num_frees, 2);
  assert_int_equal(p->free_ns, 2 * T_DELETE);
  assert_int_equal(p->num_kernels, 1);
  assert_int_equal(p->kernel_ns, T_KERNEL);
  assert_true(p->speedup == 1.0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* ---- Duplicates ---------------------------------------------------------- */

/* A loop re-mapping an unchanged input: keep it resident. */
static void test_duplicate_same_buffer(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  uint32_t first = (uint32_t)s.n + 1; /* the first H2D of a */
  for (int it = 0; it < 3; it++)
    target_to_tofrom(&s, 0, 0xa000, 11, 0xb000, 100 + it, 101 + it + 1000);
  omplens_analysis *a = run(&s);
  assert_int_equal(findings_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 1);
  const omplens_finding *f = finding(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, 0);
  assert_int_equal(f->num_instances, 2);
  assert_int_equal(f->device, 0);
  assert_int_equal(f->codeptr, CP_TARGET);
  assert_int_equal(f->host_addr, 0xa000);
  assert_int_equal(f->bytes, 800);
  assert_int_equal(f->instances[0].event, first + 8);
  assert_int_equal(f->instances[1].event, first + 16);
  assert_int_equal(f->instances[0].related, first);
  assert_int_equal(f->instances[1].related, first);
  assert_int_equal(f->total_bytes, 1600);
  assert_int_equal(f->total_ns, 2 * T_H2D);
  assert_int_equal(f->savings_ns, 2 * T_H2D);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 0);
  /* b changes on the device and comes back changed each time. */
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 0);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* The fix: `target enter data` once, then kernels use the resident copy. */
static void test_resident_data_is_clean(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  alloc(&s, 0, 0xa000, 0xd000, 800);
  h2d(&s, 0, 0xa000, 0xd000, 800, 11);
  for (int it = 0; it < 3; it++) {
    directive(&s, CP_TARGET);
    kernel(&s, 0);
  }
  directive(&s, CP_EXIT);
  del(&s, 0, 0xd000);
  omplens_analysis *a = run(&s);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Zero-filled arrays: identical content from distinct host buffers. */
static void test_duplicate_other_buffer(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  uint32_t x = h2d(&s, 0, 0xa000, 0xd000, 800, 77);
  uint32_t y = h2d(&s, 0, 0xb000, 0xe000, 800, 77);
  uint32_t z = h2d(&s, 0, 0xc000, 0xf000, 800, 77);
  h2d(&s, 0, 0x9000, 0x8000, 400, 77); /* other size: other content */
  h2d(&s, 0, 0x7000, 0x6000, 800, 78); /* other content */
  directive(&s, CP_UPDATE);
  uint32_t again = h2d(&s, 0, 0xa000, 0xd000, 800, 77);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 2);
  assert_int_equal(findings_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 2);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, y, &rel));
  assert_int_equal(rel, x);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, z, &rel));
  assert_int_equal(rel, x);
  /* Back to the first buffer: that is the same-buffer kind. */
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 1);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, again, &rel));
  assert_int_equal(rel, x);
  assert_int_equal(finding(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, 0)->codeptr,
                   CP_UPDATE);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Unhashed transfers take no part: their content is unknown. */
static void test_unhashed_is_not_duplicate(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  h2d(&s, 0, 0xa000, 0xd000, 800, 0);
  h2d(&s, 0, 0xa000, 0xd000, 800, 0);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 0);
  /* ...but the first is still overwritten before the kernel. */
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 1);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Each device needs its own copy: the same buffer to two devices is fine. */
static void test_devices_interleaved(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  uint32_t to0 = h2d(&s, 0, 0xa000, 0xd000, 800, 11);
  uint32_t to1 = h2d(&s, 1, 0xa000, 0xd000, 800, 11);
  kernel(&s, 0);
  kernel(&s, 1);
  omplens_analysis *a = run(&s);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);

  directive(&s, CP_UPDATE);
  uint32_t again1 = h2d(&s, 1, 0xa000, 0xd000, 800, 11);
  kernel(&s, 1);
  a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(num_findings(a), 1);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, again1, &rel));
  assert_int_equal(rel, to1);
  assert_int_not_equal(rel, to0);
  assert_int_equal(finding(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, 0)->device, 1);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* The host receiving the same result twice is a duplicate on the host. */
static void test_d2h_duplicates_on_host(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_UPDATE);
  kernel(&s, 0);
  uint32_t first = d2h(&s, 0, 0xb000, 0xd000, 800, 55);
  uint32_t same = d2h(&s, 0, 0xb000, 0xd000, 800, 55);
  kernel(&s, 1);
  uint32_t other = d2h(&s, 1, 0xc000, 0xe000, 800, 55); /* another device */
  d2h(&s, 1, 0xc000, 0xe000, 800, 56);
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 1);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, same, &rel));
  assert_int_equal(rel, first);
  assert_int_equal(finding(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, 0)->device,
                   OMPLENS_HOST);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 1);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, other, &rel));
  assert_int_equal(rel, first);
  assert_int_equal(finding(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, 0)->device,
                   OMPLENS_HOST);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 0);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* The device computes newg; the host copies it into oldg and sends oldg
 * back: the device's own result returns through another buffer. */
static void test_round_trip_other_buffer(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  kernel(&s, 0);
  uint32_t out = d2h(&s, 0, 0xb000, 0xd000, 800, 55);
  uint32_t back = h2d(&s, 0, 0xc000, 0xe000, 800, 55);
  kernel(&s, 0);
  uint32_t again = h2d(&s, 0, 0xf000, 0xa000, 800, 55);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(num_findings(a), 2);
  assert_true(instance_of(a, OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER, back, &rel));
  assert_int_equal(rel, out);
  /* One trip per returned copy: after it, a duplicate. */
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, again, &rel));
  assert_int_equal(rel, out);
  check_consistency(a);
  omplens_analysis_free(a);

  /* Twin: the host changes the data before sending it (or the device keeps
   * its result and swaps pointers, which moves nothing). */
  s.ev[back].hash = 56;
  s.ev[again].hash = 57;
  a = run(&s);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);

  /* Zeros: the device sent zeros, the host sends a zero-filled array of its
   * own. That is content the device holds, not its result coming back. */
  uint64_t zeros = omplens_content_hash_of_zeros(800);
  s.ev[out].hash = s.ev[back].hash = s.ev[again].hash = zeros;
  a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 2);
  omplens_analysis_free(a);

  /* One value: a counter the device returned and a constant the host sets
   * in another variable are equal by chance, neither a trip nor a
   * duplicate. */
  seq_free(&s);
  seq_init(&s);
  kernel(&s, 0);
  d2h(&s, 0, 0xb000, 0xd000, 4, 55);
  back = h2d(&s, 0, 0xc000, 0xe000, 4, 55);
  kernel(&s, 0);
  a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Several buffers start as zeros: each is its own production, so a buffer
 * that comes back unchanged is a round trip whatever the map order. */
static void test_round_trip_among_equal_buffers(void **state) {
  (void)state;
  for (int order = 0; order < 2; order++) {
    seq s;
    seq_init(&s);
    uint64_t first = order ? 0xc000 : 0xa000, last = order ? 0xa000 : 0xc000;
    h2d(&s, 0, first, first + 0x100000, 800, 77);
    h2d(&s, 0, 0xb000, 0xb000 + 0x100000, 800, 77);
    h2d(&s, 0, last, last + 0x100000, 800, 77);
    kernel(&s, 0);
    uint32_t back = d2h(&s, 0, 0xa000, 0xa000 + 0x100000, 800, 77);
    omplens_analysis *a = run(&s);
    assert_true(instance_of(a, OMPLENS_CAT_ROUND_TRIP, back, NULL));
    assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 2);
    check_consistency(a);
    omplens_analysis_free(a);
    seq_free(&s);
  }
}

/* A kernel copies x into w, mapped from: the host receives into w what it
 * holds in x. That is a duplicate on the host, not a trip: only a device
 * takes its own result back through another buffer. */
static void test_host_receives_what_it_holds_elsewhere(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  uint32_t x = h2d(&s, 0, 0xa000, 0xd000, 800, 5);
  kernel(&s, 0);
  uint32_t w = d2h(&s, 0, 0xb000, 0xe000, 800, 5);
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER), 0);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, w, &rel));
  assert_int_equal(rel, x);
  assert_int_equal(finding(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, 0)->device, OMPLENS_HOST);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* ---- Re-initializations ------------------------------------------------ */

/* A counter: the host sets count = 0 and sends it, a kernel increments it,
 * the host reads it back and resets it. The device held 0 once, but its
 * copy changed: the reset is needed as a copy, and is fixed by setting
 * the counter on the device, not by keeping anything resident. */
static void test_counter_reset(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  alloc(&s, 0, 0xa000, 0xd000, 8);
  uint32_t reset[4], read[4];
  for (int it = 0; it < 4; it++) {
    directive(&s, CP_UPDATE);
    reset[it] = h2d(&s, 0, 0xa000, 0xd000, 8, 1000); /* count = 0 */
    directive(&s, CP_TARGET);
    kernel(&s, 0);
    directive(&s, CP_UPDATE + 0x10);
    read[it] = d2h(&s, 0, 0xa000, 0xd000, 8, 1001 + (uint64_t)it);
  }
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_REINIT), 3);
  assert_int_equal(findings_of(a, OMPLENS_CAT_REINIT), 1);
  for (int it = 1; it < 4; it++) {
    assert_true(instance_of(a, OMPLENS_CAT_REINIT, reset[it], &rel));
    assert_int_equal(rel, reset[it - 1]); /* when the device last held 0 */
  }
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 0);
  assert_int_equal(finding(a, OMPLENS_CAT_REINIT, 0)->savings_ns, 3 * T_H2D);
  check_consistency(a);
  omplens_analysis_free(a);

  /* Twin: the kernel sets the counter itself; only the reads move. */
  seq t;
  seq_init(&t);
  directive(&t, CP_ENTER);
  alloc(&t, 0, 0xa000, 0xd000, 8);
  for (int it = 0; it < 4; it++) {
    directive(&t, CP_TARGET);
    kernel(&t, 0);
    directive(&t, CP_UPDATE + 0x10);
    d2h(&t, 0, 0xa000, 0xd000, 8, 1001 + (uint64_t)it);
  }
  a = run(&t);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);
  seq_free(&t);
  (void)read;
  seq_free(&s);
}

/* A reduction: sum = 0 is mapped tofrom by every dot product. The results
 * are equal each time (same vectors), which the host receiving again is no
 * waste: the host had reset its copy. */
static void test_reduction_start_value(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  for (int it = 0; it < 3; it++) {
    directive(&s, CP_TARGET);
    alloc(&s, 0, 0xa000, 0xd000, 8);
    h2d(&s, 0, 0xa000, 0xd000, 8, 1000); /* sum = 0 */
    kernel(&s, 0);
    d2h(&s, 0, 0xa000, 0xd000, 8, 4242); /* the same dot product */
    del(&s, 0, 0xd000);
  }
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_REINIT), 2);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_REPEATED_ALLOC), 2);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* One function called for two variables (`reductions(mass0)`, then
 * `reductions(mass)`), each set to 0 and mapped tofrom. The second zero is
 * no reset: the device never held that variable, only another that held
 * the same single value by chance. A third call for the first variable is
 * one. */
static void test_reset_of_another_variable(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  const uint64_t host[3] = {0xa000, 0xa008, 0xa000};
  uint32_t sent[3];
  for (int call = 0; call < 3; call++) {
    directive(&s, CP_TARGET);
    alloc(&s, 0, host[call], 0xd000, 8);
    sent[call] = h2d(&s, 0, host[call], 0xd000, 8, 1000); /* mass = 0 */
    kernel(&s, 0);
    d2h(&s, 0, host[call], 0xd000, 8, 4242 + (uint64_t)call);
    del(&s, 0, 0xd000);
  }
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_REINIT), 1);
  assert_false(instance_of(a, OMPLENS_CAT_REINIT, sent[1], NULL));
  assert_true(instance_of(a, OMPLENS_CAT_REINIT, sent[2], &rel));
  assert_int_equal(rel, sent[1]); /* when the device last held 0 */
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A loop flag: done = 1 is sent, a kernel clears it while not converged,
 * and it comes back. Re-sending 1 after the device cleared it is a reset;
 * the last pass, where the kernel left it set, brings back what the host
 * sent: a round trip, as the trace shows. */
static void test_loop_flag(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  alloc(&s, 0, 0xa000, 0xd000, 4);
  uint32_t first = 0, last_read = 0;
  for (int it = 0; it < 4; it++) {
    directive(&s, CP_UPDATE);
    uint32_t sent = h2d(&s, 0, 0xa000, 0xd000, 4, 1); /* done = 1 */
    if (it == 0)
      first = sent;
    directive(&s, CP_TARGET);
    kernel(&s, 0);
    directive(&s, CP_UPDATE + 0x10);
    last_read = d2h(&s, 0, 0xa000, 0xd000, 4, it == 3 ? 1 : 2);
  }
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_REINIT), 3);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 1);
  assert_true(instance_of(a, OMPLENS_CAT_ROUND_TRIP, last_read, NULL));
  assert_int_not_equal(first, last_read);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* ---- Round trips --------------------------------------------------------- */

static void test_round_trip_h2d_d2h(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  /* The kernel reads b but does not change it; b comes back unchanged. */
  target_to_tofrom(&s, 0, 0xa000, 11, 0xb000, 21, 21);
  omplens_analysis *a = run(&s);
  assert_int_equal(num_findings(a), 1);
  const omplens_finding *f = finding(a, OMPLENS_CAT_ROUND_TRIP, 0);
  assert_int_equal(f->num_instances, 1);
  assert_int_equal(f->instances[0].event, 5);   /* D2H b */
  assert_int_equal(f->instances[0].related, 3); /* H2D b */
  assert_int_equal(f->host_addr, 0xb000);
  assert_int_equal(f->savings_ns, T_D2H);
  omplens_analysis_free(a);

  /* Twin: b changed on the device, so copying it back is needed. */
  s.ev[5].hash = 22;
  a = run(&s);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

static void test_round_trip_d2h_h2d(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  /* tofrom(b) in a loop: the host never touches b between iterations. */
  target_to_tofrom(&s, 0, 0xa000, 11, 0xb000, 21, 22);
  target_to_tofrom(&s, 0, 0xa000, 12, 0xb000, 22, 23);
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 1);
  assert_true(instance_of(a, OMPLENS_CAT_ROUND_TRIP, 11, &rel)); /* H2D b #2 */
  assert_int_equal(rel, 5);                                      /* D2H b #1 */
  assert_int_equal(count_of(a, OMPLENS_CAT_REPEATED_ALLOC), 2);
  omplens_analysis_free(a);

  /* Twin: the host updates b between iterations. */
  s.ev[11].hash = 30;
  a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* One trip per returned copy: the first unchanged return completes it;
 * what is sent again to a receiver that still holds it is a duplicate. */
static void test_round_trip_at_most_once(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_UPDATE);
  uint32_t first = h2d(&s, 0, 0xb000, 0xd000, 800, 5);
  uint32_t second = h2d(&s, 0, 0xb000, 0xd000, 800, 5);
  kernel(&s, 0);
  uint32_t back = d2h(&s, 0, 0xb000, 0xd000, 800, 5);
  uint32_t again = h2d(&s, 0, 0xb000, 0xd000, 800, 5);
  kernel(&s, 0);
  uint32_t back2 = d2h(&s, 0, 0xb000, 0xd000, 800, 5);
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 1);
  assert_true(instance_of(a, OMPLENS_CAT_ROUND_TRIP, back, &rel));
  assert_int_equal(rel, first); /* the send that produced the content */
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 3);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, second, &rel));
  assert_int_equal(rel, first);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, again, &rel));
  assert_int_equal(rel, first);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, back2, &rel));
  assert_int_equal(rel, first); /* the host holds it since it sent it */
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A result copied back once and then mapped `to` by three kernels. */
static void test_returned_copy_resent(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  directive(&s, CP_UPDATE);
  uint32_t out = d2h(&s, 0, 0xb000, 0xd000, 800, 9);
  uint32_t in[3];
  for (int k = 0; k < 3; k++) {
    directive(&s, CP_TARGET + 0x10);
    in[k] = h2d(&s, 0, 0xb000, 0xd000, 800, 9);
    kernel(&s, 0);
  }
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 1);
  assert_true(instance_of(a, OMPLENS_CAT_ROUND_TRIP, in[0], &rel));
  assert_int_equal(rel, out);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 2);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, in[2], &rel));
  assert_int_equal(rel, out);
  assert_int_equal(num_findings(a), 2);
  check_consistency(a);
  omplens_analysis_free(a);

  /* Twin: the host changes it before each kernel. */
  for (int k = 0; k < 3; k++)
    s.ev[in[k]].hash = 20 + (uint64_t)k;
  a = run(&s);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Other content on the buffer in between breaks the trip. */
static void test_round_trip_broken_by_other_content(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  h2d(&s, 0, 0xb000, 0xd000, 800, 5);
  h2d(&s, 0, 0xb000, 0xd000, 800, 6);
  kernel(&s, 0);
  d2h(&s, 0, 0xb000, 0xd000, 800, 5); /* equals the older H2D only */
  h2d(&s, 0, 0xb000, 0xd000, 800, 7);
  /* Other content came in between: the device held 5 and changed it. */
  uint32_t reset = h2d(&s, 0, 0xb000, 0xd000, 800, 5);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER), 0);
  assert_true(instance_of(a, OMPLENS_CAT_REINIT, reset, NULL));
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A Jacobi loop that swaps u and unew on the host maps `tofrom: u[0:n]`:
 * each buffer comes back to the device as the device left it, two
 * iterations later. One problem, one finding for the map item u, whatever
 * buffer it points to; without the map items, one per buffer. */
static void test_pointer_swap_one_finding(void **state) {
  (void)state;
  enum { ITERATIONS = 6 };
  seq s;
  seq_init(&s);
  omplens_region regions[ITERATIONS + 1] = {{0}};
  omplens_map_arg args[ITERATIONS + 1] = {{0}};
  for (int it = 0; it < ITERATIONS; it++) {
    uint64_t u = it % 2 ? 0xb000 : 0xa000, dev = u + 0x100000;
    directive(&s, CP_TARGET);
    regions[s.region] = (omplens_region){.codeptr = CP_TARGET,
                                         .first_arg = s.region, .num_args = 1};
    args[s.region] = (omplens_map_arg){.base = u, .begin = u, .size = 800};
    alloc(&s, 0, u, dev, 800);
    h2d(&s, 0, u, dev, 800, it < 2 ? 1 + (uint64_t)it : 10 + (uint64_t)it - 2);
    kernel(&s, 0);
    d2h(&s, 0, u, dev, 800, 10 + (uint64_t)it);
    del(&s, 0, dev);
  }
  omplens_detect_params p = {.run_ns = 1000000, .regions = regions,
                             .num_regions = ITERATIONS + 1, .args = args,
                             .num_args = ITERATIONS + 1};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(s.ev, s.n, &p, &a), OMPLENS_DETECT_OK);
  assert_int_equal(count_of(a, OMPLENS_CAT_ROUND_TRIP), ITERATIONS - 2);
  assert_int_equal(findings_of(a, OMPLENS_CAT_ROUND_TRIP), 1);
  assert_int_equal(findings_of(a, OMPLENS_CAT_REPEATED_ALLOC), 1);
  const omplens_finding *f = finding(a, OMPLENS_CAT_ROUND_TRIP, 0);
  assert_int_equal(f->host_addr, 0xa000); /* the first instance's buffer */
  assert_int_equal(s.ev[f->instances[1].event].host_addr, 0xb000);
  check_consistency(a);
  omplens_analysis_free(a);
  /* Without the map items, the buffers stand for the variables. */
  a = run(&s);
  assert_int_equal(findings_of(a, OMPLENS_CAT_ROUND_TRIP), 2);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* ---- Kernel use ------------------------------------------------------------
 * Constructs whose map arguments the trace holds (a location: the entry
 * call was seen): an allocation that the kernels running in its lifetime
 * were not given is unused (docs/detectors.md, "Unused allocation"). */

enum { USE_A = 0xa000, USE_B = 0xb000, USE_S = 0xc000, USE_P = 0xd000, USE_DEV = 0x100000 };

typedef struct uses_scene {
  seq s;
  omplens_region regions[16];
  omplens_map_arg args[32];
  size_t num_args;
} uses_scene;

/* Starts construct kind at codeptr with the arguments args[0, n); known:
 * the trace holds them (else a blind construct). */
static void construct(uses_scene *u, uint64_t codeptr, int kind, int known,
                      const omplens_map_arg *args, size_t n) {
  directive(&u->s, codeptr);
  u->regions[u->s.region] = (omplens_region){.codeptr = codeptr, .kind = (uint8_t)kind,
                                             .source = known ? ";x.c;main;1;1;;" : NULL,
                                             .first_arg = (uint32_t)u->num_args,
                                             .num_args = (uint16_t)n};
  memcpy(u->args + u->num_args, args, n * sizeof *args);
  u->num_args += n;
}

static omplens_analysis *run_uses(const uses_scene *u) {
  omplens_detect_params p = {.run_ns = 1000000, .regions = u->regions,
                             .num_regions = u->s.region + 1, .args = u->args,
                             .num_args = u->num_args};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(u->s.ev, u->s.n, &p, &a), OMPLENS_DETECT_OK);
  check_consistency(a);
  return a;
}

#define ARG(b, e, n, t) ((omplens_map_arg){.base = (b), .begin = (e), .size = (n), .type = (t)})

/* enter data map(to: a, b); kernels mapping only a (by a kernel blind or
 * not), a region with b's device address asked for (escape). */
typedef enum use_case {
  GIVEN_A,
  BLIND_KERNEL,
  ESCAPED,
  GIVEN_INSIDE_B,
  ADDRESS_VALUE, /* an is_device_ptr argument: an address the trace lacks */
  API_COPY       /* an omp_target_memcpy on the device meanwhile */
} use_case;

static omplens_analysis *enter_two(uses_scene *u, use_case which, uint32_t *b_alloc,
                                   uint32_t *b_copy) {
  seq_init(&u->s);
  u->num_args = 0;
  const omplens_map_arg enter[] = {ARG(USE_A, USE_A, 800, 1), ARG(USE_B, USE_B, 800, 1)};
  construct(u, CP_ENTER, OMPLENS_CONSTRUCT_ENTER_DATA, 1, enter, 2);
  alloc(&u->s, 0, USE_A, USE_A + USE_DEV, 800);
  h2d(&u->s, 0, USE_A, USE_A + USE_DEV, 800, 1);
  *b_alloc = alloc(&u->s, 0, USE_B, USE_B + USE_DEV, 800);
  *b_copy = h2d(&u->s, 0, USE_B, USE_B + USE_DEV, 800, 2);
  if (which == ESCAPED) {
    const omplens_map_arg ask[] = {ARG(USE_B, USE_B, 0, OMPLENS_MAPBIT_RETURN_PARAM)};
    construct(u, CP_OTHER, OMPLENS_CONSTRUCT_ENTER_DATA, 1, ask, 1);
  }
  for (int step = 0; step < 2; step++) {
    uint64_t literal = OMPLENS_MAPBIT_LITERAL | OMPLENS_MAPBIT_TARGET_PARAM |
                       (which == ADDRESS_VALUE ? 0 : OMPLENS_MAPBIT_IMPLICIT);
    const omplens_map_arg kernel_args[] = {ARG(USE_A, USE_A, 800, 0x23), ARG(0, 0, 8, literal),
                                           ARG(USE_B + 16, USE_B + 16, 8, 0x23)};
    construct(u, CP_TARGET, OMPLENS_CONSTRUCT_TARGET, which != BLIND_KERNEL, kernel_args,
              which == GIVEN_INSIDE_B ? 3 : 2);
    kernel(&u->s, 0);
  }
  if (which == API_COPY) {
    directive(&u->s, CP_OTHER);
    uint32_t copy = add(&u->s, OMPLENS_EV_D2D, 0, 0, USE_B + USE_DEV, 800, 0, T_H2D);
    u->s.ev[copy].flags |= OMPLENS_EVF_OWN_CODEPTR;
    u->s.ev[copy].region = OMPLENS_NO_REGION;
  }
  const omplens_map_arg exit_args[] = {ARG(USE_A, USE_A, 800, 2), ARG(USE_B, USE_B, 800, 8)};
  construct(u, CP_EXIT, OMPLENS_CONSTRUCT_EXIT_DATA, 1, exit_args, 2);
  d2h(&u->s, 0, USE_A, USE_A + USE_DEV, 800, 3);
  del(&u->s, 0, USE_A + USE_DEV);
  del(&u->s, 0, USE_B + USE_DEV);
  return run_uses(u);
}

static void test_unused_while_kernels_run(void **state) {
  (void)state;
  static uses_scene u;
  uint32_t b_alloc, b_copy, rel;
  omplens_analysis *a = enter_two(&u, GIVEN_A, &b_alloc, &b_copy);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 1);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_ALLOC, b_alloc, &rel));
  assert_true(finding(a, OMPLENS_CAT_UNUSED_ALLOC, 0)->passed_over);
  /* no kernel reads what goes into memory no kernel uses */
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 1);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, b_copy, &rel));
  omplens_analysis_free(a);
  seq_free(&u.s);
  /* A kernel whose arguments the trace lacks may use anything; one given
   * a part of b uses b; a device address asked for may reach any kernel. */
  static const use_case used[] = {BLIND_KERNEL, GIVEN_INSIDE_B, ESCAPED, ADDRESS_VALUE,
                                  API_COPY};
  for (size_t k = 0; k < sizeof used / sizeof *used; k++) {
    a = enter_two(&u, used[k], &b_alloc, &b_copy);
    assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 0);
    assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 0);
    omplens_analysis_free(a);
    seq_free(&u.s);
  }
  /* Without any map arguments, as before: kernels ran, so it is used. */
  a = enter_two(&u, GIVEN_A, &b_alloc, &b_copy);
  omplens_analysis_free(a);
  a = run(&u.s);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 0);
  omplens_analysis_free(a);
  seq_free(&u.s);
}

/* map(to: s) map(to: s.p[0:n]): the pointee is attached through the
 * pointer inside s, so a kernel given s (or the pointer) uses it; one
 * given neither does not. A pointee whose pointer lives in no mapped
 * memory (a declare target pointer) is reached where no argument shows:
 * never judged by them. */
typedef enum attach_case {
  KERNEL_GETS_S,
  KERNEL_GETS_POINTER, /* a zero-length section of a pointer to s */
  KERNEL_GETS_OTHER,
  POINTER_UNMAPPED
} attach_case;

static omplens_analysis *attached(uses_scene *u, attach_case which, uint32_t *p_alloc) {
  seq_init(&u->s);
  u->num_args = 0;
  const omplens_map_arg enter[] = {
      ARG(USE_S, USE_S, 16, 1),
      ARG(USE_S + 8, USE_P, 800, 1 | OMPLENS_MAPBIT_PTR_AND_OBJ | (UINT64_C(1) << 48))};
  const omplens_map_arg enter_bare[] = {
      ARG(USE_S + 8, USE_P, 800, 1 | OMPLENS_MAPBIT_PTR_AND_OBJ)};
  if (which == POINTER_UNMAPPED) {
    construct(u, CP_ENTER, OMPLENS_CONSTRUCT_ENTER_DATA, 1, enter_bare, 1);
  } else {
    construct(u, CP_ENTER, OMPLENS_CONSTRUCT_ENTER_DATA, 1, enter, 2);
    alloc(&u->s, 0, USE_S, USE_S + USE_DEV, 16);
  }
  *p_alloc = alloc(&u->s, 0, USE_P, USE_P + USE_DEV, 800);
  const omplens_map_arg gets_s[] = {ARG(USE_S, USE_S, 16, 0x223)};
  const omplens_map_arg gets_pointer[] = {ARG(USE_S, USE_S, 0, 0x220)};
  const omplens_map_arg gets_other[] = {ARG(USE_A, USE_A, 800, 0x23)};
  if (which == KERNEL_GETS_OTHER) {
    construct(u, CP_TARGET, OMPLENS_CONSTRUCT_TARGET, 1, gets_other, 1);
    alloc(&u->s, 0, USE_A, USE_A + USE_DEV, 800);
  } else {
    construct(u, CP_TARGET, OMPLENS_CONSTRUCT_TARGET, 1,
              which == KERNEL_GETS_POINTER ? gets_pointer : gets_s, 1);
  }
  kernel(&u->s, 0);
  if (which == KERNEL_GETS_OTHER)
    del(&u->s, 0, USE_A + USE_DEV);
  construct(u, CP_EXIT, OMPLENS_CONSTRUCT_EXIT_DATA, 1, enter, 0);
  del(&u->s, 0, USE_P + USE_DEV);
  if (which != POINTER_UNMAPPED)
    del(&u->s, 0, USE_S + USE_DEV);
  return run_uses(u);
}

static void test_unused_attached_pointee(void **state) {
  (void)state;
  static uses_scene u;
  uint32_t p_alloc, rel;
  omplens_analysis *a = attached(&u, KERNEL_GETS_S, &p_alloc);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 0);
  omplens_analysis_free(a);
  seq_free(&u.s);
  /* the pointer to s reaches all of s, and the section its member at
   * offset 8 points to */
  a = attached(&u, KERNEL_GETS_POINTER, &p_alloc);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 0);
  omplens_analysis_free(a);
  seq_free(&u.s);
  a = attached(&u, POINTER_UNMAPPED, &p_alloc);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 0);
  omplens_analysis_free(a);
  seq_free(&u.s);
  a = attached(&u, KERNEL_GETS_OTHER, &p_alloc); /* s and s.p both unused */
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 2);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_ALLOC, p_alloc, &rel));
  omplens_analysis_free(a);
  seq_free(&u.s);
}

/* A construct mapping many items (a list of arguments long enough to be
 * searched in sorted order), each step the same buffers listed in another
 * order: an operation is named by its item's place in the list, so a
 * finding's instances are each step's buffer at one place, not one buffer
 * at its rank among the addresses. */
static void test_many_items_named_by_place(void **state) {
  (void)state;
  enum { STEPS = 3, ITEMS = 24 };
  seq s;
  seq_init(&s);
  omplens_region regions[STEPS + 1] = {{0}};
  omplens_map_arg args[STEPS * ITEMS] = {{0}};
  uint64_t host[STEPS][ITEMS];
  uint32_t first_event[STEPS + 1];
  for (int step = 0; step < STEPS; step++) {
    first_event[step] = (uint32_t)s.n;
    directive(&s, CP_TARGET);
    regions[s.region] = (omplens_region){.codeptr = CP_TARGET, .first_arg = step * ITEMS,
                                         .num_args = ITEMS};
    for (int k = 0; k < ITEMS; k++) {
      int rank = step == 0 ? k : step == 1 ? ITEMS - 1 - k : (k * 7) % ITEMS;
      host[step][k] = 0x100000 + 0x1000 * (uint64_t)rank;
      args[step * ITEMS + k] =
          (omplens_map_arg){.base = host[step][k], .begin = host[step][k], .size = 800};
    }
    for (int k = 0; k < ITEMS; k++)
      alloc(&s, 0, host[step][k], host[step][k] + 0x10000000, 800);
    kernel(&s, 0);
    for (int k = 0; k < ITEMS; k++)
      del(&s, 0, host[step][k] + 0x10000000);
  }
  first_event[STEPS] = (uint32_t)s.n;
  omplens_detect_params p = {.run_ns = 1000000, .regions = regions, .num_regions = STEPS + 1,
                             .args = args, .num_args = STEPS * ITEMS};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(s.ev, s.n, &p, &a), OMPLENS_DETECT_OK);
  assert_int_equal(findings_of(a, OMPLENS_CAT_REPEATED_ALLOC), ITEMS);
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  for (size_t i = 0; i < n; i++) {
    int item = -1;
    for (size_t j = 0; j < f[i].num_instances; j++) {
      uint32_t ev = f[i].instances[j].event;
      int step = 0, k = 0;
      while (ev >= first_event[step + 1])
        step++;
      while (k < ITEMS && host[step][k] != s.ev[ev].host_addr)
        k++;
      assert_true(k < ITEMS);
      if (item < 0)
        item = k;
      assert_int_equal(k, item);
    }
  }
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* omp_target_memcpy_rect copies row by row from one call: the call is the
 * variable, so its rows re-sent each step make one finding, not one per
 * row. */
static void test_api_call_one_finding(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  for (int step = 0; step < 3; step++) {
    for (uint64_t row = 0; row < 4; row++) {
      directive(&s, CP_OTHER);
      uint32_t e = h2d(&s, 0, 0xa000 + 0x100 * row, 0xd000 + 0x100 * row, 64, 10 + row);
      s.ev[e].region = OMPLENS_NO_REGION;
      s.ev[e].flags |= OMPLENS_EVF_OWN_CODEPTR;
    }
    kernel(&s, 0);
  }
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 8);
  assert_int_equal(findings_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 1);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* ---- Allocations --------------------------------------------------------- */

static void test_repeated_alloc(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  uint32_t first = 0, del_first = 0, third = 0, del_third = 0;
  for (int it = 0; it < 3; it++) {
    directive(&s, CP_TARGET);
    uint32_t al = alloc(&s, 0, 0xa000, 0xd000, 800);
    kernel(&s, 0);
    uint32_t de = del(&s, 0, 0xd000);
    if (it == 0) {
      first = al;
      del_first = de;
    }
    third = al;
    del_third = de;
  }
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(num_findings(a), 1);
  const omplens_finding *f = finding(a, OMPLENS_CAT_REPEATED_ALLOC, 0);
  assert_int_equal(f->num_instances, 2);
  assert_true(instance_of(a, OMPLENS_CAT_REPEATED_ALLOC, third, &rel));
  assert_int_equal(rel, first);
  assert_int_equal(f->savings_ns, 2 * (T_ALLOC + T_DELETE));
  assert_int_equal(f->total_ns, 2 * T_ALLOC);
  assert_int_not_equal(del_first, del_third);
  check_consistency(a);
  omplens_analysis_free(a);

  /* Twin: one allocation for the whole loop. */
  seq t;
  seq_init(&t);
  directive(&t, CP_ENTER);
  alloc(&t, 0, 0xa000, 0xd000, 800);
  for (int it = 0; it < 3; it++) {
    directive(&t, CP_TARGET);
    kernel(&t, 0);
  }
  directive(&t, CP_EXIT);
  del(&t, 0, 0xd000);
  a = run(&t);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);
  seq_free(&t);
  seq_free(&s);
}

/* A device address reused with another size is another allocation, and
 * each zero-byte delete frees the allocation live at that address. */
static void test_address_reuse(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  alloc(&s, 0, 0xa000, 0xd000, 800);
  kernel(&s, 0);
  del(&s, 0, 0xd000);
  uint32_t big = alloc(&s, 0, 0xa000, 0xd000, 1600);
  uint32_t del_big = del(&s, 0, 0xd000); /* no kernel: unused */
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  size_t n;
  omplens_analysis_leftovers(a, &n);
  assert_int_equal(n, 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_REPEATED_ALLOC), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 1);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_ALLOC, big, NULL));
  const omplens_finding *f = finding(a, OMPLENS_CAT_UNUSED_ALLOC, 0);
  assert_int_equal(f->bytes, 1600);
  assert_int_equal(f->savings_ns, T_ALLOC + T_DELETE);
  assert_int_equal(s.ev[del_big].bytes, 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* omp_target_alloc has no host buffer: its call site stands for it. The
 * same size allocated at the same call site every step repeats itself;
 * another call site, or another size, is another buffer. */
static void test_alloc_without_host_buffer(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  uint32_t first = 0, last = 0;
  for (int it = 0; it < 3; it++) {
    directive(&s, CP_OTHER); /* the omp_target_alloc call */
    last = alloc(&s, 0, 0, 0xd000 + 0x1000 * (uint64_t)it, 800);
    if (it == 0)
      first = last;
    directive(&s, CP_ENTER); /* another call site, same size */
    alloc(&s, 0, 0, 0x9000, 800);
    directive(&s, CP_TARGET);
    kernel(&s, 0);
    directive(&s, CP_EXIT);
    del(&s, 0, 0xd000 + 0x1000 * (uint64_t)it);
    if (it == 0)
      del(&s, 0, 0x9000);
  }
  omplens_analysis *a = run(&s);
  uint32_t rel = 0;
  assert_int_equal(count_of(a, OMPLENS_CAT_REPEATED_ALLOC), 4);
  assert_int_equal(findings_of(a, OMPLENS_CAT_REPEATED_ALLOC), 2);
  assert_true(instance_of(a, OMPLENS_CAT_REPEATED_ALLOC, last, &rel));
  assert_int_equal(rel, first);
  assert_int_equal(finding(a, OMPLENS_CAT_REPEATED_ALLOC, 0)->host_addr, 0);
  check_consistency(a);
  omplens_analysis_free(a);

  /* Twin: allocated once before the loop. */
  seq t;
  seq_init(&t);
  directive(&t, CP_OTHER);
  alloc(&t, 0, 0, 0xd000, 800);
  for (int it = 0; it < 3; it++) {
    directive(&t, CP_TARGET);
    kernel(&t, 0);
  }
  directive(&t, CP_EXIT);
  del(&t, 0, 0xd000);
  a = run(&t);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);
  seq_free(&t);
  seq_free(&s);
}

static void test_unused_alloc(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  uint32_t before = alloc(&s, 0, 0xa000, 0xd000, 800);
  directive(&s, CP_EXIT);
  del(&s, 0, 0xd000);
  directive(&s, CP_ENTER);
  alloc(&s, 0, 0xb000, 0xe000, 800); /* lives across the kernel */
  uint32_t other_dev = alloc(&s, 1, 0xb000, 0xe000, 800);
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  directive(&s, CP_EXIT);
  del(&s, 0, 0xe000);
  del(&s, 1, 0xe000);
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 2);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_ALLOC, before, NULL));
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_ALLOC, other_dev, NULL));
  assert_int_equal(findings_of(a, OMPLENS_CAT_UNUSED_ALLOC), 2);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A kernel that starts before the allocation but is still running counts. */
static void test_alloc_overlapping_running_kernel(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  kernel(&s, 0);
  s.ev[0].end_ns = 1000000; /* long-running */
  kernel(&s, 0);             /* short, ends before the allocation */
  alloc(&s, 0, 0xa000, 0xd000, 800);
  del(&s, 0, 0xd000);
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 0);
  omplens_analysis_free(a);
  s.ev[0].end_ns = s.ev[0].begin_ns + T_KERNEL;
  a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 1);
  omplens_analysis_free(a);
  seq_free(&s);
}

static void test_leftovers(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  uint32_t kept = alloc(&s, 0, 0xa000, 0xd000, 800);
  alloc(&s, 0, 0xb000, 0xe000, 400);
  directive(&s, CP_EXIT);
  del(&s, 0, 0xe000);
  del(&s, 0, 0x9999000); /* matches nothing: ignored */
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  size_t n;
  const omplens_leftover *l = omplens_analysis_leftovers(a, &n);
  assert_int_equal(n, 1);
  assert_int_equal(l[0].device, 0);
  assert_int_equal(l[0].host_addr, 0xa000);
  assert_int_equal(l[0].dev_addr, 0xd000);
  assert_int_equal(l[0].bytes, 800);
  assert_int_equal(l[0].codeptr, CP_ENTER);
  assert_int_equal(l[0].alloc_event, kept);
  /* Never deleted: alive until the end, so the later kernel uses it. */
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 1);
  assert_false(instance_of(a, OMPLENS_CAT_UNUSED_ALLOC, kept, NULL));
  omplens_analysis_free(a);
  seq_free(&s);
}

/* ---- Unused transfers ---------------------------------------------------- */

static void test_unused_transfer_overwritten(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_UPDATE);
  uint32_t lost = h2d(&s, 0, 0xa000, 0xd000, 800, 1);
  h2d(&s, 0, 0xa000, 0xd000, 800, 2);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  assert_int_equal(num_findings(a), 1);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, lost, NULL));
  uint32_t rel = 0;
  instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, lost, &rel);
  assert_int_equal(rel, OMPLENS_DETECT__NONE);
  omplens_analysis_free(a);
  seq_free(&s);

  /* Twin: a kernel reads each copy. */
  seq_init(&s);
  h2d(&s, 0, 0xa000, 0xd000, 800, 1);
  kernel(&s, 0);
  h2d(&s, 0, 0xa000, 0xd000, 800, 2);
  kernel(&s, 0);
  a = run(&s);
  assert_int_equal(num_findings(a), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A shorter copy to the same device address (an update of the first half
 * of a mapped array) overwrites the start only: the kernel reads the rest
 * of the first copy, which is no unused transfer. */
static void test_unused_transfer_partly_overwritten(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  h2d(&s, 0, 0xa000, 0xd000, 800, 1);
  directive(&s, CP_UPDATE);
  h2d(&s, 0, 0xa000, 0xd000, 400, 2);
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

static void test_unused_transfer_after_last_kernel(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  h2d(&s, 0, 0xa000, 0xd000, 800, 1);
  kernel(&s, 0);
  uint32_t late = h2d(&s, 0, 0xb000, 0xe000, 800, 2);
  d2h(&s, 0, 0xc000, 0xf000, 800, 3); /* D2H never counts as unused */
  omplens_analysis *a = run(&s);
  assert_int_equal(num_findings(a), 1);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, late, NULL));
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Kernels on one device do not use data sent to another. */
static void test_transfers_several_devices(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  h2d(&s, 0, 0xa000, 0xd000, 800, 1);
  uint32_t to1 = h2d(&s, 1, 0xa000, 0xd000, 800, 1);
  uint32_t to2 = h2d(&s, 2, 0xa000, 0xd000, 800, 1);
  kernel(&s, 0);
  kernel(&s, 2);
  uint32_t to2b = h2d(&s, 2, 0xa000, 0xd000, 800, 2);
  kernel(&s, 2);
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 1);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, to1, NULL));
  assert_false(instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, to2, NULL));
  assert_false(instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, to2b, NULL));
  assert_int_equal(finding(a, OMPLENS_CAT_UNUSED_TRANSFER, 0)->device, 1);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Without kernels nothing is used: every allocation, every H2D. */
static void test_no_kernels(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  for (int it = 0; it < 2; it++) {
    directive(&s, CP_TARGET);
    alloc(&s, 0, 0xa000, 0xd000, 800);
    h2d(&s, 0, 0xa000, 0xd000, 800, 11);
    alloc(&s, 1, 0xb000, 0xe000, 800);
    h2d(&s, 1, 0xb000, 0xe000, 800, 20 + it);
    d2h(&s, 1, 0xb000, 0xe000, 800, 30 + it);
    del(&s, 0, 0xd000);
    del(&s, 1, 0xe000);
  }
  omplens_analysis *a = run(&s);
  /* Unused before repeated; a duplicate before unused: one each. */
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 4);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 3);
  assert_int_equal(findings_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 2);
  assert_int_equal(count_of(a, OMPLENS_CAT_REPEATED_ALLOC), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 1);
  const omplens_program_total *p = omplens_analysis_total(a);
  /* Removed: every alloc, delete and H2D, once each; the D2Hs stay. */
  assert_int_equal(p->savings_ns, 4 * (T_ALLOC + T_DELETE) + 4 * T_H2D);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* ---- Savings, totals, order ----------------------------------------------- */

/* An H2D both duplicate and unused is in one category: the duplicate. */
static void test_one_category_per_transfer(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  h2d(&s, 0, 0xa000, 0xd000, 800, 11);
  kernel(&s, 0);
  directive(&s, CP_UPDATE);
  uint32_t twice = h2d(&s, 0, 0xa000, 0xd000, 800, 11); /* dup, after the
                                                          last kernel */
  omplens_analysis *a = run_with(&s, 10000);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, twice, NULL));
  assert_false(instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, twice, NULL));
  assert_int_equal(finding(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, 0)->savings_ns,
                   T_H2D);
  const omplens_program_total *p = omplens_analysis_total(a);
  assert_int_equal(p->savings_ns, T_H2D);
  assert_int_equal(p->count[OMPLENS_CAT_DUPLICATE_SAME_BUFFER], 1);
  assert_int_equal(p->count[OMPLENS_CAT_UNUSED_TRANSFER], 0);
  size_t n;
  const omplens_directive_total *d = omplens_analysis_directives(a, &n);
  assert_int_equal(n, 1);
  assert_int_equal(d[0].codeptr, CP_UPDATE);
  assert_int_equal(d[0].savings_ns, T_H2D);
  assert_int_equal(d[0].count[OMPLENS_CAT_DUPLICATE_SAME_BUFFER], 1);
  assert_int_equal(d[0].count[OMPLENS_CAT_UNUSED_TRANSFER], 0);
  assert_int_equal(d[0].transfer_ns, T_H2D);
  assert_int_equal(d[0].transfer_bytes, 800);
  assert_int_equal(d[0].executions, 1);
  assert_true(p->speedup == 10000.0 / (10000.0 - T_H2D));
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A repeated allocation that no kernel uses is unused: it goes, with its
 * delete, rather than being hoisted. */
static void test_unused_before_repeated(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  alloc(&s, 0, 0xa000, 0xd000, 800);
  kernel(&s, 0);
  del(&s, 0, 0xd000);
  uint32_t again = alloc(&s, 0, 0xa000, 0xd000, 800);
  del(&s, 0, 0xd000);
  omplens_analysis *a = run(&s);
  assert_false(instance_of(a, OMPLENS_CAT_REPEATED_ALLOC, again, NULL));
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_ALLOC, again, NULL));
  const omplens_program_total *p = omplens_analysis_total(a);
  assert_int_equal(p->savings_ns, T_ALLOC + T_DELETE);
  assert_int_equal(finding(a, OMPLENS_CAT_UNUSED_ALLOC, 0)->savings_ns,
                   T_ALLOC + T_DELETE);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

static void test_directive_totals(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  /* Three executions of the target directive. */
  for (int it = 0; it < 3; it++)
    target_to_tofrom(&s, 0, 0xa000, 11, 0xb000, 100 + it, 200 + it);
  directive(&s, CP_OTHER); /* a clean directive: not listed */
  h2d(&s, 0, 0xc000, 0xf000, 8, 1);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  size_t n;
  const omplens_directive_total *d = omplens_analysis_directives(a, &n);
  assert_int_equal(n, 1);
  assert_int_equal(d[0].codeptr, CP_TARGET);
  assert_int_equal(d[0].executions, 3);
  assert_int_equal(d[0].transfer_ns, 3 * (2 * T_H2D + T_D2H));
  assert_int_equal(d[0].transfer_bytes, 3 * 2400);
  assert_int_equal(d[0].count[OMPLENS_CAT_DUPLICATE_SAME_BUFFER], 2);
  assert_int_equal(d[0].bytes[OMPLENS_CAT_DUPLICATE_SAME_BUFFER], 1600);
  assert_int_equal(d[0].count[OMPLENS_CAT_REPEATED_ALLOC], 4);
  assert_int_equal(d[0].savings_ns, 2 * T_H2D + 4 * (T_ALLOC + T_DELETE));
  const omplens_program_total *p = omplens_analysis_total(a);
  assert_int_equal(p->num_transfers, 10);
  assert_int_equal(p->num_kernels, 4);
  assert_int_equal(p->num_allocs, 6);
  /* Every directive is profiled, the clean one too, by time. */
  const omplens_directive_profile *pr = omplens_analysis_profiles(a, &n);
  assert_int_equal(n, 2);
  assert_int_equal(pr[0].codeptr, CP_TARGET);
  assert_true(pr[0].has_findings);
  assert_int_equal(pr[0].kernels.count, 3);
  assert_int_equal(pr[0].kernels.bytes, 0);
  assert_int_equal(pr[0].h2d.count, 6);
  assert_int_equal(pr[0].d2h.count, 3);
  assert_int_equal(pr[0].allocs.count, 6);
  assert_int_equal(pr[1].codeptr, CP_OTHER);
  assert_false(pr[1].has_findings);
  assert_int_equal(pr[1].executions, 1);
  assert_int_equal(pr[1].h2d.count, 1);
  assert_int_equal(pr[1].h2d.bytes, 8);
  assert_int_equal(pr[1].h2d.ns, T_H2D);
  assert_int_equal(pr[1].kernels.count, 1);
  assert_int_equal(pr[1].kernels.ns, T_KERNEL);
  assert_int_equal(pr[1].total_ns, T_H2D + T_KERNEL);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Equal savings fall back to codeptr, then host_addr, then category. */
static void test_order_is_deterministic(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_UPDATE);
  kernel(&s, 0);
  h2d(&s, 0, 0xb000, 0xe000, 800, 2); /* unused, host 0xb000 */
  h2d(&s, 0, 0xa000, 0xd000, 800, 1); /* unused, host 0xa000 */
  directive(&s, CP_ENTER);
  h2d(&s, 0, 0xc000, 0xf000, 800, 3); /* unused, lower codeptr */
  alloc(&s, 0, 0x1000, 0x2000, 8);
  alloc(&s, 0, 0x1000, 0x3000, 8); /* unused (not repeated), never deleted */
  omplens_analysis *a = run(&s);
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  assert_int_equal(n, 4);
  assert_int_equal(f[0].host_addr, 0xc000);
  assert_int_equal(f[0].codeptr, CP_ENTER);
  assert_int_equal(f[1].host_addr, 0xa000);
  assert_int_equal(f[1].codeptr, CP_UPDATE);
  assert_int_equal(f[2].host_addr, 0xb000);
  assert_int_equal(f[3].category, OMPLENS_CAT_UNUSED_ALLOC); /* 2 x T_ALLOC */
  assert_int_equal(f[3].num_instances, 2);
  const omplens_directive_total *d = omplens_analysis_directives(a, &n);
  assert_int_equal(n, 2);
  assert_int_equal(d[0].codeptr, CP_UPDATE); /* 200 ns against 120 ns */
  assert_int_equal(d[1].codeptr, CP_ENTER);
  omplens_analysis_leftovers(a, &n);
  assert_int_equal(n, 2);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

static void test_speedup(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  kernel(&s, 0);
  h2d(&s, 0, 0xa000, 0xd000, 800, 1); /* unused: 100 ns */
  omplens_analysis *a = run_with(&s, 400);
  const omplens_program_total *p = omplens_analysis_total(a);
  assert_int_equal(p->run_ns, 400);
  assert_true(p->speedup == 400.0 / 300.0);
  omplens_analysis_free(a);
  /* Savings reaching the run time (overlapping work): no estimate, 0. */
  a = run_with(&s, 100);
  assert_true(omplens_analysis_total(a)->speedup == 0.0);
  omplens_analysis_free(a);
  /* No run time given: the events' span stands in. */
  a = run_with(&s, 0);
  p = omplens_analysis_total(a);
  assert_int_equal(p->run_ns, s.ev[1].end_ns);
  assert_true(p->speedup > 1.0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* ---- Brute force against the definitions ---------------------------------
 * O(n^2) restatements of docs/detectors.md, compared with the detectors on
 * random sequences dense in collisions (few buffers, devices and hashes). */

typedef struct expected {
  uint32_t event[OMPLENS_CAT_COUNT][512];
  uint32_t related[OMPLENS_CAT_COUNT][512];
  size_t count[OMPLENS_CAT_COUNT];
  uint32_t delete_of[512]; /* per event: matching delete of an ALLOC */
} expected;

static void expect(expected *x, int cat, uint32_t event, uint32_t related) {
  x->event[cat][x->count[cat]] = event;
  x->related[cat][x->count[cat]++] = related;
}

static int ref_host_transfer(const omplens_event *e) {
  return (e->kind == OMPLENS_EV_H2D || e->kind == OMPLENS_EV_D2H) &&
         e->bytes != 0;
}

static int ref_same_content(const omplens_event *a, const omplens_event *b) {
  return (a->flags & OMPLENS_EVF_HASHED) && (b->flags & OMPLENS_EVF_HASHED) &&
         a->hash == b->hash && a->bytes == b->bytes;
}

static int ref_receiver(const omplens_event *e) {
  return e->kind == OMPLENS_EV_H2D ? e->device : OMPLENS_HOST;
}

static int ref_sender(const omplens_event *e) {
  return e->kind == OMPLENS_EV_H2D ? OMPLENS_HOST : e->device;
}

static int ref_hashed(const omplens_event *e) {
  return (e->flags & OMPLENS_EVF_HASHED) != 0;
}

/* Does transfer u show the copy (side, host, bytes)? */
static int ref_touches(const omplens_event *u, int side, uint64_t host,
                       uint64_t bytes) {
  return ref_host_transfer(u) && u->host_addr == host && u->bytes == bytes &&
         (ref_receiver(u) == side || ref_sender(u) == side);
}

/* What a copy holds just before event t, recomputed from the start. */
typedef struct ref_copy {
  int known;
  uint64_t hash;
  uint32_t since; /* the event since which it holds it */
} ref_copy;

static ref_copy ref_copy_before(const omplens_event *ev, uint32_t t, int side,
                                uint64_t host, uint64_t bytes) {
  ref_copy k = {0, 0, OMPLENS_DETECT__NONE};
  for (uint32_t u = 0; u < t; u++) {
    if (!ref_touches(&ev[u], side, host, bytes))
      continue;
    int known = ref_hashed(&ev[u]);
    if (known == k.known && (!known || ev[u].hash == k.hash))
      continue;
    k = (ref_copy){known, known ? ev[u].hash : 0, u};
  }
  return k;
}

static int ref_holds(ref_copy k, uint64_t hash) {
  return k.known && k.hash == hash;
}

/* How many copies of side hold (hash, bytes) just before t, and since when
 * some copy does (*since: the latest event that took the count off zero). */
static int ref_holders(const omplens_event *ev, uint32_t t, int side,
                       uint64_t hash, uint64_t bytes, uint32_t *since) {
  static uint64_t host[512];
  static ref_copy copy[512];
  size_t num = 0;
  int held = 0;
  *since = OMPLENS_DETECT__NONE;
  for (uint32_t u = 0; u < t; u++) {
    const omplens_event *e = &ev[u];
    if (!ref_host_transfer(e) || e->bytes != bytes ||
        (ref_receiver(e) != side && ref_sender(e) != side))
      continue;
    size_t j = 0;
    while (j < num && host[j] != e->host_addr)
      j++;
    if (j == num) {
      host[num] = e->host_addr;
      copy[num++] = (ref_copy){0, 0, OMPLENS_DETECT__NONE};
    }
    int before = ref_holds(copy[j], hash);
    copy[j] = ref_copy_before(ev, u + 1, side, e->host_addr, bytes);
    int after = ref_holds(copy[j], hash);
    if (!before && after && held == 0)
      *since = u;
    held += after - before;
  }
  return held;
}

/* Is u a production by side: a send of content the sending copy did not
 * hold? */
static int ref_produces(const omplens_event *ev, uint32_t u, int side) {
  return ref_host_transfer(&ev[u]) && ref_sender(&ev[u]) == side &&
         ref_hashed(&ev[u]) &&
         !ref_holds(ref_copy_before(ev, u, side, ev[u].host_addr, ev[u].bytes),
                    ev[u].hash);
}

/* Is the production behind copy k (of side, buffer host) still pending at t:
 * k holds what its side sent out of it, and nothing brought that content
 * back into it since? */
static int ref_pending(const omplens_event *ev, uint32_t t, ref_copy k,
                       int side, uint64_t host) {
  if (!k.known || k.since == OMPLENS_DETECT__NONE || !ref_produces(ev, k.since, side))
    return 0;
  for (uint32_t u = k.since + 1; u < t; u++)
    if (ref_host_transfer(&ev[u]) && ref_receiver(&ev[u]) == side &&
        ev[u].host_addr == host && ev[u].bytes == ev[k.since].bytes)
      return 0; /* received into it: unchanged, so a return */
  return 1;
}

/* Some copy of side holds (hash, bytes) from a pending production, and the
 * content has not come back through another buffer since the latest
 * production (*latest) of it by side. */
static int ref_pending_elsewhere(const omplens_event *ev, uint32_t t, int side,
                                 uint64_t hash, uint64_t bytes,
                                 const expected *x, uint32_t *latest) {
  *latest = OMPLENS_DETECT__NONE;
  int pending = 0;
  for (uint32_t u = 0; u < t; u++) {
    if (!ref_host_transfer(&ev[u]) || ev[u].bytes != bytes ||
        (ref_receiver(&ev[u]) != side && ref_sender(&ev[u]) != side))
      continue;
    if (ev[u].hash == hash && ref_produces(ev, u, side))
      *latest = u;
    int first = 1; /* each copy once, at its first transfer */
    for (uint32_t w = 0; w < u && first; w++)
      first = !ref_touches(&ev[w], side, ev[u].host_addr, bytes);
    if (first) {
      ref_copy k = ref_copy_before(ev, t, side, ev[u].host_addr, bytes);
      pending |= ref_holds(k, hash) && ref_pending(ev, t, k, side, ev[u].host_addr);
    }
  }
  for (size_t i = 0; pending && i < x->count[OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER]; i++) {
    uint32_t r = x->event[OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER][i];
    if (r > *latest && r < t && ev[r].hash == hash && ev[r].bytes == bytes &&
        ref_receiver(&ev[r]) == side)
      pending = 0; /* crossed already */
  }
  return pending;
}

static int ref_seen(const omplens_event *ev, uint32_t t, int side) {
  for (uint32_t u = 0; u < t; u++)
    if (ref_host_transfer(&ev[u]) && ref_hashed(&ev[u]) &&
        ev[u].hash == ev[t].hash && ev[u].bytes == ev[t].bytes &&
        (ref_receiver(&ev[u]) == side || ref_sender(&ev[u]) == side))
      return 1;
  return 0;
}

/* Whether t's content, which side held before (since: when a copy last
 * began to), is set back into t's buffer: any content but zeros or a
 * single value; those only into the buffer that last held them (since's),
 * or into one whose first known content they were. */
/* Whether t's content is the first known content of t's buffer on side. */
static int ref_first_content(const omplens_event *ev, uint32_t t, int side) {
  const omplens_event *e = &ev[t];
  for (uint32_t u = 0; u < t; u++)
    if (ref_touches(&ev[u], side, e->host_addr, e->bytes) && ref_hashed(&ev[u]))
      return ev[u].hash == e->hash;
  return 0;
}

static int ref_set_back(const omplens_event *ev, uint32_t t, int side, uint32_t since) {
  const omplens_event *e = &ev[t];
  if (e->bytes > 8 && e->hash != omplens_content_hash_of_zeros(e->bytes))
    return 1;
  if (since != OMPLENS_DETECT__NONE && ev[since].host_addr == e->host_addr)
    return 1;
  return ref_first_content(ev, t, side);
}

static void ref_content(const omplens_event *ev, uint32_t t, expected *x) {
  const omplens_event *e = &ev[t];
  int r = ref_receiver(e);
  ref_copy k = ref_copy_before(ev, t, r, e->host_addr, e->bytes);
  uint32_t since, latest;
  int holders = ref_holders(ev, t, r, e->hash, e->bytes, &since);
  if (ref_holds(k, e->hash) && ref_pending(ev, t, k, r, e->host_addr))
    expect(x, OMPLENS_CAT_ROUND_TRIP, t, k.since);
  else if (ref_holds(k, e->hash))
    expect(x, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, t, k.since);
  else if (holders > 0 && e->kind == OMPLENS_EV_H2D && e->bytes > 8 &&
           e->hash != omplens_content_hash_of_zeros(e->bytes) &&
           ref_pending_elsewhere(ev, t, r, e->hash, e->bytes, x, &latest))
    expect(x, OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER, t, latest);
  else if (holders > 0) { /* one value in two buffers: equal by chance */
    if (e->bytes > 8)
      expect(x, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER, t, since);
    else if (e->kind == OMPLENS_EV_H2D && ref_first_content(ev, t, r))
      expect(x, OMPLENS_CAT_REINIT, t, since);
  }
  else if (e->kind == OMPLENS_EV_H2D && ref_seen(ev, t, r) && ref_set_back(ev, t, r, since))
    expect(x, OMPLENS_CAT_REINIT, t, since);
}

static int ref_in_content_category(const expected *x, uint32_t t) {
  static const int cats[] = {
      OMPLENS_CAT_DUPLICATE_SAME_BUFFER, OMPLENS_CAT_DUPLICATE_OTHER_BUFFER,
      OMPLENS_CAT_ROUND_TRIP, OMPLENS_CAT_ROUND_TRIP_OTHER_BUFFER,
      OMPLENS_CAT_REINIT};
  for (size_t c = 0; c < sizeof cats / sizeof *cats; c++)
    for (size_t i = 0; i < x->count[cats[c]]; i++)
      if (x->event[cats[c]][i] == t)
        return 1;
  return 0;
}

static uint64_t ref_kernel_after(const omplens_event *ev, size_t n, int dev,
                                 uint64_t t) {
  uint64_t best = UINT64_MAX;
  for (size_t k = 0; k < n; k++)
    if (ev[k].kind == OMPLENS_EV_KERNEL && ev[k].device == dev &&
        ev[k].begin_ns >= t && ev[k].begin_ns < best)
      best = ev[k].begin_ns;
  return best;
}

static void ref_unused_transfer(const omplens_event *ev, size_t n, uint32_t h,
                                expected *x) {
  uint64_t k = ref_kernel_after(ev, n, ev[h].device, ev[h].end_ns);
  int unused = k == UINT64_MAX;
  for (uint32_t h2 = h + 1; h2 < n && !unused; h2++) {
    if (ev[h2].kind != OMPLENS_EV_H2D || ev[h2].bytes == 0 ||
        ev[h2].device != ev[h].device || ev[h2].dev_addr != ev[h].dev_addr)
      continue;
    /* Only a copy at least as long overwrites all of it. */
    unused = k > ev[h2].begin_ns && ev[h2].bytes >= ev[h].bytes &&
             !ref_same_content(&ev[h], &ev[h2]);
    break;
  }
  /* A copy to the start of an allocation no kernel used, in its lifetime. */
  for (size_t i = 0; i < x->count[OMPLENS_CAT_UNUSED_ALLOC] && !unused; i++) {
    uint32_t a = x->event[OMPLENS_CAT_UNUSED_ALLOC][i], d = x->delete_of[a];
    unused = ev[a].device == ev[h].device && ev[a].dev_addr == ev[h].dev_addr &&
             ev[a].begin_ns <= ev[h].begin_ns &&
             (d == OMPLENS_DETECT__NONE || ev[h].begin_ns <= ev[d].end_ns);
  }
  if (unused && !ref_in_content_category(x, h))
    expect(x, OMPLENS_CAT_UNUSED_TRANSFER, h, OMPLENS_DETECT__NONE);
}

/* A copy back from the start of an allocation no kernel used, before any
 * copy went into it: memory nothing wrote. The allocation is the unused
 * one of its address that began last before it, and must itself hold it
 * (not one whose delete was lost). */
static void ref_unwritten_copy_back(const omplens_event *ev, uint32_t h, expected *x) {
  uint32_t a = UINT32_MAX;
  for (size_t i = 0; i < x->count[OMPLENS_CAT_UNUSED_ALLOC]; i++) {
    uint32_t u = x->event[OMPLENS_CAT_UNUSED_ALLOC][i];
    if (ev[u].device == ev[h].device && ev[u].dev_addr == ev[h].dev_addr &&
        ev[u].begin_ns <= ev[h].begin_ns && (a == UINT32_MAX || ev[u].begin_ns >= ev[a].begin_ns))
      a = u;
  }
  if (a == UINT32_MAX ||
      (x->delete_of[a] != OMPLENS_DETECT__NONE && ev[h].begin_ns > ev[x->delete_of[a]].end_ns))
    return;
  for (uint32_t k = 0; k < h; k++) /* in its lifetime: begun with it, or after */
    if ((ev[k].kind == OMPLENS_EV_H2D || ev[k].kind == OMPLENS_EV_D2D) && ev[k].bytes &&
        ev[k].begin_ns >= ev[a].begin_ns &&
        ev[k].device == ev[h].device && ev[k].dev_addr == ev[h].dev_addr)
      return;
  if (!ref_in_content_category(x, h))
    expect(x, OMPLENS_CAT_UNUSED_TRANSFER, h, OMPLENS_DETECT__NONE);
}

/* Live allocations kept in a plain list. */
static void ref_match_deletes(const omplens_event *ev, size_t n, expected *x) {
  uint32_t live[512];
  size_t num_live = 0;
  for (uint32_t i = 0; i < n; i++) {
    x->delete_of[i] = OMPLENS_DETECT__NONE;
    if (ev[i].kind != OMPLENS_EV_ALLOC && ev[i].kind != OMPLENS_EV_DELETE)
      continue;
    for (size_t j = 0; j < num_live; j++) {
      if (ev[live[j]].device != ev[i].device ||
          ev[live[j]].dev_addr != ev[i].dev_addr)
        continue;
      if (ev[i].kind == OMPLENS_EV_DELETE)
        x->delete_of[live[j]] = i;
      live[j--] = live[--num_live];
    }
    if (ev[i].kind == OMPLENS_EV_ALLOC)
      live[num_live++] = i;
  }
}

/* Unused first; else repeated. */
static void ref_allocation(const omplens_event *ev, size_t n, uint32_t a,
                           expected *x) {
  uint32_t d = x->delete_of[a];
  uint64_t end = d == OMPLENS_DETECT__NONE ? UINT64_MAX : ev[d].end_ns;
  int used = 0;
  for (size_t k = 0; k < n && !used; k++)
    used = ev[k].kind == OMPLENS_EV_KERNEL && ev[k].device == ev[a].device &&
           ev[k].begin_ns <= end && ev[k].end_ns >= ev[a].begin_ns;
  if (!used) {
    expect(x, OMPLENS_CAT_UNUSED_ALLOC, a, OMPLENS_DETECT__NONE);
    return;
  }
  /* Without a host buffer (omp_target_alloc), the call site stands for it. */
  for (uint32_t u = 0; u < a; u++) {
    if (ev[u].kind == OMPLENS_EV_ALLOC && ev[u].device == ev[a].device &&
        ev[u].host_addr == ev[a].host_addr && ev[u].bytes == ev[a].bytes &&
        (ev[a].host_addr || ev[u].site == ev[a].site)) {
      expect(x, OMPLENS_CAT_REPEATED_ALLOC, a, u);
      break;
    }
  }
}

static void reference(const omplens_event *ev, size_t n, expected *x) {
  memset(x, 0, sizeof *x);
  ref_match_deletes(ev, n, x);
  for (uint32_t i = 0; i < n; i++)
    if (ref_host_transfer(&ev[i]) && ref_hashed(&ev[i]))
      ref_content(ev, i, x);
  for (uint32_t i = 0; i < n; i++)
    if (ev[i].kind == OMPLENS_EV_ALLOC)
      ref_allocation(ev, n, i, x);
  for (uint32_t i = 0; i < n; i++)
    if (ev[i].kind == OMPLENS_EV_H2D && ev[i].bytes)
      ref_unused_transfer(ev, n, i, x);
    else if (ev[i].kind == OMPLENS_EV_D2H && ev[i].bytes)
      ref_unwritten_copy_back(ev, i, x);
}

static uint64_t rnd(uint64_t *state, uint64_t bound) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state % bound;
}

static void random_events(seq *s, uint64_t *r, size_t n) {
  static const int kinds[] = {OMPLENS_EV_ALLOC, OMPLENS_EV_DELETE,
                              OMPLENS_EV_H2D,   OMPLENS_EV_H2D,
                              OMPLENS_EV_D2H,   OMPLENS_EV_KERNEL};
  uint64_t now = 1;
  for (size_t i = 0; i < n; i++) {
    s->now = now;
    if (rnd(r, 8) == 0)
      directive(s, CP_TARGET + 0x10 * rnd(r, 3));
    int kind = kinds[rnd(r, 6)];
    uint64_t slot = rnd(r, 3);
    uint64_t host = kind == OMPLENS_EV_DELETE ? 0 : 0x100 * slot;
    uint64_t bytes = kind == OMPLENS_EV_DELETE ? 0 : 8 << rnd(r, 2);
    uint64_t hash = kind == OMPLENS_EV_H2D || kind == OMPLENS_EV_D2H
                        ? rnd(r, 4) : 0;
    add(s, kind, (int)rnd(r, 2), host, 0x10 * rnd(r, 3), bytes, hash,
        rnd(r, 40));
    now += rnd(r, 3) == 0 ? 0 : rnd(r, 30); /* ties and overlaps */
  }
}

static void compare_category(const omplens_analysis *a, const omplens_event *ev,
                             const expected *x, int cat) {
  size_t n, seen = 0;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  for (size_t i = 0; i < x->count[cat]; i++) {
    uint32_t rel = 0;
    if (!instance_of(a, cat, x->event[cat][i], &rel))
      fail_msg("%s: event %u missing", omplens_category_name(cat),
               x->event[cat][i]);
    assert_int_equal(rel, x->related[cat][i]);
  }
  for (size_t i = 0; i < n; i++) {
    if (f[i].category != cat)
      continue;
    seen += f[i].num_instances;
    for (size_t j = 0; j < f[i].num_instances; j++) {
      const omplens_event *e = &ev[f[i].instances[j].event];
      assert_int_equal(f[i].codeptr, e->site);
      assert_int_equal(f[i].host_addr, e->host_addr);
      assert_int_equal(f[i].bytes, e->bytes);
    }
  }
  assert_int_equal(seen, x->count[cat]);
}

/* Every removed operation once: events of any instance, plus deletes. */
static uint64_t ref_savings(const omplens_event *ev, size_t n,
                            const expected *x) {
  static char removed[512];
  uint64_t total = 0;
  memset(removed, 0, n);
  for (int cat = 0; cat < OMPLENS_CAT_COUNT; cat++) {
    for (size_t i = 0; i < x->count[cat]; i++) {
      uint32_t op = x->event[cat][i];
      assert_false(removed[op]); /* one category per operation */
      removed[op] = 1;
      if (omplens_detect__is_alloc_category(cat) &&
          x->delete_of[op] != OMPLENS_DETECT__NONE)
        removed[x->delete_of[op]] = 1;
    }
  }
  for (size_t i = 0; i < n; i++)
    if (removed[i])
      total += ev[i].end_ns - ev[i].begin_ns;
  return total;
}

static void test_against_brute_force(void **state) {
  (void)state;
  static expected x;
  uint64_t r = 0x9e3779b97f4a7c15ull;
  for (int round = 0; round < 400; round++) {
    seq s;
    seq_init(&s);
    random_events(&s, &r, 20 + rnd(&r, 200));
    reference(s.ev, s.n, &x);
    omplens_analysis *a = run(&s);
    for (int cat = 0; cat < OMPLENS_CAT_COUNT; cat++)
      compare_category(a, s.ev, &x, cat);
    assert_int_equal(omplens_analysis_total(a)->savings_ns,
                     ref_savings(s.ev, s.n, &x));
    check_consistency(a);
    omplens_analysis_free(a);
    seq_free(&s);
  }
}

/* ---- Scale and failure paths ----------------------------------------------- */

/* Many live allocations freed in scattered order exercise map growth and
 * removal; every delete must find its allocation. */
static void test_many_allocations(void **state) {
  (void)state;
  enum { N = 5000 };
  seq s;
  seq_init(&s);
  for (uint64_t i = 0; i < N; i++)
    alloc(&s, (int)(i % 3), 0x100000 + 64 * i, 0x900000 + 64 * i, 64);
  kernel(&s, 0);
  kernel(&s, 1);
  kernel(&s, 2);
  for (uint64_t k = 0; k < N; k++) {
    uint64_t i = (k * 7919) % N; /* 7919 is prime: a permutation */
    del(&s, (int)(i % 3), 0x900000 + 64 * i);
  }
  for (uint64_t i = 0; i < N; i += 2) /* half of them again, and used */
    alloc(&s, (int)(i % 3), 0x100000 + 64 * i, 0x900000 + 64 * i, 64);
  kernel(&s, 0);
  kernel(&s, 1);
  kernel(&s, 2);
  omplens_analysis *a = run(&s);
  size_t n;
  omplens_analysis_leftovers(a, &n);
  assert_int_equal(n, N / 2);
  assert_int_equal(count_of(a, OMPLENS_CAT_REPEATED_ALLOC), N / 2);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 0);
  check_consistency(a);
  omplens_analysis_free(a);
  seq_free(&s);
}

static int key_eq(const void *ctx, uint32_t stored, const void *key) {
  const uint64_t *keys = ctx;
  return keys[stored] == *(const uint64_t *)key;
}

/* Random inserts and removals, with hashes made to collide often. */
static void test_map_random(void **state) {
  (void)state;
  enum { N = 3000 };
  static uint64_t keys[N];
  static int present[N];
  omplens_detect__map m = {0};
  for (uint32_t i = 0; i < N; i++) {
    keys[i] = (uint64_t)i * 0x10001u;
    present[i] = 0; /* main() runs every test twice */
  }
  srand(7);
  for (int round = 0; round < 60000; round++) {
    uint32_t i = (uint32_t)rand() % N;
    uint64_t h = omplens_detect__mix(keys[i] % 700); /* shared hashes */
    size_t at = omplens_detect__map_find(&m, h, key_eq, keys, &keys[i]);
    assert_int_equal(at != OMPLENS_DETECT__MAP_NONE, present[i]);
    if (present[i]) {
      assert_int_equal(omplens_detect__map_value(&m, at), i);
      omplens_detect__map_remove(&m, at);
      present[i] = 0;
    } else {
      assert_int_equal(
          omplens_detect__map_insert(&m, h, i, key_eq, keys, &keys[i], &at), 1);
      present[i] = 1;
    }
  }
  size_t count = 0;
  for (uint32_t i = 0; i < N; i++) {
    uint64_t h = omplens_detect__mix(keys[i] % 700);
    size_t at = omplens_detect__map_find(&m, h, key_eq, keys, &keys[i]);
    assert_int_equal(at != OMPLENS_DETECT__MAP_NONE, present[i]);
    count += present[i];
  }
  assert_int_equal(count, m.count);
  omplens_detect__map_free(&m);
}

/* ---- Lanes --------------------------------------------------------------
 * main() runs every test with one lane and again with the content lane on
 * its own thread; this one compares the two analyses of the same large
 * random inputs field by field. */

static omplens_analysis *run_lanes(const seq *s, size_t split_min_events) {
  size_t saved = omplens_detect__split_min_events;
  omplens_detect__split_min_events = split_min_events;
  omplens_analysis *a = run(s);
  omplens_detect__split_min_events = saved;
  return a;
}

static void assert_same_findings(const omplens_analysis *a,
                                 const omplens_analysis *b) {
  size_t na, nb;
  const omplens_finding *fa = omplens_analysis_findings(a, &na);
  const omplens_finding *fb = omplens_analysis_findings(b, &nb);
  assert_int_equal(na, nb);
  for (size_t i = 0; i < na; i++) {
    assert_int_equal(fa[i].category, fb[i].category);
    assert_int_equal(fa[i].device, fb[i].device);
    assert_int_equal(fa[i].codeptr, fb[i].codeptr);
    assert_int_equal(fa[i].host_addr, fb[i].host_addr);
    assert_int_equal(fa[i].bytes, fb[i].bytes);
    assert_int_equal(fa[i].total_bytes, fb[i].total_bytes);
    assert_int_equal(fa[i].total_ns, fb[i].total_ns);
    assert_int_equal(fa[i].savings_ns, fb[i].savings_ns);
    assert_int_equal(fa[i].num_instances, fb[i].num_instances);
    assert_memory_equal(fa[i].instances, fb[i].instances,
                        fa[i].num_instances * sizeof *fa[i].instances);
  }
}

/* Field by field: padding bytes may differ. */
static void assert_same_counts(const uint32_t *ca, const uint64_t *ba,
                               const uint32_t *cb, const uint64_t *bb) {
  assert_memory_equal(ca, cb, OMPLENS_CAT_COUNT * sizeof *ca);
  assert_memory_equal(ba, bb, OMPLENS_CAT_COUNT * sizeof *ba);
}

static void assert_same_totals(const omplens_analysis *a,
                               const omplens_analysis *b) {
  size_t na, nb;
  const omplens_directive_total *da = omplens_analysis_directives(a, &na);
  const omplens_directive_total *db = omplens_analysis_directives(b, &nb);
  assert_int_equal(na, nb);
  for (size_t i = 0; i < na; i++) {
    assert_int_equal(da[i].codeptr, db[i].codeptr);
    assert_same_counts(da[i].count, da[i].bytes, db[i].count, db[i].bytes);
    assert_int_equal(da[i].savings_ns, db[i].savings_ns);
    assert_int_equal(da[i].transfer_ns, db[i].transfer_ns);
    assert_int_equal(da[i].transfer_bytes, db[i].transfer_bytes);
    assert_int_equal(da[i].executions, db[i].executions);
  }
  const omplens_program_total *pa = omplens_analysis_total(a);
  const omplens_program_total *pb = omplens_analysis_total(b);
  assert_int_equal(pa->savings_ns, pb->savings_ns);
  assert_true(pa->speedup == pb->speedup);
  assert_same_counts(pa->count, pa->bytes, pb->count, pb->bytes);
  const omplens_leftover *la = omplens_analysis_leftovers(a, &na);
  const omplens_leftover *lb = omplens_analysis_leftovers(b, &nb);
  assert_int_equal(na, nb);
  for (size_t i = 0; i < na; i++) {
    assert_int_equal(la[i].alloc_event, lb[i].alloc_event);
    assert_int_equal(la[i].device, lb[i].device);
    assert_int_equal(la[i].dev_addr, lb[i].dev_addr);
  }
}

/* ---- Progress -------------------------------------------------------------- */


/* Every pass tells its events every 64k and at its end, never past the
 * total, and the last figure is the whole; the analysis is the one
 * without a hook. */
static void test_progress_hook(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  for (uint64_t i = 0; i < 30000; i++) /* 240,000 events */
    target_to_tofrom(&s, (int)(i % 2), 0x10000 + (i % 50) * 0x1000, i % 7 + 1,
                     0x900000 + (i % 40) * 0x1000, i % 5 + 1, i % 3 + 1);
  heard h = {.lock = PTHREAD_MUTEX_INITIALIZER};
  omplens_detect__progress progress = {.fn = hear, .ctx = &h};
  atomic_init(&progress.done, 0);
  omplens_detect_params p = {.run_ns = 1000000};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect__run(s.ev, s.n, &p, &progress, &a), OMPLENS_DETECT_OK);
  assert_false(h.bad);
  assert_true(h.calls >= 3 * 3); /* 3 passes or more, of over 3 x 64k events */
  assert_int_equal(h.total % s.n, 0);
  assert_true(h.total > s.n);
  assert_int_equal(h.most, h.total);
  omplens_analysis *plain = run(&s);
  assert_same_findings(a, plain);
  omplens_analysis_free(plain);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* Many buffers and contents, so that both lanes' maps grow, and an H2D
 * is often both a duplicate (content lane) and an unused transfer (main
 * lane): each removal must count once, as with one lane. */
static void test_lanes_agree(void **state) {
  (void)state;
  uint64_t r = 0x2545f4914f6cdd1dull;
  for (int round = 0; round < 8; round++) {
    seq s;
    seq_init(&s);
    for (size_t i = 0; i < 20000; i++) {
      s.now += rnd(&r, 20);
      if (rnd(&r, 16) == 0)
        directive(&s, CP_TARGET + 0x10 * rnd(&r, 5));
      int dev = (int)rnd(&r, 3);
      uint64_t buf = rnd(&r, 300);
      uint64_t hash = rnd(&r, 4) ? rnd(&r, 50) : 100 + rnd(&r, 100000);
      switch (rnd(&r, 6)) {
      case 0: alloc(&s, dev, 0x10000 * buf, 0x900000 + 0x100 * buf, 64); break;
      case 1: del(&s, dev, 0x900000 + 0x100 * buf); break;
      case 2: case 3:
        h2d(&s, dev, 0x10000 * buf, 0x900000 + 0x100 * buf, 64, hash); break;
      case 4: d2h(&s, dev, 0x10000 * buf, 0x900000 + 0x100 * buf, 64, hash); break;
      default: kernel(&s, dev); break;
      }
    }
    omplens_analysis *one = run_lanes(&s, SIZE_MAX);
    omplens_analysis *two = run_lanes(&s, 0);
    assert_true(num_findings(one) > 100);
    for (int cat = 0; cat < OMPLENS_CAT_COUNT; cat++)
      if (count_of(one, cat) == 0)
        fail_msg("no %s", omplens_category_name(cat));
    assert_same_findings(one, two);
    assert_same_totals(one, two);
    check_consistency(two);
    omplens_analysis_free(one);
    omplens_analysis_free(two);
    seq_free(&s);
  }
}

/* Fails each allocation in turn: every run either succeeds or returns
 * ENOMEM with *out NULL, and leaks nothing (checked by ASan). */
static void test_out_of_memory(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  for (int it = 0; it < 20; it++)
    target_to_tofrom(&s, it % 2, 0xa000, 11, 0xb000, 100 + it, 100 + it);
  directive(&s, CP_ENTER);
  alloc(&s, 0, 0xc000, 0xf000, 8);
  omplens_analysis *ref = run(&s);
  size_t failures = 0;
  for (size_t k = 1;; k++) {
    omplens_detect_params p = {.run_ns = 1000000};
    omplens_analysis *a = (omplens_analysis *)&s;
    omplens_detect__fail_countdown = k;
    int rc = omplens_detect_run(s.ev, s.n, &p, &a);
    int exhausted = omplens_detect__fail_countdown != 0;
    omplens_detect__fail_countdown = 0;
    if (exhausted) { /* the k-th allocation never happened */
      assert_int_equal(rc, OMPLENS_DETECT_OK);
      assert_int_equal(num_findings(a), num_findings(ref));
      omplens_analysis_free(a);
      break;
    }
    if (rc == OMPLENS_DETECT_OK) { /* a shrink that may fail harmlessly */
      assert_int_equal(num_findings(a), num_findings(ref));
      omplens_analysis_free(a);
      continue;
    }
    assert_int_equal(rc, OMPLENS_DETECT_ENOMEM);
    assert_null(a);
    failures++;
  }
  assert_true(failures > 10);
  omplens_analysis_free(ref);
  seq_free(&s);
}

/* ---- Pauses, set-up, host waits ------------------------------------------ */

static omplens_analysis *run_paused(const seq *s, const omplens_trace_pause *p, size_t n) {
  omplens_detect_params params = {.run_ns = 1000000, .pauses = p, .num_pauses = n};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(s->ev, s->n, &params, &a), OMPLENS_DETECT_OK);
  return a;
}

/* What happened in a pause is unknown: a duplicate, an unused allocation
 * and an unused transfer across it are not findings; after it, as usual. */
static void test_no_finding_across_a_pause(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  alloc(&s, 0, 0xa000, 0xd000, 800);          /* lives across the pause */
  directive(&s, CP_UPDATE);
  h2d(&s, 0, 0xc000, 0xf000, 800, 0x1);       /* overwritten after the pause */
  h2d(&s, 0, 0xb000, 0xe000, 800, 0x77);      /* then the pause */
  uint64_t pause_begin = s.now;
  s.now += 1000;
  omplens_trace_pause pause = {pause_begin, s.now};
  directive(&s, CP_UPDATE);
  h2d(&s, 0, 0xb000, 0xe000, 800, 0x77);      /* the same: across the pause */
  uint32_t dup = h2d(&s, 0, 0xb000, 0xe000, 800, 0x77); /* after it: a duplicate */
  h2d(&s, 0, 0xc000, 0xf000, 800, 0x2);
  directive(&s, CP_EXIT);
  del(&s, 0, 0xd000);
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 2);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 1);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 1);
  omplens_analysis_free(a);
  a = run_paused(&s, &pause, 1);
  assert_int_equal(count_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER), 1);
  assert_true(instance_of(a, OMPLENS_CAT_DUPLICATE_SAME_BUFFER, dup, NULL));
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 0);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A program that did not finish may have gone on to use what it had
 * allocated and sent: its trace proves no unused allocation still live at
 * the end, and no unused transfer that no recorded kernel follows; what a
 * recorded kernel came too late for, or a copy overwrote, stays unused. */
static void test_incomplete_trace_proves_less(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  alloc(&s, 0, 0xb000, 0xe000, 800);          /* deleted before any kernel */
  directive(&s, CP_EXIT);
  del(&s, 0, 0xe000);
  directive(&s, CP_UPDATE);
  uint32_t over = h2d(&s, 0, 0xc000, 0xf000, 800, 0x1);
  h2d(&s, 0, 0xc000, 0xf000, 800, 0x2);       /* overwrites it */
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  directive(&s, CP_ENTER);                    /* the crash came before its kernel: */
  alloc(&s, 0, 0xa000, 0xd000, 800);          /* never deleted */
  h2d(&s, 0, 0xa000, 0xd000, 800, 0x3);
  omplens_analysis *a = run(&s);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 2);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 2);
  omplens_analysis_free(a);
  omplens_detect_params params = {.run_ns = 1000000, .incomplete = 1};
  assert_int_equal(omplens_detect_run(s.ev, s.n, &params, &a), OMPLENS_DETECT_OK);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_ALLOC), 1);
  assert_int_equal(count_of(a, OMPLENS_CAT_UNUSED_TRANSFER), 1);
  assert_true(instance_of(a, OMPLENS_CAT_UNUSED_TRANSFER, over, NULL));
  omplens_analysis_free(a);
  seq_free(&s);
}

/* The set-up phase ends at the first repeated kernel's construct: the
 * initialisation's duplicate is set-up and ranked last although it saves
 * most; a duplicate with an instance after it is not. */
static void test_setup_findings(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_ENTER);
  h2d(&s, 0, 0xa000, 0xd000, 8000, 0x11);
  directive(&s, CP_UPDATE);
  uint32_t init_dup = add(&s, OMPLENS_EV_H2D, 0, 0xa000, 0xd000, 8000, 0x11, 50 * T_H2D);
  directive(&s, CP_OTHER);
  kernel(&s, 0); /* runs once: not the loop */
  uint32_t first = UINT32_MAX; /* no regions given: the kernel's own begin */
  for (int step = 0; step < 3; step++) {
    directive(&s, CP_TARGET);
    h2d(&s, 0, 0xb000, 0xe000, 800, 0x22);
    uint32_t k = kernel(&s, 0);
    first = first == UINT32_MAX ? k : first;
  }
  uint64_t loop = s.ev[first].begin_ns;
  omplens_analysis *a = run(&s);
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  assert_int_equal(n, 2);
  assert_int_equal(omplens_analysis_total(a)->setup_end_ns, loop);
  assert_false(f[0].setup);
  assert_true(f[0].savings_ns < f[1].savings_ns);
  assert_true(f[1].setup);
  assert_int_equal(f[1].instances[0].event, init_dup);
  size_t nd;
  const omplens_directive_total *d = omplens_analysis_directives(a, &nd);
  assert_int_equal(nd, 2);
  assert_int_equal(d[0].codeptr, CP_TARGET);
  assert_true(d[1].setup && !d[0].setup);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* No kernel runs twice: there is no set-up phase. */
static void test_no_setup_without_repeated_kernel(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_UPDATE);
  h2d(&s, 0, 0xa000, 0xd000, 800, 0x11);
  h2d(&s, 0, 0xa000, 0xd000, 800, 0x11);
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  omplens_analysis *a = run(&s);
  size_t n;
  const omplens_finding *f = omplens_analysis_findings(a, &n);
  assert_int_equal(n, 1);
  assert_false(f[0].setup);
  assert_int_equal(omplens_analysis_total(a)->setup_end_ns, 0);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A `target data` construct is an enter and an exit region at one codeptr:
 * each run of it is one execution. A `target exit data` alone counts its
 * own. */
static void test_target_data_executions(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  omplens_region rg[8] = {{0}};
  rg[0] = (omplens_region){.codeptr = CP_ENTER, .kind = OMPLENS_CONSTRUCT_ENTER_DATA}; /* unused */
  for (int it = 0; it < 3; it++) {
    directive(&s, CP_ENTER);
    rg[s.region] = (omplens_region){.codeptr = CP_ENTER, .kind = OMPLENS_CONSTRUCT_ENTER_DATA};
    alloc(&s, 0, 0xa000, 0xd000, 800);
    h2d(&s, 0, 0xa000, 0xd000, 800, 11);
    directive(&s, CP_EXIT + 0x10); /* a new region; set to CP_ENTER below */
    s.codeptr = CP_ENTER;
    rg[s.region] = (omplens_region){.codeptr = CP_ENTER, .kind = OMPLENS_CONSTRUCT_EXIT_DATA};
    d2h(&s, 0, 0xa000, 0xd000, 800, 12);
    del(&s, 0, 0xd000);
  }
  directive(&s, CP_EXIT); /* then a `target exit data` alone */
  rg[s.region] = (omplens_region){.codeptr = CP_EXIT, .kind = OMPLENS_CONSTRUCT_EXIT_DATA};
  d2h(&s, 0, 0xa000, 0xd000, 800, 12);
  assert_true(s.region < 8);
  omplens_detect_params p = {.run_ns = 1000000, .regions = rg, .num_regions = s.region + 1};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(s.ev, s.n, &p, &a), OMPLENS_DETECT_OK);
  size_t n;
  const omplens_directive_profile *pr = omplens_analysis_profiles(a, &n);
  assert_int_equal(n, 2);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(pr[i].executions, pr[i].codeptr == CP_ENTER ? 3 : 1);
  const omplens_directive_total *d = omplens_analysis_directives(a, &n);
  for (size_t i = 0; i < n; i++)
    if (d[i].codeptr == CP_ENTER)
      assert_int_equal(d[i].executions, 3);
  omplens_analysis_free(a);
  seq_free(&s);
}

/* A synchronous region waits its duration, a nowait one nothing; regions
 * outside the window do not count. */
static void test_host_waits(void **state) {
  (void)state;
  seq s;
  seq_init(&s);
  directive(&s, CP_TARGET);
  kernel(&s, 0);
  directive(&s, CP_OTHER);
  kernel(&s, 0);
  omplens_region rg[4] = {
      {.begin_ns = 0, .end_ns = 1, .codeptr = CP_TARGET},
      {.begin_ns = 100, .end_ns = 1600, .codeptr = CP_TARGET},
      {.begin_ns = 2000, .end_ns = 2500, .codeptr = CP_OTHER, .nowait = 1},
      {.begin_ns = 5000, .end_ns = 5000, .codeptr = CP_TARGET}, /* end not recorded */
  };
  omplens_detect_params p = {.run_ns = 10000, .regions = rg, .num_regions = 4};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(s.ev, s.n, &p, &a), OMPLENS_DETECT_OK);
  size_t np;
  const omplens_directive_profile *pr = omplens_analysis_profiles(a, &np);
  for (size_t i = 0; i < np; i++) {
    if (pr[i].codeptr == CP_TARGET) {
      assert_int_equal(pr[i].waits.count, 3);
      assert_int_equal(pr[i].waits.ns, 1 + 1500);
    } else {
      assert_int_equal(pr[i].waits.count, 0);
      assert_int_equal(pr[i].waits.ns, 0);
    }
  }
  assert_int_equal(omplens_analysis_total(a)->wait_ns, 1501);
  assert_int_equal(omplens_analysis_total(a)->num_waits, 3);
  omplens_analysis_free(a);
  p.window_begin_ns = 50, p.window_end_ns = 3000;
  assert_int_equal(omplens_detect_run(s.ev, s.n, &p, &a), OMPLENS_DETECT_OK);
  assert_int_equal(omplens_analysis_total(a)->wait_ns, 1500);
  assert_int_equal(omplens_analysis_total(a)->num_waits, 1);
  omplens_analysis_free(a);
  seq_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_input),
      cmocka_unit_test(test_null_analysis),
      cmocka_unit_test(test_invalid_arguments),
      cmocka_unit_test(test_sites_table),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_single_target_is_clean),
      cmocka_unit_test(test_duplicate_same_buffer),
      cmocka_unit_test(test_resident_data_is_clean),
      cmocka_unit_test(test_duplicate_other_buffer),
      cmocka_unit_test(test_unhashed_is_not_duplicate),
      cmocka_unit_test(test_devices_interleaved),
      cmocka_unit_test(test_d2h_duplicates_on_host),
      cmocka_unit_test(test_round_trip_other_buffer),
      cmocka_unit_test(test_round_trip_among_equal_buffers),
      cmocka_unit_test(test_host_receives_what_it_holds_elsewhere),
      cmocka_unit_test(test_counter_reset),
      cmocka_unit_test(test_reduction_start_value),
    cmocka_unit_test(test_reset_of_another_variable),
      cmocka_unit_test(test_loop_flag),
      cmocka_unit_test(test_returned_copy_resent),
      cmocka_unit_test(test_pointer_swap_one_finding),
      cmocka_unit_test(test_many_items_named_by_place),
      cmocka_unit_test(test_api_call_one_finding),
      cmocka_unit_test(test_round_trip_h2d_d2h),
      cmocka_unit_test(test_round_trip_d2h_h2d),
      cmocka_unit_test(test_round_trip_at_most_once),
      cmocka_unit_test(test_round_trip_broken_by_other_content),
      cmocka_unit_test(test_repeated_alloc),
      cmocka_unit_test(test_address_reuse),
      cmocka_unit_test(test_alloc_without_host_buffer),
      cmocka_unit_test(test_unused_alloc),
      cmocka_unit_test(test_alloc_overlapping_running_kernel),
      cmocka_unit_test(test_leftovers),
      cmocka_unit_test(test_unused_while_kernels_run),
      cmocka_unit_test(test_unused_attached_pointee),
      cmocka_unit_test(test_unused_transfer_overwritten),
      cmocka_unit_test(test_unused_transfer_partly_overwritten),
      cmocka_unit_test(test_unused_transfer_after_last_kernel),
      cmocka_unit_test(test_transfers_several_devices),
      cmocka_unit_test(test_no_kernels),
      cmocka_unit_test(test_one_category_per_transfer),
      cmocka_unit_test(test_unused_before_repeated),
      cmocka_unit_test(test_directive_totals),
      cmocka_unit_test(test_target_data_executions),
      cmocka_unit_test(test_order_is_deterministic),
      cmocka_unit_test(test_speedup),
      cmocka_unit_test(test_against_brute_force),
      cmocka_unit_test(test_no_finding_across_a_pause),
      cmocka_unit_test(test_incomplete_trace_proves_less),
      cmocka_unit_test(test_setup_findings),
      cmocka_unit_test(test_no_setup_without_repeated_kernel),
      cmocka_unit_test(test_host_waits),
      cmocka_unit_test(test_many_allocations),
      cmocka_unit_test(test_map_random),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_lanes_agree),
      cmocka_unit_test(test_progress_hook),
  };
  omplens_detect__split_min_events = SIZE_MAX;
  int failed = cmocka_run_group_tests_name("one lane", tests, NULL, NULL);
  omplens_detect__split_min_events = 0;
  failed += cmocka_run_group_tests_name("two lanes", tests, NULL, NULL);
  return failed;
}
