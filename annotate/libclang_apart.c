/* libclang's parses in helper processes (see libclang_dl.h). A helper is
 * the caller's own program started anew (never forked: a fork would carry
 * the report's memory into it), talking over a socket on its standard
 * input. One request, one reply:
 *
 *   request: u32 length and bytes of the job's name, u32 number of parts,
 *            then per part u32 length (NULL_PART for a NULL part) and bytes
 *   reply:   u32 the job's return value
 *
 * Integers are in the machine's order: both ends are the same binary. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libclang_dl.h"

extern char **environ;

#define NULL_PART UINT32_MAX
#define MAX_PART (1u << 30)
#define MAX_PARTS 65536u
/* As many as the directive index's parse threads, and the fixer's. */
#define MAX_HELPERS 4

typedef struct helper {
  pid_t pid;
  int fd;    /* our end of its socket; -1: no helper in this slot */
  bool busy; /* a thread is using it */
} helper;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static helper helpers[MAX_HELPERS] = {{0, -1, false}, {0, -1, false}, {0, -1, false},
                                      {0, -1, false}};
static char *exe, *command;
static unsigned started;

void omplens_libclang_apart_with(const char *program, const char *cmd)
{
  pthread_mutex_lock(&lock);
  free(exe);
  free(command);
  exe = program != NULL ? strdup(program) : NULL;
  command = program != NULL && cmd != NULL ? strdup(cmd) : NULL;
  if (command == NULL) {
    free(exe);
    exe = NULL;
  }
  pthread_mutex_unlock(&lock);
}

unsigned omplens_libclang_helpers_started(void)
{
  pthread_mutex_lock(&lock);
  unsigned n = started;
  pthread_mutex_unlock(&lock);
  return n;
}

/* ---- the wire ---- */

/* All n bytes at p sent, or received: false on an error, or at the end of
 * the stream. */
static bool move_all(int fd, char *at, size_t n, bool sending)
{
  while (n > 0) {
    ssize_t k = sending ? send(fd, at, n, MSG_NOSIGNAL) : recv(fd, at, n, 0);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return false;
    at += k;
    n -= (size_t)k;
  }
  return true;
}

static bool send_all(int fd, const void *p, size_t n)
{
  return move_all(fd, (char *)p, n, true);
}

static bool recv_all(int fd, void *p, size_t n)
{
  return move_all(fd, p, n, false);
}

static bool send_u32(int fd, uint32_t v)
{
  return send_all(fd, &v, sizeof v);
}

static bool send_part(int fd, const char *s)
{
  if (s == NULL)
    return send_u32(fd, NULL_PART);
  size_t n = strlen(s);
  return n < MAX_PART && send_u32(fd, (uint32_t)n) && send_all(fd, s, n);
}

/* A part read into malloc'd memory (*out NULL for a NULL part). */
static bool recv_part(int fd, char **out)
{
  uint32_t n;
  *out = NULL;
  if (!recv_all(fd, &n, sizeof n))
    return false;
  if (n == NULL_PART)
    return true;
  if (n >= MAX_PART || (*out = malloc(n + 1u)) == NULL)
    return false;
  (*out)[n] = '\0';
  return recv_all(fd, *out, n);
}

/* ---- the caller's side ---- */

/* A new helper in h, or false (the caller then parses itself). Called with
 * the lock held: the socket's descriptor must not reach another helper. */
static bool spawn_helper(helper *h, const char *cache)
{
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return false;
  posix_spawn_file_actions_t fa;
  bool ok = posix_spawn_file_actions_init(&fa) == 0;
  if (ok) {
    /* dup2 clears close-on-exec on the copy: the helper keeps its end. */
    ok = posix_spawn_file_actions_adddup2(&fa, sv[1], 0) == 0 &&
         posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) == 0;
    char *argv[] = {exe, command, (char *)cache, NULL};
    ok = ok && posix_spawn(&h->pid, exe, &fa, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&fa);
  }
  close(sv[1]);
  if (!ok) {
    close(sv[0]);
    return false;
  }
  h->fd = sv[0];
  started++;
  return true;
}

/* An idle helper, started when none is, marked busy; NULL when none can be
 * had. */
static helper *take_helper(void)
{
  char *cache = omplens_libclang_cache_where();
  helper *got = NULL;
  pthread_mutex_lock(&lock);
  while (exe != NULL && cache != NULL && got == NULL) {
    helper *empty = NULL;
    for (size_t i = 0; i < MAX_HELPERS && got == NULL; i++) {
      if (helpers[i].fd >= 0 && !helpers[i].busy)
        got = &helpers[i];
      else if (helpers[i].fd < 0 && empty == NULL)
        empty = &helpers[i];
    }
    if (got == NULL && empty != NULL) {
      if (!spawn_helper(empty, cache))
        break;
      got = empty;
    }
    if (got == NULL)
      pthread_cond_wait(&freed, &lock);
  }
  if (got != NULL)
    got->busy = true;
  pthread_mutex_unlock(&lock);
  free(cache);
  return got;
}

