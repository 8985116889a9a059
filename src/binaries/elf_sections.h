// The section table of an ELF file, read from its bytes: enough to find one section by name
// (.hip_fatbin) without scanning the file. Only 64-bit little-endian files are read; they are
// the only ones HIP builds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc {

/// What the first 64 bytes of an ELF file say about its section table.
struct ElfHeader {
  std::uint16_t type = 0;        ///< e_type: 1 relocatable, 2 executable, 3 shared object
  std::uint16_t machine = 0;     ///< e_machine: 62 x86-64, 224 AMDGPU
  std::uint32_t flags = 0;       ///< e_flags (the processor of an AMDGPU code object)
  std::uint8_t abi_version = 0;  ///< e_ident[EI_ABIVERSION]: an AMDGPU code object's version
  std::uint64_t section_table_offset = 0;
  std::uint16_t section_entry_size = 0;
  std::uint16_t section_count = 0;
  std::uint16_t section_names_index = 0;
};

struct ElfSection {
  std::string name;
  std::uint32_t type = 0;  ///< 8 = SHT_NOBITS: no bytes in the file
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t alignment = 0;
};

constexpr std::size_t k_elf_header_size = 64;
constexpr std::uint32_t k_elf_section_nobits = 8;
constexpr std::uint16_t k_elf_machine_amdgpu = 224;

/// True when bytes start with the ELF magic.
bool looks_like_elf(std::string_view bytes);

/// Parses the ELF header; an error message when the file is not a 64-bit little-endian ELF
/// with a usable section table. `file_size` bounds the table.
struct ElfHeaderParse {
  std::optional<ElfHeader> header;
  std::string error;
};
ElfHeaderParse parse_elf_header(std::string_view bytes, std::uint64_t file_size);

/// Parses entry `index` of the section table (the caller checks that the table holds it), named
/// from `names`; bytes outside the file are dropped as parse_elf_sections says.
ElfSection parse_elf_section(std::string_view table, std::size_t index, std::string_view names,
                             std::uint64_t file_size);

/// Parses `header.section_count` entries of the section table, naming them from `names`
/// (the bytes of the section-name string table). Sections whose bytes lie outside the file
/// keep their name but get size 0 and type SHT_NOBITS, so nobody reads past the end.
std::vector<ElfSection> parse_elf_sections(std::string_view table, const ElfHeader& header,
                                           std::string_view names, std::uint64_t file_size);

/// Reads a little-endian unsigned integer of N bytes at `at` (the caller checks the bounds).
std::uint64_t read_le(std::string_view bytes, std::size_t at, std::size_t width);

}  // namespace rocdoc
