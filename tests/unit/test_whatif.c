/* Unit tests of the what-if model (fix/omplens_whatif.h, docs/whatif.md):
 * small hand-made timelines whose critical path is known. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "omplens_whatif.h"

/* ---- building timelines ------------------------------------------------- */

#define MAX_EVENTS 128
#define MAX_REGIONS 128

typedef struct timeline {
  omplens_event ev[MAX_EVENTS];
  size_t n;
  omplens_region reg[MAX_REGIONS];
  size_t nr;
} timeline;

/* Adds a region; returns its index. */
static uint32_t region(timeline *t, uint64_t begin, uint64_t end, uint32_t thread, int device,
                       int nowait) {
  assert_true(t->nr < MAX_REGIONS);
  t->reg[t->nr] = (omplens_region){.begin_ns = begin, .end_ns = end, .thread = thread,
                                   .device = (int16_t)device, .kind = OMPLENS_CONSTRUCT_TARGET,
                                   .nowait = (uint8_t)nowait};
  return (uint32_t)t->nr++;
}

/* Adds an operation; operations must be added in begin order. Returns its
 * event index. */
static uint32_t op(timeline *t, int kind, uint64_t begin, uint64_t end, uint32_t region_index) {
  assert_true(t->n < MAX_EVENTS);
  assert_true(t->n == 0 || t->ev[t->n - 1].begin_ns <= begin);
  uint32_t thread = region_index < t->nr ? t->reg[region_index].thread : 0;
  int device = region_index < t->nr ? t->reg[region_index].device : 0;
  t->ev[t->n] = (omplens_event){.begin_ns = begin, .end_ns = end, .kind = (uint8_t)kind,
                                .region = region_index, .thread = thread,
                                .device = (int16_t)device, .peer_device = OMPLENS_HOST,
                                .host_addr = 0x1000, .dev_addr = 0x9000, .bytes = 64};
  return (uint32_t)t->n++;
}

static omplens_whatif *model(const timeline *t, uint64_t run_ns) {
  omplens_whatif *m = NULL;
  assert_int_equal(omplens_whatif_create(t->ev, t->n, t->reg, t->nr, run_ns, &m), 0);
  assert_non_null(m);
  return m;
}

static omplens_whatif_result predict(const omplens_whatif *m, const uint32_t *ops, size_t k) {
  omplens_whatif_result r;
  memset(&r, 0xff, sizeof r);
  assert_int_equal(omplens_whatif_predict(m, ops, k, &r), 0);
  assert_int_equal(r.predicted_ns + r.savings_ns, r.run_ns);
  assert_int_equal(r.waiting_predicted_ns + r.waiting_savings_ns, r.run_ns);
  return r;
}

/* ---- synchronous programs: the plain sum --------------------------------- */

/* One thread: host work, then constructs whose operations run back to
 * back. Every removal saves exactly the sum of the removed durations. */
static void build_sync_chain(timeline *t) {
  uint32_t a = region(t, 100, 400, 0, 0, 0);
  op(t, OMPLENS_EV_ALLOC, 110, 130, a);  /* 0: 20 */
  op(t, OMPLENS_EV_H2D, 130, 230, a);    /* 1: 100 */
  op(t, OMPLENS_EV_KERNEL, 230, 330, a); /* 2: 100 */
  op(t, OMPLENS_EV_D2H, 330, 380, a);    /* 3: 50 */
  op(t, OMPLENS_EV_DELETE, 380, 390, a); /* 4: 10 */
  uint32_t b = region(t, 500, 700, 0, 0, 0);
  op(t, OMPLENS_EV_ALLOC, 500, 530, b);  /* 5: 30 */
  op(t, OMPLENS_EV_H2D, 530, 630, b);    /* 6: 100 */
  op(t, OMPLENS_EV_KERNEL, 630, 690, b); /* 7: 60 */
  op(t, OMPLENS_EV_DELETE, 690, 700, b); /* 8: 10 */
}

