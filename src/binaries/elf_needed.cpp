#include "src/binaries/elf_needed.h"

#include <sys/stat.h>

#include <algorithm>

#include "src/binaries/elf_sections.h"

namespace rocdoc {

namespace {

constexpr std::size_t k_program_header_size = 56;
constexpr std::size_t k_dynamic_entry_size = 16;
constexpr std::uint32_t k_pt_load = 1;
constexpr std::uint32_t k_pt_dynamic = 2;
constexpr std::uint64_t k_dt_null = 0;
constexpr std::uint64_t k_dt_needed = 1;
constexpr std::uint64_t k_dt_strtab = 5;
constexpr std::uint64_t k_dt_strsz = 10;
// Real objects have a dozen program headers and a few dozen dynamic entries; more is hostile.
constexpr std::uint64_t k_max_program_headers = 256;
constexpr std::uint64_t k_max_dynamic_bytes = 64 * 1024;
constexpr std::size_t k_max_needed = 256;
constexpr std::size_t k_max_name = 256;

struct Segment {
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t address = 0;
  std::uint64_t file_size = 0;
};

/// The file offset of a virtual address, through the PT_LOAD segment that maps it.
std::optional<std::uint64_t> file_offset(const std::vector<Segment>& segments,
                                         std::uint64_t address) {
  for (const auto& segment : segments) {
    if (segment.type == k_pt_load && address >= segment.address &&
        address - segment.address < segment.file_size) {
      return segment.offset + (address - segment.address);
    }
  }
  return std::nullopt;
}

std::optional<std::vector<Segment>> program_headers(const util::ByteSource& bytes) {
  const std::string header = bytes.read(0, k_elf_header_size);
  if (header.size() < k_elf_header_size || !looks_like_elf(header) || header[4] != 2 ||
      header[5] != 1) {
    return std::nullopt;
  }
  const std::uint64_t table = read_le(header, 32, 8);
  const std::uint64_t entry_size = read_le(header, 54, 2);
  const std::uint64_t count = read_le(header, 56, 2);
  if (count == 0) {
    return std::vector<Segment>{};
  }
  if (entry_size != k_program_header_size || count > k_max_program_headers ||
      table > bytes.size() || count * entry_size > bytes.size() - table) {
    return std::nullopt;
  }
  const std::string raw = bytes.read(table, static_cast<std::size_t>(count * entry_size));
  if (raw.size() != count * entry_size) {
    return std::nullopt;
  }
  std::vector<Segment> segments;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = i * k_program_header_size;
    segments.push_back({static_cast<std::uint32_t>(read_le(raw, at, 4)), read_le(raw, at + 8, 8),
                        read_le(raw, at + 16, 8), read_le(raw, at + 32, 8)});
  }
  return segments;
}

}  // namespace

std::optional<std::vector<std::string>> elf_needed(const util::ByteSource& bytes) {
  const auto segments = program_headers(bytes);
  if (!segments) {
    return std::nullopt;
  }
  const Segment* dynamic = nullptr;
  for (const auto& segment : *segments) {
    if (segment.type == k_pt_dynamic) {
      dynamic = &segment;
      break;
    }
  }
  if (dynamic == nullptr) {
    return std::vector<std::string>{};  // a static executable or an object file: links nothing
  }
  if (dynamic->file_size > k_max_dynamic_bytes || dynamic->offset > bytes.size() ||
      dynamic->file_size > bytes.size() - dynamic->offset) {
    return std::nullopt;
  }
  const std::string entries =
      bytes.read(dynamic->offset, static_cast<std::size_t>(dynamic->file_size));
  std::vector<std::uint64_t> needed_offsets;
  std::optional<std::uint64_t> strtab;
  std::optional<std::uint64_t> strsz;
  for (std::size_t at = 0; at + k_dynamic_entry_size <= entries.size();
       at += k_dynamic_entry_size) {
    const std::uint64_t tag = read_le(entries, at, 8);
    const std::uint64_t value = read_le(entries, at + 8, 8);
    if (tag == k_dt_null) {
      break;
    }
    if (tag == k_dt_needed && needed_offsets.size() < k_max_needed) {
      needed_offsets.push_back(value);
    } else if (tag == k_dt_strtab) {
      strtab = value;
    } else if (tag == k_dt_strsz) {
      strsz = value;
    }
  }
  if (needed_offsets.empty()) {
    return std::vector<std::string>{};
  }
  const auto table = strtab ? file_offset(*segments, *strtab) : std::nullopt;
  if (!table || !strsz || *table > bytes.size() || *strsz > bytes.size() - *table) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const std::uint64_t offset : needed_offsets) {
    if (offset >= *strsz) {
      return std::nullopt;
    }
    const std::size_t count =
        static_cast<std::size_t>(std::min<std::uint64_t>(k_max_name + 1, *strsz - offset));
    std::string name = bytes.read(*table + offset, count);
    const auto end = name.find('\0');
    if (end == std::string::npos || end == 0) {
      return std::nullopt;  // unterminated within the bound, or empty: not a library name
    }
    name.resize(end);
    names.push_back(std::move(name));
  }
  return names;
}

std::optional<std::vector<std::string>> elf_needed_of_file(util::UniqueFd fd) {
  struct ::stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  const util::FileBytes bytes(std::move(fd), static_cast<std::uint64_t>(st.st_size));
  return elf_needed(bytes);
}

}  // namespace rocdoc
