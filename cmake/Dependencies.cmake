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

message(STATUS "rocdoc dependencies: CLI11 ${CLI11_VERSION}, fmt ${fmt_VERSION} (header-only), "
               "nlohmann_json ${nlohmann_json_VERSION}, yaml-cpp ${yaml-cpp_VERSION} (static: ${ROCDOC_YAML_CPP_STATIC}), "
               "libpci ${LIBPCI_VERSION} (headers; dlopen at run time)")