void omplens_libclang_apart_warm(void)
{
  char *cache = omplens_libclang_cache_where();
  pthread_mutex_lock(&lock);
  bool any = false;
  for (size_t i = 0; i < MAX_HELPERS; i++)
    any = any || helpers[i].fd >= 0;
  if (exe != NULL && cache != NULL && !any)
    spawn_helper(&helpers[0], cache); /* none: the first job starts one */
  pthread_mutex_unlock(&lock);
  free(cache);
}

static void give_back(helper *h)
{
  pthread_mutex_lock(&lock);
  h->busy = false;
  pthread_cond_broadcast(&freed);
  pthread_mutex_unlock(&lock);
}

/* The helper stopped answering: its slot is emptied; the signal that ended
 * it, or 0. */
static int bury(helper *h)
{
  close(h->fd);
  int status = 0, sig = 0;
  while (waitpid(h->pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (WIFSIGNALED(status))
    sig = WTERMSIG(status);
  pthread_mutex_lock(&lock);
  h->fd = -1;
  h->busy = false;
  pthread_cond_broadcast(&freed);
  pthread_mutex_unlock(&lock);
  return sig;
}

static bool send_request(int fd, const char *job, const char *const *parts, size_t n)
{
  bool ok = n <= MAX_PARTS && send_part(fd, job) && send_u32(fd, (uint32_t)n);
  for (size_t i = 0; ok && i < n; i++)
    ok = send_part(fd, parts[i]);
  return ok;
}

int omplens_libclang_apart(const char *job, const char *const *parts, size_t n, int *sig)
{
  *sig = 0;
  helper *h = take_helper();
  if (h == NULL)
    return OMPLENS_LIBCLANG_HERE;
  uint32_t rc;
  if (send_request(h->fd, job, parts, n) && recv_all(h->fd, &rc, sizeof rc)) {
    give_back(h);
    return OMPLENS_LIBCLANG_APART;
  }
  /* Ended without an answer: a parse here would likely end this process. */
  *sig = bury(h);
  return OMPLENS_LIBCLANG_CRASHED;
}

void omplens_libclang_apart_end(void)
{
  for (size_t i = 0; i < MAX_HELPERS; i++) {
    pthread_mutex_lock(&lock);
    bool live = helpers[i].fd >= 0 && !helpers[i].busy;
    if (live)
      helpers[i].busy = true;
    pthread_mutex_unlock(&lock);
    if (live) {
      shutdown(helpers[i].fd, SHUT_WR); /* the end of its requests: it exits */
      bury(&helpers[i]);
    }
  }
}

/* ---- the helper's side ---- */

static void free_parts(char **parts, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(parts[i]);
  free(parts);
}

/* One request read and run: 1, or 0 at the end of the requests, -1 on a
 * request that is not one. */
static int serve_one(int fd, const omplens_libclang_job *jobs, size_t num_jobs)
{
  char *name = NULL;
  uint32_t n = 0;
  if (!recv_part(fd, &name)) {
    bool ended = name == NULL;
    free(name);
    return ended ? 0 : -1;
  }
  char **parts = name != NULL && recv_all(fd, &n, sizeof n) && n <= MAX_PARTS
                     ? calloc(n ? n : 1, sizeof *parts)
                     : NULL;
  bool ok = parts != NULL;
  for (uint32_t i = 0; ok && i < n; i++)
    ok = recv_part(fd, &parts[i]);
  const omplens_libclang_job *j = NULL;
  for (size_t i = 0; ok && i < num_jobs && j == NULL; i++)
    if (!strcmp(jobs[i].name, name))
      j = &jobs[i];
  int rc = j != NULL ? j->run((const char *const *)parts, n) : -1;
  if (j != NULL)
    omplens_libclang_release_code(); /* idle until the next request */
  free(name);
  if (parts != NULL)
    free_parts(parts, n);
  return j != NULL && send_u32(fd, (uint32_t)rc) ? 1 : -1;
}

int omplens_libclang_serve(int fd, const char *cache_dir, const omplens_libclang_job *jobs,
                           size_t num_jobs)
{
  omplens_libclang_cache_at(cache_dir);
  int more;
  while ((more = serve_one(fd, jobs, num_jobs)) > 0)
    ;
  return more < 0 ? -1 : 0;
}
