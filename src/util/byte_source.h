// The bytes of a file, read a piece at a time, so that a 1.3 GB library is never read whole;
// and the whole of a small input file (a report, a log, a list of names), read without blocking
// and up to a bound.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/util/unique_fd.h"

namespace rocdoc::util {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  /// Up to `count` bytes from `offset`: fewer at the end, none past it or on a read error.
  virtual std::string read(std::uint64_t offset, std::size_t count) const = 0;
};

/// Bytes in memory (tests, fuzzing).
class StringBytes final : public ByteSource {
 public:
  explicit StringBytes(std::string_view bytes) : m_bytes(bytes) {}
  std::uint64_t size() const override { return m_bytes.size(); }
  std::string read(std::uint64_t offset, std::size_t count) const override;

 private:
  std::string_view m_bytes;
};

/// An open regular file, read with pread(2).
class FileBytes final : public ByteSource {
 public:
  FileBytes(UniqueFd fd, std::uint64_t size) : m_fd(std::move(fd)), m_size(size) {}
  std::uint64_t size() const override { return m_size; }
  std::string read(std::uint64_t offset, std::size_t count) const override;

 private:
  UniqueFd m_fd;
  std::uint64_t m_size;
};

/// Whether read_whole_file() reads "-" as standard input or as a file named "-".
enum class Dash { file, standard_input };

/// Why read_whole_file() read nothing.
struct ReadFailure {
  enum class Kind {
    cannot_open,  ///< `error` says why
    not_regular,  ///< a FIFO, a device, a directory, a socket: `type` says which
    too_large,    ///< over the bound: `size` when it was known before reading
    read_error,   ///< `error` says why
  };
  Kind kind = Kind::cannot_open;
  int error = 0;
  mode_t type = 0;  ///< the S_IFMT bits of st_mode
  std::optional<std::uint64_t> size;
};

/// "a FIFO", "a character device", "a directory"… for the S_IFMT bits of a mode.
std::string file_type_words(mode_t type);

/// Reads all of `path` into `bytes` (its capacity is kept, for a caller reading many files):
/// a regular file of at most `max_bytes`, opened with O_NONBLOCK and O_NOCTTY so that a FIFO
/// or a device never blocks the open, and refused (not_regular) when it is anything else. With
/// Dash::standard_input, "-" is standard input: whatever it is (a pipe, a terminal), read to
/// its end, except a directory, and refused as soon as it passes `max_bytes`. nullopt on
/// success.
std::optional<ReadFailure> read_whole_file(const std::string& path, std::size_t max_bytes,
                                           std::string& bytes, Dash dash = Dash::file);

}  // namespace rocdoc::util
