// The packages probe's parsers on real data: dpkg stanzas of this Debian 12 build machine, a
// real rpm header blob, a real rpmdb.sqlite (tests/fixtures/packages-rpm-rhel94-rocm624), the
// pacman desc format of the alpm specification.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "probes/packages.h"
#include "rocdoc/facts.h"
#include "rocdoc/knowledge_loader.h"
#include "src/hosts/snapshot.h"
#include "src/util/sqlite_file.h"
#include "test_support.h"

using namespace rocdoc;

namespace {

std::string file(const std::string& path) {
  std::ifstream in(std::string(ROCDOC_SOURCE_DIR) + "/" + path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const char* k_rpmdb = "tests/fixtures/packages-rpm-rhel94-rocm624/root/var/lib/rpm/rpmdb.sqlite";

/// What the probe reads from `status` fed to it in pieces of `size` bytes, as the live host
/// hands a file over.
std::vector<InstalledPackage> read_in_pieces(std::string_view status, std::size_t size) {
  DpkgStatusReader reader;
  for (std::size_t at = 0; at < status.size(); at += size) {
    reader.feed(status.substr(at, size));
  }
  return reader.finish();
}

}  // namespace

TEST_CASE("The packages kept: ROCm, amdgpu, HIP, torch and kernel packages of each distribution") {
  for (const char* name :
       {"rocm-core", "rocm-core6.2.0", "rocminfo", "amdgpu-dkms", "hip-runtime-amd", "hipcc",
        "hsa-rocr-dev", "hsakmt-roct-dev", "miopen-hip", "rccl", "libamdhip64-5",
        "libhsa-runtime64-1", "python3-torch", "python-pytorch-opt-rocm",
        "linux-image-6.8.0-41-generic", "kernel-core", "kernel", "linux", "linux-lts"}) {
    INFO(name);
    CHECK(is_kept_package(name));
  }
  for (const char* name : {"bash", "linux-firmware", "linux-headers-6.8.0-41-generic",
                           "kernel-headers", "amd-smi-lib", "libdrm-amdgpu1", "python3-numpy"}) {
    INFO(name);
    CHECK_FALSE(is_kept_package(name));
  }
}

TEST_CASE("dpkg status: the kept packages of real Debian 12 stanzas, and what a snapshot keeps") {
  const std::string status = file("tests/data/packages/dpkg-status-debian12");
  const auto packages = parse_dpkg_status(status);
  REQUIRE(packages.size() == 3);  // bash is not kept
  CHECK(packages[0].name == "libamdhip64-5");
  CHECK(packages[0].version == "5.2.3-8");
  CHECK(packages[0].arch == "amd64");
  CHECK_FALSE(packages[0].state);
  CHECK(packages[1].name == "libhsa-runtime64-1");
  CHECK(packages[2].name == "python3-torch");
  CHECK(packages[2].version == "1.13.1+dfsg-4");

  const std::string kept = dpkg_status_to_record(status);
  CHECK(kept.find("Package: bash") == std::string::npos);
  CHECK(kept.find("Description: Heterogeneous") != std::string::npos);  // whole stanzas
  CHECK(parse_dpkg_status(kept).size() == 3);
  CHECK(dpkg_status_to_record(kept) == kept);
}

TEST_CASE("dpkg status read in pieces gives what it gives read whole, wherever the cuts fall") {
  const std::string status = file("tests/data/packages/dpkg-status-debian12");
  const auto whole = parse_dpkg_status(status);
  REQUIRE(whole.size() == 3);
  for (const std::size_t size : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64},
                                 std::size_t{1000}, status.size()}) {
    INFO("pieces of " << size << " bytes");
    const auto pieces = read_in_pieces(status, size);
    REQUIRE(pieces.size() == whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
      CHECK(pieces[i].name == whole[i].name);
      CHECK(pieces[i].version == whole[i].version);
      CHECK(pieces[i].arch == whole[i].arch);
      CHECK(pieces[i].state == whole[i].state);
    }
  }
}

