// The real machine rocdoc runs on.
#pragma once

#include <sys/stat.h>

#include <mutex>
#include <optional>

#include "rocdoc/host.h"

namespace rocdoc {

class LiveHost final : public Host {
 public:
  HostKind kind() const override { return HostKind::live; }
  HostThreads threads() const override { return HostThreads::many; }
  std::string origin() const override { return "/"; }
  FileRead read_file_or_error(std::string_view path, std::size_t max_bytes) const override;
  FileRead read_file_pieces(std::string_view path, std::size_t max_bytes,
                            const std::function<void(std::string_view)>& piece) const override;
  std::optional<std::vector<std::string>> list_dir(std::string_view path) const override;
  std::optional<FileStat> stat(std::string_view path) const override;
  std::optional<std::string> read_link(std::string_view path) const override;
  OpenResult open_device(std::string_view path) const override;
  std::optional<std::uint64_t> filesystem_size(std::string_view path) const override;
  std::optional<std::string> env(std::string_view name) const override;
  std::vector<std::pair<std::string, std::string>> environment() const override;
  Identity identity() const override;
  Uname uname() const override;
  std::optional<std::string> local_path(std::string_view path) const override;
  KernelLog kernel_log() const override;
  /// --deep: forks the runtime children (src/runtime/runner.h) in load mode only.
  std::optional<RuntimeReport> runtime_report(const RuntimeRequest& request) const override;
  /// --smoke: runs each interpreter (src/runtime/smoke_runner.h) in run mode only.
  std::optional<SmokeReport> smoke_report(const SmokeRequest& request) const override;
  std::optional<std::vector<std::string>> offload_targets(std::string_view path) const override;
  std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const override;

 private:
  /// Who runs rocdoc does not change during a run: asked by two probes (maybe at once), read
  /// once.
  mutable std::once_flag identity_once_;
  mutable Identity identity_;
};

/// The errno's symbolic name ("EACCES").
std::string errno_name(int error);

/// Reads a file of the machine rocdoc runs on (for the pieces of rocdoc itself that are
/// not machine facts: --rules DIR, snapshot manifests).
std::optional<std::string> read_local_file(const std::string& path, std::size_t max_bytes);
/// The same, with the errno name of a failure.
FileRead read_local_file_or_error(const std::string& path, std::size_t max_bytes);
std::optional<std::vector<std::string>> list_local_dir(const std::string& path);
FileStat file_stat_from(const struct ::stat& st);

}  // namespace rocdoc
