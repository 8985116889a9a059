# rocdoc_raw_string_parts(OUT CONTENT DELIMITER): appends to the variable OUT the text CONTENT as
# C++ raw-string literals R"DELIMITER(…)DELIMITER", one per line of OUT, each at most 8 KiB.
# A literal over 64 KiB is beyond what C++ compilers must support (clang warns with
# -Woverlength-strings), so large files are cut; each cut is at a line end, because CMake counts
# bytes and a cut inside a multi-byte UTF-8 character ("—") is an invalid literal to clang
# (-Winvalid-source-encoding). Used by EmbedDocs.cmake and WriteEmbeddedRules.cmake.
function(rocdoc_raw_string_parts out content delimiter)
  string(FIND "${content}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "the text contains the raw-string delimiter )${delimiter}\"")
  endif()
  set(parts "")
  string(LENGTH "${content}" length)
  set(offset 0)
  while(offset LESS length)
    string(SUBSTRING "${content}" ${offset} 8192 part)
    string(LENGTH "${part}" part_length)
    math(EXPR rest "${length} - ${offset}")
    if(part_length LESS rest)
      string(FIND "${part}" "\n" last_line_end REVERSE)
      if(last_line_end GREATER -1)
        math(EXPR part_length "${last_line_end} + 1")
        string(SUBSTRING "${part}" 0 ${part_length} part)
      endif()
    endif()
    string(APPEND parts "      R\"${delimiter}(${part})${delimiter}\",\n")
    math(EXPR offset "${offset} + ${part_length}")
  endwhile()
  set(${out} "${${out}}${parts}" PARENT_SCOPE)
endfunction()
