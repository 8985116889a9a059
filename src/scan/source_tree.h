// The files of a source tree that the scan reads: walked with directory descriptors (openat,
// O_NOFOLLOW), so that no link, and no rename during the walk, leads out of the tree; .gitignore
// and .git/info/exclude respected; version-control and vendored directories skipped; bounded
// in depth, entries and file size like a snapshot. Nothing is read but directory entries and
// the ignore files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocdoc {

struct SourceFile {
  std::string path;  ///< from the tree's root, "/"-separated: "csrc/attention.cu"
  std::uint64_t size = 0;
};

/// Something the walk did not read, and why ("a symbolic link: not followed").
struct SkippedPath {
  std::string path;
  std::string why;
};

struct SourceTreeLimits {
  int max_depth = 64;
  std::size_t max_entries = 500000;            ///< directory entries looked at, in all
  std::uint64_t max_file_bytes = 16ull << 20;  ///< larger files are skipped as generated
  std::uint64_t max_ignore_file_bytes = 1u << 20;
};

enum class VendoredDirectories { skip, scan };

struct SourceTree {
  std::vector<SourceFile> files;  ///< sorted by path
  std::vector<SkippedPath> skipped;
  /// The walk stopped at max_entries: files beyond are not listed.
  bool truncated = false;
};

/// The regular files under `root` whose names the scan knows (`is_source_name`,
/// src/scan/file_kind.h); an error
/// message when `root` itself cannot be opened as a directory.
struct SourceWalk {
  SourceTree tree;
  std::string error;
};
SourceWalk walk_source_tree(const std::string& root, const SourceTreeLimits& limits = {},
                            VendoredDirectories vendored = VendoredDirectories::skip);

/// A directory the walk does not enter by default: version control (.git, .hg, .svn), caches
/// and environments (__pycache__, node_modules, site-packages, .venv, venv, .tox), and
/// vendored code (third_party, 3rdparty, vendor, external).
bool is_vendored_directory(std::string_view name);

}  // namespace rocdoc
