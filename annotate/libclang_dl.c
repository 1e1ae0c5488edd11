/* libclang, loaded on first need (see libclang_dl.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "libclang_dl.h"

/* Set by annotate/directives.cmake from the libclang found at build time. */
#ifndef OMPLENS_LIBCLANG_SONAME
#define OMPLENS_LIBCLANG_SONAME "libclang-19.so.19"
#endif
#ifndef OMPLENS_LIBCLANG_PATH
#define OMPLENS_LIBCLANG_PATH "/usr/lib/llvm-19/lib/" OMPLENS_LIBCLANG_SONAME
#endif

static omplens_libclang table;
static const omplens_libclang *loaded;
static char why[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlopen() of name, or NULL with the loader's reason in why. */
static void *open_library(const char *name)
{
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    snprintf(why, sizeof(why), "libclang could not be loaded (%s)",
             e != NULL ? e : name);
  }
  return h;
}

static void *open_any(void)
{
  const char *chosen = getenv("OMPLENS_LIBCLANG");
  if (chosen != NULL && chosen[0] != '\0')
    return open_library(chosen);
  void *h = open_library(OMPLENS_LIBCLANG_SONAME);
  return h != NULL ? h : open_library(OMPLENS_LIBCLANG_PATH);
}

/* Fills the table; false (with why) on the first missing function. */
static int resolve(void *h)
{
  /* POSIX guarantees that dlsym's void * converts to a function pointer. */
#define OMPLENS_LIBCLANG__RESOLVE(name)                                        \
  table.name = (__typeof__(table.name))dlsym(h, "clang_" #name);               \
  if (table.name == NULL) {                                                    \
    snprintf(why, sizeof(why),                                                 \
             "libclang could not be loaded (it lacks clang_" #name ")");      \
    return 0;                                                                  \
  }
  OMPLENS_LIBCLANG_FUNCTIONS(OMPLENS_LIBCLANG__RESOLVE)
#undef OMPLENS_LIBCLANG__RESOLVE
  return 1;
}

static void load_once(void)
{
  void *h = open_any();
  /* Never dlclose()d, not even a library that lacks a function: LLVM's
   * static destructors do not survive being unloaded. */
  if (h != NULL && resolve(h)) {
    why[0] = '\0';
    loaded = &table;
  }
}

const omplens_libclang *omplens_libclang_load(void)
{
  pthread_once(&once, load_once);
  return loaded;
}

static char identity[768];
static pthread_once_t identity_once = PTHREAD_ONCE_INIT;

/* The library the loader would take, named and stat'ed without loading it:
 * OMPLENS_LIBCLANG, else the build's path (where Debian puts the soname). */
static void read_identity(void)
{
  const char *chosen = getenv("OMPLENS_LIBCLANG");
  const char *path = chosen != NULL && chosen[0] != '\0' ? chosen : OMPLENS_LIBCLANG_PATH;
  struct stat st;
  if (stat(path, &st) == 0)
    snprintf(identity, sizeof(identity), "%s %lld %lld.%09ld", path, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  else
    snprintf(identity, sizeof(identity), "%s", path);
}

const char *omplens_libclang_identity(void)
{
  pthread_once(&identity_once, read_identity);
  return identity;
}

const char *omplens_libclang_strerror(void)
{
  return why;
}
