#include <catch2/catch.hpp>

#include "probes/python_locations.h"
#include "src/snapshot_host.h"
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
}
