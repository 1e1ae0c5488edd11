/* `mpirun -np K omplens report [OPTIONS] TRACE|DIR...`: the report's traces
 * spread over K processes, as hpcprof-mpi spreads an MPI job's
 * measurements. Rank 0 lists the traces and hands each to a rank
 * (largest first, to the rank with the fewest bytes so far); every rank,
 * rank 0 too, reduces its traces to parts (cli/parts.h) on its CPUs; the
 * others send their parts to rank 0, which writes the outputs, the same
 * bytes a report in one process writes, and tells every rank the exit
 * code. MPI comes from a plugin loaded at run time (cli/mpi_plugin.h). */
#ifndef OMPLENS_CLI_DISTRIBUTE_H
#define OMPLENS_CLI_DISTRIBUTE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mpi_plugin.h"
#include "parts.h"

/* 1 when a launcher started this process as one of several ranks of a job
 * (the collector's variables, trace/mpi_env.h) and OMPLENS_MPI is not 0;
 * *rank and *size get the launcher's rank (-1: none) and job size (0:
 * not said). */
int omplens_cli_mpi_wanted(int *rank, int *size);

typedef struct omplens_cli_mpi {
  void *dl;
  const omplens_mpi_plugin *p;
  int rank, size;
} omplens_cli_mpi;

/* Loads libomplens-mpi.so (OMPLENS_MPI_PLUGIN, else ../lib/ next to the
 * omplens binary) and starts MPI: 0, or -1 with one line in err. */
int omplens_cli_mpi_open(omplens_cli_mpi *m, char *err, size_t err_size);
void omplens_cli_mpi_close(omplens_cli_mpi *m);

/* What rank 0 tells the others before any work: an exit code to stop
 * with (its error line printed by rank 0), else the traces, the rank
 * that reduces each, and timeline.json's time zero. */
typedef struct omplens_cli_plan {
  int status;
  size_t n;
  char **names;
  uint32_t *owner; /* per trace: the rank that reduces it */
  uint64_t origin_ns;
} omplens_cli_plan;

/* Hands the traces to ranks: largest file first, each to the rank with
 * the fewest bytes so far (the lowest such rank). */
void omplens_cli_plan_assign(omplens_cli_plan *plan, int ranks);
void omplens_cli_plan_free(omplens_cli_plan *plan);

/* Encodes a plan into bytes (*out, malloc'd), and decodes it (0, or -1
 * for bytes that are not one); decoding never reads past n. */
int omplens_cli_plan_encode(const omplens_cli_plan *plan, uint8_t **out, size_t *n);
int omplens_cli_plan_decode(const uint8_t *bytes, size_t n, omplens_cli_plan *plan);

/* Rank 0: the plan to every other rank. Others: the plan from rank 0. */
int omplens_cli_mpi_send_plan(const omplens_cli_mpi *m, const omplens_cli_plan *plan, char *err,
                              size_t err_size);
int omplens_cli_mpi_recv_plan(const omplens_cli_mpi *m, omplens_cli_plan *plan, char *err,
                              size_t err_size);

/* A rank but 0: its parts (at[i] for its traces, by index) to rank 0;
 * with failed nonzero (its reduction failed, the line printed), that exit
 * code for each of them instead. */
int omplens_cli_mpi_send_parts(const omplens_cli_mpi *m, const omplens_cli_plan *plan,
                               const omplens_cli_part_at *at, int failed, char *err,
                               size_t err_size);
/* Rank 0: every other rank's parts into spool, at[i] set for their
 * traces (a failed trace gets an error part). */
int omplens_cli_mpi_recv_parts(const omplens_cli_mpi *m, const omplens_cli_plan *plan, FILE *spool,
                               omplens_cli_part_at *at, char *err, size_t err_size);

/* Rank 0: the report's exit code to every other rank; the others: it. */
int omplens_cli_mpi_send_result(const omplens_cli_mpi *m, int code, char *err, size_t err_size);
int omplens_cli_mpi_recv_result(const omplens_cli_mpi *m, int *code, char *err, size_t err_size);

#endif
