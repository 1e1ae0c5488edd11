/* Listing a directory for the commands that take one: `omplens report DIR`
 * and `omplens diff` read the *.trace files in it; `diff` also lists the
 * run directories of an `omplens run` output directory. */
#ifndef OMPLENS_CLI_TRACE_DIR_H
#define OMPLENS_CLI_TRACE_DIR_H

#include <stddef.h>

/* The paths (dir/name) of dir's *.trace entries (want_dirs 0) or of its
 * directories (1), in name order; names starting with '.' are left out.
 * Returns the count, with *out to free with omplens_cli_free_names; -1
 * when dir cannot be listed (errno says why). Out of memory, the listing
 * ends early. */
long omplens_cli_list_dir(const char *dir, int want_dirs, char ***out);
void omplens_cli_free_names(char **names, size_t n);
/* The traces a directory given to report or diff stands for: its *.trace
 * files, or, where it holds none, those of the latest run directory in
 * dir/traces/ that holds some (an `omplens run` output directory).
 * Returns the count as omplens_cli_list_dir() (0: none anywhere), with
 * *source (source may be NULL) the directory they are in (caller frees;
 * NULL when none). */
long omplens_cli_list_traces(const char *dir, char ***out, char **source);

/* Why omplens_trace_open(path) failed with rc, in words: errno's for
 * OMPLENS_TRACE_EIO (read it right after the call), "the file is empty"
 * for an empty file, else omplens_trace_strerror(rc). Static text. */
const char *omplens_cli_trace_error(const char *path, int rc, int err);

#endif
