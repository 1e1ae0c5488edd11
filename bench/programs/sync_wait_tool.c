/* A minimal OMPT tool for bench/sync_wait_cost.sh: it registers
 * target_emi (so that the runtime runs with a tool, as under omplens) and,
 * with SYNC_WAIT set, sync_region_wait with the handler the collector
 * would need: return at once unless the wait is a taskwait, then count it
 * (where the collector would write a record). */
#include <omp-tools.h>
#include <stdlib.h>

static _Atomic unsigned long taskwaits;

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device,
                          ompt_data_t *task, ompt_data_t *target_task, ompt_data_t *target,
                          const void *codeptr) {}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel, ompt_data_t *task, const void *codeptr) {
  if (kind != ompt_sync_region_taskwait)
    return;
  taskwaits++;
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set)
    return 0;
  set(ompt_callback_target_emi, (ompt_callback_t)(void (*)(void))on_target_emi);
  if (getenv("SYNC_WAIT"))
    set(ompt_callback_sync_region_wait, (ompt_callback_t)(void (*)(void))on_sync_region_wait);
  return 1;
}

static void finalize(ompt_data_t *data) {}

ompt_start_tool_result_t *ompt_start_tool(unsigned version, const char *runtime) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
