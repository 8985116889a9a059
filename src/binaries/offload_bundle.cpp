// Clang offload bundles walked header by header (plain and CCOB v1-3, zlib and zstd). Whole on
// purpose: one format, whose compressed and plain walks share the bounds and entry parsing.
#include "src/binaries/offload_bundle.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <memory>
#include <set>

#include "src/binaries/elf_sections.h"

namespace rocdoc {

namespace {

// Bounds against hostile files; real bundles have one entry per target plus the host entry.
constexpr std::uint64_t k_max_entries = 1024;
constexpr std::uint64_t k_max_id_length = 256;
constexpr std::size_t k_max_header_bytes = 1 << 20;
// A header is read (or decompressed) first in this window, then in windows that at least double.
constexpr std::size_t k_first_header_window = 4096;
// How many bytes of bundle headers are decompressed in one file, all bundles together: each
// compressed bundle asks for 4 KiB first, so this allows 65,536 real ones; a hostile file whose
// tiny bundles each decompress to a 1 MiB header stops here instead of after 100 GiB.
constexpr std::size_t k_max_decompressed_bytes = std::size_t{256} << 20;
constexpr std::size_t k_max_section_names = 1 << 20;
constexpr std::size_t k_max_bundles = 100000;
// Entries kept of one file, all bundles together (each holds an id of up to 256 bytes): a real
// library has one bundle per source file and one entry per target (libtorch_hip.so: a few
// thousand bundles of a dozen entries); 16 MiB of compressed 1024-entry headers would keep 230 MB.
constexpr std::size_t k_max_file_entries = 65536;
// How many compressed bytes are read to decode a bundle's header: zstd decodes a whole block
// (at most 128 KiB of output) at a time.
constexpr std::size_t k_compressed_window = 256 * 1024;
constexpr std::size_t k_max_compressed_window = 8 << 20;
constexpr std::size_t k_zero_scan_chunk = 8 * 1024;  // bundles are padded to 4 KiB at most
constexpr std::size_t k_first_zero_scan_chunk = 4096;
constexpr std::size_t k_wrapper_size = 24;  // .hipFatBinSegment: magic, version, two pointers

std::string hex(std::uint64_t value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  do {
    text.insert(text.begin(), digits[value & 0xf]);
    value >>= 4;
  } while (value != 0);
  return "0x" + text;
}

bool printable_id(std::string_view id) {
  return std::all_of(id.begin(), id.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  if (alignment <= 1) {
    return value;
  }
  const std::uint64_t rest = value % alignment;
  return rest == 0 ? value : value + (alignment - rest);
}

// The next window for a header that needs `needed` bytes: at least twice the last one, so that
// a header of n entries is read and parsed O(log n) times, not once per entry (parse_bundle_header
// says only where the next entry ends).
std::size_t grown_window(std::size_t window, std::size_t needed) {
  return std::max(needed, std::min(window * 2, k_max_header_bytes));
}

// --- decompression ----------------------------------------------------------------------------

Decompressed zstd_prefix(std::string_view compressed, std::size_t want) {
  Decompressed out;
  std::unique_ptr<ZSTD_DStream, decltype(&ZSTD_freeDStream)> stream(ZSTD_createDStream(),
                                                                    &ZSTD_freeDStream);
  if (!stream) {
    out.error = "zstd: cannot allocate a decoder";
    return out;
  }
  out.bytes.resize(want);
  ZSTD_inBuffer input{compressed.data(), compressed.size(), 0};
  ZSTD_outBuffer output{out.bytes.data(), want, 0};
  // When a call leaves room in the output, zstd has flushed all it could from its input.
  std::size_t result = 1;
  while (output.pos < output.size && input.pos < input.size && result != 0) {
    result = ZSTD_decompressStream(stream.get(), &output, &input);
    if (ZSTD_isError(result) != 0) {
      out.error = std::string("zstd: ") + ZSTD_getErrorName(result);
      break;
    }
  }
  out.input_exhausted = out.error.empty() && result != 0 && output.pos < output.size;
  out.bytes.resize(output.pos);
  return out;
}

Decompressed zlib_prefix(std::string_view compressed, std::size_t want) {
  Decompressed out;
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) {
    out.error = "zlib: cannot initialise a decoder";
    return out;
  }
  out.bytes.resize(want);
  // zlib's sizes are 32-bit; the window and want are far below that.
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(std::min<std::size_t>(compressed.size(), 1u << 30));
  stream.next_out = reinterpret_cast<Bytef*>(out.bytes.data());
  stream.avail_out = static_cast<uInt>(want);
  const int result = inflate(&stream, Z_SYNC_FLUSH);
  if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) {
    out.error = std::string("zlib: ") + (stream.msg != nullptr ? stream.msg : "corrupt stream");
  }
  out.input_exhausted = result != Z_STREAM_END && stream.avail_in == 0 && stream.avail_out > 0;
  out.bytes.resize(want - stream.avail_out);
  inflateEnd(&stream);
  return out;
}

// --- walking ----------------------------------------------------------------------------------

struct Region {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t alignment = 1;
  std::string name;  ///< ".hip_fatbin", or "" for a bare bundle file
};

std::string where(const Region& region, std::uint64_t at) {
  return region.name.empty() ? "offset " + hex(at) : region.name + "+" + hex(at - region.start);
}

class BundleWalker {
 public:
  BundleWalker(const ByteSource& bytes, OffloadScan& scan) : m_bytes(bytes), m_scan(scan) {}

