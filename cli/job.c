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

/* Copies the value of the first of names that is set into key, with
 * anything but letters, digits, '.' and '-' made '_'. */
static int key_from(char *key, size_t size, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const char *v = getenv(names[i]);
    if (!v || !*v)
      continue;
    size_t len = 0;
    for (; v[len] && len + 1 < size; len++) {
      char c = v[len];
      int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '-';
      key[len] = plain ? c : '_';
    }
    key[len] = 0;
    return 1;
  }
  return 0;
}

int omplens_cli_job_of_environment(omplens_cli_job *job) {
  memset(job, 0, sizeof *job);
  /* A Slurm batch script is itself "task 0" with SLURM_PROCID set: only a
   * job step (srun) makes ranks. */
  if (getenv("SLURM_PROCID") && !getenv("OMPI_COMM_WORLD_RANK") && !getenv("PMI_RANK") &&
      !getenv("PMIX_RANK") && omplens_mpi__number("SLURM_STEP_ID") < 0)
    return 0;
  if (!omplens_mpi_rank(&job->rank, &job->size))
    return 0;
  static const char *const ids[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_JOBID",
                                    "SLURM_STEP_ID"};
  char id[96];
  if (!key_from(id, sizeof id, ids, sizeof ids / sizeof ids[0]))
    snprintf(id, sizeof id, "ppid%d", (int)getppid()); /* Hydra: the local proxy */
  const char *slurm = getenv("SLURM_JOB_ID");
  char sj[24] = "";
  if (slurm && omplens_mpi__number("SLURM_JOB_ID") >= 0)
    snprintf(sj, sizeof sj, "%ld.", omplens_mpi__number("SLURM_JOB_ID"));
  snprintf(job->key, sizeof job->key, "job-%s%s", sj, id);
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