static void test_sync_chain_equals_sum(void **state) {
  timeline t = {0};
  build_sync_chain(&t);
  omplens_whatif *m = model(&t, 1000);
  const uint32_t sets[][4] = {{1, 6}, {0, 4, 5, 8}, {3}, {1, 2, 3, 6}, {8, 0}};
  const size_t sizes[] = {2, 4, 1, 4, 2};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    uint64_t sum = 0;
    for (size_t i = 0; i < sizes[s]; i++)
      sum += t.ev[sets[s][i]].end_ns - t.ev[sets[s][i]].begin_ns;
    omplens_whatif_result r = predict(m, sets[s], sizes[s]);
    assert_int_equal(r.removed_ns, sum);
    assert_int_equal(r.savings_ns, sum);
    assert_int_equal(r.predicted_ns, 1000 - sum);
    assert_int_equal(r.hidden_ns, 0);
    assert_int_equal(r.num_removed, sizes[s]);
    assert_int_equal(r.waiting_savings_ns, sum); /* no nowait task: the same */
    assert_true(r.speedup == 1000.0 / (double)(1000 - sum));
  }
  omplens_whatif_destroy(m);
}

/* Duplicates in the removal list count once; order does not matter. */
static void test_duplicates_count_once(void **state) {
  timeline t = {0};
  build_sync_chain(&t);
  omplens_whatif *m = model(&t, 1000);
  const uint32_t ops[] = {6, 1, 6, 1, 1};
  omplens_whatif_result r = predict(m, ops, 5);
  assert_int_equal(r.num_removed, 2);
  assert_int_equal(r.savings_ns, 200);
  omplens_whatif_destroy(m);
}

static void test_empty_removal(void **state) {
  timeline t = {0};
  build_sync_chain(&t);
  omplens_whatif *m = model(&t, 1000);
  omplens_whatif_result r = predict(m, NULL, 0);
  assert_int_equal(r.run_ns, 1000);
  assert_int_equal(r.predicted_ns, 1000);
  assert_int_equal(r.savings_ns, 0);
  assert_int_equal(r.removed_ns, 0);
  assert_int_equal(r.num_removed, 0);
  assert_true(r.speedup == 1.0);
  omplens_whatif_destroy(m);
}

/* Removing every operation leaves the host work: the run minus the sum. */
static void test_remove_everything(void **state) {
  timeline t = {0};
  build_sync_chain(&t);
  omplens_whatif *m = model(&t, 1000);
  uint32_t all[MAX_EVENTS];
  uint64_t sum = 0;
  for (uint32_t i = 0; i < t.n; i++) {
    all[i] = i;
    sum += t.ev[i].end_ns - t.ev[i].begin_ns;
  }
  omplens_whatif_result r = predict(m, all, t.n);
  assert_int_equal(sum, 480);
  assert_int_equal(r.savings_ns, sum);
  assert_int_equal(r.predicted_ns, 1000 - sum);
  omplens_whatif_destroy(m);

  /* Nothing but operations: the prediction is 0 and the speedup undefined. */
  timeline u = {0};
  uint32_t a = region(&u, 0, 300, 0, 0, 0);
  op(&u, OMPLENS_EV_H2D, 0, 100, a);
  op(&u, OMPLENS_EV_KERNEL, 100, 300, a);
  m = model(&u, 300);
  r = predict(m, all, 2);
  assert_int_equal(r.predicted_ns, 0);
  assert_int_equal(r.savings_ns, 300);
  assert_true(r.speedup == 0.0);
  omplens_whatif_destroy(m);
}

/* ---- threads, tasks, devices -------------------------------------------- */

/* Two host threads, both busy from the start: thread 0 for 100 ns, thread 1
 * for 60 ns. The run is as long as the longer one. */
static void build_two_threads(timeline *t) {
  uint32_t a = region(t, 0, 100, 0, 0, 0);
  uint32_t b = region(t, 0, 60, 1, 0, 0);
  op(t, OMPLENS_EV_H2D, 0, 25, a);     /* 0 */
  op(t, OMPLENS_EV_H2D, 0, 20, b);     /* 1 */
  op(t, OMPLENS_EV_KERNEL, 20, 40, b); /* 2 */
  op(t, OMPLENS_EV_KERNEL, 25, 50, a); /* 3 */
  op(t, OMPLENS_EV_D2H, 40, 60, b);    /* 4 */
  op(t, OMPLENS_EV_KERNEL, 50, 75, a); /* 5 */
  op(t, OMPLENS_EV_D2H, 75, 100, a);   /* 6 */
}

