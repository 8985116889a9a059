# Build dependencies, all from Debian 12 packages (see README.md).
find_package(CLI11 CONFIG REQUIRED)          # CLI11::CLI11 (header-only)
find_package(fmt CONFIG REQUIRED)            # fmt::fmt-header-only keeps libfmt.so out of the binary
find_package(nlohmann_json CONFIG REQUIRED)  # nlohmann_json::nlohmann_json
find_package(yaml-cpp CONFIG REQUIRED)       # target "yaml-cpp" (shared only; the .a is linked by path below)
find_package(PkgConfig REQUIRED)

# Debian ships libyaml-cpp.a but its CMake package exports only the shared library.
find_library(ROCDOC_YAML_CPP_STATIC NAMES libyaml-cpp.a REQUIRED)
add_library(rocdoc_yaml_cpp STATIC IMPORTED)
set_target_properties(rocdoc_yaml_cpp PROPERTIES
  IMPORTED_LOCATION "${ROCDOC_YAML_CPP_STATIC}"
  INTERFACE_INCLUDE_DIRECTORIES "$<TARGET_PROPERTY:yaml-cpp,INTERFACE_INCLUDE_DIRECTORIES>")

# libpci: headers only. The library itself is loaded at run time with dlopen so that
# rocdoc starts on a machine without it.
pkg_check_modules(LIBPCI REQUIRED libpci)
add_library(rocdoc_libpci_headers INTERFACE)
target_include_directories(rocdoc_libpci_headers INTERFACE ${LIBPCI_INCLUDE_DIRS})

# libarchive packs and unpacks snapshots. It is linked statically, so that `rocdoc snapshot`
# works where libarchive is not installed (Ubuntu 24.04 images lack it). rocdoc calls only its
# tar reader, pax writer and gzip filter; the writer's table of every other format (xar needs
# libxml2, 7-Zip liblzma and bzip2, …) is never called, and --gc-sections drops it, so zlib is
# the only other library linked in.
find_library(ROCDOC_LIBARCHIVE_STATIC NAMES libarchive.a REQUIRED)
find_library(ROCDOC_ZLIB_STATIC NAMES libz.a REQUIRED)
find_path(ROCDOC_LIBARCHIVE_INCLUDE archive.h REQUIRED)
add_library(rocdoc_libarchive INTERFACE)
target_include_directories(rocdoc_libarchive INTERFACE ${ROCDOC_LIBARCHIVE_INCLUDE})
target_link_libraries(rocdoc_libarchive INTERFACE ${ROCDOC_LIBARCHIVE_STATIC} ${ROCDOC_ZLIB_STATIC})
target_link_options(rocdoc_libarchive INTERFACE -Wl,--gc-sections)

# libzstd decodes compressed offload bundles (CCOB, zstd is clang's default). Linked statically
# like libarchive, so the binary still needs only libc; --gc-sections keeps only the decoder.
find_library(ROCDOC_ZSTD_STATIC NAMES libzstd.a REQUIRED)
find_path(ROCDOC_ZSTD_INCLUDE zstd.h REQUIRED)
add_library(rocdoc_zstd INTERFACE)
target_include_directories(rocdoc_zstd INTERFACE ${ROCDOC_ZSTD_INCLUDE})
target_link_libraries(rocdoc_zstd INTERFACE ${ROCDOC_ZSTD_STATIC})

message(STATUS "rocdoc dependencies: CLI11 ${CLI11_VERSION}, fmt ${fmt_VERSION} (header-only), "
               "nlohmann_json ${nlohmann_json_VERSION}, yaml-cpp ${yaml-cpp_VERSION} (static: ${ROCDOC_YAML_CPP_STATIC}), "
               "libpci ${LIBPCI_VERSION} (headers; dlopen at run time), "
               "libarchive (static: ${ROCDOC_LIBARCHIVE_STATIC}, with ${ROCDOC_ZLIB_STATIC}), "
               "zstd (static: ${ROCDOC_ZSTD_STATIC})")
