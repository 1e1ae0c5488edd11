# omplens_fix: suggested source changes for the findings (public header
# omplens_fix.h, internals fixes_internal.h, design note docs/fixes.md).
# Include this file from fix/CMakeLists.txt, after omplens_whatif is defined
# (the fixer then predicts savings with it) and after annotate/ (the
# directive index, omplens_directives, comes with omplens_annotate).
#
# Needs libclang 19 (Debian libclang-19-dev) through omplens_libclang
# (annotate/directives.cmake), which loads it on first need. The hash of a
# zero-filled buffer comes from omplens_trace (trace/content_hash.c).
if(NOT TARGET omplens_libclang)
  message(FATAL_ERROR "include annotate/ before fix/: omplens_fix needs omplens_libclang")
endif()

add_library(omplens_fix STATIC
  ${CMAKE_CURRENT_LIST_DIR}/fixes.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_ast.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_ast_index.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_evidence.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_header.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_init.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_loops.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_names.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_plan.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_pragma.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_rules.c
  ${CMAKE_CURRENT_LIST_DIR}/fixes_text.c
)
target_include_directories(omplens_fix PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(omplens_fix
  PUBLIC omplens_annotate omplens_detect omplens_trace
  PRIVATE omplens_libclang)
# The directive finder: part of omplens_annotate once annotate/directives.cmake
# is included there; named here too so that the link order holds either way.
if(TARGET omplens_directives)
  target_link_libraries(omplens_fix PUBLIC omplens_directives)
endif()
if(TARGET omplens_whatif)
  target_link_libraries(omplens_fix PRIVATE omplens_whatif)
  target_compile_definitions(omplens_fix PRIVATE OMPLENS_FIX_HAVE_WHATIF=1)
endif()
