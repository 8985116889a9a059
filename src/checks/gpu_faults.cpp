// driver.gpu-faults: the faults this boot's kernel log and the GPUs' RAS counters show.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "src/checks/checks.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

/// Lines of evidence quoted per kind of fault: a reset prints a dozen, a page fault storm
/// thousands.
constexpr std::size_t k_lines_per_kind = 6;

/// Lines of one fault printed further apart than this are two faults.
constexpr double k_same_fault_seconds = 10;

/// "[  312.522692] amdgpu …" → "312.522692"; "" for a line without dmesg's time.
std::string_view time_of(std::string_view line) {
  const auto close = line.find(']');
  if (line.empty() || line.front() != '[' || close == std::string_view::npos) {
    return "";
  }
  return util::trim(line.substr(1, close - 1));
}

std::optional<double> seconds_of(std::string_view line) {
  const std::string_view time = time_of(line);
  const auto dot = time.find('.');
  const auto whole = util::parse_unsigned(time.substr(0, dot));
  const auto micros = dot == std::string_view::npos ? std::optional<std::uint64_t>(0)
                                                    : util::parse_unsigned(time.substr(dot + 1));
  if (!whole || !micros) {
    return std::nullopt;
  }
  return static_cast<double>(*whole) + static_cast<double>(*micros) / 1e6;
}

bool has(const std::string& line, std::string_view text) {
  return util::to_lower(line).find(text) != std::string::npos;
}

struct FaultKind {
  KernelEventKind kind;
  std::string_view one;   ///< "GPU reset"
  std::string_view many;  ///< "GPU resets"
  /// The line that starts one fault of this kind; without one, lines printed within
  /// k_same_fault_seconds of each other are one fault.
  std::string_view start;
};

constexpr FaultKind k_kinds[] = {
    {KernelEventKind::gpu_reset, "GPU reset or ring timeout", "GPU resets or ring timeouts",
     "reset begin"},
    {KernelEventKind::vm_fault, "GPU page fault", "GPU page faults", "page fault"},
    {KernelEventKind::scheduler_hang, "MES/KIQ hang", "MES/KIQ hangs", ""},
    {KernelEventKind::ras_error, "RAS/ECC error", "RAS/ECC errors", ""},
};

struct Seen {
  std::size_t count = 0;
  std::vector<std::string> lines;
};

Seen seen_in_log(const KernelLogFacts& log, const FaultKind& kind) {
  Seen seen;
  std::size_t starts = 0;
  std::size_t bursts = 0;
  std::optional<double> previous;
  for (const auto& event : log.events) {
    if (event.kind != kind.kind) {
      continue;
    }
    seen.lines.push_back(event.line);
    starts += !kind.start.empty() && has(event.line, kind.start) ? 1 : 0;
    const auto now = seconds_of(event.line);
    bursts += !now || !previous || *now - *previous > k_same_fault_seconds ? 1 : 0;
    previous = now;
  }
  seen.count = starts > 0 ? starts : bursts;
  return seen;
}

/// Whether the last GPU reset of the log ended with the GPU working again.
bool last_reset_recovered(const std::vector<std::string>& lines) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (has(*it, "succeeded") || has(*it, "recovered")) {
      return true;
    }
    if (has(*it, "reset begin") || has(*it, "timeout") || has(*it, "failed")) {
      return false;
    }
  }
  return false;
}

std::string counted(std::size_t count, const FaultKind& kind) {
  return fmt::format("{} {}", count, count == 1 ? kind.one : kind.many);
}

