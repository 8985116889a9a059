// The Host seam: the only door to the machine rocdoc inspects.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rocdoc/host_answers.h"
#include "rocdoc/runtime.h"
#include "rocdoc/smoke.h"

namespace rocdoc {

/// The inspected machine (or snapshot) holds more of something than rocdoc reads: the message
/// names the bound. Real machines stay far below every bound; rocdoc exits 2.
class HostLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws HostLimitError when `where` holds more than `bound` of `what`.
inline void check_bound(std::size_t count, std::size_t bound, std::string_view what,
                        std::string_view where) {
  if (count > bound) {
    throw HostLimitError(std::string(where) + ": " + std::to_string(count) + " " +
                         std::string(what) + "; rocdoc reads at most " + std::to_string(bound) +
                         " (a bound against hostile snapshots: real machines have far fewer)");
  }
}

/// Whether a Host may be read from several threads at once.
enum class HostThreads { one, many };

/// Every read of the inspected machine goes through a Host. Paths are absolute paths
/// of that machine; a snapshot resolves them inside its root.
class Host {
 public:
  virtual ~Host() = default;

  virtual HostKind kind() const = 0;
  /// HostThreads::many lets the probes run side by side. Only a host without state says so: a
  /// snapshot's caches and a recording's file list are written by every read.
  virtual HostThreads threads() const { return HostThreads::one; }
  /// Where the data comes from, for the report ("/" or the snapshot directory).
  virtual std::string origin() const = 0;

  /// Content of a file (at most max_bytes), or the errno name of the failed read.
  virtual FileRead read_file_or_error(std::string_view path,
                                      std::size_t max_bytes = 1 << 20) const = 0;
  /// Content of a file (at most max_bytes); nullopt when it is missing or unreadable.
  std::optional<std::string> read_file(std::string_view path,
                                       std::size_t max_bytes = 1 << 20) const {
    return read_file_or_error(path, max_bytes).content;
  }
  /// A large file scanned once, read in consecutive pieces (at most max_bytes in all): `piece`
  /// sees each in turn, and the answer's content is empty on success. The live machine reads
  /// 64 KiB at a time into one buffer (megabytes of fresh memory cost milliseconds on a VM);
  /// the others read the file whole (a snapshot records it whole) as one piece.
  virtual FileRead read_file_pieces(std::string_view path, std::size_t max_bytes,
                                    const std::function<void(std::string_view)>& piece) const {
    FileRead read = read_file_or_error(path, max_bytes);
    if (read.content) {
      piece(*read.content);
      read.content = std::string();
    }
    return read;
  }
  /// Entry names of a directory, sorted; nullopt when it is missing.
  virtual std::optional<std::vector<std::string>> list_dir(std::string_view path) const = 0;
  /// stat(2), following symbolic links.
  virtual std::optional<FileStat> stat(std::string_view path) const = 0;
  /// The target of a symbolic link as stored; nullopt when path is not a link.
  virtual std::optional<std::string> read_link(std::string_view path) const = 0;
  /// Tries to open a device node read-write (then read-only) and closes it at once.
  virtual OpenResult open_device(std::string_view path) const = 0;
  /// Size in bytes of the filesystem mounted at path (statfs).
  virtual std::optional<std::uint64_t> filesystem_size(std::string_view path) const = 0;

  /// An environment variable; only allow-listed names are ever read (env_allowlist.h).
  virtual std::optional<std::string> env(std::string_view name) const = 0;
  /// Every allow-listed variable that is set, sorted by name.
  virtual std::vector<std::pair<std::string, std::string>> environment() const = 0;

  virtual Identity identity() const = 0;
  virtual Uname uname() const = 0;

  /// The target ids in a file's HIP offload bundles (src/binaries/offload_bundle.h): the live
  /// machine and a sysroot read the headers of the file's .hip_fatbin (never the whole file); a
  /// snapshot replays them ("binaries"). Empty: a file without GPU code; nullopt: missing,
  /// unreadable, or bundles with a problem.
  virtual std::optional<std::vector<std::string>> offload_targets(std::string_view path) const = 0;
  /// The shared libraries a file names (DT_NEEDED, src/binaries/elf_needed.h): the live machine
  /// and a sysroot read its program headers and dynamic segment (never the whole file); a
  /// snapshot replays them ("binaries", "needed"). nullopt: missing, unreadable, not an ELF file.
  virtual std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const = 0;

  /// The GPU lines of the kernel log (src/hosts/kernel_log.h). A host without a kernel log (a
  /// root filesystem image, a snapshot that did not record one) answers "not read".
  virtual KernelLog kernel_log() const { return {}; }

  /// --deep: the HIP runtime, rocm_smi_lib and the HSA runtime, each loaded in a child process
  /// (only when request.mode is load), or what a snapshot recorded of them whatever the mode;
  /// nullopt when neither (a root filesystem image never loads its libraries).
  virtual std::optional<RuntimeReport> runtime_report(const RuntimeRequest&) const {
    return std::nullopt;
  }

  /// --smoke: each interpreter of the request run with torch's smoke script in a child (only
  /// when request.mode is run), or what a snapshot recorded of such runs whatever the mode.
  virtual std::optional<SmokeReport> smoke_report(const SmokeRequest&) const {
    return std::nullopt;
  }

  /// A directory of the reading machine that holds the inspected machine's `path`,
  /// for libraries that need a real path (libpci's sysfs.path). nullopt if none.
  virtual std::optional<std::string> local_path(std::string_view path) const = 0;
};

}  // namespace rocdoc