static void test_two_threads_overlap(void **state) {
  timeline t = {0};
  build_two_threads(&t);
  omplens_whatif *m = model(&t, 100);
  /* The shorter thread is off the critical path: nothing saved. */
  const uint32_t shorter[] = {1, 2, 4};
  omplens_whatif_result r = predict(m, shorter, 3);
  assert_int_equal(r.savings_ns, 0);
  assert_int_equal(r.removed_ns, 60);
  assert_int_equal(r.hidden_ns, 60);
  /* The longer thread saves until it becomes the shorter one. */
  const uint32_t one[] = {3};
  r = predict(m, one, 1);
  assert_int_equal(r.savings_ns, 25);
  const uint32_t two[] = {3, 5};
  r = predict(m, two, 2);
  assert_int_equal(r.predicted_ns, 60);
  assert_int_equal(r.savings_ns, 40);
  assert_int_equal(r.hidden_ns, 10);
  /* Both: the longest path is what is left of either. */
  const uint32_t both[] = {0, 3, 5, 1, 2};
  r = predict(m, both, 5);
  assert_int_equal(r.predicted_ns, 25);
  omplens_whatif_destroy(m);
}

/* The longest thread need not be the main one; the run's end waits for it. */
static void test_worker_thread_is_longest(void **state) {
  timeline t = {0};
  uint32_t a = region(&t, 0, 40, 0, 0, 0);
  uint32_t b = region(&t, 10, 110, 1, 1, 0);
  op(&t, OMPLENS_EV_H2D, 0, 40, a);       /* 0 */
  op(&t, OMPLENS_EV_H2D, 10, 60, b);      /* 1 */
  op(&t, OMPLENS_EV_KERNEL, 60, 110, b);  /* 2 */
  omplens_whatif *m = model(&t, 120);     /* 10 ns of host work at the end */
  const uint32_t worker[] = {1};
  omplens_whatif_result r = predict(m, worker, 1);
  assert_int_equal(r.savings_ns, 50);
  /* Thread 1 appeared while thread 0 was copying: it started no later than
   * that copy, so removing the copy moves it by what came before 10 ns. */
  const uint32_t main_copy[] = {0};
  r = predict(m, main_copy, 1);
  assert_int_equal(r.savings_ns, 10);
  omplens_whatif_destroy(m);
}

/* A later thread starts from where the main thread was: the main thread's
 * savings before it appeared move it too. */
static void test_fork_carries_savings(void **state) {
  timeline t = {0};
  uint32_t a = region(&t, 0, 50, 0, 0, 0);
  uint32_t b = region(&t, 50, 100, 1, 0, 0);
  op(&t, OMPLENS_EV_H2D, 0, 20, a);      /* 0 */
  op(&t, OMPLENS_EV_KERNEL, 20, 50, a);  /* 1 */
  op(&t, OMPLENS_EV_KERNEL, 50, 100, b); /* 2 */
  omplens_whatif *m = model(&t, 100);    /* thread 0 waits for thread 1 */
  const uint32_t first[] = {0};
  omplens_whatif_result r = predict(m, first, 1);
  assert_int_equal(r.savings_ns, 20);
  omplens_whatif_destroy(m);
}

/* Two threads drive two devices at once: removing work on one device only
 * helps while that thread is the longer one. */
