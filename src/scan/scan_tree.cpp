#include "src/scan/scan_tree.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "src/util/strings.h"
#include "src/util/threads.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

namespace {

constexpr std::size_t k_mmap_from = 64 * 1024;  // smaller files: one read() is cheaper
constexpr std::size_t k_head = 4096;            // what a YAML file's kind is told from
constexpr std::size_t k_binary_probe = 8192;    // a NUL byte here: a binary file

/// A directory of the tree, opened one part at a time without following a link, so that a
/// link put in place after the walk cannot lead out of the tree. Reused for the next file of
/// the same directory.
class DirectoryCursor {
 public:
  explicit DirectoryCursor(int root) : m_root(root) {}

  int open(std::string_view directory) {
    if (m_fd.valid() && directory == m_path) {
      return m_fd.get();
    }
    m_path = std::string(directory);
    m_fd.reset(::fcntl(m_root, F_DUPFD_CLOEXEC, 0));
    for (const auto part : util::split(directory, '/')) {
      if (part.empty() || !m_fd.valid()) {
        continue;
      }
      m_fd.reset(::openat(m_fd.get(), std::string(part).c_str(),
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
    return m_fd.get();
  }

 private:
  int m_root;
  std::string m_path;
  util::UniqueFd m_fd;
};

/// A file's bytes: mapped, or read into `buffer`.
class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes() {
    if (m_mapped != nullptr) {
      ::munmap(m_mapped, m_size);
    }
  }

  /// Reads the regular file open at `fd` (at most `max_bytes`); an error message, or "".
  std::string read(int fd, std::uint64_t max_bytes, std::string& buffer) {
    struct ::stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      return "not a regular file when read: not scanned";
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_bytes) {
      return "over " + std::to_string(max_bytes) + " bytes: not scanned";
    }
    if (size >= k_mmap_from) {
      void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (mapped != MAP_FAILED) {
        m_mapped = mapped;
        m_size = size;
        m_text = std::string_view(static_cast<const char*>(mapped), size);
        return "";
      }
    }
    buffer.resize(size);
    std::size_t done = 0;
    while (done < size) {
      const ssize_t got = ::read(fd, buffer.data() + done, size - done);
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got < 0) {
        return std::string("cannot be read: ") + std::strerror(errno);
      }
      if (got == 0) {
        break;  // shorter than it was: what is there is scanned
      }
      done += static_cast<std::size_t>(got);
    }
    m_text = std::string_view(buffer.data(), done);
    return "";
  }

  std::string_view text() const { return m_text; }

 private:
  void* m_mapped = nullptr;
  std::size_t m_size = 0;
  std::string_view m_text;
};

struct FileOutcome {
  FileScan scan;
  bool scanned = false;
  std::uint64_t bytes = 0;
  std::string skipped;  ///< why it was not scanned; "" when it was, or was no source
};

std::string_view last_part(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

FileOutcome scan_one(DirectoryCursor& cursor, const SourceFile& file, const CodeRules& rules,
                     const SourceTreeLimits& limits, std::string& buffer) {
  FileOutcome outcome;
  if (rules.cuda_only_path(file.path)) {
    outcome.skipped =
        "only CUDA builds compile it, by its path (rules/code_patterns.yaml "
        "cuda_only_paths): not judged";
    return outcome;
  }
  const auto slash = file.path.rfind('/');
  const int dir =
      cursor.open(slash == std::string::npos ? std::string_view()
                                             : std::string_view(file.path).substr(0, slash));
  const std::string name(last_part(file.path));
  util::UniqueFd fd(dir < 0 ? -1
                            : ::openat(dir, name.c_str(),
                                       O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
  if (!fd.valid()) {
    outcome.skipped = std::string("cannot be opened: ") + std::strerror(errno);
    return outcome;
  }
  FileBytes bytes;
  if (auto error = bytes.read(fd.get(), limits.max_file_bytes, buffer); !error.empty()) {
    outcome.skipped = std::move(error);
    return outcome;
  }
  const std::string_view text = bytes.text();
  if (text.substr(0, k_binary_probe).find('\0') != std::string_view::npos) {
    outcome.skipped = "a binary file (a NUL byte in its first 8 KiB): not scanned";
    return outcome;
  }
  const auto kind = source_kind(name, text.substr(0, k_head));
  if (!kind) {
    return outcome;  // a YAML file that is neither compose nor a manifest
  }
  outcome.scanned = true;
  outcome.bytes = text.size();
  outcome.scan = scan_file_text(util::printable(file.path), text, *kind, rules);
  if (!outcome.scan.complete) {
    outcome.skipped = "too many matches: the findings of this file are incomplete";
  }
  return outcome;
}

}  // namespace

CodeScanRun scan_source_tree(const std::string& root, const CodeRules& rules,
                             const CodeScanOptions& options) {
  CodeScanRun run;
  run.facts.root = root;
  SourceWalk walk = walk_source_tree(root, options.limits, options.vendored);
  if (!walk.error.empty()) {
    run.error = walk.error;
    return run;
  }
  util::UniqueFd root_fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root_fd.valid()) {
    run.error = root + ": " + std::strerror(errno);
    return run;
  }
  const std::vector<SourceFile>& files = walk.tree.files;
  std::vector<FileOutcome> outcomes(files.size());
  std::atomic<std::size_t> next{0};
  const std::size_t threads = std::max<std::size_t>(
      1, std::min<std::size_t>(options.threads != 0 ? options.threads : util::usable_cpus(),
                               std::min<std::size_t>(8, files.size())));
  util::run_on_threads(threads, [&] {
    DirectoryCursor cursor(root_fd.get());
    std::string buffer;
    for (std::size_t i = next++; i < files.size(); i = next++) {
      outcomes[i] = scan_one(cursor, files[i], rules, options.limits, buffer);
    }
  });
  CodeScanFacts& facts = run.facts;
  for (auto& skipped : walk.tree.skipped) {
    facts.skipped.push_back({std::move(skipped.path), std::move(skipped.why)});
  }
  facts.truncated = walk.tree.truncated;
  std::vector<std::string> mapped;
  for (const FileOutcome& outcome : outcomes) {
    mapped.insert(mapped.end(), outcome.scan.mapped_names.begin(), outcome.scan.mapped_names.end());
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    FileOutcome& outcome = outcomes[i];
    if (!outcome.skipped.empty()) {
      facts.skipped.push_back({util::printable(files[i].path), std::move(outcome.skipped)});
    }
    if (!outcome.scanned) {
      continue;
    }
    ++facts.files_scanned;
    facts.bytes_scanned += outcome.bytes;
    facts.suppressed_inline += outcome.scan.suppressed_inline;
    for (auto& finding : outcome.scan.findings) {
      facts.findings.push_back(std::move(finding));
    }
  }
  drop_mapped(facts.findings, mapped, rules);
  std::sort(facts.skipped.begin(), facts.skipped.end(),
            [](const CodeSkip& a, const CodeSkip& b) { return a.path < b.path; });
  return run;
}

}  // namespace rocdoc
