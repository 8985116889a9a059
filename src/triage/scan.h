// `rocdoc triage`: a pasted log (rocminfo, collect_env, dmesg, a traceback, a docker error) read
// as plain text, its known error lines (rules/triage.yaml) and facts found, answered with the
// check ids and fixes of `rocdoc check`.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/check_result.h"
#include "rocdoc/facts.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/report.h"

namespace rocdoc {

/// A log larger than this is refused whole (exit 2), never cut: pasted logs are kilobytes.
inline constexpr std::size_t k_max_triage_bytes = std::size_t{16} << 20;
/// Bytes of a line that are read; the rest of a longer line is ignored (and counted).
inline constexpr std::size_t k_max_triage_line = 4096;
/// Lines quoted per finding (the count of all matching lines is kept).
inline constexpr std::size_t k_max_quoted_lines = 8;
/// Values kept per kind of fact (GPU targets, GPU names, override values).
inline constexpr std::size_t k_max_fact_values = 16;
/// Bytes of a line quoted in a finding.
inline constexpr std::size_t k_max_quoted_bytes = 300;
/// Packages kept from pip freeze, pip list and collect_env's lists (an environment has some
/// hundreds; the rest are counted).
inline constexpr std::size_t k_max_log_packages = 1024;
/// Bytes of a fact's value as kept (made printable). A longer value (a site-packages path of a
/// 4 KiB line) is not kept: a cut path would name a directory that does not exist.
inline constexpr std::size_t k_max_fact_bytes = 1024;

/// A line of the log as quoted: its number (from 1) and its text, cut and made printable.
struct LogLine {
  std::size_t number = 0;
  std::string text;
};

/// A value found in the log and the line it is on.
struct LogFact {
  std::string value;
  std::size_t line = 0;
  std::string name;  ///< for an override: the variable ("HSA_OVERRIDE_GFX_VERSION")
};

/// What the log says about the machine; every value is printable.
struct LogFacts {
  std::vector<LogFact> gfx_targets;  ///< the GPUs' targets (not lists of compiled targets)
  std::vector<LogFact> gpu_names;    ///< "AMD Radeon RX 6700 XT"
  std::optional<LogFact> torch;      ///< torch.__version__: "2.6.0+rocm6.2.4"
  std::optional<TorchBuild> torch_build;
  std::optional<LogFact> torch_build_evidence;  ///< the line the build was told by
  std::optional<LogFact> torchvision;
  std::optional<LogFact> torchaudio;
  std::optional<LogFact> rocm;           ///< a ROCm/HIP version ("6.2.41133-dd7f95766")
  std::vector<LogFact> overrides;        ///< HSA_OVERRIDE_GFX_VERSION[_N] values
  std::optional<LogFact> site_packages;  ///< torch's site-packages directory (from a path)
  std::optional<LogFact> python;         ///< the Python version, major.minor ("3.12")
  /// The packages of pip freeze / pip list / collect_env's "[pip3]" and "[conda]" lines, each
  /// once: `name` is the normalised distribution name ("flash-attn"), `value` its version.
  std::vector<LogFact> packages;
  std::size_t packages_left_out = 0;  ///< rows past k_max_log_packages
  /// An NVIDIA GPU in the machine of the log (lspci's "[10de:…]" display controller, collect_env's
  /// "Nvidia driver version", nvidia-smi's banner): CUDA packages may then be for it.
  std::optional<LogFact> nvidia_gpu;
  /// The log was taken in a container: the line that says so ("docker run … --device=/dev/kfd",
  /// "podman run", a pod's kubectl); its value is the runtime ("docker", "podman", "kubernetes").
  std::optional<LogFact> container;
  /// The tool outputs the text holds, each once, at the first line that shows it: its value is
  /// the tool ("collect_env", "rocminfo", "amd-smi", "rocm-smi", "pip freeze", "pip list",
  /// "lspci -nn", "a kernel log (dmesg, journalctl -k)", "a Python traceback", "a container
  /// runtime's error").
  std::vector<LogFact> tools;
};

/// A signature of the rules and the lines it matched.
struct SignatureHit {
  const TriageSignature* signature = nullptr;
  std::vector<LogLine> lines;  ///< the first k_max_quoted_lines
  std::size_t count = 0;       ///< every matching line
};

/// The log read once: facts and signature matches. Pure: no file, no environment.
struct LogScan {
  std::size_t bytes = 0;
  std::size_t lines = 0;
  std::size_t cut_lines = 0;  ///< lines longer than k_max_triage_line, read up to it
  LogFacts facts;
  std::vector<SignatureHit> hits;  ///< in the rules' order
};

/// Reads a log: splits it into lines (LF, CRLF), cuts long lines, finds the signatures of
/// `knowledge` (plain substrings, ASCII case ignored) and the facts. Never throws on any input.
/// `markers` reads only the lines that hold a signature's match string or a word a fact is read
/// from (one pass over the text for all of them); `every_line` reads each line, for tests that
/// show both give the same scan.
enum class LineFilter { markers, every_line };

class LiteralSearch;

/// The signatures of `knowledge` and the words of the fact readers, compiled for the one search:
/// built once, it scans any number of logs (the fuzz harness builds one for all its inputs).
/// `knowledge` must outlive it.
class LogMatcher {
 public:
  explicit LogMatcher(const Knowledge& knowledge);
  ~LogMatcher();
  LogMatcher(const LogMatcher&) = delete;
  LogMatcher& operator=(const LogMatcher&) = delete;

