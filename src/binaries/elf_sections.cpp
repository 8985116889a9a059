#include "src/binaries/elf_sections.h"

#include <algorithm>

namespace rocdoc {

namespace {

constexpr std::size_t k_section_entry_size = 64;
// Real shared objects have well under a thousand sections; a larger count is hostile.
constexpr std::uint16_t k_max_sections = 4096;

std::string_view c_string_at(std::string_view table, std::uint64_t offset) {
  if (offset >= table.size()) {
    return {};
  }
  const auto rest = table.substr(static_cast<std::size_t>(offset));
  return rest.substr(0, std::min(rest.find('\0'), std::size_t{256}));
}

}  // namespace

std::uint64_t read_le(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = width; i-- > 0;) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  }
  return value;
}

bool looks_like_elf(std::string_view bytes) {
  return bytes.substr(0, 4) ==
         "\x7f"
         "ELF";
}

ElfHeaderParse parse_elf_header(std::string_view bytes, std::uint64_t file_size) {
  if (!looks_like_elf(bytes)) {
    return {std::nullopt, "not an ELF file"};
  }
  if (bytes.size() < k_elf_header_size) {
    return {std::nullopt, "truncated ELF header"};
  }
  if (bytes[4] != 2 || bytes[5] != 1) {
    return {std::nullopt, "not a 64-bit little-endian ELF file (HIP binaries are)"};
  }
  ElfHeader header;
  header.type = static_cast<std::uint16_t>(read_le(bytes, 16, 2));
  header.machine = static_cast<std::uint16_t>(read_le(bytes, 18, 2));
  header.flags = static_cast<std::uint32_t>(read_le(bytes, 48, 4));
  header.abi_version = static_cast<std::uint8_t>(bytes[8]);
  header.section_table_offset = read_le(bytes, 40, 8);
  header.section_entry_size = static_cast<std::uint16_t>(read_le(bytes, 58, 2));
  header.section_count = static_cast<std::uint16_t>(read_le(bytes, 60, 2));
  header.section_names_index = static_cast<std::uint16_t>(read_le(bytes, 62, 2));
  if (header.section_count == 0) {
    return {header, ""};  // no section table (or more than 0xff00 sections: none of ours)
  }
  if (header.section_entry_size != k_section_entry_size) {
    return {std::nullopt,
            "unexpected ELF section entry size " + std::to_string(header.section_entry_size)};
  }
  if (header.section_count > k_max_sections) {
    return {std::nullopt,
            "ELF file declares " + std::to_string(header.section_count) + " sections"};
  }
  const std::uint64_t table_size = std::uint64_t{header.section_count} * k_section_entry_size;
  if (header.section_table_offset > file_size ||
      table_size > file_size - header.section_table_offset) {
    return {std::nullopt, "the ELF section table lies past the end of the file"};
  }
  if (header.section_names_index >= header.section_count) {
    return {std::nullopt, "the ELF section-name table index is out of range"};
  }
  return {header, ""};
}

ElfSection parse_elf_section(std::string_view table, std::size_t index, std::string_view names,
                             std::uint64_t file_size) {
  const std::size_t at = index * k_section_entry_size;
  ElfSection section;
  section.name = std::string(c_string_at(names, read_le(table, at, 4)));
  section.type = static_cast<std::uint32_t>(read_le(table, at + 4, 4));
  section.offset = read_le(table, at + 24, 8);
  section.size = read_le(table, at + 32, 8);
  section.alignment = read_le(table, at + 48, 8);
  if (section.offset > file_size || section.size > file_size - section.offset) {
    section.type = k_elf_section_nobits;
    section.size = 0;
  }
  return section;
}

std::vector<ElfSection> parse_elf_sections(std::string_view table, const ElfHeader& header,
                                           std::string_view names, std::uint64_t file_size) {
  std::vector<ElfSection> sections;
  const std::size_t count =
      std::min<std::size_t>(header.section_count, table.size() / k_section_entry_size);
  sections.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    sections.push_back(parse_elf_section(table, i, names, file_size));
  }
  return sections;
}

}  // namespace rocdoc
