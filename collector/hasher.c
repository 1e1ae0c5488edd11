/* Background hashing for the collector: see hasher.h. */
#include "hasher.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SLOTS 64

enum { FREE, CLAIMED, POSTED, TAKEN, DONE };

typedef struct job {
  _Atomic uint32_t state;
  const void *p;
  size_t n;
  uint64_t hash;
} job;

static job slots[SLOTS];
static _Atomic uint32_t posted; /* futex word: bumped on every post */
static int running;

static void futex_wait(_Atomic uint32_t *addr, uint32_t expected) {
  syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr) {
  syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Jobs posted with the low bit of n set hash one half only (a part job). */
static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    uint32_t seen = atomic_load(&posted);
    int found = 0;
    for (int i = 0; i < SLOTS; i++) {
      uint32_t expect = POSTED;
      if (!atomic_compare_exchange_strong(&slots[i].state, &expect, TAKEN))
        continue;
      found = 1;
      job *j = &slots[i];
      j->hash = (j->n & 1) ? omplens_hash_part(j->p, j->n >> 1) : omplens_content_hash(j->p, j->n >> 1);
      atomic_store_explicit(&j->state, DONE, memory_order_release);
      futex_wake(&j->state);
    }
    if (!found)
      futex_wait(&posted, seen);
  }
  return NULL;
}

/* A forked child has no worker: it hashes inline from then on. */
static void after_fork_in_child(void) { running = 0; }

int omplens_hasher__start(void) {
  pthread_t t;
  pthread_attr_t attr;
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
    return -1; /* one core: a second thread only adds switches */
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, worker, NULL);
  pthread_attr_destroy(&attr);
  running = rc == 0;
  if (running)
    pthread_atfork(NULL, NULL, after_fork_in_child);
  return running ? 0 : -1;
}

static int post(const void *p, size_t encoded) {
  if (!running)
    return -1;
  for (int i = 0; i < SLOTS; i++) {
    uint32_t expect = FREE;
    if (!atomic_compare_exchange_strong(&slots[i].state, &expect, CLAIMED))
      continue;
    slots[i].p = p;
    slots[i].n = encoded;
    atomic_store_explicit(&slots[i].state, POSTED, memory_order_release);
    atomic_fetch_add(&posted, 1);
    futex_wake(&posted);
    return i;
  }
  return -1;
}

int omplens_hasher__post(const void *p, size_t n) {
  if (n > SIZE_MAX / 2)
    return -1;
  return post(p, n << 1);
}

uint64_t omplens_hasher__collect(int ticket) {
  job *j = &slots[ticket];
  uint32_t s;
  for (int spin = 0; (s = atomic_load_explicit(&j->state, memory_order_acquire)) != DONE; spin++)
    if (spin > 1000)
      futex_wait(&j->state, s);
  uint64_t h = j->hash;
  atomic_store_explicit(&j->state, FREE, memory_order_release);
  return h;
}

uint64_t omplens_hasher__hash(const void *p, size_t n) {
  if (n < OMPLENS_HASH_SPLIT)
    return omplens_content_hash(p, n);
  size_t half = n / 2;
  int ticket = post((const char *)p + half, ((n - half) << 1) | 1);
  uint64_t first = omplens_hash_part(p, half);
  uint64_t second = ticket >= 0 ? omplens_hasher__collect(ticket)
                                : omplens_hash_part((const char *)p + half, n - half);
  return omplens_hash_combine(first, second);
}