  void walk(const Region& region) {
    std::uint64_t at = region.start;
    while (at < region.end) {
      if (m_scan.bundles.size() >= k_max_bundles) {
        problem(where(region, at) + ": more than " + std::to_string(k_max_bundles) + " bundles");
        return;
      }
      if (m_entries >= k_max_file_entries) {
        problem(where(region, at) + ": more than " + std::to_string(k_max_file_entries) +
                " bundle entries in one file");
        return;
      }
      const auto next = read_bundle(region, at);
      if (!next) {
        return;
      }
      const auto following = skip_zeros(region, *next);
      if (!following) {
        return;
      }
      at = *following;
    }
  }

 private:
  void problem(std::string text) { m_scan.problems.push_back(std::move(text)); }

  void keep(OffloadBundle bundle) {
    m_entries += bundle.entries.size();
    m_scan.bundles.push_back(std::move(bundle));
  }

  // Reads the bundle at `at`; returns where its bytes end, or nullopt after a problem.
  std::optional<std::uint64_t> read_bundle(const Region& region, std::uint64_t at) {
    const std::string head = m_bytes.read(at, 32);
    const std::string_view view(head);
    if (view.substr(0, k_bundle_magic.size()) == k_bundle_magic) {
      return read_plain(region, at);
    }
    if (view.substr(0, k_compressed_magic.size()) == k_compressed_magic) {
      return read_compressed(region, at, view);
    }
    problem(where(region, at) +
            ": neither an offload bundle nor a compressed bundle starts "
            "here");
    return std::nullopt;
  }

  std::optional<std::uint64_t> read_plain(const Region& region, std::uint64_t at) {
    const std::uint64_t available = region.end - at;
    std::size_t window = k_first_header_window;
    while (true) {
      const std::string header = m_bytes.read(at, window);
      auto parsed = parse_bundle_header(header, available);
      if (!parsed.error.empty()) {
        problem(where(region, at) + ": " + parsed.error);
        return std::nullopt;
      }
      if (parsed.needed > header.size()) {
        if (header.size() < window || parsed.needed > k_max_header_bytes) {
          problem(where(region, at) + ": the bundle header runs past the end");
          return std::nullopt;
        }
        window = grown_window(window, parsed.needed);
        continue;
      }
      keep({at, BundleCompression::none, std::nullopt, std::move(parsed.entries)});
      return at + std::max<std::uint64_t>(parsed.end, parsed.needed);
    }
  }

