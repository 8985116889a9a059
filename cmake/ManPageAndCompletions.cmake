# The man page and the shell completions, generated into the build tree from one source each;
# cmake/Install.cmake installs them (and so the packages hold them):
#
#   ${CMAKE_BINARY_DIR}/rocdoc.1                  from docs/rocdoc.1.md by rocdoc_manc
#                                                 (src/man/roff.cpp; no pandoc), target rocdoc_man
#   ${CMAKE_BINARY_DIR}/completions/rocdoc.bash   `rocdoc completions bash|zsh|fish`, run on the
#   ${CMAKE_BINARY_DIR}/completions/_rocdoc       built binary: it walks its own CLI11 app and
#   ${CMAKE_BINARY_DIR}/completions/rocdoc.fish   check table (src/commands/completions.cpp), target
#                                                 rocdoc_completions
#
# Both targets are part of the default build. Included after the rocdoc target exists.
add_library(rocdoc_man_page STATIC src/man/roff.cpp)
target_include_directories(rocdoc_man_page PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(rocdoc_man_page PUBLIC fmt::fmt-header-only PRIVATE rocdoc_warnings)
add_executable(rocdoc_manc src/man/compiler.cpp)
target_link_libraries(rocdoc_manc PRIVATE rocdoc_man_page rocdoc_warnings)

string(TIMESTAMP rocdoc_man_date "%Y-%m-%d" UTC)  # from SOURCE_DATE_EPOCH when it is set
set(rocdoc_man_source "${PROJECT_SOURCE_DIR}/docs/rocdoc.1.md")
add_custom_command(
  OUTPUT "${CMAKE_BINARY_DIR}/rocdoc.1"
  COMMAND rocdoc_manc "${CMAKE_BINARY_DIR}/rocdoc.1" "${rocdoc_man_source}" "${PROJECT_VERSION}"
          "${rocdoc_man_date}"
  DEPENDS rocdoc_manc "${rocdoc_man_source}"
  COMMENT "Generating the man page rocdoc.1 from docs/rocdoc.1.md"
  VERBATIM)
add_custom_target(rocdoc_man ALL DEPENDS "${CMAKE_BINARY_DIR}/rocdoc.1")

set(rocdoc_completion_files "${CMAKE_BINARY_DIR}/completions/rocdoc.bash"
                            "${CMAKE_BINARY_DIR}/completions/_rocdoc"
                            "${CMAKE_BINARY_DIR}/completions/rocdoc.fish")
add_custom_command(
  OUTPUT ${rocdoc_completion_files}
  COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_BINARY_DIR}/completions"
  COMMAND rocdoc completions bash > "${CMAKE_BINARY_DIR}/completions/rocdoc.bash"
  COMMAND rocdoc completions zsh > "${CMAKE_BINARY_DIR}/completions/_rocdoc"
  COMMAND rocdoc completions fish > "${CMAKE_BINARY_DIR}/completions/rocdoc.fish"
  DEPENDS rocdoc
  COMMENT "Generating the bash, zsh and fish completions (rocdoc completions SHELL)"
  VERBATIM)
add_custom_target(rocdoc_completions ALL DEPENDS ${rocdoc_completion_files})
