/* Found only through the recorded -Iinc (relative to DW_AT_comp_dir). */
#define RECORDED_N 16