  std::optional<std::uint64_t> read_compressed(const Region& region, std::uint64_t at,
                                               std::string_view head) {
    const auto parsed = parse_compressed_header(head);
    if (!parsed.header) {
      problem(where(region, at) + ": " + parsed.error);
      return std::nullopt;
    }
    const CompressedHeader& header = *parsed.header;
    const std::uint64_t available = region.end - at;
    if (header.total_size && *header.total_size > available) {
      problem(where(region, at) + ": the compressed bundle says it takes " +
              std::to_string(*header.total_size) + " bytes; only " + std::to_string(available) +
              " remain");
      return std::nullopt;
    }
    const std::uint64_t payload_size =
        (header.total_size ? *header.total_size : available) - header.header_size;
    auto entries = compressed_entries(region, at, header, payload_size);
    if (!entries) {
      return std::nullopt;
    }
    keep({at, header.method, header.version, std::move(*entries)});
    if (header.total_size) {
      return at + *header.total_size;
    }
    return end_of_unsized(region, at + header.header_size);
  }

  // Decodes only as much of the payload as the bundle header needs.
  std::optional<std::vector<OffloadEntry>> compressed_entries(const Region& region,
                                                              std::uint64_t at,
                                                              const CompressedHeader& header,
                                                              std::uint64_t payload_size) {
    std::size_t want = k_first_header_window;
    std::size_t window = k_compressed_window;
    while (true) {
      const std::size_t to_read =
          static_cast<std::size_t>(std::min<std::uint64_t>(window, payload_size));
      const std::size_t asked =
          static_cast<std::size_t>(std::min<std::uint64_t>(want, header.uncompressed_size));
      if (!charge_decompressed(region, at, asked)) {
        return std::nullopt;
      }
      const std::string compressed = m_bytes.read(at + header.header_size, to_read);
      const auto plain = decompress_prefix(header.method, compressed, asked);
      if (!plain.error.empty()) {
        problem(where(region, at) + ": " + plain.error);
        return std::nullopt;
      }
      auto parsed = parse_bundle_header(plain.bytes, header.uncompressed_size);
      if (!parsed.error.empty()) {
        problem(where(region, at) + ": in the decompressed bundle: " + parsed.error);
        return std::nullopt;
      }
      if (parsed.needed <= plain.bytes.size()) {
        return std::move(parsed.entries);
      }
      const bool more_input =
          plain.input_exhausted && to_read < payload_size && window < k_max_compressed_window;
      const bool more_output = plain.bytes.size() == asked && asked < header.uncompressed_size &&
                               parsed.needed <= k_max_header_bytes;
      if (more_input) {
        window *= 4;
      } else if (more_output) {
        want = grown_window(want, parsed.needed);
      } else {
        problem(where(region, at) + ": the decompressed bundle header is truncated");
        return std::nullopt;
      }
    }
  }

  // Counts `bytes` about to be decompressed against the file's budget; false after a problem.
  bool charge_decompressed(const Region& region, std::uint64_t at, std::size_t bytes) {
    if (bytes > k_max_decompressed_bytes - m_decompressed) {
      problem(where(region, at) + ": more than " + std::to_string(k_max_decompressed_bytes >> 20) +
              " MiB of bundle headers to decompress in this file");
      return false;
    }
    m_decompressed += bytes;
    return true;
  }

  // A version-1 compressed bundle does not record its size: the next bundle starts at the next
  // aligned position that holds a bundle magic (as LLVM's own reader searches for "CCOB").
  std::optional<std::uint64_t> end_of_unsized(const Region& region, std::uint64_t from) {
    if (region.alignment <= 1 || region.alignment > region.end - region.start) {
      return region.end;  // a bare bundle file holds one bundle; no aligned position follows
    }
    // Read a chunk at a time, not once per aligned position: a section aligned to 2 bytes would
    // otherwise cost one read per 2 bytes (a minute for 64 MiB).
    std::uint64_t at = align_up(from - region.start, region.alignment) + region.start;
    while (at + k_compressed_magic.size() <= region.end) {
      const std::string chunk =
          m_bytes.read(at, static_cast<std::size_t>(std::min<std::uint64_t>(
                               k_zero_scan_chunk + k_bundle_magic.size(), region.end - at)));
      const std::string_view view(chunk);
      std::uint64_t offset = 0;
      for (; offset < k_zero_scan_chunk && offset + k_compressed_magic.size() <= view.size();
           offset += region.alignment) {
        const auto candidate = view.substr(static_cast<std::size_t>(offset), k_bundle_magic.size());
        if (candidate.substr(0, 4) == k_compressed_magic || candidate == k_bundle_magic) {
          return at + offset;
        }
      }
      if (offset == 0) {
        break;  // nothing could be read here
      }
      at += offset;
    }
    return region.end;
  }

