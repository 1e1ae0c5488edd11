/* Internal: which MPI rank this process is, from the variables launchers
 * set for it (docs/trace-format.md, "Ranks"). Reads the environment only,
 * so neither the collector nor omplens links MPI. */
#ifndef OMPLENS_MPI_ENV_H
#define OMPLENS_MPI_ENV_H

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

#endif
