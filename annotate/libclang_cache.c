/* The cache of parse results and the accounting of libclang's cost (see
 * libclang_dl.h). An entry is one file, <dir>/<key in hex>.lcc:
 *
 *   magic "OMPLC\0\1\n", the key (two u64),
 *   u32 number of files the unit included, then per file: its path (u32
 *   length with the NUL, bytes), u64 size, u64 XXH3-64 of its content,
 *   u64 payload length, the payload,
 *   u64 XXH3-64 of everything before it.
 *
 * Integers are little-endian. An entry that fails any check is a miss. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "libclang_dl.h"
#include "omplens_names.h"

#define MAGIC "OMPLC\0\1\n"
#define MAGIC_LEN 8
/* Entries larger than this are not ours. */
#define MAX_ENTRY (256u << 20)
#define MAX_DEP_FILE (64u << 20)

static char *cache_dir;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void omplens_libclang_cache_at(const char *dir)
{
  pthread_mutex_lock(&lock);
  free(cache_dir);
  cache_dir = dir != NULL ? strdup(dir) : NULL;
  pthread_mutex_unlock(&lock);
}

char *omplens_libclang_cache_where(void)
{
  pthread_mutex_lock(&lock);
  char *dir = cache_dir != NULL ? strdup(cache_dir) : NULL;
  pthread_mutex_unlock(&lock);
  return dir;
}

bool omplens_libclang_cache_empty(void)
{
  char *dir = omplens_libclang_cache_where();
  DIR *d = dir != NULL ? opendir(dir) : NULL;
  free(dir);
  if (d == NULL)
    return true;
  const struct dirent *e;
  bool none = true;
  while (none && (e = readdir(d)) != NULL)
    none = e->d_name[0] == '.';
  closedir(d);
  return none;
}

/* ---- payloads ---- */

void omplens_libclang_put_bytes(omplens_libclang_writer *w, const void *p, size_t n)
{
  if (w->failed || n == 0)
    return;
  if (w->cap - w->len < n) {
    size_t cap = w->cap ? w->cap : 4096;
    while (cap - w->len < n)
      cap *= 2;
    unsigned char *d = realloc(w->data, cap);
    if (d == NULL) {
      w->failed = 1;
      return;
    }
    w->data = d;
    w->cap = cap;
  }
  memcpy(w->data + w->len, p, n);
  w->len += n;
}

void omplens_libclang_put_u32(omplens_libclang_writer *w, uint32_t v)
{
  unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  omplens_libclang_put_bytes(w, b, 4);
}

void omplens_libclang_put_u64(omplens_libclang_writer *w, uint64_t v)
{
  omplens_libclang_put_u32(w, (uint32_t)v);
  omplens_libclang_put_u32(w, (uint32_t)(v >> 32));
}

void omplens_libclang_put_str(omplens_libclang_writer *w, const char *s)
{
  if (s == NULL) {
    omplens_libclang_put_u32(w, 0);
    return;
  }
  size_t n = strlen(s) + 1;
  omplens_libclang_put_u32(w, (uint32_t)n);
  omplens_libclang_put_bytes(w, s, n);
}

const void *omplens_libclang_get_bytes(omplens_libclang_reader *r, size_t n)
{
  if (r->failed || (size_t)(r->end - r->at) < n) {
    r->failed = 1;
    return NULL;
  }
  const void *p = r->at;
  r->at += n;
  return p;
}