static void test_two_devices_two_threads(void **state) {
  timeline t = {0};
  uint32_t a = region(&t, 0, 80, 0, 0, 0);
  uint32_t b = region(&t, 0, 90, 1, 1, 0);
  op(&t, OMPLENS_EV_H2D, 0, 30, a);     /* 0: device 0 */
  op(&t, OMPLENS_EV_H2D, 0, 40, b);     /* 1: device 1 */
  op(&t, OMPLENS_EV_KERNEL, 30, 80, a); /* 2 */
  op(&t, OMPLENS_EV_KERNEL, 40, 90, b); /* 3 */
  omplens_whatif *m = model(&t, 100);
  assert_int_equal(t.ev[1].device, 1);
  const uint32_t dev0[] = {0};
  omplens_whatif_result r = predict(m, dev0, 1);
  assert_int_equal(r.savings_ns, 0);
  assert_int_equal(r.hidden_ns, 30);
  const uint32_t dev1[] = {1};
  r = predict(m, dev1, 1);
  assert_int_equal(r.savings_ns, 10); /* then device 0's thread is longest */
  const uint32_t both[] = {0, 1};
  r = predict(m, both, 2);
  assert_int_equal(r.savings_ns, 40); /* both threads down to 50 ns */
  assert_int_equal(r.predicted_ns, 60);
  omplens_whatif_destroy(m);
}

/* Main thread: host work 0..20, a construct on device 1 (20..40), host
 * work until 100, then a construct on device 0 that waits for a nowait task
 * on device 0 which ran on a helper thread from 5 to 100. */
static void build_nowait(timeline *t, uint64_t task_end) {
  uint32_t task = region(t, 5, task_end, 1, 0, 1);
  uint32_t a = region(t, 20, 40, 0, 1, 0);
  uint32_t b = region(t, 100, 110, 0, 0, 0);
  op(t, OMPLENS_EV_KERNEL, 5, task_end - 5, task); /* 0 */
  op(t, OMPLENS_EV_H2D, 20, 40, a);                /* 1 */
  op(t, OMPLENS_EV_KERNEL, 100, 110, b);           /* 2 */
}

static void test_nowait_overlapping_host_work(void **state) {
  timeline t = {0};
  build_nowait(&t, 60); /* the task ends long before the host is done */
  omplens_whatif *m = model(&t, 120);
  const uint32_t task_op[] = {0};
  omplens_whatif_result r = predict(m, task_op, 1);
  assert_int_equal(r.savings_ns, 0); /* hidden by the host's own work */
  assert_int_equal(r.hidden_ns, 50);
  /* Had the host waited for the task from 40 (its last construct) to 60,
   * it would gain those 20 ns. */
  assert_int_equal(r.waiting_savings_ns, 20);
  const uint32_t host_op[] = {1};
  r = predict(m, host_op, 1);
  assert_int_equal(r.savings_ns, 20); /* 40 ns of slack before the wait */
  /* Had the host waited for the task until 60 and worked after, it would
   * still wait for it: the two views are not bounds of each other. */
  assert_int_equal(r.waiting_savings_ns, 0);
  omplens_whatif_destroy(m);
}

static void test_nowait_on_critical_path(void **state) {
  timeline t = {0};
  build_nowait(&t, 100); /* the construct at 100 started as the task ended */
  omplens_whatif *m = model(&t, 120);
  /* The host's copy is hidden: the host then waits for the task. */
  const uint32_t host_op[] = {1};
  omplens_whatif_result r = predict(m, host_op, 1);
  assert_int_equal(r.savings_ns, 0);
  /* The task alone is hidden by the host's work (or, had the host waited
   * from 40 to 100, saves those 60 ns), */
  const uint32_t task_op[] = {0};
  r = predict(m, task_op, 1);
  assert_int_equal(r.savings_ns, 0);
  assert_int_equal(r.waiting_savings_ns, 60);
  /* but both together save what the host saves. */
  const uint32_t both[] = {0, 1};
  r = predict(m, both, 2);
  assert_int_equal(r.savings_ns, 20);
  omplens_whatif_destroy(m);
}

/* A task nobody waits for ends the run: its savings show up to the point
 * where the host becomes the longest chain. */