TEST_CASE("dpkg status: states other than installed, removed packages, broken stanzas") {
  const auto packages = parse_dpkg_status(
      "Package: amdgpu-dkms\nStatus: install ok half-configured\nArchitecture: all\n"
      "Version: 1:6.8.5.60200-2009582.22.04\n\n"
      "Package: rocm-core\nStatus: deinstall ok config-files\nVersion: 6.1.0.60100-82~22.04\n"
      "\n\n\nPackage: rccl\nStatus: install ok installed\n\n"  // no Version
      "Package: hipcc\r\nStatus: install ok installed\r\nVersion: 1.1.1.60200-66~22.04\r\n");
  REQUIRE(packages.size() == 2);
  CHECK(packages[0].name == "amdgpu-dkms");
  CHECK(packages[0].state == "half-configured");
  CHECK(packages[1].name == "hipcc");
  CHECK(packages[1].version == "1.1.1.60200-66~22.04");
  CHECK(parse_dpkg_status("").empty());
  CHECK(parse_dpkg_status("\n\n\n").empty());
}

TEST_CASE("dpkg status: stanza bounds around a kept name, whatever else the file holds") {
  const std::string status =
      // A white-space-only line ends a stanza too: hip-dev's Description is not rocm-core's.
      "Package: rocm-core\nStatus: install ok installed\nVersion: 6.2.0\n \t\r\n"
      "Package: bash\nStatus: install ok installed\nVersion: 5.2\n"
      // "Package:" in a description is a continuation line, not a field.
      "Description: shell\n Package: rocm-llvm\n Version: 9\n\n"
      // The first Package line decides: this stanza is bash-doc's, not hipcc's.
      "Package: bash-doc\nPackage: hipcc\nStatus: install ok installed\nVersion: 1\n\n"
      "Package:rccl\nStatus: install ok installed\nVersion: 2.20\r\n\r\n"
      "Package: hip-dev\nStatus: install ok installed\nVersion: 6.2.1";  // no newline at the end
  const auto packages = parse_dpkg_status(status);
  REQUIRE(packages.size() == 3);
  CHECK(packages[0].name == "hip-dev");
  CHECK(packages[0].version == "6.2.1");
  CHECK(packages[1].name == "rccl");
  CHECK(packages[1].version == "2.20");
  CHECK(packages[2].name == "rocm-core");
  CHECK(packages[2].version == "6.2.0");
  CHECK(dpkg_status_to_record(status) ==
        "Package: rocm-core\nStatus: install ok installed\nVersion: 6.2.0\n\n"
        "Package:rccl\nStatus: install ok installed\nVersion: 2.20\r\n\n"
        "Package: hip-dev\nStatus: install ok installed\nVersion: 6.2.1\n\n");
  for (const std::size_t size : {std::size_t{1}, std::size_t{3}, std::size_t{50}}) {
    INFO("pieces of " << size << " bytes");
    const auto pieces = read_in_pieces(status, size);
    REQUIRE(pieces.size() == 3);
    CHECK(pieces[0].name == "hip-dev");
    CHECK(pieces[2].version == "6.2.0");
  }
}

TEST_CASE("pacman desc: the alpm-db-desc format") {
  // The layout of the alpm-db-descv1 specification's example (alpm.archlinux.page).
  const auto package = parse_pacman_desc(
      "%NAME%\nrocm-core\n\n%VERSION%\n6.2.4-1\n\n%BASE%\nrocm-core\n\n%DESC%\nAMD ROCm core\n\n"
      "%ARCH%\nx86_64\n\n%BUILDDATE%\n1733737242\n\n%INSTALLDATE%\n1733737243\n\n%REASON%\n1\n");
  REQUIRE(package);
  CHECK(package->name == "rocm-core");
  CHECK(package->version == "6.2.4-1");
  CHECK(package->arch == "x86_64");
  CHECK_FALSE(parse_pacman_desc("%NAME%\nfoo\n"));
  CHECK_FALSE(parse_pacman_desc(""));
}

