// The packages probe: what the package managers' own databases say is installed, read as files
// (nothing is run): dpkg's status file, rpm's SQLite database, pacman's local database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

/// The caps, in one place (docs/snapshot-extensions.md, "Package databases"): a database over
/// its cap is named in the facts and never read, in part or whole. dpkg's status file is 1-5 MiB
/// on a desktop; rpmdb.sqlite about 25 KiB per installed package (3.4 MiB for CBL-Mariner's
/// 129); a pacman desc file a few KiB. rpmdb.sqlite is read whole (the reader then touches only
/// the pages of the kept packages): 128 MiB, about 5000 packages, bounds what a default check
/// holds in memory; a larger one is named, not read.
inline constexpr std::uint64_t k_dpkg_status_cap = std::uint64_t{32} << 20;
inline constexpr std::uint64_t k_rpmdb_cap = std::uint64_t{128} << 20;
inline constexpr std::size_t k_pacman_desc_cap = std::size_t{64} << 10;
inline constexpr std::size_t k_pacman_entries_bound = 100000;

/// The packages the probe keeps: rocm*, amdgpu*, hip*, hsa*, miopen*, rccl*, Debian's HIP and
/// HSA runtime libraries (libamdhip64-*, libhsa-runtime64-*), the distributions' torch
/// (python3-torch; Arch's python-pytorch*) and the kernel (linux-image-* on Debian and Ubuntu;
/// kernel, kernel-core, kernel-default, kernel-rt-core on RPM distributions; linux, linux-lts,
/// linux-zen, linux-hardened, linux-rt, linux-rt-lts on Arch).
bool is_kept_package(std::string_view name);

/// The kept packages of a dpkg status file (deb-control(5) stanzas): those whose Status is not
/// not-installed or config-files.
std::vector<InstalledPackage> parse_dpkg_status(std::string_view text);

/// parse_dpkg_status over a file read in pieces: each stanza is parsed once it is whole, and
/// only an unfinished stanza is kept between pieces.
class DpkgStatusReader {
 public:
  void feed(std::string_view piece);
  /// The kept packages, sorted, once the last piece has been fed.
  std::vector<InstalledPackage> finish();

 private:
  void parse(std::string_view stanzas);
  std::string m_pending;  ///< the start of a stanza whose end has not come yet
  std::vector<InstalledPackage> m_packages;
};
/// What a snapshot keeps of a dpkg status file: the stanzas of the kept packages, whole.
std::string dpkg_status_to_record(std::string_view text);

/// A pacman local database `desc` file (%NAME%, %VERSION%, %ARCH% sections); nullopt without
/// a name and a version.
std::optional<InstalledPackage> parse_pacman_desc(std::string_view text);

/// An rpm header blob as rpmdb.sqlite stores it (index count, data length, index entries, data
/// store; big-endian): NAME 1000, EPOCH 1003, VERSION 1001, RELEASE 1002, ARCH 1022. nullopt
/// when it is not a well-formed header with a name, a version and a release.
std::optional<InstalledPackage> parse_rpm_header(std::string_view blob);

/// The kept packages of an rpmdb.sqlite (rpm 4.16 and later): the `Name` index table gives the
/// header numbers of the kept names, and only their rows of `Packages` are read (every row when
/// there is no `Name` table). Marks the pages read in `pages` when given. Throws
/// util::SqliteFormatError when the file breaks the format.
std::vector<InstalledPackage> read_rpmdb_sqlite(std::string_view bytes,
                                                std::vector<bool>* pages = nullptr);
/// What a snapshot keeps of an rpmdb.sqlite: the file with every page that reading the kept
/// packages did not touch set to zeros, so that it compresses to those pages and reads back the
/// same; a file that is not a readable database is kept as it is.
std::string rpmdb_to_record(std::string_view bytes);

PackageFacts probe_packages(const ProbeContext& context);

}  // namespace rocdoc
