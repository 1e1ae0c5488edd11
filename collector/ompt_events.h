/* The OMPT events the collector uses, written once. Each entry:
 *   X(name, what is lost when the runtime never delivers it)
 * The registration loop and the warning text are generated from this list;
 * the handler of entry `name` is `on_<name>` with the ompt_callback_<name>_t
 * signature. */
#ifndef OMPLENS_OMPT_EVENTS_H
#define OMPLENS_OMPT_EVENTS_H

#define OMPLENS_OMPT_EVENTS(X)                                                      \
  X(device_initialize, "device numbers will be inferred from the events")           \
  X(device_finalize, "nothing (device shutdown is not needed for findings)")        \
  X(device_load, "nothing (code loads are not needed for findings)")                \
  X(target_emi, "no directive attribution: every event falls back to its own codeptr") \
  X(target_data_op_emi, "no transfers or allocations: no findings can be made")     \
  X(target_submit_emi, "no kernels: unused allocations and transfers cannot be judged") \
  X(control_tool, "omp_control_tool cannot pause omplens: the whole run is analysed") \
  X(task_create, "host waits for nowait target tasks are not recorded")              \
  X(sync_region_wait, "host waits for nowait target tasks are not recorded")

#endif
