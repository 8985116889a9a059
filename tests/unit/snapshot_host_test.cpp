#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "probes/python_locations.h"
#include "src/hosts/snapshot.h"
#include "tests/unit/test_support.h"

using namespace rocdoc;
using Catch::Matchers::Contains;

TEST_CASE("a missing manifest names the file", "[host][snapshot]") {
  test::TempSnapshot snap;
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()),
                    Contains("rocdoc-snapshot.json: cannot read the snapshot manifest"));
}

TEST_CASE("a manifest that is not JSON is refused with its position", "[host][snapshot]") {
  test::TempSnapshot snap;
  snap.manifest("{\"format\": ");
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()), Contains("rocdoc-snapshot.json: not valid JSON"));
}

TEST_CASE("a wrong or missing format is refused", "[host][snapshot]") {
  test::TempSnapshot snap;
  snap.manifest(R"({"format": "rocdoc-snapshot/2"})");
  CHECK_THROWS_WITH(
      SnapshotHost(snap.dir()),
      Contains("\"format\" is \"rocdoc-snapshot/2\", expected \"rocdoc-snapshot/1\""));
  snap.manifest(R"({"note": "x"})");
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()), Contains("no \"format\" key"));
}

TEST_CASE("manifest fields of the wrong type name the key", "[host][snapshot]") {
  test::TempSnapshot snap;
  snap.manifest(
      R"({"format": "rocdoc-snapshot/1", "nodes": {"/dev/kfd": {"type": "char", "mode": "9999"}}})");
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()), Contains("nodes[\"/dev/kfd\"].\"mode\""));
  snap.manifest(R"({"format": "rocdoc-snapshot/1", "identity": {"uid": "1000"}})");
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()), Contains("identity.\"uid\" has the wrong type"));
}

TEST_CASE("nodes, links and files form one tree", "[host][snapshot]") {
  test::TempSnapshot snap;
  snap.manifest(R"({
    "format": "rocdoc-snapshot/1",
    "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [{"name": "video", "gid": 44}]},
    "env": {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "AWS_SECRET_ACCESS_KEY": "leak"},
    "nodes": {"/dev/kfd": {"type": "char", "mode": "0660", "uid": 0, "gid": 110, "major": 235,
                           "minor": 0, "access": "none", "errno": "EACCES"},
              "/dev/dri/renderD128": {"type": "char", "mode": "0660", "gid": 110, "access": "rw"}},
    "links": {"/sys/bus/pci/devices/0000:03:00.0/driver": "../../../../bus/pci/drivers/amdgpu"},
    "pci_paths": {"0000:03:00.0": "/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0"}
  })");
  snap.file("/sys/bus/pci/devices/0000:03:00.0/vendor", "0x1002\n");
  snap.file("/dev/dri/card0", "");
  const SnapshotHost host(snap.dir());
  CHECK(host.identity().user == "alice");
  CHECK(host.env("HSA_OVERRIDE_GFX_VERSION") == "10.3.0");
  CHECK_FALSE(host.env("AWS_SECRET_ACCESS_KEY").has_value());
  CHECK(host.environment().size() == 1);
  const auto kfd = host.stat("/dev/kfd");
  REQUIRE(kfd);
  CHECK(kfd->type == FileType::char_device);
  CHECK(kfd->mode == 0660);
  CHECK(kfd->gid == 110);
  CHECK(host.open_device("/dev/kfd").error == "EACCES");
  CHECK(host.open_device("/dev/dri/renderD128").access == OpenAccess::read_write);
  CHECK(host.open_device("/dev/nope").error == "ENOENT");
  CHECK(host.list_dir("/dev/dri") == std::vector<std::string>{"card0", "renderD128"});
  CHECK(host.list_dir("/dev") == std::vector<std::string>{"dri", "kfd"});
  CHECK(host.read_link("/sys/bus/pci/devices/0000:03:00.0/driver") ==
        "../../../../bus/pci/drivers/amdgpu");
  CHECK(host.read_link("/sys/bus/pci/devices/0000:03:00.0") ==
        "/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0");
  CHECK(host.read_file("/sys/bus/pci/devices/0000:03:00.0/vendor", 64) == "0x1002\n");
  CHECK_FALSE(host.read_file("/dev/kfd", 64).has_value());
}