uint32_t omplens_libclang_get_u32(omplens_libclang_reader *r)
{
  const unsigned char *b = omplens_libclang_get_bytes(r, 4);
  return b == NULL ? 0
                   : (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                         (uint32_t)b[3] << 24;
}

uint64_t omplens_libclang_get_u64(omplens_libclang_reader *r)
{
  uint64_t lo = omplens_libclang_get_u32(r);
  return lo | (uint64_t)omplens_libclang_get_u32(r) << 32;
}

const char *omplens_libclang_get_str(omplens_libclang_reader *r)
{
  uint32_t n = omplens_libclang_get_u32(r);
  if (n == 0)
    return NULL;
  const char *s = omplens_libclang_get_bytes(r, n);
  if (s != NULL && (s[n - 1] != '\0' || memchr(s, '\0', n) != s + n - 1)) {
    r->failed = 1;
    return NULL;
  }
  return s;
}

/* ---- keys ---- */

static void hash_part(XXH3_state_t *st, const char *s)
{
  uint64_t n = s != NULL ? strlen(s) : UINT64_MAX;
  XXH3_128bits_update(st, &n, sizeof n);
  if (s != NULL)
    XXH3_128bits_update(st, s, (size_t)n);
}

/* omplens's own build: what it derives from a parse may change with it,
 * so a rebuilt omplens (another size or mtime of its executable) misses. */
static char build_id[64];
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

static void read_build_id(void)
{
  struct stat st;
  if (stat("/proc/self/exe", &st) == 0)
    snprintf(build_id, sizeof build_id, "%lld %lld.%09ld", (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

int omplens_libclang_key_of(const char *tag, const char *const *parts, size_t n,
                            omplens_libclang_key *out)
{
  pthread_once(&build_once, read_build_id);
  XXH3_state_t *st = XXH3_createState();
  if (st == NULL)
    return -1;
  XXH3_128bits_reset(st);
  hash_part(st, MAGIC);
  hash_part(st, tag);
  hash_part(st, build_id);
  hash_part(st, omplens_libclang_identity());
  for (size_t i = 0; i < n; i++)
    hash_part(st, parts[i]);
  XXH128_hash_t h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  out->low = h.low64;
  out->high = h.high64;
  return 0;
}

/* ---- the files a unit included ---- */

/* Content hashes, read once per process: units share their headers. */
typedef struct dep {
  char *path;
  uint64_t size, hash;
  int ok;
} dep;
static dep *deps;
static size_t num_deps, cap_deps;
static omplens_names dep_index; /* path -> index in deps */

static int read_file(const char *path, size_t max, unsigned char **data, size_t *len)
{
  FILE *f = fopen(path, "rb");
  struct stat st;
  *data = NULL;
  if (f == NULL || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
      (uint64_t)st.st_size > max) {
    if (f != NULL)
      fclose(f);
    return -1;
  }
  *len = (size_t)st.st_size;
  *data = malloc(*len + 1);
  int ok = *data != NULL && fread(*data, 1, *len, f) == *len;
  fclose(f);
  if (!ok) {
    free(*data);
    *data = NULL;
  }
  return ok ? 0 : -1;
}

static dep *dep_find(const char *path)
{
  size_t i = omplens_names_get(&dep_index, path);
  return i != OMPLENS_NAMES_NONE ? &deps[i] : NULL;
}

/* path's size and content hash; 0, or -1 when it cannot be read. */
static int dep_hash(const char *path, uint64_t *size, uint64_t *hash)
{
  pthread_mutex_lock(&lock);
  dep *d = dep_find(path);
  dep copy = d != NULL ? *d : (dep){0};
  pthread_mutex_unlock(&lock);
  if (d == NULL) {
    unsigned char *data;
    size_t len = 0;
    copy.ok = read_file(path, MAX_DEP_FILE, &data, &len) == 0;
    copy.size = len;
    copy.hash = copy.ok ? XXH3_64bits(data, len) : 0;
    free(data);
    pthread_mutex_lock(&lock);
    if (dep_find(path) == NULL && num_deps == cap_deps) {
      size_t cap = cap_deps ? 2 * cap_deps : 64;
      dep *p = realloc(deps, cap * sizeof *p);
      if (p != NULL) {
        deps = p;
        cap_deps = cap;
      }
    }
    if (dep_find(path) == NULL && num_deps < cap_deps &&
        (copy.path = strdup(path)) != NULL) {
      if (omplens_names_put(&dep_index, copy.path, num_deps) == 0)
        deps[num_deps++] = copy;
      else
        free(copy.path); /* not kept: hashed again when asked again */
    }
    pthread_mutex_unlock(&lock);
  }
  *size = copy.size;
  *hash = copy.hash;
  return copy.ok ? 0 : -1;
}

typedef struct inclusions {
  const omplens_libclang *lc;
  char **paths;
  size_t n, cap;
  int failed;
} inclusions;

static char *included_path(const omplens_libclang *lc, CXFile f)
{
  CXString s = lc->File_tryGetRealPathName(f);
  const char *c = lc->getCString(s);
  char *out = c != NULL && c[0] != '\0' ? strdup(c) : NULL;
  lc->disposeString(s);
  if (out == NULL) {
    s = lc->getFileName(f);
    c = lc->getCString(s);
    out = c != NULL ? realpath(c, NULL) : NULL;
    lc->disposeString(s);
  }
  return out;
}

static void on_inclusion(CXFile f, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
  (void)stack;
  (void)depth;
  inclusions *in = data;
  char *path = included_path(in->lc, f);
  for (size_t i = 0; path != NULL && i < in->n; i++)
    if (strcmp(in->paths[i], path) == 0) {
      free(path);
      return;
    }
  if (path != NULL && in->n == in->cap) {
    size_t cap = in->cap ? 2 * in->cap : 64;
    char **p = realloc(in->paths, cap * sizeof *p);
    if (p != NULL) {
      in->paths = p;
      in->cap = cap;
    }
  }
  if (path == NULL || in->n == in->cap) {
    free(path);
    in->failed = 1;
    return;
  }
  in->paths[in->n++] = path;
}

/* ---- entries ---- */

static char *entry_path(const omplens_libclang_key *key, const char *suffix)
{
  pthread_mutex_lock(&lock);
  char *out = NULL;
  if (cache_dir != NULL) {
    size_t n = strlen(cache_dir) + 64;
    out = malloc(n);
    if (out != NULL)
      snprintf(out, n, "%s/%016llx%016llx%s", cache_dir, (unsigned long long)key->high,
               (unsigned long long)key->low, suffix);
  }
  pthread_mutex_unlock(&lock);
  return out;
}

/* Whether every file an entry lists still has its content. */
static int deps_current(omplens_libclang_reader *r)
{
  uint32_t n = omplens_libclang_get_u32(r);
  for (uint32_t i = 0; i < n && !r->failed; i++) {
    const char *path = omplens_libclang_get_str(r);
    uint64_t size = omplens_libclang_get_u64(r), hash = omplens_libclang_get_u64(r);
    uint64_t now_size, now_hash;
    if (r->failed || path == NULL || dep_hash(path, &now_size, &now_hash) != 0 ||
        now_size != size || now_hash != hash)
      return 0;
  }
  return !r->failed;
}

void *omplens_libclang_cache_load(const omplens_libclang_key *key, size_t *len)
{
  *len = 0;
  char *path = entry_path(key, ".lcc");
  unsigned char *data = NULL;
  size_t size = 0;
  int ok = path != NULL && read_file(path, MAX_ENTRY, &data, &size) == 0 &&
           size >= MAGIC_LEN + 16 + 4 + 8 + 8;
  free(path);
  if (!ok) {
    free(data);
    return NULL;
  }
  omplens_libclang_reader r = {data, data + size - 8, 0};
  ok = XXH3_64bits(data, size - 8) ==
                 omplens_libclang_get_u64(&(omplens_libclang_reader){data + size - 8, data + size, 0});
  ok = ok && memcmp(omplens_libclang_get_bytes(&r, MAGIC_LEN), MAGIC, MAGIC_LEN) == 0;
  ok = ok && omplens_libclang_get_u64(&r) == key->low && omplens_libclang_get_u64(&r) == key->high;
  ok = ok && deps_current(&r);
  uint64_t n = ok ? omplens_libclang_get_u64(&r) : 0;
  const void *payload = ok ? omplens_libclang_get_bytes(&r, (size_t)n) : NULL;
  void *out = payload != NULL && r.at == r.end ? malloc(n ? (size_t)n : 1) : NULL;
  if (out != NULL) {
    memcpy(out, payload, (size_t)n);
    *len = (size_t)n;
  }
  free(data);
  return out;
}

static void make_dirs(const char *entry)
{
  char *dir = strdup(entry);
  char *slash = dir != NULL ? strrchr(dir, '/') : NULL;
  if (slash != NULL && slash != dir) {
    *slash = '\0';
    char *parent = strrchr(dir, '/');
    if (parent != NULL && parent != dir) {
      *parent = '\0';
      mkdir(dir, 0777); /* the output directory */
      *parent = '/';
    }
    mkdir(dir, 0777);
  }
  free(dir);
}

static int write_entry(const char *path, const omplens_libclang_writer *w)
{
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%ld.%lx.tmp", path, (long)getpid(), (unsigned long)pthread_self());
  FILE *f = fopen(tmp, "wb");
  if (f == NULL)
    return -1;
  int ok = fwrite(w->data, 1, w->len, f) == w->len;
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

void omplens_libclang_cache_store(const omplens_libclang_key *key,
                                  const CXTranslationUnit *tus, size_t num_tus,
                                  const void *payload, size_t len)
{
  const omplens_libclang *lc = omplens_libclang_load();
  char *path = entry_path(key, ".lcc");
  if (path == NULL || lc == NULL) {
    free(path);
    return;
  }
  inclusions in = {lc, NULL, 0, 0, 0};
  for (size_t i = 0; i < num_tus; i++)
    if (tus[i] != NULL)
      lc->getInclusions(tus[i], on_inclusion, &in);
  omplens_libclang_writer w = {0};
  omplens_libclang_put_bytes(&w, MAGIC, MAGIC_LEN);
  omplens_libclang_put_u64(&w, key->low);
  omplens_libclang_put_u64(&w, key->high);
  omplens_libclang_put_u32(&w, (uint32_t)in.n);
  for (size_t i = 0; i < in.n; i++) {
    uint64_t size = 0, hash = 0;
    in.failed = in.failed || dep_hash(in.paths[i], &size, &hash) != 0;
    omplens_libclang_put_str(&w, in.paths[i]);
    omplens_libclang_put_u64(&w, size);
    omplens_libclang_put_u64(&w, hash);
  }
  omplens_libclang_put_u64(&w, len);
  omplens_libclang_put_bytes(&w, payload, len);
  if (!w.failed)
    omplens_libclang_put_u64(&w, XXH3_64bits(w.data, w.len));
  /* A unit whose files cannot all be read again cannot be checked. */
  if (!w.failed && !in.failed && in.n > 0) {
    make_dirs(path);
    write_entry(path, &w);
  }
  for (size_t i = 0; i < in.n; i++)
    free(in.paths[i]);
  free(in.paths);
  free(w.data);
  free(path);
}

/* ---- accounting ---- */

static omplens_libclang_cost cost;

double omplens_libclang_clock(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void omplens_libclang_count(double since, int from_cache)
{
  double now = omplens_libclang_clock();
  pthread_mutex_lock(&lock);
  if (from_cache)
    cost.cached++;
  else
    cost.parsed++;
  cost.seconds += now - since;
  pthread_mutex_unlock(&lock);
}

void omplens_libclang_cost_get(omplens_libclang_cost *out)
{
  pthread_mutex_lock(&lock);
  *out = cost;
  pthread_mutex_unlock(&lock);
}