  // Bundles are padded to their alignment with zero bytes (and older compilers add one NUL):
  // the next bundle starts at the first non-zero byte.
  // The gap is shorter than the alignment (4096) in real files: one page is read first, larger
  // chunks after it (reading 64 KiB after each of librocsparse's 111 bundles took 1-2 ms).
  std::optional<std::uint64_t> skip_zeros(const Region& region, std::uint64_t at) {
    std::size_t chunk_size = k_first_zero_scan_chunk;
    while (at < region.end) {
      const std::size_t count =
          static_cast<std::size_t>(std::min<std::uint64_t>(chunk_size, region.end - at));
      chunk_size = k_zero_scan_chunk;
      const std::string chunk = m_bytes.read(at, count);
      if (chunk.empty()) {
        problem(where(region, at) + ": cannot read the file here");
        return std::nullopt;
      }
      const auto nonzero = chunk.find_first_not_of('\0');
      if (nonzero != std::string::npos) {
        return at + nonzero;
      }
      at += chunk.size();
    }
    return region.end;
  }

  const ByteSource& m_bytes;
  OffloadScan& m_scan;
  std::size_t m_entries = 0;       ///< entries kept so far, all bundles of the file
  std::size_t m_decompressed = 0;  ///< bytes of bundle headers decompressed in this file
};

// A section table may name .hip_fatbin many times, over the same or overlapping bytes (real
// files have one): each byte range is walked once, so that no byte of the file is walked twice.
// A merged range keeps the start, alignment and name of the section that starts first.
std::vector<Region> distinct_ranges(std::vector<Region> regions) {
  std::stable_sort(regions.begin(), regions.end(),
                   [](const Region& a, const Region& b) { return a.start < b.start; });
  std::vector<Region> merged;
  for (auto& region : regions) {
    if (!merged.empty() && region.start < merged.back().end) {
      merged.back().end = std::max(merged.back().end, region.end);
      continue;
    }
    merged.push_back(std::move(region));
  }
  return merged;
}

// Code objects v2 (ABI version 0) record no features; v3 (1) has one "on" bit each for xnack
// (0x100) and sramecc (0x200); v4 and later (2+) have two-bit selectors (AMDGPUUsage.rst).
std::uint32_t flags_in_v4_layout(const ElfHeader& header) {
  if (header.abi_version >= 2) {
    return header.flags;
  }
  std::uint32_t flags = header.flags & 0xff;
  if (header.abi_version == 1) {
    flags |= (header.flags & 0x100) != 0 ? 0x300u : 0u;
    flags |= (header.flags & 0x200) != 0 ? 0xc00u : 0u;
  }
  return flags;
}

// Reads the section table and the section names; nullopt after a problem.
std::optional<std::vector<ElfSection>> read_sections(const ByteSource& bytes,
                                                     const ElfHeader& header, OffloadScan& scan) {
  const std::string table =
      bytes.read(header.section_table_offset, std::size_t{header.section_count} * 64);
  if (table.size() != std::size_t{header.section_count} * 64) {
    scan.problems.push_back("cannot read the ELF section table");
    return std::nullopt;
  }
  const ElfSection names_section =
      parse_elf_section(table, header.section_names_index, {}, bytes.size());
  std::string names;
  if (names_section.type != k_elf_section_nobits) {
    names = bytes.read(names_section.offset, static_cast<std::size_t>(std::min<std::uint64_t>(
                                                 names_section.size, k_max_section_names)));
  }
  return parse_elf_sections(table, header, names, bytes.size());
}

void scan_elf(const ByteSource& bytes, std::string_view head, OffloadScan& scan) {
  const auto parsed = parse_elf_header(head, bytes.size());
  if (!parsed.header) {
    scan.problems.push_back(parsed.error);
    return;
  }
  const ElfHeader& header = *parsed.header;
  if (header.machine == k_elf_machine_amdgpu) {
    scan.container = OffloadContainer::code_object;
    scan.code_object_target = code_object_target(flags_in_v4_layout(header));
    if (!scan.code_object_target) {
      scan.problems.push_back("an AMDGPU code object for an unknown processor (e_flags " +
                              hex(header.flags) + ")");
    }
    return;
  }
  if (header.section_count == 0) {
    return;
  }
  const auto sections = read_sections(bytes, header, scan);
  if (!sections) {
    return;
  }
  std::vector<Region> fatbins;
  OffloadBundle object_bundle;
  for (const auto& section : *sections) {
    if (section.name == ".hipFatBinSegment") {
      scan.wrapper_count = section.size / k_wrapper_size;
    }
    const std::string_view name(section.name);
    if (name.substr(0, k_bundle_magic.size()) == k_bundle_magic) {
      // A fat relocatable object: the entry id is the section's name.
      const std::string_view id = name.substr(k_bundle_magic.size());
      if (!printable_id(id)) {
        scan.problems.push_back("an offload section's entry id is not printable text");
        continue;
      }
      if (auto entry = parse_entry_id(id)) {
        entry->size = section.size;
        object_bundle.entries.push_back(std::move(*entry));
      }
      continue;
    }
    if (name != ".hip_fatbin" || section.type == k_elf_section_nobits || section.size == 0) {
      continue;
    }
    scan.container = OffloadContainer::elf_sections;
    fatbins.push_back({section.offset, section.offset + section.size,
                       std::max<std::uint64_t>(section.alignment, 1), section.name});
  }
  BundleWalker walker(bytes, scan);
  for (const auto& region : distinct_ranges(std::move(fatbins))) {
    walker.walk(region);
  }
  if (!object_bundle.entries.empty()) {
    scan.container = OffloadContainer::fat_object;
    scan.bundles.push_back(std::move(object_bundle));
  }
}

}  // namespace

