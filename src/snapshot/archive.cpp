// Snapshot archives (.tar.gz) written atomically and read hostile-safe into memory. Whole on
// purpose: the writer and the reader share the entry rules of one format.
#include "src/snapshot/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <stdexcept>

#include "src/hosts/live.h"
#include "src/hosts/path_in_root.h"
#include "src/hosts/snapshot.h"
#include "src/hosts/snapshot_root.h"
#include "src/snapshot/libarchive_compat.h"
#include "src/util/strings.h"
#include "src/util/unique_fd.h"

#ifdef ROCDOC_LIBARCHIVE_COMPAT
// Names the helper, so that the linker takes libarchive_compat.o from librocdoc_core.a before it
// reads libarchive.a (libarchive_compat.cpp says why). `used` keeps the optimizer from dropping it.
[[gnu::used]] static auto* const rocdoc_takes_libarchive_compat =
    &__archive_write_entry_filetype_unsupported;
#endif

namespace rocdoc {

namespace {

/// libarchive's message for the last error; it may have none (a null pointer).
std::string error_text(archive* handle) {
  const char* text = archive_error_string(handle);
  return text != nullptr ? util::printable(text) : std::string("unknown error");
}

[[noreturn]] void refuse(const std::string& file, const std::string& entry,
                         const std::string& why) {
  throw SnapshotError(file + ": entry " + util::excerpt(entry, 120) + ": " + why);
}

/// An entry's name as the snapshot path it claims ("./root/etc/x" → "root/etc/x"), refused
/// when it is absolute or climbs with "..".
std::string checked_name(const std::string& file, const std::string& name) {
  if (name.empty()) {
    refuse(file, "\"\"", "an empty name");
  }
  if (name.front() == '/') {
    refuse(file, name, "an absolute path; a snapshot archive holds relative paths only");
  }
  if (name.size() > 4095) {
    refuse(file, name, "a name longer than 4095 bytes");
  }
  std::string clean;
  for (const auto part : util::split(name, '/')) {
    if (part == "..") {
      refuse(file, name, "a \"..\" component; nothing may point above the snapshot");
    }
    if (part.empty() || part == ".") {
      continue;
    }
    clean += clean.empty() ? "" : "/";
    clean += part;
  }
  return clean;
}

/// Whether a relative link target at `inside` stays within root/ ("/a/b" → "../x" does).
bool climbs_out(const std::string& inside, const std::string& target) {
  if (!target.empty() && target.front() == '/') {
    return false;  // absolute targets restart at root/, as the format says
  }
  long depth = 0;
  for (const auto part : util::split(inside, '/')) {
    depth += part.empty() ? 0 : 1;
  }
  depth -= 1;  // the link's own name
  for (const auto part : util::split(target, '/')) {
    if (part == "..") {
      if (--depth < 0) {
        return true;
      }
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
  }
  return false;
}

using Member = MemoryTree::Entry;

/// The packed archive as libarchive's read callback hands it out: in pieces of 4 KiB, so that
/// between two pieces the callback can stop libarchive once the tar stream it inflated passes
/// the limit. A body libarchive skips (a GNU dumpdir, a directory with a pax size) is inflated
/// inside one of its calls, where the reader never sees it; only the callback does.
struct PackedSource {
  std::string_view rest;
  std::size_t inflated_limit = 0;
  bool over_limit = false;
};

constexpr std::size_t k_piece_bytes = 4096;

/// The bytes of tar stream libarchive has inflated so far (the top filter's output).
std::size_t inflated_bytes(archive* reader) {
  const la_int64_t bytes = archive_filter_bytes(reader, 0);
  return bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
}

extern "C" la_ssize_t read_packed_piece(archive* reader, void* client, const void** buffer) {
  auto* source = static_cast<PackedSource*>(client);
  if (inflated_bytes(reader) > source->inflated_limit) {
    source->over_limit = true;
    archive_set_error(reader, ERANGE, "inflated past rocdoc's limit");
    return -1;
  }
  const std::size_t piece = std::min(source->rest.size(), k_piece_bytes);
  *buffer = source->rest.data();
  source->rest.remove_prefix(piece);
  return static_cast<la_ssize_t>(piece);
}

[[noreturn]] void refuse_inflated(const std::string& file, const ArchiveLimits& limits) {
  throw SnapshotError(file + ": inflates to more than " +
                      std::to_string(limits.inflated_bytes >> 20) +
                      " MiB of tar, more than rocdoc reads (a real snapshot is under 1 MB; "
                      "skipped bodies and headers count too)");
}

/// Refuses the archive once libarchive has inflated more than the limit.
void check_inflated(archive* reader, const PackedSource& source, const std::string& file,
                    const ArchiveLimits& limits) {
  if (source.over_limit || inflated_bytes(reader) > limits.inflated_bytes) {
    refuse_inflated(file, limits);
  }
}

/// Why libarchive stopped: the limit the callback enforced, or its own message.
[[noreturn]] void refuse_unreadable(archive* reader, const PackedSource& source,
                                    const std::string& file, const ArchiveLimits& limits) {
  if (source.over_limit) {
    refuse_inflated(file, limits);
  }
  throw SnapshotError(file + ": not a snapshot archive (.tar.gz): " + error_text(reader));
}

std::string read_member_data(archive* reader, const PackedSource& source, const std::string& file,
                             const std::string& name, const ArchiveLimits& limits,
                             std::size_t& total) {
  std::string data;
  std::array<char, 65536> buffer{};
  for (;;) {
    const la_ssize_t n = archive_read_data(reader, buffer.data(), buffer.size());
    if (n < 0) {
      if (source.over_limit) {
        refuse_inflated(file, limits);
      }
      refuse(file, name, "cannot be read: " + error_text(reader));
    }
    if (n == 0) {
      return data;
    }
    check_inflated(reader, source, file, limits);
    const auto got = static_cast<std::size_t>(n);
    if (data.size() + got > limits.entry_bytes) {
      refuse(file, name,
             "larger than " + std::to_string(limits.entry_bytes >> 20) +
                 " MiB, more than rocdoc reads of one file (a real snapshot's largest is a few "
                 "hundred KB)");
    }
    total += got;
    if (total > limits.total_bytes) {
      refuse(file, name,
             "the archive unpacks to more than " + std::to_string(limits.total_bytes >> 20) +
                 " MiB, more than rocdoc reads (a real snapshot is under 1 MB)");
    }
    data.append(buffer.data(), got);
  }
}

/// Refuses what a snapshot never holds and libarchive would otherwise inflate unseen or
/// expand: a directory with a body, a sparse file.
void check_entry_shape(archive_entry* entry, const std::string& file, const std::string& shown) {
  const bool has_body = archive_entry_size_is_set(entry) != 0 && archive_entry_size(entry) != 0;
  if (archive_entry_filetype(entry) == AE_IFDIR && has_body) {
    refuse(file, shown,
           "a directory that carries a body (a GNU dumpdir or a pax size); a snapshot's "
           "directories are empty entries");
  }
  if (archive_entry_sparse_count(entry) > 0) {
    refuse(file, shown, "a sparse file; a snapshot holds plain files");
  }
}

struct ReaderDeleter {
  void operator()(archive* reader) const { archive_read_free(reader); }
};

}  // namespace

SnapshotArchive read_snapshot_archive(const std::string& file, const ArchiveLimits& limits) {
  const FileRead packed = read_local_file_or_error(file, limits.archive_bytes + 1);
  if (!packed.content) {
    throw SnapshotError(file + ": cannot read the snapshot archive: " + packed.error);
  }
  if (packed.content->size() > limits.archive_bytes) {
    throw SnapshotError(file + ": larger than " + std::to_string(limits.archive_bytes >> 20) +
                        " MiB, more than rocdoc reads (a real snapshot is under 1 MB)");
  }
  return read_snapshot_archive_bytes(*packed.content, file, limits);
}

SnapshotArchive read_snapshot_archive_bytes(std::string_view packed, const std::string& file,
                                            const ArchiveLimits& limits) {
  std::unique_ptr<archive, ReaderDeleter> reader(archive_read_new(), ReaderDeleter{});
  if (!reader) {
    throw SnapshotError(file + ": libarchive could not start");
  }
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_filter_none(reader.get());
  archive_read_support_format_tar(reader.get());
  PackedSource source{packed, limits.inflated_bytes};
  if (archive_read_open(reader.get(), &source, nullptr, read_packed_piece, nullptr) != ARCHIVE_OK) {
    refuse_unreadable(reader.get(), source, file, limits);
  }
  // libarchive stacks a gzip filter per layer it finds (up to 25): each multiplies what a few
  // KB inflate to. rocdoc writes one, as tar czf does; the second filter is the file itself.
  if (archive_filter_count(reader.get()) > 2) {
    throw SnapshotError(file + ": compressed more than once (gzip inside gzip); a snapshot " +
                        "archive is one gzip layer over a tar");
  }
  std::map<std::string, Member> members;
  std::size_t count = 0;
  std::size_t total = 0;
  std::size_t name_bytes = 0;
  for (;;) {
    archive_entry* entry = nullptr;
    const int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) {
      break;
    }
    if (status != ARCHIVE_OK && status != ARCHIVE_WARN) {
      refuse_unreadable(reader.get(), source, file, limits);
    }
    check_inflated(reader.get(), source, file, limits);
    if (++count > limits.entries) {
      throw SnapshotError(file + ": holds more than " + std::to_string(limits.entries) +
                          " entries, more than rocdoc reads (a real snapshot holds a few "
                          "thousand)");
    }
    const char* raw_name = archive_entry_pathname(entry);
    const std::string shown = util::printable(raw_name != nullptr ? raw_name : "");
    const std::string name = checked_name(file, raw_name != nullptr ? raw_name : "");
    name_bytes += name.size();
    if (name_bytes > limits.name_bytes) {
      refuse(file, shown,
             "the entries' names add up to more than " + std::to_string(limits.name_bytes >> 20) +
                 " MiB, more than rocdoc reads (a real snapshot's are under 1 MB)");
    }
    if (const char* hardlink = archive_entry_hardlink(entry); hardlink != nullptr) {
      refuse(file, shown, "a hard link; a snapshot holds plain files, directories and links");
    }
    check_entry_shape(entry, file, shown);
    Member member;
    switch (archive_entry_filetype(entry)) {
      case AE_IFREG:
        if (archive_entry_size_is_set(entry) != 0 &&
            static_cast<std::uint64_t>(archive_entry_size(entry)) > limits.entry_bytes) {
          refuse(file, shown,
                 "declares " + std::to_string(archive_entry_size(entry)) +
                     " bytes, more than rocdoc reads of one file");
        }
        member.data = read_member_data(reader.get(), source, file, shown, limits, total);
        break;
      case AE_IFDIR:
        member.type = MemoryTree::Type::directory;
        break;
      case AE_IFLNK: {
        member.type = MemoryTree::Type::symlink;
        const char* target = archive_entry_symlink(entry);
        member.data = target != nullptr ? target : "";
        if (member.data.size() > 4095) {
          refuse(file, shown, "a link target longer than 4095 bytes");
        }
        break;
      }
      case AE_IFCHR:
      case AE_IFBLK:
        refuse(file, shown,
               "a device file; device nodes are described in the manifest's \"nodes\", never "
               "stored");
      default:
        refuse(file, shown, "not a regular file, directory or link (a FIFO or socket)");
    }
    if (!name.empty()) {
      members[name] = std::move(member);
    }
  }
  // The snapshot sits at the archive's top, or inside one directory (tar czf x.tar.gz DIR).
  std::string prefix;
  if (members.count(std::string(k_manifest_name)) == 0) {
    for (const auto& [name, member] : members) {
      const auto slash = name.find('/');
      if (slash != std::string::npos && name.substr(slash + 1) == k_manifest_name) {
        prefix = name.substr(0, slash + 1);
        break;
      }
    }
  }
  SnapshotArchive result;
  result.root = std::make_unique<MemoryTree>();
  bool has_manifest = false;
  for (auto& [name, member] : members) {
    if (name.compare(0, prefix.size(), prefix) != 0) {
      continue;  // beside the snapshot: not read
    }
    const std::string path = name.substr(prefix.size());
    if (path == k_manifest_name || path == k_capture_report_name) {
      if (member.type != MemoryTree::Type::regular) {
        refuse(file, name, "must be a regular file");
      }
      (path == k_manifest_name ? result.manifest : result.report_json.emplace()) =
          std::move(member.data);
      has_manifest = has_manifest || path == k_manifest_name;
      continue;
    }
    if (path != "root" && path.compare(0, 5, "root/") != 0) {
      continue;  // unknown files beside root/ are ignored, as unknown manifest keys are
    }
    const std::string inside = path == "root" ? "/" : path.substr(4);
    if (member.type == MemoryTree::Type::symlink && climbs_out(inside, member.data)) {
      refuse(file, name,
             "a link to " + util::excerpt(member.data, 120) +
                 ", which leaves root/; links in a snapshot stay inside it");
    }
    if (inside == "/" && member.type != MemoryTree::Type::directory) {
      refuse(file, name, "root/ must be a directory");
    }
    try {
      result.root->add(inside, std::move(member));
    } catch (const HostLimitError& error) {
      refuse(file, name, error.what());
    }
  }
  if (!has_manifest) {
    throw SnapshotError(file + ": no " + std::string(k_manifest_name) +
                        " in the archive: not a rocdoc snapshot (rocdoc snapshot writes one)");
  }
  return result;
}

namespace {

// The temporary file being written where O_TMPFILE is not possible, removed if a signal ends
// rocdoc before it is linked: the handler may only use async-signal-safe calls (unlink,
// signal, raise).
char g_temporary[4096];

extern "C" void remove_temporary_and_die(int signal_number) {
  ::unlink(g_temporary);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

/// Installs the handler for the signals whose default is to end rocdoc (SIGKILL and SIGSTOP
/// cannot be caught: the unnamed file of write_unnamed_then_link() is what leaves nothing on
/// those), then creates the file from `name_template` (mkstemp, in the handler's own buffer: no
/// moment when the file exists and the handler does not know its name). When it goes, it
/// removes the temporary name first and only then restores the old handlers.
class TemporaryFileGuard {
 public:
  explicit TemporaryFileGuard(const std::string& name_template) {
    g_temporary[0] = '\0';
    struct sigaction action {};
    action.sa_handler = remove_temporary_and_die;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < k_signals.size(); ++i) {
      ::sigaction(k_signals[i], &action, &m_previous[i]);
    }
    char name[sizeof g_temporary];
    std::snprintf(name, sizeof name, "%s", name_template.c_str());
    std::memcpy(g_temporary, name, sizeof name);
    m_fd = util::UniqueFd(::mkstemp(g_temporary));
  }
  ~TemporaryFileGuard() {
    ::unlink(g_temporary);  // while the handlers still guard it
    g_temporary[0] = '\0';
    for (std::size_t i = 0; i < k_signals.size(); ++i) {
      ::sigaction(k_signals[i], &m_previous[i], nullptr);
    }
  }
  /// The file, or invalid with errno set.
  const util::UniqueFd& fd() const { return m_fd; }
  std::string name() const { return g_temporary; }
  TemporaryFileGuard(const TemporaryFileGuard&) = delete;
  TemporaryFileGuard& operator=(const TemporaryFileGuard&) = delete;

 private:
  static constexpr std::array<int, 12> k_signals = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT,
                                                    SIGUSR1, SIGUSR2,   SIGALRM, SIGPIPE,
                                                    SIGXCPU, SIGVTALRM, SIGPROF, SIGXFSZ};
  std::array<struct sigaction, k_signals.size()> m_previous{};
  util::UniqueFd m_fd;
};

struct WriterDeleter {
  void operator()(archive* writer) const { archive_write_free(writer); }
};

struct EntryDeleter {
  void operator()(archive_entry* entry) const { archive_entry_free(entry); }
};

void write_entry(archive* writer, const std::string& path, const std::string* content,
                 const std::string& file) {
  std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new(), EntryDeleter{});
  archive_entry_set_pathname(entry.get(), path.c_str());
  archive_entry_set_filetype(entry.get(), content != nullptr ? AE_IFREG : AE_IFDIR);
  archive_entry_set_perm(entry.get(), content != nullptr ? 0644 : 0755);
  archive_entry_set_size(entry.get(),
                         content != nullptr ? static_cast<la_int64_t>(content->size()) : 0);
  archive_entry_set_mtime(entry.get(), std::time(nullptr), 0);
  if (archive_write_header(writer, entry.get()) != ARCHIVE_OK) {
    throw std::runtime_error(file + ": " + error_text(writer));
  }
  if (content != nullptr && !content->empty() &&
      archive_write_data(writer, content->data(), content->size()) !=
          static_cast<la_ssize_t>(content->size())) {
    throw std::runtime_error(file + ": " + error_text(writer));
  }
}

