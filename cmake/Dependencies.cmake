# Build dependencies, all from the distribution's packages (README.md "Install"), except CLI11
# where it has none (Debian 11, RHEL 9): then the vendored copy in third_party/CLI11.
find_package(CLI11 2.1 CONFIG QUIET)         # CLI11::CLI11 (header-only)
if(NOT CLI11_FOUND)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                "${PROJECT_SOURCE_DIR}/third_party/CLI11/include")
  set(CLI11_VERSION "2.1.2 (third_party/CLI11)")
endif()
find_package(fmt CONFIG REQUIRED)            # fmt::fmt-header-only keeps libfmt.so out of the binary
find_package(nlohmann_json CONFIG REQUIRED)  # nlohmann_json::nlohmann_json
find_package(yaml-cpp CONFIG REQUIRED)       # target "yaml-cpp" (shared only; the .a is linked by path below)
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)               # Threads::Threads: rocdoc fleet reads reports in parallel

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
# Older libarchive (3.4, Debian 11: the release build) keeps references to nettle's digests
# that --gc-sections cannot drop; where libnettle.a exists it resolves them (only the few
# digest objects are pulled in).
find_library(ROCDOC_NETTLE_STATIC NAMES libnettle.a)
target_link_libraries(rocdoc_libarchive INTERFACE ${ROCDOC_LIBARCHIVE_STATIC} ${ROCDOC_ZLIB_STATIC})
if(ROCDOC_NETTLE_STATIC)
  target_link_libraries(rocdoc_libarchive INTERFACE ${ROCDOC_NETTLE_STATIC})
endif()
target_link_options(rocdoc_libarchive INTERFACE -Wl,--gc-sections)
# libarchive before 3.6 (Debian 11's 3.4.3) is built without -ffunction-sections: a statically
# linked pax writer drags in the table of every writer, and with it libxml2, liblzma and bzip2.
# Try linking a pax writer; where it fails, src/snapshot/libarchive_compat.cpp supplies the one helper that
# pulls the table in (ROCDOC_LIBARCHIVE_COMPAT), and a second try proves that this is enough.
include(CheckCXXSourceCompiles)
set(rocdoc_pax_writer_source "
#include <archive.h>
#include <archive_entry.h>
ROCDOC_COMPAT_DEFINITION
int main() {
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_gzip(a);
  archive_read_support_format_tar(archive_read_new());
  return archive_write_free(a);
}")
set(CMAKE_REQUIRED_INCLUDES ${ROCDOC_LIBARCHIVE_INCLUDE})
set(CMAKE_REQUIRED_LIBRARIES ${ROCDOC_LIBARCHIVE_STATIC} ${ROCDOC_ZLIB_STATIC} ${ROCDOC_NETTLE_STATIC})
list(REMOVE_ITEM CMAKE_REQUIRED_LIBRARIES ROCDOC_NETTLE_STATIC-NOTFOUND)
set(CMAKE_REQUIRED_LINK_OPTIONS -Wl,--gc-sections)
string(REPLACE "ROCDOC_COMPAT_DEFINITION" "" rocdoc_source "${rocdoc_pax_writer_source}")
check_cxx_source_compiles("${rocdoc_source}" ROCDOC_LIBARCHIVE_PAX_LINKS)
set(ROCDOC_LIBARCHIVE_COMPAT OFF)
if(NOT ROCDOC_LIBARCHIVE_PAX_LINKS)
  string(REPLACE "ROCDOC_COMPAT_DEFINITION"
                 "extern \"C\" void __archive_write_entry_filetype_unsupported(struct archive*, struct archive_entry*, const char*) {}"
                 rocdoc_source "${rocdoc_pax_writer_source}")
  check_cxx_source_compiles("${rocdoc_source}" ROCDOC_LIBARCHIVE_PAX_LINKS_WITH_COMPAT)
  if(NOT ROCDOC_LIBARCHIVE_PAX_LINKS_WITH_COMPAT)
    message(FATAL_ERROR "A static pax writer does not link against ${ROCDOC_LIBARCHIVE_STATIC}, even with "
                        "src/snapshot/libarchive_compat.cpp: see CMakeFiles/CMakeError.log")
  endif()
  set(ROCDOC_LIBARCHIVE_COMPAT ON)
endif()
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_LIBRARIES)
unset(CMAKE_REQUIRED_LINK_OPTIONS)

# libzstd decodes compressed offload bundles (CCOB, zstd is clang's default). Linked statically
# like libarchive, so the binary still needs only libc; --gc-sections keeps only the decoder.
find_library(ROCDOC_ZSTD_STATIC NAMES libzstd.a REQUIRED)
find_path(ROCDOC_ZSTD_INCLUDE zstd.h REQUIRED)
add_library(rocdoc_zstd INTERFACE)
target_include_directories(rocdoc_zstd INTERFACE ${ROCDOC_ZSTD_INCLUDE})
target_link_libraries(rocdoc_zstd INTERFACE ${ROCDOC_ZSTD_STATIC})

# RE2 matches the source scan's patterns (src/scan/pattern_set.cpp): linear time whatever the
# input, in Debian 11 and 12 on every architecture. Linked statically like the others.
find_library(ROCDOC_RE2_STATIC NAMES libre2.a REQUIRED)
find_path(ROCDOC_RE2_INCLUDE re2/re2.h REQUIRED)
add_library(rocdoc_re2 INTERFACE)
target_include_directories(rocdoc_re2 INTERFACE ${ROCDOC_RE2_INCLUDE})
target_link_libraries(rocdoc_re2 INTERFACE ${ROCDOC_RE2_STATIC} Threads::Threads)

message(STATUS "rocdoc dependencies: CLI11 ${CLI11_VERSION}, fmt ${fmt_VERSION} (header-only), "
               "nlohmann_json ${nlohmann_json_VERSION}, yaml-cpp ${yaml-cpp_VERSION} (static: ${ROCDOC_YAML_CPP_STATIC}), "
               "libpci ${LIBPCI_VERSION} (headers; dlopen at run time), "
               "libarchive (static: ${ROCDOC_LIBARCHIVE_STATIC}, with ${ROCDOC_ZLIB_STATIC}), "
               "zstd (static: ${ROCDOC_ZSTD_STATIC}), re2 (static: ${ROCDOC_RE2_STATIC}), "
               "libarchive compat: ${ROCDOC_LIBARCHIVE_COMPAT}")
