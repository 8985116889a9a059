// The result channel of a --deep child: one line per event, written as it happens (so a crash
// or a hang still tells how far the child got), fields separated by tabs, each field escaped
// (\\, \t, \n, \r, \xHH for other control bytes). The parent parses it as untrusted input: a
// line it cannot read is a finding, never a crash.
//
//   tried    CANDIDATE  DLERROR        a candidate that did not load
//   loaded   CANDIDATE  REAL-PATH      the one that did
//   missing  SYMBOL                    a function the loaded library lacks
//   call     FUNCTION                  about to call it
//   status   FUNCTION  CODE  NAME  [DESCRIPTION]   what it returned
//   value    KEY  VALUE                a result (runtime_version, device_count, ...)
//   device   INDEX  KEY  VALUE         a result for one device
//   link     FROM  TO  TYPE  HOPS      rocm_smi's link between two devices
//   agent    TYPE  NAME                an HSA agent
//   end                                the child finished
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/runtime.h"

namespace rocdoc::runtime {

/// The most devices, links, agents, calls and candidates a result may list: beyond, the rest
/// of the result is unreadable (a bound against a hostile snapshot or library).
inline constexpr int k_max_devices = 256;
inline constexpr std::size_t k_max_records = 8192;
inline constexpr std::size_t k_max_field = 4096;

/// Writes result lines, unbuffered, on a descriptor (the child's side).
class ResultWriter {
 public:
  explicit ResultWriter(int fd) : m_fd(fd) {}
  void line(std::initializer_list<std::string_view> fields) const;

 private:
  int m_fd;
};

/// One field as it goes on the wire.
std::string escape_field(std::string_view field);

/// The lines of a result, split and unescaped. A final line without its newline (the child
/// was killed while writing it) is left out. `unreadable` names the first line that is not
/// tab-separated escaped text; nothing after it is read.
struct ResultLines {
  std::vector<std::vector<std::string>> lines;
  std::optional<std::string> unreadable;
};
ResultLines split_result(std::string_view text);

/// What each child's result says (the load fields of RuntimeLoad, and the library's own).
HipRuntimeFacts parse_hip_result(std::string_view text);
SmiRuntimeFacts parse_smi_result(std::string_view text);
HsaRuntimeFacts parse_hsa_result(std::string_view text);

/// "5.2.21153" from HIP_VERSION 50221153 (major * 10^7 + minor * 10^5 + patch).
std::string hip_version_text(std::int64_t version);

}  // namespace rocdoc::runtime