extern "C" la_ssize_t append_packed(archive* /*writer*/, void* client, const void* buffer,
                                    std::size_t length) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

/// The image as a gzip-compressed pax tar, in memory (a snapshot is tens of KB): the file is
/// then written in one go, so that nothing of it exists on disk before it is whole.
std::string pack_image(const SnapshotImage& image, const std::string& file) {
  std::string packed;
  std::unique_ptr<archive, WriterDeleter> writer(archive_write_new(), WriterDeleter{});
  archive_write_add_filter_gzip(writer.get());
  archive_write_set_format_pax_restricted(writer.get());
  archive_write_set_bytes_in_last_block(writer.get(), 1);  // as archive_write_open_fd on a file
  if (archive_write_open(writer.get(), &packed, nullptr, append_packed, nullptr) != ARCHIVE_OK) {
    throw std::runtime_error(file + ": " + error_text(writer.get()));
  }
  // The manifest first: a reader (or a person with tar tf) sees what this is at once.
  write_entry(writer.get(), std::string(k_manifest_name),
              &image.files.at(std::string(k_manifest_name)), file);
  for (const auto& dir : image.dirs) {
    write_entry(writer.get(), dir, nullptr, file);
  }
  for (const auto& [path, content] : image.files) {
    if (path != k_manifest_name) {
      write_entry(writer.get(), path, &content, file);
    }
  }
  if (archive_write_close(writer.get()) != ARCHIVE_OK) {
    throw std::runtime_error(file + ": " + error_text(writer.get()));
  }
  return packed;
}