TEST_CASE("rpm header: a real header blob (knqyf263/go-rpmdb pkg/testdata/blob.bin)") {
  const auto package = parse_rpm_header(file("tests/data/packages/rpm-header-fedora35.bin"));
  REQUIRE(package);
  CHECK(package->name == "publicsuffix-list-dafsa");
  CHECK(package->version == "20210518-2.fc35");
  CHECK(package->arch == "noarch");
  const std::string blob = file("tests/data/packages/rpm-header-fedora35.bin");
  for (std::size_t size : {0, 7, 8, 100, 4000}) {
    CHECK_FALSE(parse_rpm_header(std::string_view(blob).substr(0, size)));
  }
}

TEST_CASE("rpmdb.sqlite: the kept packages of a real rpm database, read by rocdoc's reader") {
  const std::string bytes = file(k_rpmdb);
  const auto packages = read_rpmdb_sqlite(bytes);
  std::vector<std::string> seen;
  for (const auto& package : packages) {
    seen.push_back(package.name + " " + package.version + " " + package.arch);
  }
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::string>{
                    "amdgpu-core 1:6.2.60204-2070768.el9 noarch",
                    "amdgpu-dkms 1:6.8.5.60204-2070768.el9 noarch",
                    "amdgpu-dkms-firmware 1:6.8.5.60204-2070768.el9 noarch",
                    "hip-runtime-amd 6.2.41134.60204-139.el9 x86_64",
                    "hsa-rocr-devel 1.14.0.60204-139.el9 x86_64",
                    "kernel-core 5.14.0-427.13.1.el9_4 x86_64",
                    "miopen-hip 3.2.0.60204-139.el9 x86_64",
                    "rccl 2.20.5.60204-139.el9 x86_64",
                });

  // Every row of Packages, walked without the Name index: the 16 headers rpm -qa lists.
  util::SqliteFile db(bytes);
  const auto root = db.table_root("Packages");
  REQUIRE(root);
  int rows = 0;
  db.for_each_row(*root, [&](const util::SqliteRow& row) {
    CHECK(parse_rpm_header(row.columns.at(1).bytes));
    ++rows;
    return true;
  });
  CHECK(rows == 16);

  // What a snapshot keeps: only the pages read, the rest zeros; it reads back the same.
  const std::string kept = rpmdb_to_record(bytes);
  REQUIRE(kept.size() == bytes.size());
  CHECK(std::count(kept.begin(), kept.end(), '\0') > std::count(bytes.begin(), bytes.end(), '\0'));
  CHECK(read_rpmdb_sqlite(kept).size() == packages.size());
}

TEST_CASE("rpmdb.sqlite: broken files throw SqliteFormatError, never read out of bounds") {
  const std::string bytes = file(k_rpmdb);
  CHECK_THROWS_AS(read_rpmdb_sqlite(""), util::SqliteFormatError);
  CHECK_THROWS_AS(read_rpmdb_sqlite("SQLite format 3"), util::SqliteFormatError);
  CHECK_THROWS_AS(read_rpmdb_sqlite(std::string_view(bytes).substr(0, 4096)),
                  util::SqliteFormatError);
  // Every page but the first zeroed: page 1 points into nothing.
  std::string zeroed = bytes.substr(0, 4096) + std::string(bytes.size() - 4096, '\0');
  CHECK_THROWS_AS(read_rpmdb_sqlite(zeroed), util::SqliteFormatError);
  // A page size that is not a power of two.
  std::string odd = bytes;
  odd[16] = 0x10;
  odd[17] = 0x01;
  CHECK_THROWS_AS(read_rpmdb_sqlite(odd), util::SqliteFormatError);
}

