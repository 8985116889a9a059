# Embeds src/runtime/smoke.py (the script --smoke runs) into the binary as one raw string: the
# script is never read from disk at run time, so what runs is what was built and tested.
#
# As a script (the build step): cmake -DOUT=file.cpp -DIN=smoke.py -P EmbedSmoke.cmake
if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${IN}" content)
  string(FIND "${content}" ")rocdoc_py\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${IN} contains the raw-string delimiter )rocdoc_py\"")
  endif()
  set(body "// Generated from src/runtime/smoke.py by cmake/EmbedSmoke.cmake. Do not edit.\n")
  string(APPEND body "#include \"src/runtime/smoke_runner.h\"\n\nnamespace rocdoc::runtime {\n\n")
  string(APPEND body "std::string_view smoke_script() {\n  return R\"rocdoc_py(${content})rocdoc_py\";\n}\n\n")
  string(APPEND body "}  // namespace rocdoc::runtime\n")
  file(WRITE "${OUT}.tmp" "${body}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${OUT}.tmp" "${OUT}")
  return()
endif()

function(rocdoc_embed_smoke out_var script)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/smoke_script_embedded.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DIN=${script} -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSmoke.cmake
    DEPENDS ${script} ${PROJECT_SOURCE_DIR}/cmake/EmbedSmoke.cmake
    COMMENT "Embedding src/runtime/smoke.py"
    VERBATIM)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
