/* The distributed report's link to MPI: a small plugin, libomplens-mpi.so,
 * built against the MPI that CMake finds (it is left out when none is) and
 * loaded by `omplens report` only when a launcher started it as a rank of
 * a job of several (cli/distribute.c), so that omplens itself neither
 * links MPI nor needs it. Point-to-point messages of bytes on
 * MPI_COMM_WORLD; waits poll with short sleeps rather than spin, so a rank
 * that waits leaves its CPU to the ranks still analysing. Errors: -1 and
 * one line in err. */
#ifndef OMPLENS_MPI_PLUGIN_H
#define OMPLENS_MPI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define OMPLENS_MPI_PLUGIN_VERSION 1
/* The plugin's one exported symbol: returns its table. */
#define OMPLENS_MPI_PLUGIN_SYMBOL "omplens_mpi_plugin_v1"
/* The largest message: MPI counts are ints. */
#define OMPLENS_MPI_MAX_MESSAGE (1u << 30)

typedef struct omplens_mpi_plugin {
  int version; /* OMPLENS_MPI_PLUGIN_VERSION */
  /* MPI_Init_thread (funneled: only the thread that called it calls MPI),
   * then this process's rank and the number of ranks. */
  int (*init)(int *rank, int *size, char *err, size_t err_size);
  /* One message of n bytes (at most OMPLENS_MPI_MAX_MESSAGE) to rank dest. */
  int (*send)(int dest, int tag, const void *buf, size_t n, char *err, size_t err_size);
  /* The next message with tag from rank src, into buf (cap bytes; a
   * longer message is an error); *n its length. */
  int (*recv)(int src, int tag, void *buf, size_t cap, size_t *n, char *err, size_t err_size);
  int (*finalize)(void);
  /* Ends every rank of the job with code (MPI_Abort): after a failure
   * that leaves another rank waiting for a message. */
  void (*abort)(int code);
  /* The MPI library's name and version, for messages. */
  const char *(*library)(void);
} omplens_mpi_plugin;

typedef const omplens_mpi_plugin *(*omplens_mpi_plugin_fn)(void);

#endif
