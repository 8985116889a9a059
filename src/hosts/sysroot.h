// A plain root filesystem read as if it were the machine (--sysroot DIR): an unpacked container
// image (`docker export CONTAINER | tar -x -C DIR`), a chroot, a mounted disk image. Unlike a
// snapshot it has no manifest: no environment, kernel, identity or device nodes are recorded.
// docs/gpu-less.md says what is read and what is assumed.
#pragma once

#include <map>
#include <string>
#include <unordered_map>

#include "rocdoc/host.h"
#include "src/hosts/path_in_root.h"
#include "src/hosts/snapshot_root.h"

namespace rocdoc {

/// PATH when none is given with --env: what `docker run` gives a container whose image sets
/// none (moby's oci.DefaultPathEnv for Linux).
inline constexpr std::string_view k_container_default_path =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

class SysrootHost final : public Host {
 public:
  /// Opens DIR; throws SnapshotError when it is missing or not a directory. `env` holds the
  /// variables given with --env (allow-listed names only; others are dropped); PATH defaults to
  /// k_container_default_path.
  explicit SysrootHost(std::string dir, std::map<std::string, std::string> env = {});

  HostKind kind() const override { return HostKind::sysroot; }
  std::string origin() const override { return m_dir; }
  FileRead read_file_or_error(std::string_view path, std::size_t max_bytes) const override;
  std::optional<std::vector<std::string>> list_dir(std::string_view path) const override;
  std::optional<FileStat> stat(std::string_view path) const override;
  std::optional<std::string> read_link(std::string_view path) const override;
  /// A plain tree holds no usable device: every open fails (ENOENT).
  OpenResult open_device(std::string_view path) const override;
  std::optional<std::uint64_t> filesystem_size(std::string_view path) const override;
  std::optional<std::string> env(std::string_view name) const override;
  std::vector<std::pair<std::string, std::string>> environment() const override;
  /// root (uid 0): the user a container image runs as unless its USER, which is not in the
  /// tree, says otherwise. Only used to find home directories; permissions are not judged.
  Identity identity() const override;
  /// Unknown: a root filesystem has no running kernel (every field is empty).
  Uname uname() const override { return {}; }
  std::optional<std::vector<std::string>> offload_targets(std::string_view path) const override;
  std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const override;
  /// nullopt: nothing of the tree is handed to a library by path.
  std::optional<std::string> local_path(std::string_view) const override { return std::nullopt; }

 private:
  std::optional<std::string> resolve(std::string_view path, FinalLink final_link) const;

  std::string m_dir;
  SnapshotRoot m_root;  ///< DIR, opened once; every read stays beneath it
  std::map<std::string, std::string> m_env;
  /// Links met while resolving paths, by path inside the root.
  mutable std::unordered_map<std::string, std::optional<std::string>> m_link_cache;
};

}  // namespace rocdoc
