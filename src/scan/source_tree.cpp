#include "src/scan/source_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "src/scan/file_kind.h"
#include "src/scan/ignore_rules.h"
#include "src/util/strings.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_version_control[] = {".git", ".hg", ".svn"};
constexpr std::string_view k_vendored[] = {
    "__pycache__", "node_modules", "site-packages", "dist-packages", ".venv",   "venv",
    ".tox",        "third_party",  "3rdparty",      "vendor",        "external"};
struct Walker {
  const SourceTreeLimits& limits;
  VendoredDirectories vendored;
  SourceTree tree;
  std::size_t entries = 0;
  std::vector<IgnoreRule> rules;

  /// The ignore file NAME of the directory open at `dir`, as rules relative to `base`.
  void read_ignore_file(int dir, const char* name, const std::string& base) {
    util::UniqueFd fd(::openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    read_ignore_file(std::move(fd), base + name, base);
  }

  /// .git/info/exclude, each directory opened without following a link.
  void read_exclude_file(int dir) {
    util::UniqueFd git(::openat(dir, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    util::UniqueFd info(
        git.valid() ? ::openat(git.get(), "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    : -1);
    if (info.valid()) {
      util::UniqueFd fd(
          ::openat(info.get(), "exclude", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
      read_ignore_file(std::move(fd), ".git/info/exclude", "");
    }
  }

  void read_ignore_file(util::UniqueFd fd, const std::string& shown, const std::string& base) {
    struct ::stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      return;
    }
    if (static_cast<std::uint64_t>(st.st_size) > limits.max_ignore_file_bytes) {
      tree.skipped.push_back(
          {util::printable(shown), "an ignore file over " +
                                       std::to_string(limits.max_ignore_file_bytes) +
                                       " bytes: not read"});
      return;
    }
    std::string content(static_cast<std::size_t>(st.st_size), '\0');
    const ssize_t n = ::read(fd.get(), content.data(), content.size());
    content.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    for (auto& rule : parse_ignore_file(content, base)) {
      rules.push_back(std::move(rule));
    }
  }

  bool ignored(const std::string& path, PathKind kind) const {
    return ignore_verdict(rules, path, kind).value_or(false);
  }

  /// The entries of a directory, sorted, without "." and "..".
  std::vector<std::string> names_in(int dir) {
    std::vector<std::string> names;
    const int copy = ::dup(dir);
    DIR* stream = copy >= 0 ? ::fdopendir(copy) : nullptr;
    if (stream == nullptr) {
      if (copy >= 0) {
        ::close(copy);
      }
      return names;
    }
    while (const dirent* entry = ::readdir(stream)) {
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") {
        continue;
      }
      if (++entries > limits.max_entries) {
        tree.truncated = true;
        break;
      }
      names.emplace_back(name);
    }
    ::closedir(stream);
    std::sort(names.begin(), names.end());
    return names;
  }

  void walk(int dir, const std::string& prefix, int depth) {
    const std::size_t rules_before = rules.size();
    if (depth == 0) {
      read_exclude_file(dir);
    }
    read_ignore_file(dir, ".gitignore", prefix);
    for (const auto& name : names_in(dir)) {
      if (tree.truncated) {
        break;
      }
      const std::string path = prefix + name;
      struct ::stat st {};
      if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        tree.skipped.push_back(
            {util::printable(path), std::string("cannot be read: ") + std::strerror(errno)});
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        enter(dir, name, path, depth);
      } else if (S_ISREG(st.st_mode)) {
        add_file(name, path, static_cast<std::uint64_t>(st.st_size));
      } else if (S_ISLNK(st.st_mode)) {
        // Listed when it names a source file or a directory (a stat of its target, which
        // opens nothing), so that a tree linked in from elsewhere is seen to be left out.
        struct ::stat target {};
        const bool to_directory =
            ::fstatat(dir, name.c_str(), &target, 0) == 0 && S_ISDIR(target.st_mode);
        if ((to_directory || is_source_name(name)) &&
            !ignored(path, to_directory ? PathKind::directory : PathKind::file)) {
          tree.skipped.push_back({util::printable(path), "a symbolic link: not followed"});
        }
      }
      // FIFOs, sockets and devices are never opened: nothing to say about them.
    }
    rules.resize(rules_before);  // a directory's rules end with it
  }

  void enter(int dir, const std::string& name, const std::string& path, int depth) {
    if (std::find(std::begin(k_version_control), std::end(k_version_control), name) !=
            std::end(k_version_control) ||
        ignored(path, PathKind::directory)) {
      return;
    }
    if (vendored == VendoredDirectories::skip && is_vendored_directory(name)) {
      tree.skipped.push_back({util::printable(path) + "/", "vendored or generated: not scanned"});
      return;
    }
    if (depth + 1 > limits.max_depth) {
      tree.skipped.push_back({util::printable(path) + "/",
                              "deeper than " + std::to_string(limits.max_depth) + " levels"});
      return;
    }
    util::UniqueFd child(
        ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!child.valid()) {
      tree.skipped.push_back(
          {util::printable(path) + "/", std::string("cannot be opened: ") + std::strerror(errno)});
      return;
    }
    walk(child.get(), path + "/", depth + 1);
  }

  void add_file(const std::string& name, const std::string& path, std::uint64_t size) {
    if (!is_source_name(name) || ignored(path, PathKind::file)) {
      return;
    }
    if (size > limits.max_file_bytes) {
      tree.skipped.push_back({util::printable(path), "over " +
                                                         std::to_string(limits.max_file_bytes) +
                                                         " bytes: generated or data, not scanned"});
      return;
    }
    tree.files.push_back({path, size});
  }
};

}  // namespace

bool is_vendored_directory(std::string_view name) {
  return std::find(std::begin(k_vendored), std::end(k_vendored), name) != std::end(k_vendored);
}

SourceWalk walk_source_tree(const std::string& root, const SourceTreeLimits& limits,
                            VendoredDirectories vendored) {
  SourceWalk result;
  util::UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    result.error = root + ": " + std::strerror(errno);
    return result;
  }
  Walker walker{limits, vendored, {}, 0, {}};
  walker.walk(dir.get(), "", 0);
  std::sort(walker.tree.files.begin(), walker.tree.files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  result.tree = std::move(walker.tree);
  return result;
}

}  // namespace rocdoc
