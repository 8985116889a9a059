// The package databases the packages probe reads: dpkg's status file, pacman's desc, an rpm
// header blob and rpmdb.sqlite (rocdoc's own SQLite reader), each on the same bytes. The
// reader either answers or throws SqliteFormatError; what a snapshot keeps of a file reads back
// the same.
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
