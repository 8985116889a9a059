// A snapshot's root/ held in memory: what `check --snapshot FILE` reads out of an archive, so
// that nothing of an untrusted archive is ever written to disk.
#pragma once

#include <map>
#include <string>

#include "src/hosts/snapshot_root.h"

namespace rocdoc {

class MemoryTree final : public SnapshotTree {
 public:
  enum class Type { regular, directory, symlink };
  struct Entry {
    Type type = Type::regular;
    std::string data;  ///< a file's content, or a link's target
  };

  /// Bounds on what one tree holds, each far above a real snapshot (a few thousand paths).
  static constexpr std::size_t k_max_depth = 256;      ///< components of a path, as a path walk
  static constexpr std::size_t k_max_paths = 200'000;  ///< entries and the directories above
  static constexpr std::size_t k_max_path_bytes = std::size_t{32} << 20;  ///< all paths held

  /// Adds `inside` (absolute, normalized) and the directories above it that are missing: the
  /// walk up stops at the first one that exists, so adding is linear in what is new. A later
  /// entry for the same path replaces the earlier one, as tar does. Throws HostLimitError
  /// (naming the bound, not the path) beyond a bound above.
  void add(const std::string& inside, Entry entry);
  bool contains(const std::string& inside) const { return m_entries.count(inside) != 0; }
  std::size_t size() const { return m_entries.size(); }

  FileRead read_regular(std::string_view inside, std::size_t max_bytes) const override;
  std::optional<struct ::stat> lstat(std::string_view inside) const override;
  std::optional<std::string> read_link(std::string_view inside) const override;
  std::optional<std::vector<std::string>> list(std::string_view inside,
                                               std::size_t max_entries) const override;

 private:
  /// Counts a new path of `bytes` against the bounds.
  void hold(std::size_t bytes);

  std::map<std::string, Entry, std::less<>> m_entries;  ///< "/" is always a directory
  std::size_t m_path_bytes = 0;
};

}  // namespace rocdoc
