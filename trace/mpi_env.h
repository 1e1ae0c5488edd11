/* Internal: which MPI rank this process is, from the variables launchers
 * set for it (docs/trace-format.md, "Ranks"). Reads the environment only,
 * so neither the collector nor omplens links MPI. */
#ifndef OMPLENS_MPI_ENV_H
#define OMPLENS_MPI_ENV_H

#include <stdio.h>
#include <stdlib.h>

/* A variable's value as a rank or size: a decimal in [0, 2^31), else -1. */
static inline long omplens_mpi__number(const char *name) {
  const char *v = getenv(name);
  char *end;
  if (!v || !*v)
    return -1;
  long n = strtol(v, &end, 10);
  return *end || n < 0 || n > 0x7fffffffL ? -1 : n;
}

/* 1 and the rank and job size (0 when the launcher does not say) when a
 * launcher started this process as a rank: Open MPI, MPICH/Hydra, PMIx,
 * then Slurm, first found wins; 0 otherwise. */
static inline int omplens_mpi_rank(int *rank, int *size) {
  static const char *const vars[][2] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"PMIX_RANK", "OMPI_UNIVERSE_SIZE"},
      {"SLURM_PROCID", "SLURM_NTASKS"},
  };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    long r = omplens_mpi__number(vars[i][0]);
    if (r < 0)
      continue;
    long s = omplens_mpi__number(vars[i][1]);
    *rank = (int)r;
    *size = s > r ? (int)s : 0;
    return 1;
  }
  return 0;
}

/* Copies the value of the first of names that is set into key, with
 * anything but letters, digits, '.' and '-' made '_' (safe in a file name);
 * 1 when one was set. */
static inline int omplens_mpi__key_from(char *key, size_t size, const char *const *names,
                                        size_t n) {
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

/* 1 and the job's name in id (size bytes, at least 32) when the launcher
 * names the job: the PMIx namespace, else Open MPI's job id, else
 * PMI_JOBID, else Slurm's step id; Slurm's job id, when set, goes first
 * ("JOB.STEP"). Every rank of one job gets the same name; characters
 * other than letters, digits, '.' and '-' become '_'. 0 when none is set
 * (MPICH's Hydra names no job). */
static inline int omplens_mpi_job_id(char *id, size_t size) {
  static const char *const ids[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
                                    "OMPI_MCA_orte_ess_jobid", "PMI_JOBID", "SLURM_STEP_ID"};
  char own[96];
  if (!omplens_mpi__key_from(own, sizeof own, ids, sizeof ids / sizeof ids[0]))
    return 0;
  long slurm = omplens_mpi__number("SLURM_JOB_ID");
  if (slurm >= 0)
    snprintf(id, size, "%ld.%s", slurm, own);
  else
    snprintf(id, size, "%s", own);
  return 1;
}

#endif