std::vector<std::string> OffloadScan::targets() const {
  std::set<std::string> found;
  for (const auto& bundle : bundles) {
    for (const auto& entry : bundle.entries) {
      if (entry.kind != "host" && !entry.target.empty()) {
        found.insert(entry.target);
      }
    }
  }
  if (code_object_target) {
    found.insert(*code_object_target);
  }
  return {found.begin(), found.end()};
}

std::optional<OffloadEntry> parse_entry_id(std::string_view id) {
  // kind-arch-vendor-os-environment-target: split on the first five dashes only.
  std::string_view parts[6];
  std::string_view rest = id;
  std::size_t count = 0;
  while (count < 5) {
    const auto dash = rest.find('-');
    if (dash == std::string_view::npos) {
      break;
    }
    parts[count++] = rest.substr(0, dash);
    rest.remove_prefix(dash + 1);
  }
  parts[count++] = rest;
  if (count < 4 || parts[0].empty()) {
    return std::nullopt;
  }
  OffloadEntry entry;
  entry.id = std::string(id);
  entry.kind = std::string(parts[0]);
  const std::size_t triple_parts = std::min<std::size_t>(count - 1, 4);
  for (std::size_t i = 1; i <= triple_parts; ++i) {
    entry.triple += std::string(parts[i]) + (i < 4 ? "-" : "");
  }
  if (count == 6) {
    entry.target = std::string(parts[5]);
  } else if (count == 5 && parts[4].substr(0, 3) == "gfx") {
    // ROCm 3.x and 4.x wrote the triple without its empty environment:
    // "hip-amdgcn-amd-amdhsa-gfx906", which the HIP runtime still reads.
    entry.triple =
        std::string(parts[1]) + "-" + std::string(parts[2]) + "-" + std::string(parts[3]);
    entry.target = std::string(parts[4]);
  }
  return entry;
}

