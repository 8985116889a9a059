// Clang offload bundles: the containers in which HIP binaries carry their GPU code, one entry
// per target ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"). The layouts are LLVM's
// (clang/lib/Driver/OffloadBundler.cpp); docs/offload-bundles.md describes them and how rocdoc
// reads them: guided by the ELF section table, header by header, never a scan of the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/util/byte_source.h"

namespace rocdoc {

using util::ByteSource;

enum class BundleCompression { none, zlib, zstd };

/// One entry id, split as LLVM does: kind, triple (4 parts), target id.
struct OffloadEntry {
  std::string id;      ///< "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
  std::string kind;    ///< "hipv4", "hip", "host", "openmp"
  std::string triple;  ///< "amdgcn-amd-amdhsa-"
  std::string target;  ///< "gfx90a:xnack-"; "amdgcnspirv" for SPIR-V; "" for the host entry
  std::uint64_t size = 0;
};

struct OffloadBundle {
  std::uint64_t file_offset = 0;  ///< where the bundle starts in the file
  BundleCompression compression = BundleCompression::none;
  std::optional<std::uint16_t> compressed_version;  ///< CCOB format version 1-3
  std::vector<OffloadEntry> entries;
};

/// Where a file keeps its offload bundles.
enum class OffloadContainer {
  elf_sections,  ///< a shared object or executable: its .hip_fatbin section
  fat_object,    ///< a relocatable object: one __CLANG_OFFLOAD_BUNDLE__<id> section per entry
  bundle_file,   ///< a bare bundle (.hipfb, or the output of clang-offload-bundler)
  code_object,   ///< a single AMDGPU code object (.hsaco, .co)
  none,          ///< an ELF file without HIP device code
};

struct OffloadScan {
  OffloadContainer container = OffloadContainer::none;
  std::vector<OffloadBundle> bundles;
  /// The target of a single code object (from its ELF e_flags), when container is code_object.
  std::optional<std::string> code_object_target;
  /// How many .hipFatBinSegment wrappers the file has (24 bytes each), a cross-check.
  std::optional<std::uint64_t> wrapper_count;
  /// Why the file, or part of it, could not be read; the bundles before it are kept.
  std::vector<std::string> problems;

  /// The GPU target ids of every device entry, sorted, each once ("gfx1030", "gfx90a:xnack-").
  std::vector<std::string> targets() const;
};

/// Reads the offload bundles of a file: an ELF file through its section table, or a bare
/// bundle. A file that is neither is a problem ("not an ELF file or offload bundle").
OffloadScan scan_offload_bundles(const ByteSource& bytes);

// The parsers below take bytes, so tests and the fuzzer feed them strings.

constexpr std::string_view k_bundle_magic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::string_view k_compressed_magic = "CCOB";

/// An entry id split as LLVM does (at most 5 splits on '-': generic targets contain dashes).
/// nullopt when it has fewer than 5 parts.
std::optional<OffloadEntry> parse_entry_id(std::string_view id);

/// The header of an uncompressed bundle from its first bytes. `bundle_size` bounds the entry
/// offsets (the bytes the bundle may use). When `bytes` stops inside the header, `needed` says
/// how many bytes the header takes.
struct BundleHeaderParse {
  std::vector<OffloadEntry> entries;
  std::uint64_t end = 0;   ///< one past the last entry's bytes (offset + size), from the start
  std::size_t needed = 0;  ///< > bytes.size() when the header is longer than what was given
  std::string error;       ///< why the header is invalid
};
BundleHeaderParse parse_bundle_header(std::string_view bytes, std::uint64_t bundle_size);

/// The header of a compressed bundle (CCOB, versions 1-3).
struct CompressedHeader {
  std::uint16_t version = 0;
  BundleCompression method = BundleCompression::none;
  std::size_t header_size = 0;
  std::optional<std::uint64_t> total_size;  ///< with the header; version 1 has none
  std::uint64_t uncompressed_size = 0;
};
struct CompressedHeaderParse {
  std::optional<CompressedHeader> header;
  std::string error;
};
CompressedHeaderParse parse_compressed_header(std::string_view bytes);

/// Decompresses the start of a compressed payload: at most `want` bytes. error() is set when
/// the stream is corrupt; fewer bytes than asked come back when the input ran out.
struct Decompressed {
  std::string bytes;
  std::string error;
  bool input_exhausted = false;  ///< more compressed input might give more
};
Decompressed decompress_prefix(BundleCompression method, std::string_view compressed,
                               std::size_t want);

/// The target of an AMDGPU code object from its ELF e_flags ("gfx90a:xnack-"), or nullopt for
/// a processor rocdoc does not know.
std::optional<std::string> code_object_target(std::uint32_t elf_flags);

}  // namespace rocdoc
