/* Runs a fuzz target's LLVMFuzzerTestOneInput once on each file named, or on
 * each file of each directory named: the committed corpus (and any crash
 * reproducer) as a regression test, in builds without libFuzzer.
 * usage: replay FILE|DIR...   (exit 0 when every input ran) */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  size_t cap = 1 << 16, size = 0;
  uint8_t *buf = malloc(cap);
  for (size_t k; buf && (k = fread(buf + size, 1, cap - size, f)) > 0;) {
    size += k;
    if (size == cap) {
      uint8_t *p = realloc(buf, cap *= 2);
      if (!p)
        free(buf);
      buf = p;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "%s: out of memory\n", path);
    return -1;
  }
  /* An exact-size copy, so that ASan sees reads past the input's end. */
  uint8_t *exact = malloc(size ? size : 1);
  if (!exact) {
    free(buf);
    return -1;
  }
  memcpy(exact, buf, size);
  free(buf);
  LLVMFuzzerTestOneInput(exact, size);
  free(exact);
  return 0;
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the files of dir in name order; returns how many ran, or -1. */
static int run_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    return -1;
  }
  char **names = NULL;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    char **p = realloc(names, (n + 1) * sizeof *names);
    if (!p)
      break;
    names = p;
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(len)))
      break;
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n)
    qsort(names, n, sizeof *names, cmp_name);
  int ran = 0;
  for (size_t i = 0; i < n; i++) {
    if (ran >= 0)
      ran = run_file(names[i]) ? -1 : ran + 1;
    free(names[i]);
  }
  free(names);
  return ran;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
  int total = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    int ran = -1;
    if (!stat(argv[i], &st))
      ran = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) ? -1 : 1;
    if (ran < 0) {
      fprintf(stderr, "%s: cannot run %s\n", argv[0], argv[i]);
      return 1;
    }
    total += ran;
  }
  if (!total) {
    fprintf(stderr, "%s: no input found\n", argv[0]);
    return 1;
  }
  printf("%d inputs ran without a crash\n", total);
  return 0;
}
