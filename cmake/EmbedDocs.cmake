# Embeds docs/checks.md into the binary: `rocdoc explain ID` prints the section of each check
# from it, so the page stays the one source of truth. A build step (no file is read at run
# time): one generated .cpp holding the page as raw strings, rewritten only when it changes.
#
# As a script (the build step): cmake -DOUT=file.cpp -DIN=checks.md -P EmbedDocs.cmake
if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${IN}" content)
  include("${CMAKE_CURRENT_LIST_DIR}/RawStringParts.cmake")
  # The page as literals of at most 8 KiB (RawStringParts.cmake says why), joined at first use.
  set(body "// Generated from docs/checks.md by cmake/EmbedDocs.cmake. Do not edit.\n")
  string(APPEND body "#include <string>\n\n#include \"src/knowledge/explain.h\"\n\nnamespace rocdoc {\n\n")
  string(APPEND body "std::string_view embedded_checks_doc() {\n")
  string(APPEND body "  static constexpr std::string_view parts[] = {\n")
  rocdoc_raw_string_parts(body "${content}" rocdoc_md)
  string(APPEND body "  };\n")
  string(APPEND body "  static const std::string text = [] {\n")
  string(APPEND body "    std::string joined;\n")
  string(APPEND body "    for (const std::string_view part : parts) {\n")
  string(APPEND body "      joined += part;\n")
  string(APPEND body "    }\n")
  string(APPEND body "    return joined;\n")
  string(APPEND body "  }();\n")
  string(APPEND body "  return text;\n}\n\n}  // namespace rocdoc\n")
  file(WRITE "${OUT}.tmp" "${body}")
  # cmake -E copy_if_different, not file(COPY_FILE) (CMake 3.21): the release build uses 3.18
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${OUT}.tmp" "${OUT}")
  return()
endif()

function(rocdoc_embed_docs out_var checks_md)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/checks_doc_embedded.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DIN=${checks_md} -P ${PROJECT_SOURCE_DIR}/cmake/EmbedDocs.cmake
    DEPENDS ${checks_md} ${PROJECT_SOURCE_DIR}/cmake/EmbedDocs.cmake
            ${PROJECT_SOURCE_DIR}/cmake/RawStringParts.cmake
    COMMENT "Embedding docs/checks.md"
    VERBATIM)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