BundleHeaderParse parse_bundle_header(std::string_view bytes, std::uint64_t bundle_size) {
  BundleHeaderParse parsed;
  const std::size_t fixed = k_bundle_magic.size() + 8;
  if (bytes.substr(0, k_bundle_magic.size()) != k_bundle_magic) {
    parsed.error = "no offload bundle magic";
    return parsed;
  }
  if (bytes.size() < fixed) {
    parsed.needed = fixed;
    return parsed;
  }
  const std::uint64_t count = read_le(bytes, k_bundle_magic.size(), 8);
  if (count > k_max_entries) {
    parsed.error = "the bundle declares " + std::to_string(count) + " entries";
    return parsed;
  }
  std::size_t at = fixed;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (bytes.size() < at + 24) {
      parsed.needed = at + 24;
      parsed.entries.clear();
      return parsed;
    }
    const std::uint64_t offset = read_le(bytes, at, 8);
    const std::uint64_t size = read_le(bytes, at + 8, 8);
    const std::uint64_t id_length = read_le(bytes, at + 16, 8);
    at += 24;
    if (id_length == 0 || id_length > k_max_id_length) {
      parsed.error =
          "entry " + std::to_string(i) + " has an id of " + std::to_string(id_length) + " bytes";
      return parsed;
    }
    if (bytes.size() < at + id_length) {
      parsed.needed = at + static_cast<std::size_t>(id_length);
      parsed.entries.clear();
      return parsed;
    }
    const std::string_view id = bytes.substr(at, static_cast<std::size_t>(id_length));
    at += static_cast<std::size_t>(id_length);
    if (!printable_id(id)) {
      parsed.error = "entry " + std::to_string(i) + " has an id that is not printable text";
      return parsed;
    }
    if (offset == 0 || offset > bundle_size || size > bundle_size - offset) {
      parsed.error = "entry " + std::to_string(i) + " (" + std::string(id) +
                     ") lies outside the bundle (offset " + std::to_string(offset) + ", size " +
                     std::to_string(size) + ", bundle " + std::to_string(bundle_size) + " bytes)";
      return parsed;
    }
    auto entry = parse_entry_id(id);
    if (!entry) {
      parsed.error = "entry " + std::to_string(i) + " has a malformed id: " + std::string(id);
      return parsed;
    }
    entry->size = size;
    parsed.end = std::max(parsed.end, offset + size);
    parsed.entries.push_back(std::move(*entry));
  }
  parsed.needed = at;
  return parsed;
}

CompressedHeaderParse parse_compressed_header(std::string_view bytes) {
  if (bytes.substr(0, k_compressed_magic.size()) != k_compressed_magic) {
    return {std::nullopt, "no compressed bundle magic"};
  }
  if (bytes.size() < 8) {
    return {std::nullopt, "truncated compressed bundle header"};
  }
  CompressedHeader header;
  header.version = static_cast<std::uint16_t>(read_le(bytes, 4, 2));
  const auto method = read_le(bytes, 6, 2);
  if (method == 0) {
    header.method = BundleCompression::zlib;
  } else if (method == 1) {
    header.method = BundleCompression::zstd;
  } else {
    return {std::nullopt, "compressed bundle with unknown compression method " +
                              std::to_string(method) + " (0 zlib and 1 zstd are known)"};
  }
  switch (header.version) {
    case 1:
      header.header_size = 20;
      break;
    case 2:
      header.header_size = 24;
      break;
    case 3:
      header.header_size = 32;
      break;
    default:
      return {std::nullopt, "compressed bundle format version " + std::to_string(header.version) +
                                " is unknown (1-3 are known)"};
  }
  if (bytes.size() < header.header_size) {
    return {std::nullopt, "truncated compressed bundle header"};
  }
  if (header.version == 1) {
    header.uncompressed_size = read_le(bytes, 8, 4);
  } else if (header.version == 2) {
    header.total_size = read_le(bytes, 8, 4);
    header.uncompressed_size = read_le(bytes, 12, 4);
  } else {
    header.total_size = read_le(bytes, 8, 8);
    header.uncompressed_size = read_le(bytes, 16, 8);
  }
  if (header.total_size && *header.total_size <= header.header_size) {
    return {std::nullopt, "compressed bundle of " + std::to_string(*header.total_size) +
                              " bytes, no larger than its header"};
  }
  if (header.uncompressed_size < k_bundle_magic.size() + 8) {
    return {std::nullopt, "compressed bundle that decompresses to " +
                              std::to_string(header.uncompressed_size) +
                              " bytes, too few for a bundle"};
  }
  return {header, ""};
}

