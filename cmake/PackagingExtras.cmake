# Run by cpack while it stages the .deb or the .rpm (CPACK_INSTALL_SCRIPTS, set per generator in
# cmake/PackagingProjectConfig.cmake). `cmake --install` never runs it. CPack stages into
# CPACK_TEMPORARY_INSTALL_DIRECTORY, through DESTDIR where the generator sets it (DEB, RPM); the
# script's CMAKE_INSTALL_PREFIX is the project's (/usr/local), so it is not used.
if(NOT "$ENV{DESTDIR}" STREQUAL "")
  set(stage "$ENV{DESTDIR}")
else()
  set(stage "${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
endif()
string(FIND "${stage}" "${CPACK_TEMPORARY_DIRECTORY}" in_staging)
if(stage STREQUAL "" OR NOT in_staging EQUAL 0)
  message(FATAL_ERROR "PackagingExtras.cmake: no CPack staging directory (${stage}); refusing to write")
endif()
set(prefix "${stage}${CPACK_PACKAGING_INSTALL_PREFIX}")
set(doc "${prefix}/${CPACK_ROCDOC_DOCDIR}")
if(CPACK_ROCDOC_FLAVOUR STREQUAL "DEB")
  # Debian policy 12.7 and 12.5: /usr/share/doc/PACKAGE/changelog.Debian.gz (gzip -9n) and
  # /usr/share/doc/PACKAGE/copyright.
  file(MAKE_DIRECTORY "${doc}")
  execute_process(COMMAND gzip -9n -c "${CPACK_ROCDOC_BINARY_DIR}/packaging/changelog.Debian"
                  OUTPUT_FILE "${doc}/changelog.Debian.gz" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip of the Debian changelog failed: ${rc}")
  endif()
  file(COPY "${CPACK_ROCDOC_SOURCE_DIR}/packaging/debian/copyright" DESTINATION "${doc}"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  # lintian's embedded-library: zlib is linked statically on purpose (cmake/Dependencies.cmake:
  # the binary needs nothing but libc), an override Debian's lintian reads from this place.
  file(COPY "${CPACK_ROCDOC_SOURCE_DIR}/packaging/debian/lintian-overrides" DESTINATION
       "${prefix}/share/lintian/overrides" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  file(RENAME "${prefix}/share/lintian/overrides/lintian-overrides" "${prefix}/share/lintian/overrides/rocdoc")
elseif(CPACK_ROCDOC_FLAVOUR STREQUAL "RPM")
  set(zsh "${CPACK_ROCDOC_BINARY_DIR}/completions/_rocdoc")
  if(EXISTS "${zsh}")
    file(COPY "${zsh}" DESTINATION "${prefix}/share/zsh/site-functions"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  endif()
endif()
