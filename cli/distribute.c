/* The distributed report (distribute.h).
 *
 * Messages, all on MPI_COMM_WORLD, all integers little-endian:
 *   PLAN_SIZE  0 -> r   u64: the plan's bytes
 *   PLAN       0 -> r   "OMPLPLN\1", i32 status, u64 n, u64 origin ns,
 *                       n x u32 owner, n x (u32 length, name bytes)
 *   PART_HEAD  r -> 0   u64 index, u64 length, i64 exit code (0: the part
 *                       follows in PART_DATA messages of at most 16 MiB)
 *   PART_DATA  r -> 0   bytes of the part
 *   RESULT     0 -> r   i32: the report's exit code
 * Each rank sends its parts in index order; rank 0 takes them rank by
 * rank, so the messages of one pair never cross. */
#include "distribute.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "job.h"
#include "mpi_env.h"
#include "omplens_bytes.h"
#include "omplens_parts.h"

enum { TAG_PLAN_SIZE = 7101, TAG_PLAN, TAG_PART_HEAD, TAG_PART_DATA, TAG_RESULT };

#define PLAN_MAGIC "OMPLPLN\1"
#define DATA_CHUNK (16u << 20)

int omplens_cli_mpi_wanted(int *rank, int *size) {
  const char *v = getenv("OMPLENS_MPI");
  omplens_cli_job job;
  *rank = -1;
  *size = 0;
  if (!omplens_cli_job_of_environment(&job))
    return 0;
  *rank = job.rank;
  *size = job.size;
  return job.size != 1 && !(v && !strcmp(v, "0"));
}

/* The plugin's path: OMPLENS_MPI_PLUGIN, else next to the collector. */
static int plugin_path(char *out, size_t size) {
  const char *env = getenv("OMPLENS_MPI_PLUGIN");
  if (env && *env)
    return snprintf(out, size, "%s", env) < (int)size ? 0 : -1;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return -1;
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (slash)
    *slash = 0;
  return snprintf(out, size, "%s/../lib/libomplens-mpi.so", self) < (int)size ? 0 : -1;
}

int omplens_cli_mpi_open(omplens_cli_mpi *m, char *err, size_t err_size) {
  memset(m, 0, sizeof *m);
  char path[PATH_MAX];
  if (plugin_path(path, sizeof path)) {
    snprintf(err, err_size, "cannot find libomplens-mpi.so: set OMPLENS_MPI_PLUGIN");
    return -1;
  }
  if (access(path, R_OK)) {
    snprintf(err, err_size,
             "this omplens has no MPI plugin (%s: %s): build it where CMake finds MPI "
             "(Debian: libopenmpi-dev), or run `omplens report` as one process",
             path, strerror(errno));
    return -1;
  }
  /* Global: the MPI library loads components of its own that use it. */
  m->dl = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  omplens_mpi_plugin_fn get = m->dl ? (omplens_mpi_plugin_fn)dlsym(m->dl, OMPLENS_MPI_PLUGIN_SYMBOL)
                                    : NULL;
  m->p = get ? get() : NULL;
  if (!m->p || m->p->version != OMPLENS_MPI_PLUGIN_VERSION) {
    snprintf(err, err_size, "cannot load the MPI plugin %s: %s", path,
             m->dl ? "not a plugin of this omplens" : dlerror());
    if (m->dl)
      dlclose(m->dl);
    memset(m, 0, sizeof *m);
    return -1;
  }
  char why[512] = "";
  if (m->p->init(&m->rank, &m->size, why, sizeof why)) {
    snprintf(err, err_size, "cannot start MPI: %s", why);
    return -1; /* the library stays loaded: MPI may not be unloaded */
  }
  return 0;
}

void omplens_cli_mpi_close(omplens_cli_mpi *m) {
  if (m->p)
    m->p->finalize();
  m->p = NULL; /* the library stays loaded: MPI may not be unloaded */
}

/* ---- The plan ------------------------------------------------------------ */

void omplens_cli_plan_free(omplens_cli_plan *plan) {
  for (size_t i = 0; plan->names && i < plan->n; i++)
    free(plan->names[i]);
  free(plan->names);
  free(plan->owner);
  memset(plan, 0, sizeof *plan);
}

static uint64_t file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  off_t n = fseeko(f, 0, SEEK_END) ? 0 : ftello(f);
  fclose(f);
  return n > 0 ? (uint64_t)n : 0;
}

