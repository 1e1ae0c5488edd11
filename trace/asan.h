/* OMPLENS_ASAN: 1 when this file is compiled with AddressSanitizer (GCC
 * or clang), else 0. Code that would bypass its checks (a mapping of its
 * own, streamed stores) takes the plain path instead, so that the
 * sanitizer build and the fuzzers see every access. Internal to trace/. */
#ifndef OMPLENS_TRACE_ASAN_H
#define OMPLENS_TRACE_ASAN_H

#if defined(__SANITIZE_ADDRESS__)
#define OMPLENS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OMPLENS_ASAN 1
#endif
#endif
#ifndef OMPLENS_ASAN
#define OMPLENS_ASAN 0
#endif

#endif
