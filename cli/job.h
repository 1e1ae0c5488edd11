/* `mpirun -np N omplens run -o OUT -- PROGRAM`: the N omplens processes of
 * one MPI job share one run directory, OUT/traces/job-KEY/, and the last of
 * them to finish writes the one report (docs/report.md, "MPI jobs"). */
#ifndef OMPLENS_CLI_JOB_H
#define OMPLENS_CLI_JOB_H

#include <stddef.h>

typedef struct omplens_cli_job {
  int rank, size; /* this process's rank; ranks in the job (0: unknown) */
  char key[128];  /* the job's name, safe in a file name */
} omplens_cli_job;

/* 1 and *job when a launcher started this omplens as a rank of a job; 0
 * otherwise (then `run` makes a run directory of its own). */
int omplens_cli_job_of_environment(omplens_cli_job *job);

/* Counts this rank as finished with the program's status, under an flock
 * of DIR/.ranks-done. Returns 1 when this rank writes the report: it is
 * the last of the job's size to finish (or the size is unknown: then every
 * rank reports, one at a time, and the last report covers all), with
 * *job_status the largest status of the ranks; 0 when another rank will;
 * -1 (errno) when the counter cannot be kept. */
int omplens_cli_job_finish(const char *dir, const omplens_cli_job *job, int status,
                           int *job_status);

/* Releases the lock omplens_cli_job_finish left held for a reporting
 * rank of a job of unknown size (no-op otherwise). */
void omplens_cli_job_release(void);

#endif