void omplens_cli_plan_assign(omplens_cli_plan *plan, int ranks) {
  size_t n = plan->n;
  uint64_t *size = calloc(n ? n : 1, sizeof *size), *load = calloc((size_t)ranks, sizeof *load);
  size_t *order = calloc(n ? n : 1, sizeof *order);
  if (!size || !load || !order) { /* round robin will do */
    for (size_t i = 0; i < n; i++)
      plan->owner[i] = (uint32_t)(i % (size_t)ranks);
  } else {
    for (size_t i = 0; i < n; i++) {
      size[i] = file_size(plan->names[i]);
      order[i] = i;
    }
    /* Largest first (insertion sort by size, then index: stable). */
    for (size_t i = 1; i < n; i++)
      for (size_t j = i; j > 0 && size[order[j]] > size[order[j - 1]]; j--) {
        size_t t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    for (size_t k = 0; k < n; k++) {
      int best = 0;
      for (int r = 1; r < ranks; r++)
        if (load[r] < load[best])
          best = r;
      plan->owner[order[k]] = (uint32_t)best;
      load[best] += size[order[k]] + 1;
    }
  }
  free(size);
  free(load);
  free(order);
}

int omplens_cli_plan_encode(const omplens_cli_plan *plan, uint8_t **out, size_t *n) {
  omplens_bytes b = {0};
  omplens_bytes_put(&b, PLAN_MAGIC, 8);
  omplens_bytes_u32(&b, (uint32_t)plan->status);
  omplens_bytes_u64(&b, plan->n);
  omplens_bytes_u64(&b, plan->origin_ns);
  for (size_t i = 0; i < plan->n; i++)
    omplens_bytes_u32(&b, plan->owner[i]);
  for (size_t i = 0; i < plan->n; i++) {
    size_t len = strlen(plan->names[i]);
    omplens_bytes_u32(&b, (uint32_t)len);
    omplens_bytes_put(&b, plan->names[i], len);
  }
  if (b.failed || b.len > OMPLENS_MPI_MAX_MESSAGE) {
    free(b.d);
    return -1;
  }
  *out = b.d;
  *n = b.len;
  return 0;
}

int omplens_cli_plan_decode(const uint8_t *p, size_t n, omplens_cli_plan *plan) {
  memset(plan, 0, sizeof *plan);
  if (n < 28 || memcmp(p, PLAN_MAGIC, 8))
    return -1;
  plan->status = (int)(int32_t)omplens_le_get(p + 8, 4);
  uint64_t count = omplens_le_get(p + 12, 8);
  plan->origin_ns = omplens_le_get(p + 20, 8);
  size_t at = 28;
  if (count > (n - at) / 8) /* an owner and a length each, at least */
    return -1;
  plan->n = (size_t)count;
  plan->owner = calloc(plan->n ? plan->n : 1, sizeof *plan->owner);
  plan->names = calloc(plan->n ? plan->n : 1, sizeof *plan->names);
  if (!plan->owner || !plan->names)
    goto bad;
  for (size_t i = 0; i < plan->n; i++, at += 4)
    plan->owner[i] = (uint32_t)omplens_le_get(p + at, 4);
  for (size_t i = 0; i < plan->n; i++) {
    if (n - at < 4)
      goto bad;
    uint64_t len = omplens_le_get(p + at, 4);
    at += 4;
    if (len > n - at || memchr(p + at, 0, (size_t)len) || !(plan->names[i] = malloc(len + 1)))
      goto bad;
    memcpy(plan->names[i], p + at, (size_t)len);
    plan->names[i][len] = 0;
    at += (size_t)len;
  }
  if (at == n)
    return 0;
bad:
  omplens_cli_plan_free(plan);
  return -1;
}

int omplens_cli_mpi_send_plan(const omplens_cli_mpi *m, const omplens_cli_plan *plan, char *err,
                              size_t err_size) {
  uint8_t *bytes = NULL, size[8];
  size_t n = 0;
  if (omplens_cli_plan_encode(plan, &bytes, &n)) {
    snprintf(err, err_size, "cannot encode the list of traces (out of memory, or too long)");
    return -1;
  }
  omplens_le_set(size, n, 8);
  int rc = 0;
  for (int r = 1; r < m->size && !rc; r++)
    rc = m->p->send(r, TAG_PLAN_SIZE, size, 8, err, err_size) ||
         m->p->send(r, TAG_PLAN, bytes, n, err, err_size);
  free(bytes);
  return rc ? -1 : 0;
}

int omplens_cli_mpi_recv_plan(const omplens_cli_mpi *m, omplens_cli_plan *plan, char *err,
                              size_t err_size) {
  uint8_t size[8];
  size_t got;
  if (m->p->recv(0, TAG_PLAN_SIZE, size, 8, &got, err, err_size))
    return -1;
  uint64_t n = got == 8 ? omplens_le_get(size, 8) : 0;
  uint8_t *bytes = n && n <= OMPLENS_MPI_MAX_MESSAGE ? malloc((size_t)n) : NULL;
  if (!bytes) {
    snprintf(err, err_size, "cannot take the list of traces (%llu bytes)", (unsigned long long)n);
    return -1;
  }
  int rc = m->p->recv(0, TAG_PLAN, bytes, (size_t)n, &got, err, err_size);
  if (!rc && (got != n || omplens_cli_plan_decode(bytes, got, plan))) {
    snprintf(err, err_size, "rank 0 sent a damaged list of traces");
    rc = -1;
  }
  free(bytes);
  return rc ? -1 : 0;
}

/* ---- Parts --------------------------------------------------------------- */

static void head_bytes(uint8_t h[24], uint64_t index, uint64_t length, int64_t code) {
  omplens_le_set(h, index, 8);
  omplens_le_set(h + 8, length, 8);
  omplens_le_set(h + 16, (uint64_t)code, 8);
}

int omplens_cli_mpi_send_parts(const omplens_cli_mpi *m, const omplens_cli_plan *plan,
                               const omplens_cli_part_at *at, int failed, char *err,
                               size_t err_size) {
  uint8_t *buf = malloc(DATA_CHUNK);
  int rc = buf ? 0 : -1;
  if (!buf)
    snprintf(err, err_size, "out of memory");
  for (size_t i = 0; i < plan->n && !rc; i++) {
    if (plan->owner[i] != (uint32_t)m->rank)
      continue;
    uint8_t h[24];
    int code = failed ? failed : at[i].spool ? 0 : 70;
    if (!code && fflush(at[i].spool))
      code = 73;
    head_bytes(h, i, code ? 0 : at[i].length, code);
    rc = m->p->send(0, TAG_PART_HEAD, h, sizeof h, err, err_size);
    for (uint64_t done = 0; !rc && !code && done < at[i].length;) {
      size_t n = at[i].length - done < DATA_CHUNK ? (size_t)(at[i].length - done) : DATA_CHUNK;
      ssize_t r = pread(fileno(at[i].spool), buf, n, (off_t)(at[i].offset + done));
      if (r != (ssize_t)n) {
        snprintf(err, err_size, "cannot read back the analysis of %s: %s", plan->names[i],
                 r < 0 ? strerror(errno) : "cut short");
        rc = -1; /* rank 0 then waits: the job ends with this rank's exit */
        break;
      }
      rc = m->p->send(0, TAG_PART_DATA, buf, n, err, err_size);
      done += n;
    }
  }
  free(buf);
  return rc;
}

int omplens_cli_mpi_recv_parts(const omplens_cli_mpi *m, const omplens_cli_plan *plan, FILE *spool,
                               omplens_cli_part_at *at, char *err, size_t err_size) {
  uint8_t *buf = malloc(DATA_CHUNK);
  if (!buf) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  int rc = 0;
  for (int r = 1; r < m->size && !rc; r++)
    for (size_t i = 0; i < plan->n && !rc; i++) {
      if (plan->owner[i] != (uint32_t)r)
        continue;
      uint8_t h[24];
      size_t got;
      if ((rc = m->p->recv(r, TAG_PART_HEAD, h, sizeof h, &got, err, err_size)))
        break;
      uint64_t index = omplens_le_get(h, 8), length = omplens_le_get(h + 8, 8);
      int code = (int)(int64_t)omplens_le_get(h + 16, 8);
      if (got != sizeof h || index != i || (code && length)) {
        snprintf(err, err_size, "rank %d sent a damaged part", r);
        rc = -1;
        break;
      }
      off_t start = ftello(spool);
      if (code) { /* the rank printed why */
        rc = omplens_part_write_error(i, plan->names[i], code, NULL, spool) ? -1 : 0;
        if (rc)
          snprintf(err, err_size, "cannot keep the analysis of %s: %s", plan->names[i],
                   strerror(errno));
      }
      for (uint64_t done = 0; !rc && !code && done < length; done += got) {
        size_t want = length - done < DATA_CHUNK ? (size_t)(length - done) : DATA_CHUNK;
        rc = m->p->recv(r, TAG_PART_DATA, buf, want, &got, err, err_size);
        if (!rc && (got == 0 || fwrite(buf, 1, got, spool) != got)) {
          snprintf(err, err_size, "cannot keep the analysis of %s: %s", plan->names[i],
                   got ? strerror(errno) : "empty message");
          rc = -1;
        }
      }
      off_t end = ftello(spool);
      if (!rc && (start < 0 || end < start)) {
        snprintf(err, err_size, "cannot keep the analysis of %s: %s", plan->names[i],
                 strerror(errno));
        rc = -1;
      }
      if (!rc)
        at[i] = (omplens_cli_part_at){spool, (uint64_t)start, (uint64_t)(end - start)};
    }
  free(buf);
  return rc;
}

int omplens_cli_mpi_send_result(const omplens_cli_mpi *m, int code, char *err, size_t err_size) {
  uint8_t c[4];
  omplens_le_set(c, (uint32_t)code, 4);
  for (int r = 1; r < m->size; r++)
    if (m->p->send(r, TAG_RESULT, c, 4, err, err_size))
      return -1;
  return 0;
}

int omplens_cli_mpi_recv_result(const omplens_cli_mpi *m, int *code, char *err, size_t err_size) {
  uint8_t c[4];
  size_t got;
  if (m->p->recv(0, TAG_RESULT, c, 4, &got, err, err_size))
    return -1;
  *code = got == 4 ? (int)(int32_t)omplens_le_get(c, 4) : 70;
  return 0;
}