/// The GPUs' own counters: uncorrectable errors by block, retired pages.
std::vector<std::string> ras_problems(const CheckContext& context,
                                      std::vector<std::string>& evidence) {
  std::vector<std::string> problems;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.pci == nullptr || gpu.pci->ras.empty()) {
      continue;
    }
    std::uint64_t uncorrectable = 0;
    std::vector<std::string> blocks;
    for (const auto& [block, count] : gpu.pci->ras) {
      evidence.push_back(fmt::format("{}: ras/{}_err_count ue {} ce {}", describe(gpu), block,
                                     count.uncorrectable, count.correctable));
      uncorrectable += count.uncorrectable;
      if (count.uncorrectable > 0) {
        blocks.push_back(fmt::format("{} {}", block, count.uncorrectable));
      }
    }
    if (uncorrectable > 0) {
      problems.push_back(fmt::format("{} counts {} uncorrectable ECC error{} ({})", describe(gpu),
                                     uncorrectable, uncorrectable == 1 ? "" : "s",
                                     util::join(blocks, ", ")));
    }
    if (gpu.pci->bad_pages && *gpu.pci->bad_pages > 0) {
      problems.push_back(fmt::format("{} has retired {} VRAM page{} for errors", describe(gpu),
                                     *gpu.pci->bad_pages, *gpu.pci->bad_pages == 1 ? "" : "s"));
    }
  }
  // --deep: amd-smi's totals (else rocm_smi's UMC counts), where the ras/ files above were not
  // readable.
  const auto& runtime = context.facts.runtime;
  const SmiRuntimeFacts* smi = !runtime                                          ? nullptr
                               : runtime->amdsmi && runtime->amdsmi->load.loaded ? &*runtime->amdsmi
                               : runtime->smi                                    ? &*runtime->smi
                                                                                 : nullptr;
  if (smi == nullptr || !problems.empty()) {
    return problems;
  }
  const std::string_view library = runtime->smi && smi == &*runtime->smi ? "rocm_smi" : "amd-smi";
  for (const auto& device : smi->devices) {
    if (!device.ecc_uncorrectable) {
      continue;
    }
    const std::string name = device.market_name.value_or(fmt::format("GPU {}", device.index));
    evidence.push_back(fmt::format("{}: {}: ECC {} correctable, {} uncorrectable", library, name,
                                   device.ecc_correctable.value_or(0), *device.ecc_uncorrectable));
    if (*device.ecc_uncorrectable > 0) {
      problems.push_back(fmt::format("{} counts {} uncorrectable ECC error{} on {}", library,
                                     *device.ecc_uncorrectable,
                                     *device.ecc_uncorrectable == 1 ? "" : "s", name));
    }
  }
  return problems;
}

/// Where a fault of the kernel driver is reported: AMD's DKMS driver is ROCm's, the kernel's own
/// amdgpu is the kernel's.
Fix report_fix(const CheckContext& context) {
  const bool dkms = context.facts.driver && context.facts.driver->dkms.has_value();
  return {dkms ? "Report it with that file to ROCm (AMD's DKMS driver is installed): "
                 "https://github.com/ROCm/ROCm/issues"
               : "Report it with that file to the amdgpu kernel driver's tracker (the kernel's "
                 "own driver is in use): https://gitlab.freedesktop.org/drm/amd/-/issues",
          "", false, FixKind::manual};
}

}  // namespace

CheckResult driver_gpu_faults(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  std::vector<std::string> evidence;
  std::vector<std::string> problems = ras_problems(context, evidence);
  const auto& log = context.facts.kernel_log;
  const bool log_read = log && log->state == KernelLogFacts::State::read;
  bool only_one_recovered_reset = problems.empty();
  std::size_t kinds_seen = 0;
  if (log_read) {
    for (const FaultKind& kind : k_kinds) {
      const Seen seen = seen_in_log(*log, kind);
      if (seen.count == 0) {
        continue;
      }
      ++kinds_seen;
      std::string problem = counted(seen.count, kind);
      const std::string_view first = time_of(seen.lines.front());
      const std::string_view last = time_of(seen.lines.back());
      if (!first.empty()) {
        problem += seen.count == 1 || first == last
                       ? fmt::format(" at {} s", first)
                       : fmt::format(" between {} s and {} s", first, last);
      }
      const bool recovered =
          kind.kind == KernelEventKind::gpu_reset && last_reset_recovered(seen.lines);
      if (recovered) {
        problem += ", recovered";
      }
      only_one_recovered_reset = only_one_recovered_reset &&
                                 kind.kind == KernelEventKind::gpu_reset && seen.count == 1 &&
                                 recovered;
      problems.push_back(std::move(problem));
      for (std::size_t i = 0; i < seen.lines.size() && i < k_lines_per_kind; ++i) {
        evidence.push_back("kernel log: " + seen.lines[i]);
      }
      if (seen.lines.size() > k_lines_per_kind) {
        evidence.push_back(fmt::format("kernel log: … {} more line{} of this kind",
                                       seen.lines.size() - k_lines_per_kind,
                                       seen.lines.size() - k_lines_per_kind == 1 ? "" : "s"));
      }
    }
  }
  if (problems.empty()) {
    if (!log_read && evidence.empty()) {
      return skip(log && log->state == KernelLogFacts::State::unreadable
                      ? "the kernel log is not readable here (" + log->error +
                            "); `sudo rocdoc check` reads it"
                      : "no kernel log was read (a --sysroot image, or a snapshot without one)");
    }
    return pass(log_read ? "no GPU fault in this boot's kernel log"
                         : "no uncorrectable error in the GPUs' RAS counters",
                evidence);
  }
  const Severity severity =
      only_one_recovered_reset && kinds_seen == 1 ? Severity::warning : Severity::error;
  std::vector<Fix> fix = {
      {"Capture this machine for a report: the snapshot keeps these kernel log lines, the "
       "firmware versions and the RAS counters",
       "rocdoc snapshot --redact", false},
      report_fix(context)};
  return finding(severity, "the GPU faulted this boot: " + util::join(problems, "; "), evidence,
                 fix);
}

}  // namespace rocdoc::checks
