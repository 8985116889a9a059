// The bytes of a file, read a piece at a time, so that a 1.3 GB library is never read whole.
#pragma once

#include <cstdint>
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

}  // namespace rocdoc::util