static void test_nowait_task_ends_the_run(void **state) {
  timeline t = {0};
  uint32_t a = region(&t, 0, 10, 0, 0, 0);
  uint32_t task = region(&t, 10, 150, 1, 0, 1);
  op(&t, OMPLENS_EV_H2D, 0, 10, a);          /* 0 */
  op(&t, OMPLENS_EV_H2D, 10, 50, task);      /* 1 */
  op(&t, OMPLENS_EV_KERNEL, 50, 150, task);  /* 2 */
  /* The host's last construct is at 60..70 on another device. */
  uint32_t b = region(&t, 60, 70, 0, 1, 0);
  op(&t, OMPLENS_EV_KERNEL, 60, 70, b);      /* 3 */
  omplens_whatif *m = model(&t, 160);
  const uint32_t copy[] = {1};
  omplens_whatif_result r = predict(m, copy, 1);
  assert_int_equal(r.savings_ns, 40);
  const uint32_t kernel[] = {2};
  r = predict(m, kernel, 1);
  assert_int_equal(r.savings_ns, 80); /* down to the host's 70 */
  omplens_whatif_destroy(m);
}

/* A sweep stops where the chains have settled after the last removed
 * operation (docs/whatif.md); a task created after that point still
 * starts with the host's advance, as its fork would give it, and here it
 * ends the run. */
static void test_settled_sweep_carries_to_later_task(void **state) {
  timeline t = {0};
  uint32_t first = region(&t, 0, 10, 0, 0, 0);
  op(&t, OMPLENS_EV_H2D, 0, 10, first); /* 0: removed */
  for (uint64_t k = 1; k <= 100; k++) {  /* kept, back to back, on the host's chain */
    uint32_t r = region(&t, 10 * k, 10 * k + 10, 0, 0, 0);
    op(&t, OMPLENS_EV_KERNEL, 10 * k, 10 * k + 10, r);
  }
  uint32_t task = region(&t, 1020, 3000, 1, 0, 1);
  op(&t, OMPLENS_EV_KERNEL, 1020, 3000, task);
  omplens_whatif *m = model(&t, 3000);
  const uint32_t removed[] = {0};
  omplens_whatif_result r = predict(m, removed, 1);
  assert_int_equal(r.savings_ns, 10); /* the task, 10 ns earlier, ends the run */
  omplens_whatif_destroy(m);
}

/* A loop of `target nowait` + taskwait: the host thread records nothing
 * between its enter and exit data, the tasks run on helper threads. With
 * the host's time as work, shortening the tasks saves nothing; with the
 * host waiting for them, each task's savings carry over to the next. */
static void test_nowait_taskwait_loop(void **state) {
  timeline t = {0};
  uint32_t enter = region(&t, 0, 10, 0, 0, 0);
  uint32_t t1 = region(&t, 10, 50, 1, 0, 1);
  uint32_t t2 = region(&t, 55, 95, 2, 0, 1);
  uint32_t exit = region(&t, 100, 110, 0, 0, 0);
  op(&t, OMPLENS_EV_H2D, 0, 10, enter);    /* 0 */
  op(&t, OMPLENS_EV_H2D, 10, 30, t1);      /* 1 */
  op(&t, OMPLENS_EV_KERNEL, 30, 50, t1);   /* 2 */
  op(&t, OMPLENS_EV_H2D, 55, 75, t2);      /* 3 */
  op(&t, OMPLENS_EV_KERNEL, 75, 95, t2);   /* 4 */
  op(&t, OMPLENS_EV_D2H, 100, 110, exit);  /* 5 */
  omplens_whatif *m = model(&t, 110);
  const uint32_t copies[] = {1, 3};
  omplens_whatif_result r = predict(m, copies, 2);
  assert_int_equal(r.savings_ns, 0);
  assert_int_equal(r.waiting_savings_ns, 40);
  assert_true(r.waiting_speedup == 110.0 / 70.0);
  const uint32_t first[] = {1};
  r = predict(m, first, 1);
  assert_int_equal(r.waiting_savings_ns, 20);
  /* The host's own copy saves in both views. */
  const uint32_t host[] = {0};
  r = predict(m, host, 1);
  assert_int_equal(r.savings_ns, 10);
  assert_int_equal(r.waiting_savings_ns, 10);
  omplens_whatif_destroy(m);
}

