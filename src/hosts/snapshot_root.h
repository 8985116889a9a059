// The `root/` directory of a snapshot, read so that nothing can lead outside it.
//
// Every access opens its path relative to a directory fd of root/, without following any
// symbolic link (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it,
// else one openat(O_NOFOLLOW) per component). The snapshot's own links are resolved by
// SnapshotHost (path_in_root.h) before a path gets here, so a link met here is one that
// appeared after that resolution: the access fails instead of following it. No race between
// resolution and open can leave the root.
#pragma once

#include <sys/stat.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/host.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

/// The snapshot cannot be read, or is larger than rocdoc reads: the message names the file
/// and the problem (exit 2).
class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How paths are opened beneath the root: openat2 where the kernel has it (the default), or
/// one openat per component. Tests select the second to cover kernels before 5.6.
enum class OpenMethod { openat2_when_available, per_component };
void set_open_method(OpenMethod method);

/// The files of a snapshot's root/: a directory on disk (SnapshotRoot) or an archive read
/// into memory (MemoryTree). Paths are absolute, normalized paths of the inspected machine.
class SnapshotTree {
 public:
  virtual ~SnapshotTree() = default;
  /// A regular file's content (at most max_bytes), or the errno name of the failure.
  virtual FileRead read_regular(std::string_view inside, std::size_t max_bytes) const = 0;
  /// lstat(2) of the path; its last component is not followed.
  virtual std::optional<struct ::stat> lstat(std::string_view inside) const = 0;
  /// The stored target when the path is a symbolic link.
  virtual std::optional<std::string> read_link(std::string_view inside) const = 0;
  /// Entry names of a directory (unsorted, without . and ..). Throws HostLimitError when it
  /// holds more than max_entries.
  virtual std::optional<std::vector<std::string>> list(std::string_view inside,
                                                       std::size_t max_entries) const = 0;
};

class SnapshotRoot final : public SnapshotTree {
 public:
  /// No root directory: every path is missing.
  SnapshotRoot() = default;
  /// Takes an O_PATH directory fd; `name` is its path, for messages.
  SnapshotRoot(util::UniqueFd root, std::string name)
      : m_root(std::move(root)), m_name(std::move(name)) {}

  FileRead read_regular(std::string_view inside, std::size_t max_bytes) const override;
  std::optional<struct ::stat> lstat(std::string_view inside) const override;
  std::optional<std::string> read_link(std::string_view inside) const override;
  std::optional<std::vector<std::string>> list(std::string_view inside,
                                               std::size_t max_entries) const override;
  /// A regular file opened for reading (never a link, device or FIFO); invalid otherwise.
  util::UniqueFd open_regular(std::string_view inside) const;

 private:
  /// An fd for `inside` opened with `flags` (O_NOFOLLOW is implied for every component);
  /// invalid with errno set on failure.
  util::UniqueFd open(std::string_view inside, int flags) const;
  /// The regular file behind `path_fd` (an O_PATH fd of `inside`, already checked) opened for
  /// reading; invalid with errno set on failure.
  util::UniqueFd reopen_for_reading(std::string_view inside, int path_fd) const;

  util::UniqueFd m_root;
  std::string m_name;
};

}  // namespace rocdoc