void write_all(int fd, std::string_view bytes, const std::string& file) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      throw std::runtime_error(file + ": " + std::strerror(written < 0 ? errno : EIO));
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
}

/// Writes the bytes, syncs them and gives the file the mode open(…, 0644) would.
void fill_file(int fd, std::string_view bytes, const std::string& file) {
  write_all(fd, bytes, file);
  if (::fsync(fd) != 0 && errno != EINVAL) {
    throw std::runtime_error(file + ": " + std::strerror(errno));
  }
  ::fchmod(
      fd, 0644 & ~[] {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        return mask;
      }());
}

[[noreturn]] void refuse_link(const std::string& file, int error) {
  throw std::runtime_error(file + ": " +
                           (error == EEXIST ? std::string("already exists; give another name "
                                                          "with -o, or remove it")
                                            : std::string(std::strerror(error))));
}

std::string directory_of(const std::string& file) {
  const auto slash = file.rfind('/');
  return slash == std::string::npos ? std::string(".")
         : slash == 0               ? std::string("/")
                                    : file.substr(0, slash);
}

enum class Written { yes, not_here };

/// Writes FILE as an unnamed file (O_TMPFILE) in its directory, then links it: no name exists
/// before the file is whole, so nothing is left behind whatever ends rocdoc (SIGKILL included).
/// not_here where the file system or kernel has no O_TMPFILE, or the file cannot be linked
/// (AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd needs /proc).
Written write_unnamed_then_link(const std::string& file, std::string_view bytes) {
  const util::UniqueFd fd(
      ::open(directory_of(file).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    return Written::not_here;  // the named way says what is wrong, if anything is
  }
  fill_file(fd.get(), bytes, file);
  // linkat() never replaces an existing file: nothing the user had is lost.
  if (::linkat(fd.get(), "", AT_FDCWD, file.c_str(), AT_EMPTY_PATH) == 0) {
    return Written::yes;
  }
  if (errno != ENOENT && errno != EPERM) {
    refuse_link(file, errno);
  }
  const std::string by_proc = "/proc/self/fd/" + std::to_string(fd.get());
  if (::linkat(AT_FDCWD, by_proc.c_str(), AT_FDCWD, file.c_str(), AT_SYMLINK_FOLLOW) == 0) {
    return Written::yes;
  }
  if (errno == ENOENT && ::access("/proc/self/fd", F_OK) != 0) {
    return Written::not_here;
  }
  refuse_link(file, errno);
}

/// Writes FILE through a temporary name beside it, removed on every error and on the signals
/// that can be caught.
void write_named_then_link(const std::string& file, std::string_view bytes) {
  if (file.size() + 8 > sizeof g_temporary) {
    throw std::runtime_error(file.substr(0, 64) + "...: the name is too long");
  }
  const TemporaryFileGuard guard(file + ".XXXXXX");
  const util::UniqueFd& fd = guard.fd();
  if (!fd.valid()) {
    throw std::runtime_error(file + ": cannot create a file there: " + std::strerror(errno));
  }
  fill_file(fd.get(), bytes, file);
  // link() never replaces an existing file: nothing the user had is lost.
  if (::link(guard.name().c_str(), file.c_str()) != 0) {
    refuse_link(file, errno);
  }
}  // the guard removes the temporary name, on success and on every error

}  // namespace

void write_snapshot_archive(const SnapshotImage& image, const std::string& file) {
  const std::string packed = pack_image(image, file);
  if (write_unnamed_then_link(file, packed) == Written::not_here) {
    write_named_then_link(file, packed);
  }
}

}  // namespace rocdoc