TEST_CASE("read_errors: a file that exists but refuses to be read, with its errno",
          "[host][snapshot]") {
  test::TempSnapshot snap;
  snap.file("/sys/class/kfd/kfd/topology/nodes/2/properties", "simd_count 1216\n");
  snap.manifest(R"({"format": "rocdoc-snapshot/1", "read_errors": {
      "/sys/class/kfd/kfd/topology/nodes/3/properties": "EPERM"}})");
  const SnapshotHost snapshot(snap.dir());
  const Host& host = snapshot;
  const FileRead refused =
      host.read_file_or_error("/sys/class/kfd/kfd/topology/nodes/3/properties");
  CHECK_FALSE(refused.content.has_value());
  CHECK(refused.error == "EPERM");
  CHECK(host.stat("/sys/class/kfd/kfd/topology/nodes/3/properties")->type == FileType::regular);
  CHECK(host.list_dir("/sys/class/kfd/kfd/topology/nodes") == std::vector<std::string>{"2", "3"});
  CHECK(host.read_file_or_error("/sys/class/kfd/kfd/topology/nodes/9/properties").error ==
        "ENOENT");
  CHECK(host.read_file("/sys/class/kfd/kfd/topology/nodes/2/properties") == "simd_count 1216\n");
  snap.manifest(R"({"format": "rocdoc-snapshot/1", "read_errors": {"/x": "permission denied"}})");
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()), Contains("\"read_errors\"[\"/x\"]"));
}

TEST_CASE("one directory reached through a link is one environment", "[host][python]") {
  test::TempSnapshot snap;
  snap.manifest(R"({"format": "rocdoc-snapshot/1",
    "links": {"/home/alice/.local/share/uv/python/cpython-3.12-linux-x86_64-gnu":
              "cpython-3.12.14-linux-x86_64-gnu"}})");
  snap.file(
      "/home/alice/.local/share/uv/python/cpython-3.12.14-linux-x86_64-gnu/lib/python3.12/"
      "site-packages/torch/version.py",
      "__version__ = '2.7.1+rocm6.3'\n");
  const SnapshotHost host(snap.dir());
  const std::string uv = "/home/alice/.local/share/uv/python/";
  CHECK(resolve_links(host, uv + "cpython-3.12-linux-x86_64-gnu/lib/python3.12/site-packages") ==
        uv + "cpython-3.12.14-linux-x86_64-gnu/lib/python3.12/site-packages");
  CHECK(resolve_links(host, "/usr/lib/../lib64/./x") == "/usr/lib64/x");
  CHECK(resolve_links(host, "/") == "/");

  // Paths resolved one after another through one LinksRead give the same answers, each link
  // read once: the link, and the directories above it, are kept the first time.
  LinksRead read;
  const std::string link = uv + "cpython-3.12-linux-x86_64-gnu";
  CHECK(resolve_links(host, link + "/lib/python3.12/site-packages", read) ==
        uv + "cpython-3.12.14-linux-x86_64-gnu/lib/python3.12/site-packages");
  CHECK(read.at(link) == "cpython-3.12.14-linux-x86_64-gnu");
  CHECK(read.at("/home") == std::nullopt);
  const std::size_t known = read.size();
  CHECK(resolve_links(host, link + "/lib", read) == uv + "cpython-3.12.14-linux-x86_64-gnu/lib");
  CHECK(read.size() == known);
  CHECK(resolve_links(host, link + "/bin", read) == uv + "cpython-3.12.14-linux-x86_64-gnu/bin");
  CHECK(read.size() == known + 1);
}

// ---- Hostile snapshots (reliability audit 2026-11): refused with exit 2, never followed out.

