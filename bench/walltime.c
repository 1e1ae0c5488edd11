/* walltime: runs a program once and prints its wall time and CPU time in
 * nanoseconds, on one line: "WALL CPU".
 *
 *   walltime PROGRAM [ARGS...]
 *
 * The program's stdout and stderr go to /dev/null, so that its printing does
 * not depend on the terminal. The time spans posix_spawn to wait4 on
 * CLOCK_MONOTONIC: the whole process, start-up and exit included, without
 * the cost of a `date` process on either side. CPU time is the program's
 * user + system time (wait4), all its threads; it is less sensitive than wall
 * time to other load on the machine. Exits with the program's
 * status (128 + signal when killed), or 127 when it cannot be started. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

enum exit_code { EXIT_USAGE = 64, EXIT_CANNOT_RUN = 127 };

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int exit_status_of(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: walltime PROGRAM [ARGS...]\n");
    return EXIT_USAGE;
  }
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  uint64_t start = now_ns();
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[1], &quiet, NULL, argv + 1, environ);
  if (rc) {
    fprintf(stderr, "walltime: cannot run %s: %s\n", argv[1], strerror(rc));
    return EXIT_CANNOT_RUN;
  }
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "walltime: lost %s: %s\n", argv[1], strerror(errno));
      return EXIT_CANNOT_RUN;
    }
  }
  uint64_t elapsed = now_ns() - start;
  posix_spawn_file_actions_destroy(&quiet);
  uint64_t cpu = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
                 ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
  printf("%" PRIu64 " %" PRIu64 "\n", elapsed, cpu);
  return exit_status_of(status);
}
