// Helpers for tests: a temporary snapshot directory built file by file.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace rocdoc::test {

class TempSnapshot {
 public:
  TempSnapshot() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rocdoc-test-XXXXXX").string();
    m_dir = ::mkdtemp(pattern.data());
    std::filesystem::create_directories(root());
  }
  ~TempSnapshot() {
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
  }
  TempSnapshot(const TempSnapshot&) = delete;
  TempSnapshot& operator=(const TempSnapshot&) = delete;

  std::string dir() const { return m_dir; }
  std::string root() const { return m_dir + "/root"; }

  void manifest(const std::string& json) const { write_raw(m_dir + "/rocdoc-snapshot.json", json); }
  /// A file under root/, path given as on the machine ("/etc/group").
  void file(const std::string& path, const std::string& content) const {
    write_raw(root() + path, content);
  }
  void symlink(const std::string& path, const std::string& target) const {
    std::filesystem::create_directories(std::filesystem::path(root() + path).parent_path());
    std::filesystem::create_symlink(target, root() + path);
  }

 private:
  static void write_raw(const std::string& path, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << content;
  }
  std::string m_dir;
};

inline constexpr const char* k_minimal_manifest = R"({"format": "rocdoc-snapshot/1"})";

}  // namespace rocdoc::test