/* Operations that overlap on one chain save only their uncovered time. */
static void test_overlap_within_chain(void **state) {
  timeline t = {0};
  uint32_t a = region(&t, 0, 100, 0, 0, 0);
  op(&t, OMPLENS_EV_H2D, 0, 60, a);    /* 0 */
  op(&t, OMPLENS_EV_H2D, 40, 100, a);  /* 1: async, overlaps 0 */
  omplens_whatif *m = model(&t, 100);
  const uint32_t first[] = {0};
  omplens_whatif_result r = predict(m, first, 1);
  assert_int_equal(r.savings_ns, 40);
  assert_int_equal(r.hidden_ns, 20);
  omplens_whatif_destroy(m);
}

/* A random program whose chains all run back to back: host threads
 * running synchronous constructs one after the other, some of them nowait
 * (a task each), their operations one after the other, and a last
 * construct on thread 0 of one 10 ns operation. */
typedef struct planned_op {
  uint64_t begin, end;
  uint32_t region;
} planned_op;

static int by_begin(const void *a, const void *b) {
  const planned_op *x = a, *y = b;
  if (x->begin != y->begin)
    return x->begin < y->begin ? -1 : 1;
  return (x->region > y->region) - (x->region < y->region);
}

static void random_back_to_back(timeline *t, unsigned *seed) {
  planned_op plan[MAX_EVENTS];
  size_t n = 0;
  uint32_t threads = 1 + (uint32_t)(rand_r(seed) % 3);
  uint64_t end_of_all = 0;
  for (uint32_t th = 0; th < threads; th++) {
    uint64_t now = 10 + (uint64_t)(rand_r(seed) % 30);
    for (int k = 0, constructs = 1 + rand_r(seed) % 5; k < constructs && n + 8 < MAX_EVENTS - 2; k++) {
      int nowait = rand_r(seed) % 3 == 0;
      uint64_t at = now;
      uint32_t r = region(t, at, 0, th, (int)(th % 2), nowait);
      for (int i = 0, ops = 1 + rand_r(seed) % 6; i < ops; i++) {
        at += (uint64_t)(rand_r(seed) % 3 == 0 ? rand_r(seed) % 20 : 0);
        uint64_t len = (uint64_t)(rand_r(seed) % 30);
        plan[n++] = (planned_op){at, at + len, r};
        at += len;
      }
      t->reg[r].end_ns = at;
      now = nowait ? now + 1 + (uint64_t)(rand_r(seed) % 15) : at + (uint64_t)(rand_r(seed) % 25);
      if (at > end_of_all)
        end_of_all = at;
      if (now > end_of_all)
        end_of_all = now;
    }
  }
  uint32_t last = region(t, end_of_all + 5, end_of_all + 15, 0, 0, 0);
  plan[n++] = (planned_op){end_of_all + 5, end_of_all + 15, last};
  qsort(plan, n, sizeof *plan, by_begin);
  for (size_t i = 0; i < n; i++)
    op(t, OMPLENS_EV_H2D + (int)(i % 3), plan[i].begin, plan[i].end, plan[i].region);
}

/* Where every chain runs its operations back to back, a sweep visits only
 * the removed operations and the synchronization points: the figures of
 * the sweep over every operation, which one zero-length operation inside
 * the last one (overlapping it, covering nothing) makes the model take.
 * Random programs (threads, nowait tasks) and removals. */
static void test_back_to_back_sweep_equals_full(void **state) {
  unsigned seed = 12345;
  for (int round = 0; round < 400; round++) {
    timeline t = {0};
    random_back_to_back(&t, &seed);
    timeline swept = t;
    const omplens_event *e = &t.ev[t.n - 1];
    op(&swept, OMPLENS_EV_KERNEL, e->begin_ns + 1, e->begin_ns + 1, e->region);
    uint64_t run = e->end_ns + (uint64_t)(rand_r(&seed) % 50);
    omplens_whatif *fast = model(&t, run), *slow = model(&swept, run);
    for (int k = 0; k < 8; k++) {
      uint32_t ops[MAX_EVENTS];
      size_t m = 0;
      for (uint32_t i = 0; i < t.n; i++)
        if (rand_r(&seed) % 4 == 0)
          ops[m++] = i;
      omplens_whatif_result r = predict(fast, ops, m), q = predict(slow, ops, m);
      assert_memory_equal(&r, &q, sizeof r);
    }
    omplens_whatif_destroy(fast);
    omplens_whatif_destroy(slow);
  }
}

