// torch.smoke (--smoke): what each torch did when its interpreter ran it on the GPUs
// (src/runtime/smoke.py): imported, saw the GPUs the kernel shows, and computed what the CPU
// computes. Each failure names the check that explains it where one does.
#include <fmt/format.h>

#include <algorithm>

#include "rocdoc/gfx_target.h"
#include "src/checks/checks.h"
#include "src/checks/visible_devices.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

struct Problem {
  std::string message;
  std::vector<Fix> fix;
};

std::string torch_label(const SmokeResult& result) {
  std::string build = result.hip    ? fmt::format("HIP {}", *result.hip)
                      : result.cuda ? fmt::format("CUDA {}", *result.cuda)
                                    : std::string("CPU-only");
  return fmt::format("torch {} ({}) run by {}", result.torch_version.value_or("?"), build,
                     result.target.interpreter);
}

std::string at_step(const SmokeResult& result) {
  return result.last_step ? fmt::format(" (at step \"{}\")", *result.last_step) : "";
}

Fix runtime_fix() {
  return {"See whether the GPU runs work without torch (the runtime alone)",
          "rocdoc check --deep --only runtime.hip-init,runtime.compute", false};
}

bool mentions(std::string_view text, std::initializer_list<std::string_view> words) {
  const std::string lower = util::to_lower(text);
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view word) { return lower.find(word) != std::string::npos; });
}

/// The fix for a Python error, by what it says.
std::vector<Fix> error_fixes(std::string_view message) {
  if (mentions(message, {"invalid device function", "no kernel image", "no binary for gpu",
                         "hipErrorNoBinaryForGpu"})) {
    return {{"The wheel has no code for this GPU's target: see which build has it",
             "rocdoc check --only torch.arch-missing,arch.unsupported", false}};
  }
  if (mentions(message, {"out of memory"})) {
    return {{"See which processes hold the GPU's memory, and end them", "amd-smi process", false}};
  }
  return {runtime_fix()};
}

/// Why torch sees no GPU, by its build and what the kernel shows.
Problem unavailable(const CheckContext& context, const SmokeResult& result) {
  std::string why;
  std::vector<Fix> fix;
  if (!result.hip && !result.cuda) {
    why = "it is a CPU-only build, with no GPU code";
    fix = {{"Install a ROCm build of torch (rocdoc names the one for this machine)",
            "rocdoc check --only torch.cpu-wheel,torch.not-found", false}};
  } else if (result.cuda && !context.amd_gpus.empty()) {
    why = "it is a CUDA build, which cannot use AMD GPUs";
    fix = {{"Replace it with a ROCm build (rocdoc names the one for this machine)",
            "rocdoc check --only torch.cuda-wheel", false}};
  } else {
    why = "it found no GPU it may use";
    fix = {{"Check the GPU's permissions and the visible-device variables",
            "rocdoc check --only 'perm.*,env.visible-devices'", false},
           runtime_fix()};
  }
  std::string message =
      fmt::format("{}: torch.cuda.is_available() is False: {}", torch_label(result), why);
  if (!result.warnings.empty()) {
    message += fmt::format(" (torch: \"{}\")", util::excerpt(result.warnings.front(), 160));
  }
  return {message, fix};
}

std::string processor_of(std::string_view arch) { return std::string(target_processor(arch)); }

/// The device's tests as one row of the report's table.
std::string device_row(const SmokeDevice& device) {
  std::vector<std::string> cells;
  double seconds = 0;
  for (const auto& test : device.tests) {
    cells.push_back(test.name + " " + test.status);
    seconds += test.seconds.value_or(0);
  }
  return fmt::format(
      "cuda:{}  {}  {}  {}  {:.2f} s", device.index, device.name.empty() ? "?" : device.name,
      device.arch.empty() ? "?" : processor_of(device.arch), util::join(cells, "  "), seconds);
}

/// What a device's tests found wrong, if anything.
std::optional<Problem> device_problem(const SmokeResult& result, const SmokeDevice& device) {
  for (const auto& test : device.tests) {
    const std::string where =
        fmt::format("{}: on cuda:{} ({}, {})", torch_label(result), device.index, device.name,
                    device.arch.empty() ? "?" : processor_of(device.arch));
    const std::string what = test.name == "alloc"    ? "a 64 MiB allocation"
                             : test.name == "conv2d" ? "a conv2d"
                                                     : "a " + test.name + " matrix product";
    if (test.status == "failed") {
      // The first line: torch's errors go on with advice that is not about this machine.
      const std::string message =
          test.exception ? test.exception->message.substr(0, test.exception->message.find('\n'))
                         : "an exception";
      return Problem{fmt::format("{}, {} raised {}", where, what, util::excerpt(message, 300)),
                     error_fixes(message)};
    }
    if (test.status == "wrong") {
      return Problem{fmt::format("{}, {} differs from the CPU's result by {:.3g} of its largest "
                                 "value (at most {:.3g} expected)",
                                 where, what, test.error.value_or(0), test.tolerance.value_or(0)),
                     {runtime_fix()}};
    }
  }
  return std::nullopt;
}

