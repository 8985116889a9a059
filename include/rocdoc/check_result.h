// What a check returns and its entry in the check table: plain data, which the Report holds
// and renderers read (they never see the facts' Host or the knowledge base).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocdoc {

struct CheckContext;  // check.h: what a check reads

enum class Severity { info, warning, error };
enum class Status { pass, warn, fail, skip };

/// What a fix's `command` is, so a pipeline can tell a shell line from a docker flag.
enum class FixKind {
  shell,            ///< a command to type in a shell
  container_flag,   ///< a flag for the container runtime (`docker run --group-add 110`)
  kernel_argument,  ///< a kernel command-line change: the shell line that makes it in the boot
                    ///< loader
  file_edit,        ///< a line to put in (or take out of) a file; `command` shows how
  manual,           ///< an action with no command (`command` is empty)
};

/// A fix to apply by hand; rocdoc never runs it.
struct Fix {
  std::string description;
  std::string
      command;  ///< exact and copy-pasteable; empty when the fix is an action, not a command
  bool needs_root = false;
  FixKind kind = FixKind::shell;  ///< manual when `command` is empty (the runner makes it so)
  bool needs_reboot = false;      ///< takes effect only after a reboot
  bool needs_relogin = false;     ///< takes effect only in a new login session
};

/// How the fixes of one finding relate: steps to take in order, or alternatives (any one).
enum class FixOrder { steps, alternatives };

struct CheckResult {
  Status status = Status::pass;
  Severity severity = Severity::info;  ///< of this finding; meaningful for warn and fail
  std::string message;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  FixOrder fix_order = FixOrder::steps;
  /// Ids of the findings this one follows from (no /dev/kfd access → no render node access);
  /// empty for a root cause. Set by the runner after every check ran
  /// (src/pipeline/root_causes.cpp).
  std::vector<std::string> caused_by;
};

/// Where a check applies: bare-metal checks are skipped on WSL, where the GPU is reached
/// through /dev/dxg instead of amdgpu, /dev/kfd and the PCI bus.
enum class Scope { anywhere, bare_metal };

/// What a check judges: the installed software (torch, ROCm, overrides, variables), or the
/// machine itself (hardware, driver, permissions, tuning, or anything that needs the real
/// devices). GPU-less mode (`--gpu`) judges the software against the declared GPUs and skips
/// the machine checks; the code checks judge a scanned source tree and run only with --scan.
enum class Judges {
  software,
  machine,
  code,  ///< the source tree of `check --scan DIR`: these checks run only then
};

struct CheckInfo {
  std::string_view id;
  std::string_view area;
  std::string_view title;
  Severity severity;  ///< default severity from CHECKS.md
  Scope scope;
  Judges judges;
  std::vector<std::string_view> needs;  ///< probe names whose facts the check reads
  CheckResult (*run)(const CheckContext&);
};

std::string_view to_string(Severity severity);
std::string_view to_string(Status status);
std::string_view to_string(FixKind kind);
std::string_view to_string(FixOrder order);

}  // namespace rocdoc