TEST_CASE("Versions of AMD's packages name their ROCm and driver releases") {
  CHECK(amd_package_rocm_release("6.2.41134.60204-139.el9") == "6.2.4");
  CHECK(amd_package_rocm_release("1:6.8.5.60200-2009582.22.04") == "6.2.0");
  CHECK(amd_package_rocm_release("1.0.0.60204.60204-139.el9") == "6.2.4");
  CHECK(amd_package_rocm_release("20240125.5.08.60103-122~22.04") == "6.1.3");
  CHECK(amd_package_rocm_release("7.1.0.70100-20~24.04") == "7.1.0");
  CHECK_FALSE(amd_package_rocm_release("5.2.3-8"));
  CHECK_FALSE(amd_package_rocm_release("1:6.16.6.30200000"));
  CHECK(amd_package_driver_release("1:6.16.6.30200000") == "30.20");
  CHECK(amd_package_driver_release("1:7.1.3.31500000") == "31.50");
  CHECK_FALSE(amd_package_driver_release("1:6.8.5.60200-2009582.22.04"));
  CHECK(package_upstream_version("1:6.8.5.60200-2009582.22.04") == "6.8.5.60200");
  CHECK(package_upstream_version("6.2.4-1") == "6.2.4");
  CHECK(package_upstream_version("6.2.4") == "6.2.4");
}

TEST_CASE("The probe: pacman's local db, a database over its cap, a format not read") {
  const KnowledgeSource knowledge(embedded_knowledge(KnowledgeParts::machine));
  const std::vector<PythonInterpreter> interpreters;
  // pacman: the directory names, then the desc of the kept packages only (alpm-db-desc).
  test::TempSnapshot arch;
  arch.manifest(test::k_minimal_manifest);
  arch.file("/var/lib/pacman/local/rocm-core-7.1.1-1/desc",
            "%NAME%\nrocm-core\n\n%VERSION%\n7.1.1-1\n\n%ARCH%\nx86_64\n");
  arch.file("/var/lib/pacman/local/linux-6.17.9.arch1-1/desc",
            "%NAME%\nlinux\n\n%VERSION%\n6.17.9.arch1-1\n\n%ARCH%\nx86_64\n");
  arch.file("/var/lib/pacman/local/bash-5.3.3-2/desc", "%NAME%\nbash\n\n%VERSION%\n5.3.3-2\n");
  const PackageFacts pacman =
      probe_packages({SnapshotHost(arch.dir()), knowledge, interpreters, RuntimeOptions{}});
  REQUIRE(pacman.databases.size() == 1);
  CHECK(pacman.databases[0].manager == PackageManager::pacman);
  REQUIRE(pacman.databases[0].packages.size() == 2);
  CHECK(pacman.databases[0].packages[0].name == "linux");
  CHECK(pacman.databases[0].packages[1].name == "rocm-core");
  CHECK(pacman.databases[0].packages[1].version == "7.1.1-1");

  // A dpkg status file past its cap (a sparse file: its size is what decides) is named, not
  // read; RHEL 8's BerkeleyDB rpm database is named as a format rocdoc does not read.
  test::TempSnapshot big;
  big.manifest(test::k_minimal_manifest);
  big.file("/var/lib/dpkg/status", "Package: rocm-core\nVersion: 6.2.0\n\n");
  std::filesystem::resize_file(big.root() + "/var/lib/dpkg/status", k_dpkg_status_cap + 1);
  big.file("/var/lib/rpm/Packages", std::string(4096, '\0'));
  const PackageFacts capped =
      probe_packages({SnapshotHost(big.dir()), knowledge, interpreters, RuntimeOptions{}});
  REQUIRE(capped.databases.size() == 2);
  CHECK(capped.databases[0].state == PackageDatabase::State::too_large);
  CHECK(capped.databases[0].packages.empty());
  CHECK(capped.databases[0].problem.find("over rocdoc's cap of") != std::string::npos);
  CHECK(capped.databases[1].manager == PackageManager::rpm);
  CHECK(capped.databases[1].state == PackageDatabase::State::unsupported);
}
