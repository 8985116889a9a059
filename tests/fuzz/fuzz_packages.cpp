// The package databases the packages probe reads: dpkg's status file (whole and in pieces),
// pacman's desc, an rpm header blob and rpmdb.sqlite (rocdoc's own SQLite reader), each on the
// same bytes. The reader either answers or throws SqliteFormatError; what a snapshot keeps of a
// file reads back the same.
#include "probes/packages.h"
#include "src/util/sqlite_file.h"
#include "tests/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  const auto packages = parse_dpkg_status(input);
  const std::string kept = dpkg_status_to_record(input);
  ROCDOC_FUZZ_CHECK(parse_dpkg_status(kept).size() == packages.size(),
                    "a dpkg status file's record gives the same packages");
  for (const auto& package : packages) {
    ROCDOC_FUZZ_CHECK(is_kept_package(package.name) && !package.version.empty(),
                      "only kept packages with a version: " + package.name);
  }
  // Read in pieces (the live host's way), wherever the cuts fall, it gives what it gives whole:
  // the piece size comes from the input's first byte.
  const std::size_t piece = size == 0 ? 1 : 1 + data[0] % 97;
  DpkgStatusReader reader;
  for (std::size_t at = 0; at < input.size(); at += piece) {
    reader.feed(input.substr(at, piece));
  }
  const auto pieces = reader.finish();
  ROCDOC_FUZZ_CHECK(pieces.size() == packages.size(), "read in pieces, the same packages");
  for (std::size_t i = 0; i < pieces.size() && i < packages.size(); ++i) {
    ROCDOC_FUZZ_CHECK(
        pieces[i].name == packages[i].name && pieces[i].version == packages[i].version &&
            pieces[i].arch == packages[i].arch && pieces[i].state == packages[i].state,
        "read in pieces, the same package: " + packages[i].name);
  }
  (void)parse_pacman_desc(input);
  (void)parse_rpm_header(input);
  try {
    const auto rows = read_rpmdb_sqlite(input);
    const std::string record = rpmdb_to_record(input);
    ROCDOC_FUZZ_CHECK(record.size() == input.size(), "the record keeps the file's size");
    ROCDOC_FUZZ_CHECK(read_rpmdb_sqlite(record).size() == rows.size(),
                      "an rpmdb.sqlite's record gives the same packages");
  } catch (const util::SqliteFormatError& error) {
    fuzz::check_error_message(error.what());
  }
  return 0;
}
