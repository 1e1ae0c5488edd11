# omplens_directives: from a source location to the OpenMP target directive
# responsible (omplens_directives.h, docs/directives.md). A static library of
# its own, so that it can be tested without the symbolizer's libdw; include
# this file from annotate/CMakeLists.txt after add_library(omplens_annotate)
# and omplens_annotate links it too.
#
# Needs libclang 19 (Debian libclang-19-dev) and jansson.
find_library(OMPLENS_LIBCLANG NAMES clang-19 clang
             PATHS ${OMPLENS_LLVM_DIR}/lib NO_DEFAULT_PATH REQUIRED)
set(OMPLENS_LIBCLANG_INCLUDE ${OMPLENS_LLVM_DIR}/include)
if(NOT EXISTS ${OMPLENS_LIBCLANG_INCLUDE}/clang-c/Index.h)
  message(FATAL_ERROR "clang-c/Index.h not found in ${OMPLENS_LIBCLANG_INCLUDE}: install libclang-19-dev")
endif()
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()

add_library(omplens_directives STATIC
  ${CMAKE_CURRENT_LIST_DIR}/directives.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_ast.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_build.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_clauses.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_compdb.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_macro.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_match.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_md5.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_pool.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_text.c
  ${CMAKE_CURRENT_LIST_DIR}/directives_unit.c
)
target_include_directories(omplens_directives PUBLIC ${CMAKE_CURRENT_LIST_DIR})
# SYSTEM: clang-c's own headers are not held to our warning flags.
target_include_directories(omplens_directives SYSTEM PRIVATE ${OMPLENS_LIBCLANG_INCLUDE})
target_link_libraries(omplens_directives PRIVATE ${OMPLENS_LIBCLANG} PkgConfig::JANSSON)

if(TARGET omplens_annotate)
  target_link_libraries(omplens_annotate PUBLIC omplens_directives)
endif()
