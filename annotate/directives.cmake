# omplens_directives: from a source location to the OpenMP target directive
# responsible (omplens_directives.h, docs/directives.md). A static library of
# its own, so that it can be tested without the symbolizer; include
# this file from annotate/CMakeLists.txt after add_library(omplens_annotate)
# and omplens_annotate links it too.
#
# Needs libclang 19 (Debian libclang-19-dev), jansson and libdw. libclang is not
# linked: omplens_libclang (libclang_dl.h) loads it with dlopen() on first
# need, so only its headers and the name of the library matter here.
find_library(OMPLENS_LIBCLANG NAMES clang-19 clang
             PATHS ${OMPLENS_LLVM_DIR}/lib NO_DEFAULT_PATH REQUIRED)
set(OMPLENS_LIBCLANG_INCLUDE ${OMPLENS_LLVM_DIR}/include)
if(NOT EXISTS ${OMPLENS_LIBCLANG_INCLUDE}/clang-c/Index.h)
  message(FATAL_ERROR "clang-c/Index.h not found in ${OMPLENS_LIBCLANG_INCLUDE}: install libclang-19-dev")
endif()
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()
find_package(Threads REQUIRED)

# The development symlink (libclang-19.so) leads to the file named by the
# SONAME (libclang-19.so.19), which is what the runtime package installs.
file(REAL_PATH ${OMPLENS_LIBCLANG} OMPLENS_LIBCLANG_REAL)
get_filename_component(OMPLENS_LIBCLANG_SONAME ${OMPLENS_LIBCLANG_REAL} NAME)

# omplens_libclang: the loader and its function table.
add_library(omplens_libclang STATIC ${CMAKE_CURRENT_LIST_DIR}/libclang_dl.c
            ${CMAKE_CURRENT_LIST_DIR}/libclang_cache.c
            ${CMAKE_CURRENT_LIST_DIR}/libclang_apart.c)
target_include_directories(omplens_libclang PUBLIC ${CMAKE_CURRENT_LIST_DIR})
# SYSTEM: clang-c's own headers are not held to our warning flags.
target_include_directories(omplens_libclang SYSTEM PUBLIC ${OMPLENS_LIBCLANG_INCLUDE})
target_compile_definitions(omplens_libclang PRIVATE
  OMPLENS_LIBCLANG_SONAME="${OMPLENS_LIBCLANG_SONAME}"
  OMPLENS_LIBCLANG_PATH="${OMPLENS_LIBCLANG_REAL}")
# xxhash: the parse cache's keys and content hashes (libclang_cache.c).
if(NOT TARGET PkgConfig::XXHASH)
  pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
endif()
target_link_libraries(omplens_libclang PRIVATE ${CMAKE_DL_LIBS} Threads::Threads
                      PkgConfig::XXHASH omplens_trace)
if(OMPLENS_SANITIZE)
  # LeakSanitizer (gcc 12) crashes at exit ("Tracer caught signal 11") when it
  # scans the dynamic TLS of a dlopen()ed libLLVM. Sanitized builds load
  # libclang at start-up instead, which makes its TLS static; the loader's
  # dlopen() then finds it already there. --no-as-needed: nothing refers to
  # its symbols.
  target_link_libraries(omplens_libclang PRIVATE "-Wl,--push-state,--no-as-needed"
                        ${OMPLENS_LIBCLANG} "-Wl,--pop-state")
endif()

add_library(omplens_directives STATIC
  ${CMAKE_CURRENT_LIST_DIR}/directives.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_ast.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_build.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_cache.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_clauses.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_compdb.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_includers.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_macro.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_match.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_md5.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_pool.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_producer.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_text.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_unit.c
  ${CMAKE_CURRENT_LIST_DIR}/function_names.c
)
target_include_directories(omplens_directives PUBLIC ${CMAKE_CURRENT_LIST_DIR})
# libdw reads the compile commands DWARF recorded (directives_producer.c).
if(NOT TARGET PkgConfig::LIBDW)
  pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
endif()
target_link_libraries(omplens_directives PRIVATE omplens_libclang PkgConfig::JANSSON
                      PkgConfig::LIBDW)
# The names map (omplens_names.h) of the index's path lists, which its
# internal header holds.
target_link_libraries(omplens_directives PUBLIC omplens_trace)

if(TARGET omplens_annotate)
  target_link_libraries(omplens_annotate PUBLIC omplens_directives)
endif()