Decompressed decompress_prefix(BundleCompression method, std::string_view compressed,
                               std::size_t want) {
  switch (method) {
    case BundleCompression::zstd:
      return zstd_prefix(compressed, want);
    case BundleCompression::zlib:
      return zlib_prefix(compressed, want);
    case BundleCompression::none:
      break;
  }
  return {std::string(compressed.substr(0, want)), "", false};
}

std::optional<std::string> code_object_target(std::uint32_t elf_flags) {
  // LLVM's EF_AMDGPU_MACH values (llvm/include/llvm/BinaryFormat/ELF.h; AMDGPUUsage.rst,
  // "AMDGPU ELF Header"); withdrawn processors (gfx940, gfx941) are left out.
  struct Mach {
    std::uint32_t value;
    const char* name;
  };
  static constexpr Mach k_machs[] = {
      {0x28, "gfx801"},          {0x29, "gfx802"},          {0x2a, "gfx803"},
      {0x2b, "gfx810"},          {0x2c, "gfx900"},          {0x2d, "gfx902"},
      {0x2e, "gfx904"},          {0x2f, "gfx906"},          {0x30, "gfx908"},
      {0x31, "gfx909"},          {0x32, "gfx90c"},          {0x33, "gfx1010"},
      {0x34, "gfx1011"},         {0x35, "gfx1012"},         {0x36, "gfx1030"},
      {0x37, "gfx1031"},         {0x38, "gfx1032"},         {0x39, "gfx1033"},
      {0x3c, "gfx805"},          {0x3d, "gfx1035"},         {0x3e, "gfx1034"},
      {0x3f, "gfx90a"},          {0x41, "gfx1100"},         {0x42, "gfx1013"},
      {0x43, "gfx1150"},         {0x44, "gfx1103"},         {0x45, "gfx1036"},
      {0x46, "gfx1101"},         {0x47, "gfx1102"},         {0x48, "gfx1200"},
      {0x49, "gfx1250"},         {0x4a, "gfx1151"},         {0x4c, "gfx942"},
      {0x4e, "gfx1201"},         {0x4f, "gfx950"},          {0x51, "gfx9-generic"},
      {0x52, "gfx10-1-generic"}, {0x53, "gfx10-3-generic"}, {0x54, "gfx11-generic"},
      {0x55, "gfx1152"},         {0x58, "gfx1153"},         {0x59, "gfx12-generic"},
      {0x5f, "gfx9-4-generic"},
  };
  const std::uint32_t mach = elf_flags & 0xff;
  const auto* found = std::find_if(std::begin(k_machs), std::end(k_machs),
                                   [mach](const Mach& m) { return m.value == mach; });
  if (found == std::end(k_machs)) {
    return std::nullopt;
  }
  std::string target = found->name;
  // Code object v4+ feature selectors: unsupported 0, any 1, off 2, on 3; alphabetical order.
  const std::uint32_t sramecc = (elf_flags >> 10) & 3;
  const std::uint32_t xnack = (elf_flags >> 8) & 3;
  if (sramecc >= 2) {
    target += sramecc == 3 ? ":sramecc+" : ":sramecc-";
  }
  if (xnack >= 2) {
    target += xnack == 3 ? ":xnack+" : ":xnack-";
  }
  return target;
}

OffloadScan scan_offload_bundles(const ByteSource& bytes) {
  OffloadScan scan;
  const std::string head = bytes.read(0, k_elf_header_size);
  const std::string_view view(head);
  if (looks_like_elf(view)) {
    scan_elf(bytes, view, scan);
    return scan;
  }
  if (view.substr(0, k_bundle_magic.size()) == k_bundle_magic ||
      view.substr(0, k_compressed_magic.size()) == k_compressed_magic) {
    scan.container = OffloadContainer::bundle_file;
    BundleWalker(bytes, scan).walk({0, bytes.size(), 1, ""});
    return scan;
  }
  scan.problems.push_back(head.empty() ? "the file is empty or cannot be read"
                                       : "not an ELF file or an offload bundle");
  return scan;
}

}  // namespace rocdoc