/// torch (a ROCm build) against the AMD GPUs the kernel shows, after the masks, and against
/// the targets it was built for.
std::optional<Problem> rocm_view_problem(const CheckContext& context, const SmokeResult& result) {
  if (!result.hip) {
    return std::nullopt;
  }
  const DeviceView view = compose_visible_devices(context);
  const int expected = static_cast<int>(view.hip_devices.size());
  if (result.device_count && *result.device_count != expected && !view.hip_devices.empty()) {
    return Problem{fmt::format("{}: torch sees {} GPU(s), the kernel shows {} it should see",
                               torch_label(result), *result.device_count, expected),
                   {{"Compare the masks and the kernel's view",
                     "rocdoc check --only env.visible-devices --deep", false}}};
  }
  for (const auto& device : result.devices) {
    const std::string target = processor_of(device.arch);
    if (target.empty() || result.arch_list.empty()) {
      continue;
    }
    const bool listed =
        std::any_of(result.arch_list.begin(), result.arch_list.end(),
                    [&](const std::string& a) { return processor_of(a) == target; });
    if (!listed) {
      return Problem{fmt::format("{}: cuda:{} is {}, which torch.cuda.get_arch_list() lacks ({})",
                                 torch_label(result), device.index, target,
                                 util::join(result.arch_list, ", ")),
                     {{"The wheel has no code for this GPU's target: see which build has it",
                       "rocdoc check --only torch.arch-missing,arch.unsupported", false}}};
    }
  }
  return std::nullopt;
}

std::optional<Problem> run_problem(const CheckContext& context, const SmokeResult& result,
                                   double timeout) {
  const std::string& who = result.target.interpreter;
  switch (result.ending) {
    case ChildEnding::not_started:
      return Problem{fmt::format("{} could not be run: {}", who, result.error), {}};
    case ChildEnding::timed_out:
      return Problem{fmt::format("{} did not finish torch's smoke test within {:g} s{}; its "
                                 "process group was killed",
                                 who, timeout, at_step(result)),
                     {runtime_fix()}};
    case ChildEnding::signaled:
      return Problem{fmt::format("{} crashed: killed by {}{}", who,
                                 result.signal.value_or("a signal"), at_step(result)),
                     {runtime_fix()}};
    case ChildEnding::exited:
      break;
  }
  if (result.import_error) {
    return Problem{fmt::format("{}: import torch failed: {}", who,
                               util::excerpt(result.import_error->message, 300)),
                   {{"See what rocdoc finds wrong with this torch",
                     "rocdoc check --only 'torch.*,wsl.*'", false}}};
  }
  if (!result.document || result.unreadable) {
    return Problem{fmt::format("{} gave no result: {}{}{}", who,
                               result.unreadable.value_or("nothing readable"),
                               result.exit_status && *result.exit_status != 0
                                   ? fmt::format(" (exit status {})", *result.exit_status)
                                   : "",
                               at_step(result)),
                   {runtime_fix()}};
  }
  if (result.available_error) {
    return Problem{fmt::format("{}: torch.cuda.is_available() raised {}", torch_label(result),
                               util::excerpt(result.available_error->message, 300)),
                   {runtime_fix()}};
  }
  if (result.available != true) {
    return unavailable(context, result);
  }
  if (auto problem = rocm_view_problem(context, result)) {
    return problem;
  }
  for (const auto& device : result.devices) {
    if (auto problem = device_problem(result, device)) {
      return problem;
    }
  }
  return std::nullopt;
}

}  // namespace

CheckResult torch_smoke(const CheckContext& context) {
  if (!context.facts.smoke) {
    return skip("run with --smoke to run torch on the GPUs");
  }
  const SmokeFacts& smoke = *context.facts.smoke;
  if (smoke.results.empty()) {
    return skip("no Python environment with torch was found to run");
  }
  std::vector<std::string> evidence;
  std::vector<Problem> problems;
  std::size_t devices = 0;
  for (const auto& result : smoke.results) {
    evidence.push_back(fmt::format(
        "{} ({} s{})", result.torch_version ? torch_label(result) : result.target.interpreter,
        fmt::format("{:.1f}", result.seconds),
        result.network_isolated == true ? ", without network" : ""));
    for (const auto& device : result.devices) {
      evidence.push_back("  " + device_row(device));
      ++devices;
    }
    if (auto problem = run_problem(context, result, smoke.timeout_seconds)) {
      problems.push_back(std::move(*problem));
    }
  }
  if (problems.empty()) {
    return pass(fmt::format("torch ran on {} GPU{} in {} environment{}: every product and "
                            "convolution matched the CPU's",
                            devices, devices == 1 ? "" : "s", smoke.results.size(),
                            smoke.results.size() == 1 ? "" : "s"),
                std::move(evidence));
  }
  std::string message = problems.front().message;
  if (problems.size() > 1) {
    message = fmt::format("{} of {} torch environments failed; the first: {}", problems.size(),
                          smoke.results.size(), message);
  }
  return finding(Severity::error, message, std::move(evidence), problems.front().fix);
}

}  // namespace rocdoc::checks
