/* `omplens diff BEFORE AFTER`: compares the findings, transfers and run time
 * of two runs, and checks the what-if model's prediction (docs/whatif.md)
 * against the measured change. */
#ifndef OMPLENS_CLI_DIFF_H
#define OMPLENS_CLI_DIFF_H

/* argv[0] is "diff". Returns the process exit status: 0, or 64 usage,
 * 65 unreadable trace, 66 missing input, 70 internal error, 73 cannot write
 * the --json file. */
int omplens_cmd_diff(int argc, char **argv);

/* The usage lines of `diff`, for the main --help. */
#define OMPLENS_DIFF_USAGE "       omplens diff [--json FILE] BEFORE AFTER\n"
#define OMPLENS_DIFF_COMMAND_HELP                                                          \
  "  diff      compare two runs (traces, trace directories or `run` output\n"              \
  "            directories): findings gone, new and unchanged, transfers, run\n"           \
  "            time, and the what-if prediction for the gone findings against\n"           \
  "            the measured speedup\n"

#endif
