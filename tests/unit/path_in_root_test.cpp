#include <catch2/catch.hpp>
#include <map>

#include "src/hosts/path_in_root.h"
#include "src/hosts/snapshot.h"
#include "tests/unit/test_support.h"

using namespace rocdoc;

namespace {

LinkLookup links(std::map<std::string, std::string> table) {
  return [table](const std::string& path) -> std::optional<std::string> {
    const auto it = table.find(path);
    return it == table.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

}  // namespace

TEST_CASE("resolve_in_root clamps .. at the root", "[host][root]") {
  const auto none = links({});
  CHECK(resolve_in_root("/a/../../../etc/passwd", none, FinalLink::follow) == "/etc/passwd");
  CHECK(resolve_in_root("/../..", none, FinalLink::follow) == "/");
  CHECK(normalize_absolute("/a/./b//c/../d") == "/a/b/d");
}

TEST_CASE("resolve_in_root restarts absolute link targets at the root", "[host][root]") {
  const auto table = links({{"/opt/rocm", "/opt/rocm-6.2.0"}, {"/x/up", "../../../../etc"}});
  CHECK(resolve_in_root("/opt/rocm/.info/version", table, FinalLink::follow) ==
        "/opt/rocm-6.2.0/.info/version");
  CHECK(resolve_in_root("/x/up/shadow", table, FinalLink::follow) == "/etc/shadow");
  CHECK(resolve_in_root("/opt/rocm", table, FinalLink::keep) == "/opt/rocm");
}

TEST_CASE("resolve_in_root stops link loops", "[host][root]") {
  const auto table = links({{"/a", "/b"}, {"/b", "/a"}});
  CHECK_FALSE(resolve_in_root("/a/file", table, FinalLink::follow).has_value());
}

TEST_CASE("a snapshot's symlinks never reach the reading machine", "[host][root]") {
  test::TempSnapshot snap;
  snap.manifest(test::k_minimal_manifest);
  snap.file("/etc/passwd", "snapshot-passwd\n");
  snap.symlink("/evil/abs", "/etc/passwd");
  snap.symlink("/evil/rel", "../../../../../../../../etc/passwd");
  snap.symlink("/evil/dir", "/");
  const SnapshotHost host(snap.dir());
  // Both links land on the snapshot's own /etc/passwd, not the real one.
  CHECK(host.read_file("/evil/abs", 4096) == "snapshot-passwd\n");
  CHECK(host.read_file("/evil/rel", 4096) == "snapshot-passwd\n");
  CHECK(host.read_file("/evil/dir/etc/passwd", 4096) == "snapshot-passwd\n");
  // A target the snapshot does not hold is simply missing.
  snap.symlink("/evil/shadow", "/etc/shadow");
  CHECK_FALSE(host.read_file("/evil/shadow", 4096).has_value());
  CHECK(host.read_link("/evil/abs") == "/etc/passwd");
}
