/* libomplens-mpi.so: the MPI calls of the distributed report
 * (mpi_plugin.h), compiled against the MPI CMake found. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "mpi_plugin.h"

static void say(char *err, size_t size, const char *what, int code) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
    snprintf(s, sizeof s, "error %d", code);
  snprintf(err, size, "%s: %s", what, s);
}

static int init(int *rank, int *size, char *err, size_t err_size) {
  int provided, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) {
    say(err, err_size, "MPI_Init_thread", rc);
    return -1;
  }
  /* Errors come back as codes, to be told in one line. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if ((rc = MPI_Comm_rank(MPI_COMM_WORLD, rank)) != MPI_SUCCESS ||
      (rc = MPI_Comm_size(MPI_COMM_WORLD, size)) != MPI_SUCCESS) {
    say(err, err_size, "MPI_Comm_rank", rc);
    return -1;
  }
  return 0;
}

/* A pause between two looks at a pending request: from 20 us, doubling to
 * 2 ms, so that a long wait costs little CPU and a short one little time. */
static void pause_for(long *ns) {
  struct timespec ts = {0, *ns};
  nanosleep(&ts, NULL);
  if (*ns < 2000000)
    *ns *= 2;
}

static int mpi_send(int dest, int tag, const void *buf, size_t n, char *err, size_t err_size) {
  MPI_Request req;
  if (n > OMPLENS_MPI_MAX_MESSAGE) {
    snprintf(err, err_size, "message of %zu bytes too long", n);
    return -1;
  }
  int rc = MPI_Isend(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req);
  for (long ns = 20000; rc == MPI_SUCCESS;) {
    int done = 0;
    rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && done)
      return 0;
    if (rc == MPI_SUCCESS)
      pause_for(&ns);
  }
  say(err, err_size, "MPI_Isend", rc);
  return -1;
}

static int mpi_recv(int src, int tag, void *buf, size_t cap, size_t *n, char *err, size_t err_size) {
  MPI_Status st;
  int flag = 0, rc = MPI_SUCCESS, count = 0;
  for (long ns = 20000; rc == MPI_SUCCESS && !flag;) {
    rc = MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, &st);
    if (rc == MPI_SUCCESS && !flag)
      pause_for(&ns);
  }
  if (rc == MPI_SUCCESS)
    rc = MPI_Get_count(&st, MPI_BYTE, &count);
  if (rc != MPI_SUCCESS) {
    say(err, err_size, "MPI_Iprobe", rc);
    return -1;
  }
  if (count < 0 || (size_t)count > cap) {
    snprintf(err, err_size, "message of %d bytes from rank %d, %zu expected at most", count, src,
             cap);
    return -1;
  }
  rc = MPI_Recv(buf, count, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    say(err, err_size, "MPI_Recv", rc);
    return -1;
  }
  *n = (size_t)count;
  return 0;
}

static int finalize(void) { return MPI_Finalize() == MPI_SUCCESS ? 0 : -1; }

static void abort_job(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static const char *library(void) {
  static char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (MPI_Get_library_version(v, &len) != MPI_SUCCESS)
    return "MPI";
  for (int i = 0; i < len && v[i]; i++)
    if (v[i] == ',' || v[i] == '\n') { /* the first part: "Open MPI v4.1.4" */
      v[i] = 0;
      break;
    }
  return v;
}

__attribute__((visibility("default"))) const omplens_mpi_plugin *omplens_mpi_plugin_v1(void) {
  static const omplens_mpi_plugin p = {OMPLENS_MPI_PLUGIN_VERSION, init, mpi_send, mpi_recv,
                                       finalize, abort_job, library};
  return &p;
}
