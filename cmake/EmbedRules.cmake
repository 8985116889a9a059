# Embeds rules/*.yaml into the binary: one generated .cpp holding each file as a raw string.
function(rocdoc_embed_rules out_var rules_dir)
  file(GLOB rule_files CONFIGURE_DEPENDS "${rules_dir}/*.yaml")
  list(SORT rule_files)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/rules_embedded.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DFILES=${rule_files}" -P ${PROJECT_SOURCE_DIR}/cmake/WriteEmbeddedRules.cmake
    DEPENDS ${rule_files} ${PROJECT_SOURCE_DIR}/cmake/WriteEmbeddedRules.cmake
            ${PROJECT_SOURCE_DIR}/cmake/RawStringParts.cmake
    COMMENT "Embedding rules/*.yaml"
    VERBATIM)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