namespace {

std::string manifest_with(const std::string& members) {
  return std::string(R"({"format": "rocdoc-snapshot/1")") + (members.empty() ? "" : ", ") +
         members + "}";
}

/// The message of the SnapshotError a manifest raises, or "" when it is accepted.
std::string refusal(const std::string& manifest) {
  test::TempSnapshot snap;
  snap.manifest(manifest);
  try {
    SnapshotHost host(snap.dir());
  } catch (const SnapshotError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a deeply nested manifest is refused before anything recurses", "[host][snapshot]") {
  const std::size_t depth = 70000;  // the audit's crash: format->dump() overflowed the stack
  const std::string message =
      refusal("{\"format\": " + std::string(depth, '[') + std::string(depth, ']') + "}");
  CHECK_THAT(message, Contains("nested deeper than 16 levels"));
  CHECK(message.size() < 300);
  CHECK_THAT(refusal(R"({"format": [[1, 2]]})"),
             Contains("\"format\" is a JSON array, expected \"rocdoc-snapshot/1\""));
}

TEST_CASE("errors quote hostile values short and printable", "[host][snapshot]") {
  const std::string huge(1 << 20, 'x');
  const std::string message = refusal("{\"format\": \"" + huge + "\"}");
  CHECK_THAT(message, Contains("\"format\" is \"" + std::string(60, 'x') + "… (1048576 bytes)\""));
  CHECK(message.size() < 300);
  const std::string escaped =
      refusal(manifest_with(R"("nodes": {"/dev/kfd": {"type": "\u001b[2Jchar\nFAKE"}})"));
  CHECK_THAT(escaped, Contains("not \"\\x1b[2Jchar\\nFAKE\""));
  CHECK(escaped.find('\x1b') == std::string::npos);
  CHECK(escaped.find('\n') == std::string::npos);
  const std::string parse_error = refusal("{\"format\": \"" + huge);  // unterminated string
  CHECK_THAT(parse_error, Contains("not valid JSON"));
  CHECK(parse_error.size() < 400);
  CHECK_THAT(refusal(std::string("{\"format\": \0\0\0}", 16)),
             Contains("not valid JSON: a NUL byte at offset 11"));
}

TEST_CASE("manifest numbers out of their real range are refused, never wrapped",
          "[host][snapshot]") {
  CHECK_THAT(refusal(manifest_with(R"("identity": {"uid": 4294967296})")),
             Contains("identity.\"uid\" is 4294967296, out of range"));
  CHECK_THAT(refusal(manifest_with(R"("identity": {"uid": -1})")),
             Contains("identity.\"uid\" must be a whole number from 0 to 4294967295, not -1"));
  CHECK_THAT(refusal(manifest_with(
                 R"("nodes": {"/dev/kfd": {"type": "char", "major": 18446744073709551615}})")),
             Contains("\"major\" is 18446744073709551615, out of range"));
  CHECK(refusal(manifest_with(R"("identity": {"uid": 4294967295, "gid": 0})")).empty());
  CHECK_THAT(refusal(manifest_with(R"J("nodes": {"/dev/kfd": {"type": "char", "errno": "E$(x)"
}
})J")),
             Contains("\"errno\" must be an errno name"));
}

TEST_CASE("manifest paths and entry counts are bounded", "[host][snapshot]") {
  // The audit's 1 MB link target took 22 s to walk; a link target is at most PATH_MAX.
  const std::string long_target = "/" + [] {
    std::string t;
    while (t.size() < 5000) {
      t += "a/../";
    }
    return t;
  }();
  CHECK_THAT(refusal(manifest_with(R"("links": {"/sys": ")" + long_target + R"("})")),
             Contains("links[\"/sys\"] is 5001 bytes long; a path is at most 4095 (PATH_MAX)"));
  std::string env = R"("env": {)";
  for (std::size_t i = 0; i <= k_max_manifest_entries; ++i) {
    env += (i == 0 ? "" : ",") + std::string("\"V") + std::to_string(i) + "\": \"x\"";
  }
  CHECK_THAT(refusal(manifest_with(env + "}")), Contains("holds more than 100000 entries"));
}

TEST_CASE("a manifest larger than the bound is refused, not cut", "[host][snapshot]") {
  test::TempSnapshot snap;
  snap.manifest(manifest_with(R"("note": ")" + std::string(k_max_manifest_bytes, ' ') + "\""));
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()), Contains("larger than 16 MiB"));
}

TEST_CASE("a snapshot that holds nothing is refused, not judged as an empty machine",
          "[host][snapshot]") {
  // Issue 22, D21: a bare manifest was read as a machine with no PCI functions and uid 0.
  test::TempSnapshot empty;
  empty.manifest(test::k_minimal_manifest);
  CHECK_THROWS_WITH(SnapshotHost(empty.dir()),
                    Contains(": this snapshot holds nothing (no uname, identity, environment, "
                             "device nodes or files under root/)"));
  test::TempSnapshot with_uname;
  with_uname.manifest(
      R"({"format": "rocdoc-snapshot/1", "uname": {"sysname": "Linux", "release": "6.8.0"}})");
  CHECK_NOTHROW(SnapshotHost(with_uname.dir()));
  test::TempSnapshot with_file;
  with_file.manifest(test::k_minimal_manifest);
  with_file.file("/etc/os-release", "ID=debian\n");
  CHECK_NOTHROW(SnapshotHost(with_file.dir()));
}

