// HIP offload bundles (src/binaries/offload_bundle.h), the libraries an ELF file links
// (src/binaries/elf_needed.h) and Tensile file names
// (src/binaries/tensile_names.h): the input is read as a whole file by scan_offload_bundles (an ELF
// file with .hip_fatbin, a bare bundle, a compressed CCOB bundle, a code object), and its pieces go
// to the header parsers, the decompressors, the entry-id splitter and targets_in_name. Whatever it
// holds, the scan ends with bundles inside the file, each read once, printable target ids and short
// printable problems. regressions/offload_bundle/ holds headers longer than the first 4 KiB window
// (plain and zlib) and an ELF with overlapping .hip_fatbin sections (issue 20 D4, D8).
#include <algorithm>

#include "src/binaries/elf_needed.h"
#include "src/binaries/elf_sections.h"
#include "src/binaries/offload_bundle.h"
#include "src/binaries/tensile_names.h"
#include "tests/fuzz/fuzz.h"

namespace {

using namespace rocdoc;

void check_target(std::string_view target) {
  ROCDOC_FUZZ_CHECK(!target.empty() && target.size() <= 256,
                    "a target id is 1 to 256 bytes: " + std::string(target));
  for (const char c : target) {
    ROCDOC_FUZZ_CHECK(c > ' ' && c < 0x7f, "a target id is printable: " + std::string(target));
  }
}

void check_scan(const OffloadScan& scan, std::size_t size) {
  for (const auto& problem : scan.problems) {
    fuzz::check_error_message(problem);
  }
  for (const auto& bundle : scan.bundles) {
    ROCDOC_FUZZ_CHECK(bundle.file_offset < size || scan.container == OffloadContainer::fat_object,
                      "a bundle starts inside the file: " + std::to_string(bundle.file_offset));
    ROCDOC_FUZZ_CHECK(
        (bundle.compression == BundleCompression::none) == !bundle.compressed_version.has_value(),
        "a compressed bundle has a format version, an uncompressed one none");
    for (const auto& entry : bundle.entries) {
      check_target(entry.id);
      if (!entry.target.empty()) {
        check_target(entry.target);
      }
    }
  }
  // Each byte range is walked once, in file order (overlapping .hip_fatbin sections are merged):
  // no bundle is read twice.
  if (scan.container != OffloadContainer::fat_object) {
    for (std::size_t i = 1; i < scan.bundles.size(); ++i) {
      ROCDOC_FUZZ_CHECK(scan.bundles[i - 1].file_offset < scan.bundles[i].file_offset,
                        "bundles are read once each, in file order: " +
                            std::to_string(scan.bundles[i].file_offset));
    }
  }
  const auto targets = scan.targets();
  ROCDOC_FUZZ_CHECK(std::is_sorted(targets.begin(), targets.end()) &&
                        std::adjacent_find(targets.begin(), targets.end()) == targets.end(),
                    "targets() is sorted, each once");
  for (const auto& target : targets) {
    check_target(target);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = fuzz::text(data, size);

  // The whole file.
  check_scan(scan_offload_bundles(util::StringBytes(input)), size);
  // The libraries it links, as the python probe reads an extension module's (DT_NEEDED).
  if (const auto needed = elf_needed(util::StringBytes(input))) {
    for (const auto& library : *needed) {
      ROCDOC_FUZZ_CHECK(
          !library.empty() && library.size() <= 256 && library.find('\0') == std::string::npos,
          "a needed library is 1 to 256 bytes without NUL: " + library);
    }
  }

  // The parsers on the raw bytes: a bundle header bounded by the input, a CCOB header, and a
  // payload decompressed by both methods up to a small prefix.
  const auto header = parse_bundle_header(input, input.size());
  if (header.error.empty() && header.needed <= input.size()) {
    ROCDOC_FUZZ_CHECK(header.end <= input.size(), "entries lie inside the bundle");
  } else if (!header.error.empty()) {
    fuzz::check_error_message(header.error);
  }
  for (const auto& entry : header.entries) {
    check_target(entry.id);
  }
  const auto compressed = parse_compressed_header(input);
  if (compressed.header) {
    ROCDOC_FUZZ_CHECK(compressed.header->version >= 1 && compressed.header->version <= 3,
                      "a known CCOB version");
    ROCDOC_FUZZ_CHECK(compressed.header->header_size <= input.size(), "the header was read whole");
  } else {
    fuzz::check_error_message(compressed.error);
  }
  for (const auto method : {BundleCompression::zstd, BundleCompression::zlib}) {
    const auto plain = decompress_prefix(method, input, 4096);
    ROCDOC_FUZZ_CHECK(plain.bytes.size() <= 4096, "no more than asked");
    fuzz::check_error_message(plain.error);
  }

  // An entry id and a Tensile name: each line of the input.
  std::size_t start = 0;
  while (start <= input.size()) {
    const auto newline = input.find('\n', start);
    const auto line =
        input.substr(start, newline == std::string_view::npos ? input.npos : newline - start);
    if (const auto entry = parse_entry_id(line)) {
      ROCDOC_FUZZ_CHECK(entry->id == line, "the id is kept whole");
    }
    for (const auto& target : targets_in_name(line)) {
      check_target(target);
      ROCDOC_FUZZ_CHECK(target.rfind("gfx", 0) == 0, "a Tensile target starts with gfx: " + target);
    }
    if (newline == std::string_view::npos) {
      break;
    }
    start = newline + 1;
  }
  if (size >= 4) {
    if (const auto target = code_object_target(static_cast<std::uint32_t>(read_le(input, 0, 4)))) {
      check_target(*target);
    }
  }
  return 0;
}
