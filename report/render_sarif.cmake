# SARIF and timeline renderers (docs/sarif-and-timeline.md). Included from
# report/CMakeLists.txt after omplens_report is defined.
target_sources(omplens_report PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/render_sarif.c
  ${CMAKE_CURRENT_LIST_DIR}/render_timeline.c)
