// A snapshot's root/ held in memory: what `check --snapshot FILE` reads out of an archive, so
// that nothing of an untrusted archive is ever written to disk.
#pragma once

#include <map>
#include <string>

#include "src/snapshot_root.h"

namespace rocdoc {

class MemoryTree final : public SnapshotTree {
 public:
  enum class Type { regular, directory, symlink };
  struct Entry {
    Type type = Type::regular;
    std::string data;  ///< a file's content, or a link's target
  };

  /// Adds `inside` (absolute, normalized) and the directories above it. A later entry for
  /// the same path replaces the earlier one, as tar does.
  void add(const std::string& inside, Entry entry);
  bool contains(const std::string& inside) const { return m_entries.count(inside) != 0; }
  std::size_t size() const { return m_entries.size(); }

  FileRead read_regular(std::string_view inside, std::size_t max_bytes) const override;
  std::optional<struct ::stat> lstat(std::string_view inside) const override;
  std::optional<std::string> read_link(std::string_view inside) const override;
  std::optional<std::vector<std::string>> list(std::string_view inside,
                                               std::size_t max_entries) const override;

 private:
  std::map<std::string, Entry, std::less<>> m_entries;  ///< "/" is always a directory
};

}  // namespace rocdoc