TEST_CASE("a root/ that is a symbolic link is refused", "[host][snapshot]") {
  test::TempSnapshot snap;
  snap.manifest(test::k_minimal_manifest);
  std::filesystem::remove(snap.root());
  std::filesystem::create_directory_symlink("/", snap.root());
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()),
                    Contains("root: is a symbolic link; a snapshot's root/ must be a directory"));
}

TEST_CASE("a manifest that is a link or not a regular file is refused", "[host][snapshot]") {
  test::TempSnapshot snap;
  std::filesystem::create_symlink("/dev/zero", snap.dir() + "/rocdoc-snapshot.json");
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()), Contains("manifest: a symbolic link"));
  std::filesystem::remove(snap.dir() + "/rocdoc-snapshot.json");
  REQUIRE(::mkfifo((snap.dir() + "/rocdoc-snapshot.json").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(SnapshotHost(snap.dir()), Contains("manifest: not a regular file"));
}

TEST_CASE("reads never follow a link that was not resolved inside the root", "[host][snapshot]") {
  for (const auto method : {OpenMethod::openat2_when_available, OpenMethod::per_component}) {
    set_open_method(method);
    test::TempSnapshot outside;
    outside.file("/secret", "PRETTY_NAME=\"OUTSIDE\"\n");
    test::TempSnapshot snap;
    snap.manifest(test::k_minimal_manifest);
    snap.file("/etc/os-release", "PRETTY_NAME=\"INSIDE\"\n");
    REQUIRE(::mkfifo((snap.root() + "/etc/fifo").c_str(), 0600) == 0);
    std::filesystem::create_directories(snap.root() + "/a");
    SnapshotRoot root(util::UniqueFd(::open(snap.root().c_str(), O_PATH | O_DIRECTORY)),
                      snap.root());
    CHECK(root.read_regular("/etc/os-release", 1024).content == "PRETTY_NAME=\"INSIDE\"\n");
    // What SnapshotHost would see if a file were swapped for a link after its resolution:
    std::filesystem::create_symlink(outside.root() + "/secret", snap.root() + "/etc/swapped");
    std::filesystem::create_directory_symlink(outside.root(), snap.root() + "/a/dir");
    const FileRead swapped = root.read_regular("/etc/swapped", 1024);
    CHECK_FALSE(swapped.content);
    CHECK(swapped.error == "ELOOP");
    CHECK_FALSE(root.read_regular("/a/dir/secret", 1024).content);  // a link on the way
    CHECK_FALSE(root.list("/a/dir", 10));
    CHECK(root.read_link("/etc/swapped") == outside.root() + "/secret");
    // A FIFO is neither opened for reading nor waited on.
    CHECK(root.read_regular("/etc/fifo", 1024).error == "EINVAL");
    CHECK(root.read_regular("/etc", 1024).error == "EISDIR");
  }
  set_open_method(OpenMethod::openat2_when_available);
}

TEST_CASE("a directory with more entries than the bound is refused", "[host][snapshot]") {
  test::TempSnapshot snap;
  snap.manifest(test::k_minimal_manifest);
  for (int i = 0; i < 5; ++i) {
    snap.file("/d/f" + std::to_string(i), "");
  }
  SnapshotRoot root(util::UniqueFd(::open(snap.root().c_str(), O_PATH | O_DIRECTORY)), snap.root());
  CHECK(root.list("/d", 5)->size() == 5);
  CHECK_THROWS_AS(root.list("/d", 4), HostLimitError);
}

TEST_CASE("link walks are bounded in components as well as in links", "[host][snapshot]") {
  std::string target;
  for (int i = 0; i < 200; ++i) {
    target += "a/../";
  }
  const LinkLookup lookup = [&](const std::string& inside) -> std::optional<std::string> {
    if (inside == "/sys") {
      return "/" + target + "realsys";
    }
    return std::nullopt;
  };
  CHECK(resolve_in_root("/etc/os-release", lookup, FinalLink::follow) == "/etc/os-release");
  CHECK(resolve_in_root("/sys/x", lookup, FinalLink::follow) == std::nullopt);  // 400+ components
  CHECK(normalize_absolute("/" + target + target + target + "b") == "/b");  // no budget: no links
}
