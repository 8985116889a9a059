# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE, cmake/Packaging.cmake).
if(CPACK_GENERATOR STREQUAL "DEB" OR CPACK_GENERATOR STREQUAL "RPM")
  set(CPACK_ROCDOC_FLAVOUR "${CPACK_GENERATOR}")
  set(CPACK_INSTALL_SCRIPTS "${CPACK_ROCDOC_SOURCE_DIR}/cmake/PackagingExtras.cmake")
endif()
