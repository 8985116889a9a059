// The shared libraries an ELF file names (DT_NEEDED), read from its program headers and dynamic
// segment a few hundred bytes at a time: a 400 MB extension module is never read whole, and
// nothing is loaded or run. What tells a Python package's CUDA build from its ROCm build
// (libcudart.so.12 or libamdhip64.so.6 among them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/util/byte_source.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

/// The DT_NEEDED names of a 64-bit little-endian ELF file, in file order; empty for one that
/// links nothing (static, or no dynamic segment); nullopt when the bytes are not such a file or
/// its dynamic segment cannot be read (damaged, truncated, out of bounds).
std::optional<std::vector<std::string>> elf_needed(const util::ByteSource& bytes);

/// elf_needed of an open file; nullopt for a descriptor that is not a regular file.
std::optional<std::vector<std::string>> elf_needed_of_file(util::UniqueFd fd);

}  // namespace rocdoc
