// A snapshot directory (SNAPSHOT-FORMAT v1) read as if it were the machine.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "rocdoc/host.h"
#include "rocdoc/probes.h"
#include "src/hosts/path_in_root.h"
#include "src/hosts/snapshot_root.h"

namespace rocdoc {

struct SnapshotNode {
  FileStat stat;
  OpenResult open;
};

struct SnapshotBinary {
  std::uint64_t size = 0;
  std::vector<std::string> gfx_targets;
  /// The shared libraries it names (DT_NEEDED); nullopt when not recorded.
  std::optional<std::vector<std::string>> needed;
};

struct SnapshotManifest {
  std::string note;
  // Provenance, as `rocdoc snapshot` writes it (docs/snapshot-extensions.md); empty when absent.
  std::string created;
  std::string rocdoc_version;
  std::string rules_revision;
  bool redacted = false;
  Uname uname;
  Identity identity;
  std::map<std::string, std::string> env;  ///< allow-listed only
  std::map<std::string, SnapshotNode> nodes;
  std::map<std::string, std::string> links;
  std::map<std::string, std::string> pci_paths;  ///< BDF → resolved sysfs path (rocdoc extension)
  std::map<std::string, SnapshotBinary> binaries;
  /// Files that exist but whose read failed, with the errno name (rocdoc extension).
  std::map<std::string, std::string> read_errors;
  /// stat(2) as the capturing process saw it, by resolved path (rocdoc extension): wins over
  /// what root/ holds, so modes, owners and sizes survive an archive and an unprivileged unpack.
  std::map<std::string, FileStat> stats;
  /// statfs sizes in bytes by path (rocdoc extension).
  std::map<std::string, std::uint64_t> filesystems;
  /// The GPU lines of the kernel log, or why it was not readable (rocdoc extension).
  KernelLog kernel_log;
  /// Interpreters named with `snapshot --python`, with the sys.path each printed then
  /// (rocdoc extension): check gives them to the python probe as --python would.
  std::vector<PythonInterpreter> interpreters;
  /// What `snapshot --deep` found of the runtimes (rocdoc extension): replayed by check with or
  /// without --deep.
  std::optional<RuntimeReport> runtime;
  /// What `snapshot --smoke` found of torch's runs (rocdoc extension): replayed the same way.
  std::optional<SmokeReport> smoke;
};

/// Parses the manifest text; `file` names it in errors. Throws SnapshotError.
SnapshotManifest parse_snapshot_manifest(std::string_view text, const std::string& file);

inline constexpr std::string_view k_snapshot_format = "rocdoc-snapshot/1";

// What rocdoc reads of a snapshot at most (docs/snapshot-extensions.md): real machines stay
// far below; beyond a bound the snapshot is refused with exit 2, saying which bound.
inline constexpr std::size_t k_max_manifest_bytes = 16u << 20;
inline constexpr std::size_t k_max_manifest_depth = 16;
inline constexpr std::size_t k_max_manifest_entries = 100'000;
/// Every JSON value of the manifest, counted while it is parsed (keys are not values).
inline constexpr std::size_t k_max_manifest_values = 4 * k_max_manifest_entries;
inline constexpr std::size_t k_max_manifest_path = 4095;  // PATH_MAX less its NUL
inline constexpr std::size_t k_max_directory_entries = 100'000;
inline constexpr std::string_view k_manifest_name = "rocdoc-snapshot.json";

class SnapshotHost final : public Host {
 public:
  /// Opens DIR; throws SnapshotError when the manifest is missing or invalid.
  explicit SnapshotHost(std::string dir);
  /// A snapshot read into memory (an archive): `name` names it in messages and as origin.
  SnapshotHost(std::string name, std::string_view manifest_text,
               std::unique_ptr<SnapshotTree> root);

  const SnapshotManifest& manifest() const { return m_manifest; }

  HostKind kind() const override { return HostKind::snapshot; }
  std::string origin() const override { return m_dir; }
  FileRead read_file_or_error(std::string_view path, std::size_t max_bytes) const override;
  std::optional<std::vector<std::string>> list_dir(std::string_view path) const override;
  std::optional<FileStat> stat(std::string_view path) const override;
  std::optional<std::string> read_link(std::string_view path) const override;
  OpenResult open_device(std::string_view path) const override;
  std::optional<std::uint64_t> filesystem_size(std::string_view path) const override;
  std::optional<std::string> env(std::string_view name) const override;
  std::vector<std::pair<std::string, std::string>> environment() const override;
  Identity identity() const override { return m_manifest.identity; }
  Uname uname() const override { return m_manifest.uname; }
  std::optional<std::string> local_path(std::string_view path) const override;
  KernelLog kernel_log() const override { return m_manifest.kernel_log; }
  std::optional<RuntimeReport> runtime_report(const RuntimeRequest&) const override {
    return m_manifest.runtime;
  }
  std::optional<SmokeReport> smoke_report(const SmokeRequest&) const override {
    return m_manifest.smoke;
  }
  std::optional<std::vector<std::string>> offload_targets(std::string_view path) const override;
  std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const override;

 private:
  /// Throws SnapshotError when the snapshot holds nothing a capture has: no uname, identity,
  /// environment, device node, link or file under root/ (a bare manifest is not a machine).
  void refuse_empty() const;
  std::optional<std::string> link_target(const std::string& inside) const;
  std::optional<std::string> resolve(std::string_view path, FinalLink final_link) const;

  std::string m_dir;
  std::unique_ptr<SnapshotTree> m_root;  ///< m_dir + "/root", opened once, or in memory
  bool m_on_disk = true;
  SnapshotManifest m_manifest;
  /// Real links met while resolving paths, by path inside the root.
  mutable std::unordered_map<std::string, std::optional<std::string>> m_link_cache;
};

}  // namespace rocdoc