/* ---- operations of findings, against the detectors ----------------------- */

/* A synchronous loop that allocates, sends the same content and frees
 * every iteration: detect's plain sum and the model must agree. */
static void test_findings_match_detect(void **state) {
  timeline t = {0};
  uint64_t now = 0;
  for (int it = 0; it < 4; it++) {
    uint32_t r = region(&t, now, now + 100, 0, 0, 0);
    op(&t, OMPLENS_EV_ALLOC, now, now + 5 + it, r);
    uint32_t h = op(&t, OMPLENS_EV_H2D, now + 10, now + 40, r);
    t.ev[h].hash = 0xabc;
    t.ev[h].flags = OMPLENS_EVF_HASHED;
    op(&t, OMPLENS_EV_KERNEL, now + 40, now + 90, r);
    op(&t, OMPLENS_EV_DELETE, now + 90, now + 97, r);
    now += 150;
  }
  omplens_detect_params params = {.run_ns = now};
  omplens_analysis *a = NULL;
  assert_int_equal(omplens_detect_run(t.ev, t.n, &params, &a), 0);
  size_t nf;
  const omplens_finding *f = omplens_analysis_findings(a, &nf);
  assert_true(nf >= 2);
  const omplens_finding **all = calloc(nf, sizeof *all);
  for (size_t i = 0; i < nf; i++)
    all[i] = &f[i];
  omplens_whatif *m = model(&t, now);
  uint32_t *ops;
  size_t k;
  assert_int_equal(omplens_whatif_finding_ops(m, all, nf, &ops, &k), 0);
  assert_int_equal(k, 3 * 3); /* 3 duplicate copies, 3 allocations + deletes */
  free(ops);
  omplens_whatif_result r;
  assert_int_equal(omplens_whatif_predict_findings(m, all, nf, &r), 0);
  assert_int_equal(r.savings_ns, omplens_analysis_total(a)->savings_ns);
  assert_int_equal(r.removed_ns, omplens_analysis_total(a)->savings_ns);
  assert_true(r.speedup == omplens_analysis_total(a)->speedup);
  free(all);
  omplens_whatif_destroy(m);
  omplens_analysis_free(a);
}

/* A DELETE ends the allocation live at its address: an ALLOC at a live
 * address replaces the old one, whose delete is lost; a DELETE of nothing
 * is ignored. Many addresses make the lookup grow. */
static void test_finding_ops_pair_deletes(void **state) {
  enum { PAIRS = 3000 };
  size_t n = 2 * PAIRS + 4;
  omplens_event *ev = calloc(n, sizeof *ev);
  for (uint32_t i = 0; i < PAIRS; i++) {
    ev[2 * i] = (omplens_event){.begin_ns = 10 * i, .end_ns = 10 * i + 2, .kind = OMPLENS_EV_ALLOC,
                                .dev_addr = 0x100000 + 64 * i, .host_addr = 0x1000 + i,
                                .region = OMPLENS_NO_REGION};
    ev[2 * i + 1] = ev[2 * i];
    ev[2 * i + 1].kind = OMPLENS_EV_DELETE;
    ev[2 * i + 1].begin_ns = ev[2 * i + 1].end_ns = 10 * i + 5;
  }
  uint64_t t = 10 * PAIRS;
  const int kinds[] = {OMPLENS_EV_ALLOC, OMPLENS_EV_ALLOC, OMPLENS_EV_DELETE, OMPLENS_EV_DELETE};
  const uint64_t addrs[] = {0x9000, 0x9000, 0x9000, 0xdead};
  for (uint32_t i = 0; i < 4; i++)
    ev[2 * PAIRS + i] = (omplens_event){.begin_ns = t + i, .end_ns = t + i + 1,
                                        .kind = (uint8_t)kinds[i], .dev_addr = addrs[i],
                                        .host_addr = 0x77, .region = OMPLENS_NO_REGION};
  omplens_whatif *m = NULL;
  assert_int_equal(omplens_whatif_create(ev, n, NULL, 0, 0, &m), 0);
  omplens_instance inst[3] = {{0, UINT32_MAX}, {2 * PAIRS - 2, UINT32_MAX},
                              {2 * PAIRS, UINT32_MAX}};
  omplens_finding f = {.category = OMPLENS_CAT_UNUSED_ALLOC, .num_instances = 3,
                       .instances = inst};
  const omplens_finding *list[] = {&f, NULL};
  uint32_t *ops;
  size_t k;
  assert_int_equal(omplens_whatif_finding_ops(m, list, 2, &ops, &k), 0);
  /* The first and last pairs; the replaced allocation keeps no delete. */
  assert_int_equal(k, 5);
  const uint32_t want[] = {0, 1, 2 * PAIRS - 2, 2 * PAIRS - 1, 2 * PAIRS};
  for (size_t i = 0; i < k; i++)
    assert_int_equal(ops[i], want[i]);
  free(ops);
  /* The replacing allocation owns the delete. */
  inst[0].event = 2 * PAIRS + 1;
  f.num_instances = 1;
  assert_int_equal(omplens_whatif_finding_ops(m, list, 1, &ops, &k), 0);
  assert_int_equal(k, 2);
  assert_int_equal(ops[0], 2 * PAIRS + 1);
  assert_int_equal(ops[1], 2 * PAIRS + 2);
  free(ops);
  /* No findings: nothing, and no list. */
  assert_int_equal(omplens_whatif_finding_ops(m, list, 0, &ops, &k), 0);
  assert_int_equal(k, 0);
  assert_null(ops);
  omplens_whatif_destroy(m);
  free(ev);
}

