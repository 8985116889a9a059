// What a Host answers: plain data (file types and reads, the process identity, uname, the
// kernel log), which the facts hold too. The Host itself is rocdoc/host.h; facts and checks see
// only this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rocdoc {

enum class FileType { regular, directory, symlink, char_device, block_device, other };

struct FileStat {
  FileType type = FileType::other;
  std::uint32_t mode = 0;  ///< permission bits (07777)
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint64_t size = 0;
  std::optional<std::uint32_t> major;  ///< device nodes only
  std::optional<std::uint32_t> minor;
  /// False where mode, uid and gid are not the inspected machine's: a snapshot's root/ tree
  /// (checked out or unpacked by whoever), unlike its recorded `stats` and `nodes`.
  bool owner_known = true;
};

/// What an open() of a device node achieved for this process.
enum class OpenAccess { read_write, read_only, write_only, none };

struct OpenResult {
  OpenAccess access = OpenAccess::none;
  std::string error;  ///< errno name ("EACCES") when the read-write open failed; empty otherwise
};

/// What reading a file gave: its content, or why it could not be read.
struct FileRead {
  std::optional<std::string> content;
  std::string error;  ///< errno name ("ENOENT", "EPERM", ...) when content is nullopt
};

struct Group {
  std::string name;
  std::uint32_t gid = 0;
};

/// The identity of the process that runs rocdoc (live) or that ran it (snapshot).
struct Identity {
  std::string user;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::vector<Group> groups;  ///< the groups the process HAS, not what /etc/group says
};

struct Uname {
  std::string sysname;
  std::string release;
  std::string version;
  std::string machine;
};

/// The kernel's log lines of this boot that concern the GPU (amdgpu, KFD, IOMMU, module
/// signing), as dmesg prints them, or why /dev/kmsg could not be read.
struct KernelLog {
  std::optional<std::vector<std::string>> lines;  ///< nullopt: not read
  std::string error;  ///< the errno name when it could not be read ("EPERM"); "" when not tried
};

/// live: this machine; snapshot: a snapshot directory (--root); sysroot: a plain root
/// filesystem without a manifest, such as an unpacked container image (--sysroot).
enum class HostKind { live, snapshot, sysroot };

}  // namespace rocdoc
