/* The ranks of one MPI job under `omplens run` (job.h). */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "mpi_env.h"

static int held_fd = -1; /* the counter, locked while an unsized job reports */

int omplens_cli_job_of_environment(omplens_cli_job *job) {
  memset(job, 0, sizeof *job);
  /* A Slurm batch script is itself "task 0" with SLURM_PROCID set: only a
   * job step (srun) makes ranks. */
  if (getenv("SLURM_PROCID") && !getenv("OMPI_COMM_WORLD_RANK") && !getenv("PMI_RANK") &&
      !getenv("PMIX_RANK") && omplens_mpi__number("SLURM_STEP_ID") < 0)
    return 0;
  if (!omplens_mpi_rank(&job->rank, &job->size))
    return 0;
  char id[sizeof job->key - 4];
  if (!omplens_mpi_job_id(id, sizeof id))
    snprintf(id, sizeof id, "ppid%d", (int)getppid()); /* Hydra: the local proxy */
  snprintf(job->key, sizeof job->key, "job-%s", id);
  return 1;
}

/* The counter file holds one line per finished rank: "RANK STATUS". */
static int count_finished(FILE *f, int *max_status) {
  int n = 0, rank, status;
  rewind(f);
  while (fscanf(f, "%d %d", &rank, &status) == 2) {
    n++;
    if (status > *max_status)
      *max_status = status;
  }
  return n;
}

int omplens_cli_job_finish(const char *dir, const omplens_cli_job *job, int status,
                           int *job_status) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/.ranks-done", dir) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  while (flock(fd, LOCK_EX) && errno == EINTR)
    ;
  FILE *f = fdopen(dup(fd), "a+");
  int last = -1;
  if (f) {
    fprintf(f, "%d %d\n", job->rank, status);
    fflush(f);
    *job_status = status;
    int n = count_finished(f, job_status);
    fclose(f);
    last = job->size ? n >= job->size : 1;
  }
  if (last == 1 && !job->size) {
    held_fd = fd; /* reports one at a time */
    return 1;
  }
  close(fd); /* unlocks */
  return last;
}

void omplens_cli_job_release(void) {
  if (held_fd >= 0)
    close(held_fd);
  held_fd = -1;
}
