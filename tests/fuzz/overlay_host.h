// A Host that is a snapshot fixture with some files (and environment variables) replaced by
// fuzzed input: the harnesses run the real probes, checks and renderers over it. The fixture
// is opened once per process and only read; replaced paths match as the probes spell them
// (ROCDOC_FUZZ_TRACE=1 in the environment prints each read of a replaced file).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rocdoc/env_allowlist.h"
#include "rocdoc/host.h"
#include "src/hosts/snapshot.h"

namespace rocdoc::fuzz {

/// A Host that remembers every answer of another: a fixture never changes while a harness
/// runs, and reading it from disk again for every input would cost most of the time.
class CachedHost final : public Host {
 public:
  explicit CachedHost(std::unique_ptr<Host> base) : m_base(std::move(base)) {}

  HostKind kind() const override { return m_base->kind(); }
  std::string origin() const override { return m_base->origin(); }
  FileRead read_file_or_error(std::string_view path, std::size_t max_bytes) const override {
    return remember(m_reads, {std::string(path), max_bytes},
                    [&] { return m_base->read_file_or_error(path, max_bytes); });
  }
  std::optional<std::vector<std::string>> list_dir(std::string_view path) const override {
    return remember(m_lists, std::string(path), [&] { return m_base->list_dir(path); });
  }
  std::optional<FileStat> stat(std::string_view path) const override {
    return remember(m_stats, std::string(path), [&] { return m_base->stat(path); });
  }
  std::optional<std::string> read_link(std::string_view path) const override {
    return remember(m_links, std::string(path), [&] { return m_base->read_link(path); });
  }
  OpenResult open_device(std::string_view path) const override { return m_base->open_device(path); }
  std::optional<std::uint64_t> filesystem_size(std::string_view path) const override {
    return m_base->filesystem_size(path);
  }
  std::optional<std::string> env(std::string_view name) const override { return m_base->env(name); }
  std::vector<std::pair<std::string, std::string>> environment() const override {
    return m_base->environment();
  }
  Identity identity() const override { return m_base->identity(); }
  Uname uname() const override { return m_base->uname(); }
  std::optional<std::string> local_path(std::string_view path) const override {
    return m_base->local_path(path);
  }
  std::optional<std::vector<std::string>> offload_targets(std::string_view path) const override {
    return m_base->offload_targets(path);
  }
  std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const override {
    return m_base->needed_libraries(path);
  }

 private:
  template <typename Map, typename Ask>
  static typename Map::mapped_type remember(Map& cache, const typename Map::key_type& key,
                                            const Ask& ask) {
    if (const auto it = cache.find(key); it != cache.end()) {
      return it->second;
    }
    return cache.emplace(key, ask()).first->second;
  }

  std::unique_ptr<Host> m_base;
  mutable std::map<std::pair<std::string, std::size_t>, FileRead> m_reads;
  mutable std::map<std::string, std::optional<std::vector<std::string>>> m_lists;
  mutable std::map<std::string, std::optional<FileStat>> m_stats;
  mutable std::map<std::string, std::optional<std::string>> m_links;
};

/// tests/fixtures/NAME, opened once (a broken fixture stops the harness at start) and read
/// from disk once.
inline const Host& fixture(const std::string& name) {
  static std::map<std::string, std::unique_ptr<CachedHost>> opened;
  auto& host = opened[name];
  if (!host) {
    host = std::make_unique<CachedHost>(
        std::make_unique<SnapshotHost>(std::string(ROCDOC_FIXTURES_DIR) + "/" + name));
  }
  return *host;
}

class OverlayHost final : public Host {
 public:
  explicit OverlayHost(const Host& base) : m_base(base) {}

  /// Replaces (or adds) a regular file.
  void set_file(const std::string& path, std::string_view content) {
    m_files[path] = std::string(content);
  }
  /// Sets an environment variable; names off the allow-list are ignored, as on a real host.
  void set_env(const std::string& name, std::string_view value) {
    if (is_allowed_env(name)) {
      m_env[name] = std::string(value);
    }
  }

  HostKind kind() const override { return m_base.kind(); }
  std::string origin() const override { return m_base.origin(); }

  FileRead read_file_or_error(std::string_view path, std::size_t max_bytes) const override {
    if (const auto it = m_files.find(std::string(path)); it != m_files.end()) {
      if (std::getenv("ROCDOC_FUZZ_TRACE") != nullptr) {  // does a probe read the input?
        std::fprintf(stderr, "read fuzzed %s\n", it->first.c_str());
      }
      return {it->second.substr(0, max_bytes), ""};
    }
    return m_base.read_file_or_error(path, max_bytes);
  }

  std::optional<std::vector<std::string>> list_dir(std::string_view path) const override {
    auto names = m_base.list_dir(path);
    const std::string prefix = path == "/" ? "/" : std::string(path) + "/";
    for (auto it = m_files.lower_bound(prefix);
         it != m_files.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      const std::string rest = it->first.substr(prefix.size());
      if (!names) {
        names.emplace();
      }
      names->push_back(rest.substr(0, rest.find('/')));
    }
    if (names) {
      std::sort(names->begin(), names->end());
      names->erase(std::unique(names->begin(), names->end()), names->end());
    }
    return names;
  }

  std::optional<FileStat> stat(std::string_view path) const override {
    if (const auto it = m_files.find(std::string(path)); it != m_files.end()) {
      FileStat stat;
      stat.type = FileType::regular;
      stat.mode = 0644;
      stat.size = it->second.size();
      return stat;
    }
    return m_base.stat(path);
  }

  std::optional<std::string> read_link(std::string_view path) const override {
    return m_base.read_link(path);
  }
  OpenResult open_device(std::string_view path) const override { return m_base.open_device(path); }
  std::optional<std::uint64_t> filesystem_size(std::string_view path) const override {
    return m_base.filesystem_size(path);
  }

  std::optional<std::string> env(std::string_view name) const override {
    if (const auto it = m_env.find(std::string(name)); it != m_env.end()) {
      return it->second;
    }
    return m_base.env(name);
  }

  std::vector<std::pair<std::string, std::string>> environment() const override {
    std::map<std::string, std::string> all;
    for (auto& [name, value] : m_base.environment()) {
      all[name] = value;
    }
    for (const auto& [name, value] : m_env) {
      all[name] = value;
    }
    return {all.begin(), all.end()};
  }

  Identity identity() const override { return m_base.identity(); }
  Uname uname() const override { return m_base.uname(); }
  std::optional<std::string> local_path(std::string_view path) const override {
    return m_base.local_path(path);
  }
  std::optional<std::vector<std::string>> offload_targets(std::string_view path) const override {
    return m_base.offload_targets(path);
  }
  std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const override {
    return m_base.needed_libraries(path);
  }

 private:
  const Host& m_base;
  std::map<std::string, std::string> m_files;
  std::map<std::string, std::string> m_env;
};

}  // namespace rocdoc::fuzz
