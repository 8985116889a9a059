// The offload-bundle parsers on bytes built in the test from LLVM's documented layouts
// (docs/offload-bundles.md); real files are read by tests/e2e/test_targets.py.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "rocdoc/gfx_target.h"
#include "src/binaries/offload_bundle.h"
#include "src/binaries/tensile_names.h"
#include "src/util/byte_source.h"

using namespace rocdoc;

namespace {

void put_le(std::string& out, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

struct Entry {
  std::string id;
  std::string payload;
};

// An uncompressed bundle as clang-offload-bundler writes it: header, then each payload at an
// offset aligned to `alignment` from the bundle's start.
std::string make_bundle(const std::vector<Entry>& entries, std::size_t alignment = 16) {
  std::size_t header = 24 + 8;
  for (const auto& entry : entries) {
    header += 24 + entry.id.size();
  }
  std::string out = "__CLANG_OFFLOAD_BUNDLE__";
  put_le(out, entries.size(), 8);
  std::size_t offset = (header + alignment - 1) / alignment * alignment;
  std::vector<std::size_t> offsets;
  for (const auto& entry : entries) {
    offsets.push_back(offset);
    put_le(out, offset, 8);
    put_le(out, entry.payload.size(), 8);
    put_le(out, entry.id.size(), 8);
    out += entry.id;
    offset += (entry.payload.size() + alignment - 1) / alignment * alignment;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    out.resize(offsets[i], '\0');
    out += entries[i].payload;
  }
  return out;
}

std::string zlib_compress(const std::string& plain) {
  uLongf size = compressBound(static_cast<uLong>(plain.size()));
  std::string out(size, '\0');
  REQUIRE(compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                    reinterpret_cast<const Bytef*>(plain.data()), static_cast<uLong>(plain.size()),
                    6) == Z_OK);
  out.resize(size);
  return out;
}

// A CCOB header of `version` around a payload compressed with zlib (method 0).
std::string make_compressed(const std::string& bundle, std::uint16_t version,
                            std::uint16_t method = 0) {
  const std::string payload = zlib_compress(bundle);
  std::string out = "CCOB";
  put_le(out, version, 2);
  put_le(out, method, 2);
  const std::size_t header = version == 1 ? 20 : version == 2 ? 24 : 32;
  if (version == 1) {
    put_le(out, bundle.size(), 4);
  } else if (version == 2) {
    put_le(out, header + payload.size(), 4);
    put_le(out, bundle.size(), 4);
  } else {
    put_le(out, header + payload.size(), 8);
    put_le(out, bundle.size(), 8);
  }
  put_le(out, 0x1234, 8);  // the hash: rocdoc does not check it
  return out + payload;
}

const std::vector<Entry> k_entries = {
    {"host-x86_64-unknown-linux-gnu-", ""},
    {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", std::string(100, 'a')},
    {"hipv4-amdgcn-amd-amdhsa--gfx10-3-generic", std::string(50, 'b')},
    {"hip-amdgcn-amd-amdhsa--gfx906", std::string(10, 'c')},
};

// Counts the reads of the bytes it wraps (which must outlive it): how often a scan goes back to
// the file.
class CountingBytes final : public util::ByteSource {
 public:
  explicit CountingBytes(std::string_view bytes) : m_bytes(bytes) {}
  std::uint64_t size() const override { return m_bytes.size(); }
  std::string read(std::uint64_t offset, std::size_t count) const override {
    ++reads;
    std::string out = m_bytes.read(offset, count);
    bytes_read += out.size();
    return out;
  }
  mutable std::size_t reads = 0;
  mutable std::uint64_t bytes_read = 0;

 private:
  util::StringBytes m_bytes;
};

// A bundle header of 1024 entries with ids of 256 bytes (287 KB), the largest allowed, as in the
// audit's reproducer 04 (issue 20 D4).
std::string header_of_1024_entries() {
  const std::string id = "hip-amdgcn-amd-amdhsa--gfx90a" + std::string(256 - 29, 'x');
  std::string out = "__CLANG_OFFLOAD_BUNDLE__";
  put_le(out, 1024, 8);
  for (int i = 0; i < 1024; ++i) {
    put_le(out, 1, 8);
    put_le(out, 0, 8);
    put_le(out, id.size(), 8);
    out += id;
  }
  return out;
}

// A 64-bit x86-64 shared object whose section table has one .hip_fatbin section per range
// (offsets from the start of `region`, which sits at 4096), and a name table.
std::string elf_with_fatbins(const std::string& region,
                             const std::vector<std::pair<std::size_t, std::size_t>>& ranges) {
  const std::string names = std::string("\0.hip_fatbin\0.shstrtab\0", 24);
  std::string out(4096, '\0');
  out += region;
  const std::size_t names_at = out.size();
  out += names;
  out.resize((out.size() + 63) / 64 * 64, '\0');
  const std::size_t table_at = out.size();
  const std::size_t count = ranges.size() + 2;
  auto section = [&out](std::uint32_t name, std::uint32_t type, std::uint64_t offset,
                        std::uint64_t size, std::uint64_t alignment) {
    put_le(out, name, 4);
    put_le(out, type, 4);
    put_le(out, 0, 8);  // flags
    put_le(out, 0, 8);  // address
    put_le(out, offset, 8);
    put_le(out, size, 8);
    put_le(out, 0, 8);  // link, info
    put_le(out, alignment, 8);
    put_le(out, 0, 8);  // entry size
  };
  section(0, 0, 0, 0, 0);
  for (const auto& [start, end] : ranges) {
    section(1, 1, 4096 + start, end - start, 4096);
  }
  section(13, 3, names_at, names.size(), 1);
  std::string header =
      "\x7f"
      "ELF";
  header += std::string("\x02\x01\x01", 3);
  header.resize(16, '\0');
  put_le(header, 3, 2);   // ET_DYN
  put_le(header, 62, 2);  // x86-64
  put_le(header, 1, 4);
  put_le(header, 0, 8);  // entry
  put_le(header, 0, 8);  // program headers
  put_le(header, table_at, 8);
  put_le(header, 0, 4);   // flags
  put_le(header, 64, 2);  // header size
  put_le(header, 0, 2);
  put_le(header, 0, 2);
  put_le(header, 64, 2);  // section entry size
  put_le(header, count, 2);
  put_le(header, count - 1, 2);
  return out.replace(0, header.size(), header);
}

}  // namespace

TEST_CASE("parse_entry_id splits at most five times, as LLVM does") {
  const auto generic = parse_entry_id("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic");
  REQUIRE(generic);
  CHECK(generic->kind == "hipv4");
  CHECK(generic->triple == "amdgcn-amd-amdhsa-");
  CHECK(generic->target == "gfx10-3-generic");
  const auto host = parse_entry_id("host-x86_64-unknown-linux");
  REQUIRE(host);
  CHECK(host->kind == "host");
  CHECK(host->target.empty());
  CHECK(parse_entry_id("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-")->target ==
        "gfx90a:sramecc+:xnack-");
  CHECK(parse_entry_id("hipv4-spirv64-amd-amdhsa--amdgcnspirv")->target == "amdgcnspirv");
  const auto legacy = parse_entry_id("hip-amdgcn-amd-amdhsa-gfx906");
  REQUIRE(legacy);
  CHECK(legacy->target == "gfx906");
  CHECK(legacy->triple == "amdgcn-amd-amdhsa");
  CHECK_FALSE(parse_entry_id("garbage"));
  CHECK_FALSE(parse_entry_id("a-b"));
}

TEST_CASE("parse_bundle_header reads the entries of a bundle") {
  const std::string bundle = make_bundle(k_entries);
  const auto parsed = parse_bundle_header(bundle, bundle.size());
  REQUIRE(parsed.error.empty());
  REQUIRE(parsed.entries.size() == 4);
  CHECK(parsed.entries[1].target == "gfx90a:xnack-");
  CHECK(parsed.entries[1].size == 100);
  CHECK(parsed.end == bundle.size());
  CHECK(parsed.needed < bundle.size());

  SECTION("a header cut short asks for more bytes") {
    const auto cut = parse_bundle_header(bundle.substr(0, 40), bundle.size());
    CHECK(cut.error.empty());
    CHECK(cut.entries.empty());
    CHECK(cut.needed > 40);
  }
  SECTION("an entry past the bundle's bytes is refused") {
    const auto outside = parse_bundle_header(bundle, 64);
    CHECK_THAT(outside.error, Catch::Contains("lies outside the bundle"));
  }
  SECTION("hostile counts and ids are refused") {
    std::string huge = "__CLANG_OFFLOAD_BUNDLE__";
    put_le(huge, std::uint64_t{1} << 40, 8);
    CHECK_THAT(parse_bundle_header(huge, 1 << 20).error, Catch::Contains("declares"));
    std::string long_id = "__CLANG_OFFLOAD_BUNDLE__";
    put_le(long_id, 1, 8);
    put_le(long_id, 64, 8);
    put_le(long_id, 0, 8);
    put_le(long_id, 100000, 8);
    CHECK_THAT(parse_bundle_header(long_id, 1 << 20).error, Catch::Contains("100000 bytes"));
    std::string binary_id = make_bundle({{std::string("hipv4-\x01-b-c--gfx90a"), "x"}});
    CHECK_THAT(parse_bundle_header(binary_id, binary_id.size()).error,
               Catch::Contains("not printable"));
  }
  SECTION("no entries is an empty bundle, not an error") {
    std::string empty = "__CLANG_OFFLOAD_BUNDLE__";
    put_le(empty, 0, 8);
    const auto none = parse_bundle_header(empty, empty.size());
    CHECK(none.error.empty());
    CHECK(none.entries.empty());
  }
}

TEST_CASE("parse_compressed_header knows versions 1 to 3 and zlib and zstd") {
  const std::string bundle = make_bundle(k_entries);
  for (const std::uint16_t version : {std::uint16_t{1}, std::uint16_t{2}, std::uint16_t{3}}) {
    const std::string compressed = make_compressed(bundle, version);
    const auto parsed = parse_compressed_header(compressed);
    REQUIRE(parsed.header);
    CHECK(parsed.header->version == version);
    CHECK(parsed.header->method == BundleCompression::zlib);
    CHECK(parsed.header->uncompressed_size == bundle.size());
    CHECK(parsed.header->total_size.has_value() == (version != 1));
  }
  std::string bad_method = make_compressed(bundle, 2, 7);
  CHECK_THAT(parse_compressed_header(bad_method).error, Catch::Contains("method 7"));
  std::string bad_version = make_compressed(bundle, 4);
  CHECK_THAT(parse_compressed_header(bad_version).error, Catch::Contains("version 4"));
  CHECK_THAT(parse_compressed_header("CCOB\x02").error, Catch::Contains("truncated"));
}

TEST_CASE("scan_offload_bundles reads bare and compressed bundles") {
  const std::string bundle = make_bundle(k_entries);
  const std::vector<std::string> expected = {"gfx10-3-generic", "gfx906", "gfx90a:xnack-"};
  SECTION("uncompressed") {
    const auto scan = scan_offload_bundles(util::StringBytes(bundle));
    CHECK(scan.container == OffloadContainer::bundle_file);
    CHECK(scan.problems.empty());
    CHECK(scan.targets() == expected);
  }
  for (const std::uint16_t version : {std::uint16_t{1}, std::uint16_t{2}, std::uint16_t{3}}) {
    DYNAMIC_SECTION("zlib, CCOB version " << version) {
      const std::string compressed = make_compressed(bundle, version);
      const auto scan = scan_offload_bundles(util::StringBytes(compressed));
      REQUIRE(scan.problems.empty());
      REQUIRE(scan.bundles.size() == 1);
      CHECK(scan.bundles[0].compression == BundleCompression::zlib);
      CHECK(scan.bundles[0].compressed_version == version);
      CHECK(scan.targets() == expected);
    }
  }
  SECTION("two bundles back to back, padded with zeros") {
    std::string two = bundle;
    two.resize((two.size() + 4095) / 4096 * 4096, '\0');
    two += make_compressed(make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx1100", "zz"}}), 2);
    two.push_back('\0');
    const auto scan = scan_offload_bundles(util::StringBytes(two));
    CHECK(scan.problems.empty());
    CHECK(scan.bundles.size() == 2);
    CHECK(scan.targets().front() == "gfx10-3-generic");
    CHECK(scan.targets().back() == "gfx90a:xnack-");
    CHECK(scan.targets().size() == 4);
  }
  SECTION("a corrupt compressed payload is a problem, never a crash") {
    std::string corrupt = make_compressed(bundle, 2);
    for (std::size_t i = 26; i < corrupt.size(); ++i) {
      corrupt[i] = static_cast<char>(0x5a ^ corrupt[i]);
    }
    const auto scan = scan_offload_bundles(util::StringBytes(corrupt));
    REQUIRE_FALSE(scan.problems.empty());
    CHECK_THAT(scan.problems[0], Catch::Contains("zlib"));
  }
  SECTION("garbage after a bundle keeps what was read and names the offset") {
    std::string tail = bundle + "garbage!";
    const auto scan = scan_offload_bundles(util::StringBytes(tail));
    CHECK(scan.bundles.size() == 1);
    REQUIRE(scan.problems.size() == 1);
    CHECK_THAT(scan.problems[0], Catch::Contains("offset 0x"));
  }
  SECTION("neither ELF nor bundle") {
    const auto scan = scan_offload_bundles(util::StringBytes("hello"));
    REQUIRE(scan.problems.size() == 1);
    CHECK(scan.problems[0] == "not an ELF file or an offload bundle");
  }
}

TEST_CASE("code_object_target reads an AMDGPU code object's e_flags") {
  CHECK(code_object_target(0x3f) == "gfx90a");
  CHECK(code_object_target(0x3f | 0x200) == "gfx90a:xnack-");
  CHECK(code_object_target(0x2f | 0xc00 | 0x300) == "gfx906:sramecc+:xnack+");
  CHECK(code_object_target(0x53) == "gfx10-3-generic");
  CHECK(code_object_target(0x4c) == "gfx942");
  CHECK_FALSE(code_object_target(0xee));
}

TEST_CASE("Tensile file names carry their targets") {
  CHECK(targets_in_name("Kernels.so-000-gfx90a-xnack+.hsaco") ==
        std::vector<std::string>{"gfx90a:xnack+"});
  CHECK(targets_in_name("TensileLibrary_lazy_gfx1100.dat") == std::vector<std::string>{"gfx1100"});
  CHECK(targets_in_name("TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx90a.co") ==
        std::vector<std::string>{"gfx90a"});
  CHECK(targets_in_name("gfx942") == std::vector<std::string>{"gfx942"});
  CHECK(targets_in_name("x-gfx10-3-generic.hsaco") == std::vector<std::string>{"gfx10-3-generic"});
  CHECK(targets_in_name("Kernels.so-000-gfx908-xnack--sramecc+.hsaco") ==
        std::vector<std::string>{"gfx908:sramecc+:xnack-"});
  CHECK(targets_in_name("TensileLibrary.dat").empty());
  CHECK(targets_in_name("notgfx1030.dat").empty());
  CHECK(targets_in_name("gfx12").empty());
  CHECK(tensile_targets({"TensileLibrary_lazy_gfx1030.dat", "TensileLibrary_gfx1030.co",
                         "TensileLibrary.dat", "Kernels.so-000-gfx942.hsaco"}) ==
        std::vector<std::string>{"gfx1030", "gfx942"});
}

TEST_CASE("code_runs_on follows LLVM's compatibility rule") {
  CHECK(code_runs_on("gfx1030", "gfx1030", "gfx10-3-generic", Xnack::off));
  CHECK_FALSE(code_runs_on("gfx1030", "gfx1031", "gfx10-3-generic", Xnack::off));
  CHECK(code_runs_on("gfx10-3-generic", "gfx1031", "gfx10-3-generic", Xnack::off));
  CHECK_FALSE(code_runs_on("gfx11-generic", "gfx1031", "gfx10-3-generic", Xnack::off));
  CHECK(code_runs_on("gfx90a:xnack-", "gfx90a", "", Xnack::off));
  CHECK_FALSE(code_runs_on("gfx90a:xnack+", "gfx90a", "", Xnack::off));
  CHECK(code_runs_on("gfx90a:xnack+", "gfx90a", "", Xnack::on));
  CHECK(code_runs_on("gfx90a:sramecc+:xnack-", "gfx90a", "", Xnack::off));
  CHECK(code_runs_on("amdgcnspirv", "gfx1201", "gfx12-generic", Xnack::off));
}

TEST_CASE("a long bundle header is read a few times, not once per entry (issue 20 D4)") {
  const std::string header = header_of_1024_entries();
  const std::string target = "gfx90a" + std::string(227, 'x');
  SECTION("uncompressed") {
    const std::string two = header + header;
    const CountingBytes bytes(two);
    const auto scan = scan_offload_bundles(bytes);
    REQUIRE(scan.problems.empty());
    CHECK(scan.bundles.size() == 2);
    CHECK(scan.targets() == std::vector<std::string>{target});
    // Windows of 4 KiB, 8 KiB, ... 512 KiB: 8 reads a header (unfixed: 1024, 150 MB).
    CHECK(bytes.reads < 24);
    CHECK(bytes.bytes_read < 8 * header.size());
  }
  SECTION("zlib-compressed") {
    const std::string compressed = make_compressed(header, 2);
    const std::string two = compressed + compressed;
    const CountingBytes bytes(two);
    const auto scan = scan_offload_bundles(bytes);
    REQUIRE(scan.problems.empty());
    CHECK(scan.bundles.size() == 2);
    CHECK(scan.bundles[1].file_offset == compressed.size());
    CHECK(scan.targets() == std::vector<std::string>{target});
    CHECK(bytes.reads < 24);
  }
  SECTION("a header that ends past the data is still refused") {
    const auto scan = scan_offload_bundles(util::StringBytes(header.substr(0, 100000)));
    REQUIRE(scan.problems.size() == 1);
    CHECK(scan.problems[0] == "offset 0x0: the bundle header runs past the end");
    const auto cut =
        scan_offload_bundles(util::StringBytes(make_compressed(header.substr(0, 100000), 2)));
    REQUIRE(cut.problems.size() == 1);
    CHECK(cut.problems[0] == "offset 0x0: the decompressed bundle header is truncated");
  }
}

TEST_CASE("overlapping .hip_fatbin sections are walked once (issue 20 D8)") {
  const std::string bundle = make_bundle(k_entries);
  const std::string region = bundle + std::string(64 * 1024, '\0');
  const std::vector<std::string> expected = {"gfx10-3-generic", "gfx906", "gfx90a:xnack-"};
  SECTION("the same range 1000 times") {
    const std::string elf = elf_with_fatbins(
        region,
        std::vector<std::pair<std::size_t, std::size_t>>(1000, {std::size_t{0}, region.size()}));
    const CountingBytes bytes(elf);
    const auto scan = scan_offload_bundles(bytes);
    CHECK(scan.container == OffloadContainer::elf_sections);
    CHECK(scan.problems.empty());
    CHECK(scan.bundles.size() == 1);
    CHECK(scan.targets() == expected);
    CHECK(bytes.bytes_read < 2 * elf.size());  // unfixed: 1000 times the region
  }
  SECTION("ranges inside and across each other are one range") {
    const std::string elf =
        elf_with_fatbins(region, {{4096, region.size()}, {0, 8192}, {100, 200}, {0, 8192}});
    const auto scan = scan_offload_bundles(util::StringBytes(elf));
    CHECK(scan.problems.empty());
    REQUIRE(scan.bundles.size() == 1);
    CHECK(scan.bundles[0].file_offset == 4096);
  }
  SECTION("separate ranges are each walked, in file order") {
    const std::string two = bundle + std::string(4096 - bundle.size() % 4096, '\0') + bundle;
    const std::size_t second = two.size() - bundle.size();
    const std::string elf = elf_with_fatbins(two, {{second, two.size()}, {0, second}});
    const auto scan = scan_offload_bundles(util::StringBytes(elf));
    CHECK(scan.problems.empty());
    REQUIRE(scan.bundles.size() == 2);
    CHECK(scan.bundles[0].file_offset == 4096);
    CHECK(scan.bundles[1].file_offset == 4096 + second);
  }
}
