// A Host that passes every call to another Host and records what it answered, by the path
// as resolved inside the machine's root: what `rocdoc snapshot` writes (snapshot_writer.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "rocdoc/host.h"
#include "src/hosts/path_in_root.h"
#include "src/hosts/snapshot.h"

namespace rocdoc {

/// Exactly what the probes read; every path is absolute and resolved (no link in it but the
/// last component of a `links` key).
struct Recording {
  std::map<std::string, std::string> files;           ///< contents read
  std::map<std::string, std::string> read_errors;     ///< reads that failed, but not with ENOENT
  std::map<std::string, std::set<std::string>> dirs;  ///< directory listings
  std::map<std::string, FileStat> stats;
  std::map<std::string, std::string> links;   ///< every link met on the way to a path
  std::map<std::string, SnapshotNode> nodes;  ///< device nodes opened (stat and open result)
  std::map<std::string, SnapshotBinary> binaries;
  std::map<std::string, std::uint64_t> filesystems;
  std::map<std::string, std::string> env;  ///< allow-listed variables asked for, when set
  std::optional<Identity> identity;
  std::optional<Uname> uname;
  std::optional<KernelLog> kernel_log;
  std::optional<RuntimeReport> runtime;  ///< --deep's children, when they ran
  std::optional<SmokeReport> smoke;      ///< --smoke's runs, when they ran
};

class RecordingHost final : public Host {
 public:
  explicit RecordingHost(const Host& inner) : m_inner(inner) {}

  const Recording& recording() const { return m_recording; }

  HostKind kind() const override { return m_inner.kind(); }
  std::string origin() const override { return m_inner.origin(); }
  FileRead read_file_or_error(std::string_view path, std::size_t max_bytes) const override;
  std::optional<std::vector<std::string>> list_dir(std::string_view path) const override;
  std::optional<FileStat> stat(std::string_view path) const override;
  std::optional<std::string> read_link(std::string_view path) const override;
  OpenResult open_device(std::string_view path) const override;
  std::optional<std::uint64_t> filesystem_size(std::string_view path) const override;
  std::optional<std::string> env(std::string_view name) const override;
  std::vector<std::pair<std::string, std::string>> environment() const override;
  Identity identity() const override;
  Uname uname() const override;
  std::optional<std::vector<std::string>> offload_targets(std::string_view path) const override;
  std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const override;
  KernelLog kernel_log() const override;
  std::optional<RuntimeReport> runtime_report(const RuntimeRequest& request) const override;
  std::optional<SmokeReport> smoke_report(const SmokeRequest& request) const override;
  std::optional<std::string> local_path(std::string_view path) const override {
    return m_inner.local_path(path);
  }

 private:
  /// The path as the inspected machine resolves it; records each link met on the way.
  std::optional<std::string> resolve(std::string_view path, FinalLink final_link) const;
  /// The "binaries" entry of a library, its size recorded; null when the path does not resolve.
  SnapshotBinary* binary_entry(std::string_view path) const;

  const Host& m_inner;
  mutable Recording m_recording;
  mutable std::unordered_map<std::string, std::optional<std::string>> m_link_cache;
};

}  // namespace rocdoc
