/* A progress hook that records what it heard (test_trace.c, test_detect.c):
 * the hooks of omplens_trace_open_with and omplens_detect_trace_with may be
 * called from several threads. */
#ifndef OMPLENS_TESTS_PROGRESS_HEARD_H
#define OMPLENS_TESTS_PROGRESS_HEARD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct heard {
  pthread_mutex_t lock;
  size_t calls;
  uint64_t most, total;
  int bad; /* done past total, or total changed */
} heard;

static inline void hear(void *ctx, uint64_t done, uint64_t total) {
  heard *h = ctx;
  pthread_mutex_lock(&h->lock);
  if (h->calls++ && total != h->total)
    h->bad = 1;
  h->total = total;
  if (done > total)
    h->bad = 1;
  if (done > h->most)
    h->most = done;
  pthread_mutex_unlock(&h->lock);
}

#endif