  const Knowledge& knowledge() const { return *knowledge_; }

 private:
  friend LogScan scan_log(std::string_view, const LogMatcher&, LineFilter);
  const Knowledge* knowledge_;
  /// Per signature: its match strings and its `with` strings, lower-cased.
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> needles_;
  std::vector<std::size_t> owner_;  ///< the signature of each match string, by literal index
  std::unique_ptr<LiteralSearch> search_;
};

LogScan scan_log(std::string_view text, const LogMatcher& matcher,
                 LineFilter filter = LineFilter::markers);
/// The same with a matcher built for this one log.
LogScan scan_log(std::string_view text, const Knowledge& knowledge,
                 LineFilter filter = LineFilter::markers);

/// Line `number` of a log, quoted short and printable for a finding's evidence.
LogLine quote(std::size_t number, std::string_view line);

/// What triage says about one check id.
struct TriageFinding {
  std::string check;  ///< a check id of the check table
  std::string title;  ///< the check table's title
  std::string area;   ///< the check table's area ("Kernel driver")
  Status status = Status::warn;
  Severity severity = Severity::info;
  std::string message;
  std::vector<std::string> signatures;  ///< ids of the signatures that matched
  std::vector<LogLine> lines;           ///< the lines it rests on, in log order
  std::size_t matched_lines = 0;        ///< lines matched by its signatures
  std::vector<Fix> fix;
  FixOrder fix_order = FixOrder::steps;
  /// The fix is the one `rocdoc check` gives for the facts of the log (else the rules' text).
  bool fix_from_facts = false;
  std::vector<std::string> sources;
};

/// Something the text does not establish, so nothing about it was judged.
struct NotInLog {
  std::string id;    ///< "gpu", "torch", "rocm", "kernel-log"
  std::string what;  ///< "the GPU: no gfx target or product name"
};

struct TriageReport {
  LogScan scan;
  std::vector<TriageFinding> findings;  ///< in the check table's order
  std::vector<NotInLog> not_in_log;
  std::size_t signatures = 0;  ///< how many signatures the text was matched against
};

/// Scans the log and judges it: signatures become findings of their check ids; the facts (GPU
/// targets, torch build, override) are judged by the same check functions as `rocdoc check`
/// in GPU-less mode, whose fixes replace the rules' text. Throws RulesError when a signature
/// names a check id that is not in the check table (possible only with --rules DIR).
TriageReport triage_log(std::string_view text, const Knowledge& knowledge);
/// The same with a matcher built once for many logs (of the same knowledge).
TriageReport triage_log(std::string_view text, const LogMatcher& matcher);

/// Throws RulesError when a triage signature names a check id that the check table lacks.
void check_triage_signatures(const Knowledge& knowledge);

/// 0: nothing at or above `fail_on`; 1: something is.
int triage_exit_code(const TriageReport& report, FailOn fail_on);

/// The whole input of `rocdoc triage`: FILE, or standard input for "-". On failure, the
/// problem in words (naming the file and, when it is too large, the limit).
struct TriageInput {
  std::string text;
  std::optional<std::string> problem;
};
TriageInput read_triage_input(const std::string& path);

}  // namespace rocdoc
