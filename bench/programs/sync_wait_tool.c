/* A minimal OMPT tool for bench/sync_wait_cost.sh: it registers
 * target_emi (so that the runtime runs with a tool, as under omplens) and,
 * with SYNC_WAIT set, task_create and sync_region_wait with the handlers
 * of the collector (collector/collector.c, "host waits for deferred target
 * tasks"): a thread-local count of the deferred target tasks the thread
 * created, one load of it at every barrier and taskwait, and, while it is
 * not zero, the wait timed and stored in a per-thread ring (where the
 * collector writes a record to its stream). */
#include <omp-tools.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static __thread uint32_t deferred;
static __thread struct {
  uint32_t depth;
  uint64_t begin, codeptr;
} wait_now;
static __thread uint64_t ring[256][3];
static __thread uint32_t recorded;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device,
                          ompt_data_t *task, ompt_data_t *target_task, ompt_data_t *target,
                          const void *codeptr) {}

static void on_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task,
                           int flags, int has_dependences, const void *codeptr) {
  if ((flags & ompt_task_target) && !(flags & ompt_task_undeferred))
    deferred++;
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel, ompt_data_t *task, const void *codeptr) {
  if (endpoint == ompt_scope_begin) {
    if (wait_now.depth) {
      wait_now.depth++;
      return;
    }
    if (!deferred || kind == ompt_sync_region_reduction)
      return;
    wait_now.depth = 1;
    wait_now.codeptr = (uint64_t)(uintptr_t)codeptr;
    wait_now.begin = now_ns();
    return;
  }
  if (!wait_now.depth || --wait_now.depth)
    return;
  deferred = 0;
  uint64_t *r = ring[recorded++ % 256];
  r[0] = wait_now.begin, r[1] = now_ns(), r[2] = wait_now.codeptr;
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set)
    return 0;
  set(ompt_callback_target_emi, (ompt_callback_t)(void (*)(void))on_target_emi);
  if (getenv("SYNC_WAIT")) {
    set(ompt_callback_task_create, (ompt_callback_t)(void (*)(void))on_task_create);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)(void (*)(void))on_sync_region_wait);
  }
  return 1;
}

static void finalize(ompt_data_t *data) {}

ompt_start_tool_result_t *ompt_start_tool(unsigned version, const char *runtime) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