/* ---- errors ------------------------------------------------------------- */

static void test_errors(void **state) {
  timeline t = {0};
  build_sync_chain(&t);
  omplens_whatif *m = NULL;
  t.ev[3].begin_ns = 0; /* unsorted */
  assert_int_equal(omplens_whatif_create(t.ev, t.n, t.reg, t.nr, 0, &m),
                   OMPLENS_WHATIF_EINVAL);
  assert_null(m);
  t.ev[3].begin_ns = 330;
  m = model(&t, 0);
  const uint32_t bad[] = {1, 99};
  omplens_whatif_result r;
  assert_int_equal(omplens_whatif_predict(m, bad, 2, &r), OMPLENS_WHATIF_EINVAL);
  assert_int_equal(omplens_whatif_predict(NULL, bad, 1, &r), OMPLENS_WHATIF_EINVAL);
  /* run_ns 0: the latest end stands in. */
  r = predict(m, NULL, 0);
  assert_int_equal(r.run_ns, 700);
  omplens_whatif_destroy(m);
  omplens_whatif_destroy(NULL);
  assert_non_null(omplens_whatif_strerror(OMPLENS_WHATIF_ENOMEM));
  /* An empty trace is a valid, empty model. */
  assert_int_equal(omplens_whatif_create(NULL, 0, NULL, 0, 50, &m), 0);
  r = predict(m, NULL, 0);
  assert_int_equal(r.predicted_ns, 50);
  omplens_whatif_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sync_chain_equals_sum),
      cmocka_unit_test(test_duplicates_count_once),
      cmocka_unit_test(test_empty_removal),
      cmocka_unit_test(test_remove_everything),
      cmocka_unit_test(test_two_threads_overlap),
      cmocka_unit_test(test_worker_thread_is_longest),
      cmocka_unit_test(test_fork_carries_savings),
      cmocka_unit_test(test_two_devices_two_threads),
      cmocka_unit_test(test_nowait_overlapping_host_work),
      cmocka_unit_test(test_nowait_on_critical_path),
      cmocka_unit_test(test_nowait_task_ends_the_run),
      cmocka_unit_test(test_nowait_taskwait_loop),
      cmocka_unit_test(test_settled_sweep_carries_to_later_task),
      cmocka_unit_test(test_overlap_within_chain),
      cmocka_unit_test(test_back_to_back_sweep_equals_full),
      cmocka_unit_test(test_findings_match_detect),
      cmocka_unit_test(test_finding_ops_pair_deletes),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
