# report.html and report.md renderers (docs/report.md), included from
# report/CMakeLists.txt. Adds the sources to omplens_report, embeds the
# templates of templates/ at build time (render_html_embed.cmake, CMake
# only) and links libcmark for the Markdown narrative.
pkg_check_modules(CMARK REQUIRED IMPORTED_TARGET libcmark)

set(OMPLENS_TEMPLATES
  page.html report.css report.js
  summary.html category.html process.html
  directives.html directive_row.html table_head.html profile.html profile_row.html
  findings.html finding.html instance_row.html instance_ids.html
  sources.html source_file.html source_line.html source_note.html source_missing.html
  timeline.html ranks.html
  empty.html)
list(TRANSFORM OMPLENS_TEMPLATES PREPEND ${CMAKE_CURRENT_LIST_DIR}/../templates/)
string(REPLACE ";" "|" omplens_template_inputs "${OMPLENS_TEMPLATES}")

set(omplens_templates_c ${CMAKE_CURRENT_BINARY_DIR}/render_html_templates.c)
set(omplens_templates_h ${CMAKE_CURRENT_BINARY_DIR}/render_html_templates.h)
add_custom_command(
  OUTPUT ${omplens_templates_c} ${omplens_templates_h}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT_C=${omplens_templates_c} -DOUTPUT_H=${omplens_templates_h}
          "-DINPUTS=${omplens_template_inputs}" -P ${CMAKE_CURRENT_LIST_DIR}/render_html_embed.cmake
  DEPENDS ${OMPLENS_TEMPLATES} ${CMAKE_CURRENT_LIST_DIR}/render_html_embed.cmake
  COMMENT "Embedding report templates" VERBATIM)

target_sources(omplens_report PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/render_md_util.c
  ${CMAKE_CURRENT_LIST_DIR}/render_markdown.c
  ${CMAKE_CURRENT_LIST_DIR}/render_html.c
  ${CMAKE_CURRENT_LIST_DIR}/render_html_util.c
  ${CMAKE_CURRENT_LIST_DIR}/render_html_source.c
  ${CMAKE_CURRENT_LIST_DIR}/render_html_timeline.c
  ${omplens_templates_c})
# PUBLIC: the unit test includes render_html_internal.h, which includes the
# generated header.
target_include_directories(omplens_report PUBLIC ${CMAKE_CURRENT_BINARY_DIR})
target_link_libraries(omplens_report PUBLIC PkgConfig::CMARK)
