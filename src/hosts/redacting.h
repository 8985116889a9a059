// --redact: a Host that shows the probes the machine with its personal names and ids replaced
// by stable placeholders, so every report and snapshot made through it holds none of them and
// the diagnosis is the same.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rocdoc/host.h"

namespace rocdoc {

/// The substitutions of one run: the same value always gets the same placeholder.
class Redactions {
 public:
  /// Adds a word (a user, a home directory's name, the host name) to replace wherever it
  /// stands as a whole word; returns its placeholder ("redacted-user-1").
  const std::string& add_word(const std::string& real, std::string_view kind);
  /// A value replaced only where it is a whole field (a short host name in /etc/hostname),
  /// never as a word elsewhere; returns its placeholder ("redacted-host-1").
  const std::string& add_field(const std::string& real, std::string_view kind);
  /// A kernel command-line value's placeholder ("redacted-value-1"); replaced only where it
  /// stands as that value, never elsewhere ("3" of loglevel=3 is everywhere).
  std::string value(const std::string& real);
  /// A group name's placeholder ("redacted-group-1"), kept for groups in `kept`.
  std::string group(const std::string& name);
  /// A GPU unique id's placeholder (a number that is no real GPU's).
  std::uint64_t unique_id(std::uint64_t real);

  /// `text` with every word replaced (whole words only: not inside "malice").
  std::string forward(std::string_view text) const;
  /// A path with every placeholder turned back into the real word, to read the machine.
  std::string backward(std::string_view path) const;

  std::set<std::string> kept_groups;

 private:
  std::vector<std::pair<std::string, std::string>> m_words;  ///< real, placeholder
  std::map<std::string, int> m_counts;                       ///< per kind
  std::map<std::string, std::string> m_groups;
  std::map<std::string, std::string> m_fields;
  std::map<std::string, std::string> m_values;
  std::map<std::uint64_t, std::uint64_t> m_ids;
};

class RedactingHost final : public Host {
 public:
  /// Reads what it must replace from `inner`: the identity, /etc/passwd, /etc/group, the host
  /// name and the KFD nodes' unique ids.
  explicit RedactingHost(const Host& inner);

  HostKind kind() const override { return m_inner.kind(); }
  std::string origin() const override { return m_inner.origin(); }
  FileRead read_file_or_error(std::string_view path, std::size_t max_bytes) const override;
  std::optional<std::vector<std::string>> list_dir(std::string_view path) const override;
  std::optional<FileStat> stat(std::string_view path) const override;
  std::optional<std::string> read_link(std::string_view path) const override;
  OpenResult open_device(std::string_view path) const override;
  std::optional<std::uint64_t> filesystem_size(std::string_view path) const override;
  std::optional<std::string> env(std::string_view name) const override;
  std::vector<std::pair<std::string, std::string>> environment() const override;
  Identity identity() const override;
  Uname uname() const override { return m_inner.uname(); }
  /// A path or text as the probes see it through this host (--python's sys.path).
  std::string redact(std::string_view text) const { return m_redactions.forward(text); }
  KernelLog kernel_log() const override;
  std::optional<RuntimeReport> runtime_report(const RuntimeRequest& request) const override;
  std::optional<SmokeReport> smoke_report(const SmokeRequest& request) const override;
  std::optional<std::vector<std::string>> offload_targets(std::string_view path) const override;
  std::optional<std::vector<std::string>> needed_libraries(std::string_view path) const override;
  std::optional<std::string> local_path(std::string_view path) const override;

 private:
  std::string content(std::string_view path, std::string text) const;
  std::string env_value(std::string_view name, const std::string& value) const;

  const Host& m_inner;
  mutable Redactions m_redactions;
  std::string m_short_host;  ///< a host name under 3 characters' placeholder, if any
};

/// One parameter of the kernel command line, split as the kernel's next_arg() (lib/cmdline.c)
/// splits it: double quotes may wrap the whole parameter or its value, and hide blanks.
struct CmdlineParam {
  std::string_view raw;                   ///< as written, quotes included
  std::string_view key;                   ///< the whole parameter when it has no '='
  std::optional<std::string_view> value;  ///< after the first '=', without its quotes
};
std::vector<CmdlineParam> split_cmdline(std::string_view cmdline);

/// Parsers behind the redaction, on plain strings (tests).
/// The command line with every parameter that does not concern the GPU, the IOMMU or memory
/// redacted as a whole: key=value keeps its key, a quoted value or a bare word is one
/// placeholder (a few harmless flags such as "ro" and "quiet" stay).
std::string redact_cmdline(std::string_view cmdline, Redactions& redactions);
/// A kernel log line with every copy of the command line in it redacted as /proc/cmdline is
/// ("Kernel command line: …", "Unknown kernel command line parameters \"…\""), and serials.
std::string redact_kernel_line(std::string_view line, Redactions& redactions);
/// `line` with the word after "serial", "SN", "unique_id"… (or after their ':' or '=')
/// replaced by "redacted-serial".
std::string redact_serials(std::string_view line);
std::string redact_group_file(std::string_view group_file, Redactions& redactions);
std::string redact_unique_id_lines(std::string_view properties, Redactions& redactions);
std::string redact_gpu_uuids(std::string_view value, Redactions& redactions);

}  // namespace rocdoc
